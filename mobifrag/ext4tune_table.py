"""Ext4 tuning (seed 004, Figs. 1, 2, 3, 5): one row per (configuration, benchmark
workload) of `jobs/ext4tune-bench.sh` runs, normalized to the `default` configuration.

    python -m mobifrag.ext4tune_table --run default RUN_DIR --run tuned RUN_DIR ... \
        --table bench.csv --configs configs.csv

`bench.csv`: MiB/s of each workload — fio standing in for IOzone and FFSB (the mean
over FFSB's threads: the paper's metric is data per second per thread), Postmark's bytes
read and written over its wall time (postmark, then sync) — and `normalized`, the value
over the default configuration's. `configs.csv`: what each run really had — inode size,
flex group size, block groups (dumpe2fs), the mount options (/proc/mounts), the aged
utilization (df), and what the kernel said to journal_async_commit alone.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

from mobifrag.fragment_tables import write_table

BASELINE = "default"
MIB = 1024 * 1024
# fio job file (benchmarks/fio/<stem>.fio) → the paper's benchmark it stands in for,
# and its measured sections (jobs of that name; drop-before-* jobs only clear caches).
FIO_BENCHMARKS = {
    "iozone": ("IOzone", ("seq-write", "seq-read", "rand-write", "rand-read")),
    "ffsb": ("FFSB", ("large-write", "large-read", "small-write", "small-read")),
}
COLUMNS = ("config", "benchmark", "tool", "workload", "op", "mib_s", "normalized")
CONFIG_COLUMNS = ("config", "inode_size", "flex_bg_size", "block_groups", "blocks_per_group")
CONFIG_COLUMNS += ("mount_options", "used_percent", "async_commit_alone")
POSTMARK_DATA = re.compile(
    r"([\d.]+) (bytes|kilobytes|megabytes|gigabytes) (read|written)", re.IGNORECASE
)
# postmark scales its byte counts by powers of 1024
UNITS = {"bytes": 1, "kilobytes": 1024, "megabytes": MIB, "gigabytes": 1024 * MIB}


class TuningTableError(RuntimeError):
    """A run that cannot be tabulated; the message names the file."""


def fio_jobs(report: Path) -> list[dict]:
    try:
        text = report.read_text()
        # fio writes its notes (prerun output files) into the report ahead of the JSON.
        return json.loads(text[text.find("{") :])["jobs"]
    except (OSError, ValueError, KeyError) as error:
        raise TuningTableError(f"{report}: no fio report ({error})") from None


def section_mib_s(report: Path, jobs: list[dict], section: str, op: str) -> float:
    """Mean MiB/s over the threads (jobs) of one section."""
    try:
        rates = [job[op]["bw_bytes"] / MIB for job in jobs if job["jobname"] == section]
    except (KeyError, TypeError) as error:
        raise TuningTableError(f"{report}: job {section}: no {op} rate ({error})") from None
    if not rates:
        raise TuningTableError(f"{report}: no job {section}")
    if min(rates) <= 0:
        raise TuningTableError(f"{report}: a {section} job moved no {op} data in fio's 1 ms")
    return sum(rates) / len(rates)


def fio_rows(run: Path) -> list[dict]:
    rows = []
    for stem, (benchmark, sections) in FIO_BENCHMARKS.items():
        report = run / "fio" / f"{stem}.json"
        jobs = fio_jobs(report)
        for section in sections:
            op = "write" if section.endswith("write") else "read"
            rate = section_mib_s(report, jobs, section, op)
            rows.append(_row(benchmark, "fio", section, op, rate))
    return rows


def postmark_bytes(report: Path) -> dict[str, float]:
    """Bytes read and written that postmark reports in its Data section."""
    try:
        text = report.read_text()
    except OSError as error:
        raise TuningTableError(f"{report}: {error}") from None
    found = {}
    for number, unit, direction in POSTMARK_DATA.findall(text.split("Data:")[-1]):
        found["read" if direction == "read" else "write"] = float(number) * UNITS[unit.lower()]
    if set(found) != {"read", "write"} or "Data:" not in text:
        raise TuningTableError(f"{report}: no 'Data:' section with bytes read and written")
    return found


def postmark_rows(run: Path) -> list[dict]:
    wall = run / "postmark-wall-ns.txt"
    try:
        seconds = int(wall.read_text().strip()) / 1e9
    except (OSError, ValueError) as error:
        raise TuningTableError(f"{wall}: no wall time in ns ({error})") from None
    if seconds <= 0:
        raise TuningTableError(f"{wall}: wall time {seconds} s is not positive")
    moved = postmark_bytes(run / "postmark.txt")
    return [_row("Postmark", "postmark", op, op, moved[op] / MIB / seconds) for op in moved]


def _row(benchmark: str, tool: str, workload: str, op: str, rate: float) -> dict:
    return {"benchmark": benchmark, "tool": tool, "workload": workload, "op": op, "mib_s": rate}


def run_rows(config: str, run: Path) -> list[dict]:
    return [{"config": config, **row} for row in fio_rows(run) + postmark_rows(run)]


def normalize(rows: list[dict], baseline: str = BASELINE) -> list[dict]:
    """Every row with `normalized` = its MiB/s over the baseline configuration's."""
    base = {(r["benchmark"], r["workload"]): r["mib_s"] for r in rows if r["config"] == baseline}
    if not base:
        raise TuningTableError(f"no '{baseline}' run to normalize to: add --run {baseline} DIR")
    out = []
    for row in rows:
        key = (row["benchmark"], row["workload"])
        if key not in base:
            raise TuningTableError(f"{row['config']}: {key[0]} {key[1]} has no {baseline} value")
        out.append({**row, "normalized": row["mib_s"] / base[key]})
    return out


def _field(text: str, name: str) -> str:
    match = re.search(rf"^{re.escape(name)}:\s*(\S+)", text, re.MULTILINE)
    return match.group(1) if match else ""


def config_row(config: str, run: Path) -> dict:
    try:
        dumpe2fs = (run / "mkfs.txt").read_text()
        mount = (run / "mount.txt").read_text().split()
        df = (run / "df.txt").read_text().splitlines()[-1].split()
    except (OSError, IndexError) as error:
        message = f"{run}: mkfs.txt, mount.txt or df.txt unreadable ({error})"
        raise TuningTableError(message) from None
    probe = run / "async-commit-probe.txt"
    try:
        blocks = int(_field(dumpe2fs, "Block count"))
        per_group = int(_field(dumpe2fs, "Blocks per group"))
    except ValueError:
        raise TuningTableError(f"{run / 'mkfs.txt'}: no block counts (dumpe2fs -h)") from None
    return {
        "config": config,
        "inode_size": _field(dumpe2fs, "Inode size"),
        "flex_bg_size": _field(dumpe2fs, "Flex block group size") or "none",
        "block_groups": -(-blocks // per_group),
        "blocks_per_group": per_group,
        "mount_options": mount[3] if len(mount) > 3 else "",
        "used_percent": df[4].rstrip("%") if len(df) > 4 else "",
        "async_commit_alone": probe.read_text().splitlines()[0] if probe.is_file() else "",
    }


def _rounded(row: dict) -> dict:
    return {**row, "mib_s": f"{row['mib_s']:.6g}", "normalized": f"{row['normalized']:.6g}"}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--run", nargs=2, action="append", metavar=("CONFIG", "DIR"))
    parser.add_argument("--table", type=Path, required=True)
    parser.add_argument("--configs", type=Path, required=True)
    args = parser.parse_args(argv)
    try:
        if not args.run:
            raise TuningTableError("no --run CONFIG DIR given")
        rows = [row for config, run in args.run for row in run_rows(config, Path(run))]
        configs = [config_row(config, Path(run)) for config, run in args.run]
        rows = normalize(rows)
    except TuningTableError as error:
        print(f"ext4tune_table: {error}", file=sys.stderr)
        return 1
    write_table(args.table, COLUMNS, [_rounded(r) for r in rows])
    write_table(args.configs, CONFIG_COLUMNS, configs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
