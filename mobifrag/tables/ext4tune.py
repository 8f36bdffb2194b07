"""Ext4 tuning (seed 004, Figs. 1, 2, 3, 5): one row per (configuration, repetition,
benchmark workload) of `jobs/ext4tune-bench.sh` runs, normalized to the `default`
configuration of the same repetition.

    python -m mobifrag.tables.ext4tune --run default 1 RUN_DIR --run tuned 1 RUN_DIR ... \
        --model RESULTS/ext4tune/runs/default/rep-1/model/phases.json ... \
        --table bench.csv --configs configs.csv

`bench.csv`: each workload — IOzone's four tests (one IOzone run each, iozone/<test>.txt:
sequential write and read with 256 KiB records, random write and read with 4 KiB
records, one process), FFSB's four tests run by filebench
(benchmarks/filebench/ffsb-<mix>.f; the rate is per thread: the paper's metric is data
per second per thread), Postmark's reads and its writes (one run, two rows) — judged on
the device model: the job traced every run (blktrace/iozone-<test>/,
blktrace/filebench-<mix>/, blktrace/postmark/), and rule ftl_replay_run replayed its
trace through ftl-sim on the device profile with the requests in flight the trace shows
and never fewer than one per thread (`--model`: each run's kept index). Columns: the
run's threads (its queue depth),
`workload_bytes` (what the benchmark moved in the row's direction: what IOzone reports
each process moved, "Min xfer", times its processes; filebench's count of whole-file
reads or writes in its summary times the fileset's file size in the workload it ran; the
bytes Postmark reports read or written), the trace's block requests, bytes read and
written and flushes (where the paper's mechanisms show: fewer metadata writes, fewer
barriers), `device_ms`, `modeled_ms` (device time + the profile's host overhead per
request), `modeled_mib_s` = workload bytes / threads / modeled time, `trace_mib_s` = the
trace's bytes in the row's direction / threads / modeled time (what the device moved),
and `modeled_normalized`, the modeled rate over the default configuration's. Postmark's
read and write rates share its one run's time, as Postmark's own report does, so their
ratios to the default differ only where its bytes do (read_bytes and write_bytes tell
them apart on the device). The emulator's wall time stays as a secondary series:
`wall_mib_s` (IOzone's throughput as it reports it, "Children see throughput" in KiB/s,
in MiB/s per process, the writes' fsync in it; filebench's bytes over the time its
threads spent in the file operations, from the latencies its summary reports; Postmark's
bytes over its wall time, postmark then sync) and `wall_normalized`.

`configs.csv`: what each configuration's first repetition really had — inode size, flex
group size, block groups (dumpe2fs), the mount options (/proc/mounts), the aged
utilization (df), and what the kernel said to journal_async_commit alone.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from mobifrag.measure.iozone import IozoneReportError, IozoneRun, iozone_run
from mobifrag.model import ftl
from mobifrag.model.run_phases import ModelIndexError, RunModels
from mobifrag.tables.repetitions import repetition
from mobifrag.workflow.atomic import write_table
from mobifrag.workloads.ext4tune import FILEBENCH_MIXES, IOZONE_TESTS

BASELINE = "default"
# The configuration that journal_async_commit and the tuned set are compared with: Linux
# refuses async commit under data=ordered, so both run data=writeback, and only a
# data=writeback reference isolates their own effect.
WRITEBACK = "writeback"
MIB = 1024 * 1024
# FFSB's tests (workloads.ext4tune.FILEBENCH_MIXES): the job keeps each as run in
# filebench/<mix>.f and filebench's output in filebench/<mix>.txt, and traces it as
# phase filebench-<mix>.
# The workers' file operations (flowop names of the workloads): the whole-file read or
# write that moves the data, and the time the threads spend working is theirs alone
# (not the start gate's wait).
FILEBENCH_DATA = {"write": "write1", "read": "read1"}
FILEBENCH_FILE_OPS = ("create1", "open1", "write1", "read1", "fsync1", "close1")
FILEBENCH_WORKERS = ("writer", "reader")
COLUMNS = ("config", "rep", "benchmark", "tool", "workload", "op", "threads", "workload_bytes")
COLUMNS += ("requests", "read_bytes", "write_bytes", "flushes", "device_ms", "modeled_ms")
COLUMNS += ("modeled_mib_s", "trace_mib_s", "modeled_normalized")
COLUMNS += ("wall_mib_s", "wall_normalized", "modeled_vs_writeback", "wall_vs_writeback")
POSTMARK_TRACE = "postmark"
CONFIG_COLUMNS = ("config", "inode_size", "flex_bg_size", "block_groups", "blocks_per_group")
CONFIG_COLUMNS += ("mount_options", "used_percent", "async_commit_alone")
POSTMARK_DATA = re.compile(
    r"([\d.]+) (bytes|kilobytes|megabytes|gigabytes) (read|written)", re.IGNORECASE
)
# postmark scales its byte counts by powers of 1024
UNITS = {"bytes": 1, "kilobytes": 1024, "megabytes": MIB, "gigabytes": 1024 * MIB}
# filebench's summary: one line per flowop of its Per-Operation Breakdown
FILEBENCH_FLOWOP = re.compile(
    r"^(?P<name>\S+)\s+(?P<ops>\d+)ops\s+[\d.]+ops/s\s+[\d.]+mb/s\s+(?P<ms>[\d.]+)ms/op\b"
)
FILEBENCH_FAILED = (
    "NO VALID RESULTS", "Run stopped early", "Unexpected Process termination", " failed",
    "syntax error", "Could not",
)  # fmt: skip
# filebench's sizes: a number with an optional k, m, g (powers of 1024)
FILEBENCH_SIZE = re.compile(r"^(\d+)([kmg]?)$", re.IGNORECASE)
FILEBENCH_UNITS = {"": 1, "k": 1024, "m": MIB, "g": 1024 * MIB}


class TuningTableError(RuntimeError):
    """A run that cannot be tabulated; the message names the file."""


def iozone_report(report: Path) -> IozoneRun:
    try:
        return iozone_run(report)
    except IozoneReportError as error:
        raise TuningTableError(str(error)) from None


def modeled_phase(models: RunModels, run: Path, phase: str) -> tuple[dict, int]:
    """(ftl-sim summary, queue depth) of one traced phase of a run."""
    try:
        return models.phase(run, phase)
    except ModelIndexError as error:
        raise TuningTableError(str(error)) from None


def iozone_rows(run: Path, models: RunModels) -> list[dict]:
    """IOzone's four tests, each one IOzone run (iozone/<test>.txt) and traced phase
    (iozone-<test>): the bytes its processes moved, their rate as IOzone reports it."""
    rows = []
    for test in IOZONE_TESTS:
        op = "write" if test.endswith("write") else "read"
        report = run / "iozone" / f"{test}.txt"
        done = iozone_report(report)
        moved = done.min_xfer_kib * 1024 * done.processes
        if moved <= 0:
            raise TuningTableError(f"{report}: IOzone's processes moved no data")
        summary, depth = modeled_phase(models, run, f"iozone-{test}")
        if depth != done.processes:
            raise TuningTableError(
                f"{report}: {done.processes} processes, modeled at queue depth {depth}"
            )
        rate = done.children_kib_s / 1024 / done.processes
        rows.append(_row("IOzone", "iozone", test, op, done.processes, moved, summary, rate))
    return rows


def filebench_summary(report: Path) -> dict[str, tuple[int, float]]:
    """Flowop name → (operations, mean ms per operation) of filebench's Per-Operation
    Breakdown; a report without a summary, or that says the run failed, is refused,
    naming the file and line."""
    try:
        lines = report.read_text().splitlines()
    except OSError as error:
        raise TuningTableError(f"{report}: {error}") from None
    flowops: dict[str, tuple[int, float]] = {}
    in_breakdown = summary = False
    for number, line in enumerate(lines, 1):
        if any(word in line for word in FILEBENCH_FAILED):
            raise TuningTableError(
                f"{report}:{number}: filebench reports a failure: {line.strip()}"
            )
        if line.endswith("Per-Operation Breakdown"):
            in_breakdown = True
            continue
        if "IO Summary:" in line:
            summary = True
            in_breakdown = False
            continue
        if in_breakdown:
            match = FILEBENCH_FLOWOP.match(line)
            if not match:
                raise TuningTableError(
                    f"{report}:{number}: not a flowop line of the breakdown: {line.strip()!r}"
                )
            flowops[match["name"]] = (int(match["ops"]), float(match["ms"]))
    if not summary or not flowops:
        raise TuningTableError(
            f"{report}: no 'Per-Operation Breakdown' and 'IO Summary' (did filebench finish?)"
        )
    return flowops


def filebench_size(text: str) -> int:
    match = FILEBENCH_SIZE.match(text)
    if not match:
        raise ValueError(f"size {text!r}")
    return int(match[1]) * FILEBENCH_UNITS[match[2].lower()]


def filebench_workload(workload: Path) -> dict[str, int]:
    """The fileset (file size, entries) and the worker threads of a workload as run."""
    try:
        lines = workload.read_text().splitlines()
    except OSError as error:
        raise TuningTableError(f"{workload}: {error}") from None
    found: dict[str, int] = {}
    for number, line in enumerate(lines, 1):
        words = line.split(maxsplit=2)
        if len(words) < 2 or words[0].startswith("#"):
            continue
        attrs = dict(a.split("=", 1) for a in words[-1].split(",") if "=" in a)
        try:
            if words[:2] == ["define", "fileset"]:
                if "file_bytes" in found:
                    raise ValueError("a second fileset")
                found["file_bytes"] = filebench_size(attrs["size"])
                found["files"] = int(attrs["entries"])
            elif words[0] == "thread" and attrs.get("name") in FILEBENCH_WORKERS:
                found["threads"] = int(attrs["instances"])
        except (KeyError, ValueError) as error:
            raise TuningTableError(
                f"{workload}:{number}: cannot read {error}: {line.strip()}"
            ) from None
    missing = {"file_bytes", "files", "threads"} - set(found)
    if missing:
        raise TuningTableError(
            f"{workload}: no fileset size and entries or worker thread instances"
            f" ({', '.join(sorted(missing))})"
        )
    return found


def filebench_rows(run: Path, models: RunModels) -> list[dict]:
    rows = []
    for mix in FILEBENCH_MIXES:
        op = "write" if mix.endswith("write") else "read"
        report, workload = run / "filebench" / f"{mix}.txt", run / "filebench" / f"{mix}.f"
        flowops = filebench_summary(report)
        work = filebench_workload(workload)
        data = FILEBENCH_DATA[op]
        done = flowops.get(data, (0, 0.0))[0]
        if done != work["files"]:
            raise TuningTableError(
                f"{report}: {data} counted {done} whole-file {op}s, the workload's fileset has"
                f" {work['files']} files ({workload})"
            )
        moved = done * work["file_bytes"]
        busy_s = (
            sum(ops * ms for name, (ops, ms) in flowops.items() if name in FILEBENCH_FILE_OPS)
            / 1000
        )
        if busy_s <= 0:
            raise TuningTableError(f"{report}: the file operations took no time")
        summary, depth = modeled_phase(models, run, f"filebench-{mix}")
        if depth != work["threads"]:
            raise TuningTableError(
                f"{workload}: {work['threads']} threads, modeled at queue depth {depth}"
            )
        # per thread: its share of the bytes over its share of the working time
        rate = moved / MIB / busy_s
        rows.append(_row("FFSB", "filebench", mix, op, work["threads"], moved, summary, rate))
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


def postmark_rows(run: Path, models: RunModels) -> list[dict]:
    wall = run / "postmark-wall-ns.txt"
    try:
        seconds = int(wall.read_text().strip()) / 1e9
    except (OSError, ValueError) as error:
        raise TuningTableError(f"{wall}: no wall time in ns ({error})") from None
    if seconds <= 0:
        raise TuningTableError(f"{wall}: wall time {seconds} s is not positive")
    moved = postmark_bytes(run / "postmark.txt")
    summary, _ = modeled_phase(models, run, POSTMARK_TRACE)
    return [
        _row("Postmark", "postmark", op, op, 1, moved[op], summary, moved[op] / MIB / seconds)
        for op in moved
    ]


def _row(
    benchmark: str, tool: str, workload: str, op: str, threads: int, moved: float,
    summary: dict, wall_rate: float,
) -> dict:  # fmt: skip
    """One workload: the benchmark's bytes of `op` and its run's modeled time (per
    thread: the threads ran side by side for the whole modeled time)."""
    modeled = ftl.modeled_seconds(summary)
    traced = summary["requests"][op]["bytes"]
    return {
        "benchmark": benchmark,
        "tool": tool,
        "workload": workload,
        "op": op,
        "threads": threads,
        "workload_bytes": f"{moved:.0f}",
        **ftl.phase_columns(summary),
        "modeled_mib_s": moved / threads / MIB / modeled,
        "trace_mib_s": traced / threads / MIB / modeled,
        "wall_mib_s": wall_rate,
    }


def run_rows(config: str, rep: str, run: Path, models: RunModels) -> list[dict]:
    """The rows of one configuration's run in one repetition."""
    rows = iozone_rows(run, models) + filebench_rows(run, models) + postmark_rows(run, models)
    return [{"config": config, "rep": rep, **row} for row in rows]


def _key(row: dict) -> tuple[str, str, str, str]:
    return row["rep"], row["benchmark"], row["tool"], row["workload"]


def normalize(rows: list[dict], baseline: str = BASELINE) -> list[dict]:
    """Every row with `modeled_normalized` and `wall_normalized`: its modeled and wall
    MiB/s over the baseline configuration's in the same repetition."""
    base = {_key(r): r for r in rows if r["config"] == baseline}
    if not base:
        raise TuningTableError(f"no '{baseline}' run to normalize to: add --run {baseline} DIR")
    writeback = {_key(r): r for r in rows if r["config"] == WRITEBACK}
    out = []
    for row in rows:
        key = _key(row)
        if key not in base:
            what = f"{' '.join(key[1:])} of repetition {key[0]}"
            raise TuningTableError(f"{row['config']}: {what} has no {baseline} value")
        reference, other = base[key], writeback.get(key)
        out.append(
            {
                **row,
                "modeled_normalized": row["modeled_mib_s"] / reference["modeled_mib_s"],
                "wall_normalized": row["wall_mib_s"] / reference["wall_mib_s"],
                "modeled_vs_writeback": ratio(row, other, "modeled_mib_s"),
                "wall_vs_writeback": ratio(row, other, "wall_mib_s"),
            }
        )
    return out


def ratio(row: dict, reference: dict | None, column: str) -> float | str:
    """The row's rate over the reference's, NA without a reference run."""
    return "NA" if reference is None else row[column] / reference[column]


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


RATES = ("modeled_mib_s", "trace_mib_s", "modeled_normalized", "wall_mib_s", "wall_normalized")
RATES += ("modeled_vs_writeback", "wall_vs_writeback")


AUTO_DA_ALLOC_COLUMNS = ("config", "rep", "phase", "calls")


def auto_da_alloc_rows(config: str, rep: str, run: Path) -> list[dict]:
    """auto_da_alloc's calls (ext4_alloc_da_blocks) in each measured phase of one run,
    from the job's auto-da-alloc.tsv (PHASE, calls)."""
    path = run / "auto-da-alloc.tsv"
    try:
        lines = path.read_text().splitlines()
    except OSError as error:
        raise TuningTableError(f"{path}: {error.strerror}") from None
    rows = []
    for number, line in enumerate(lines, 1):
        fields = line.split("\t")
        if len(fields) != 2 or not fields[1].isdigit():
            raise TuningTableError(f"{path}:{number}: not PHASE<tab>calls: {line!r}")
        rows.append({"config": config, "rep": rep, "phase": fields[0], "calls": fields[1]})
    if not rows:
        raise TuningTableError(f"{path}: no measured phase")
    return rows


def _rounded(row: dict) -> dict:
    return {**row, **{name: _number(row[name]) for name in RATES}}


def _number(value: float | str) -> str:
    return value if isinstance(value, str) else f"{value:.6g}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--run", nargs=3, action="append", metavar=("CONFIG", "REP", "DIR"))
    parser.add_argument(
        "--model", action="append", default=[], type=Path, metavar="INDEX",
        help="a run's phase models (mobifrag.model.run_phases), one per --run",
    )  # fmt: skip
    parser.add_argument("--table", type=Path, required=True)
    parser.add_argument("--configs", type=Path, required=True)
    parser.add_argument("--auto-da-alloc", type=Path, required=True)
    args = parser.parse_args(argv)
    try:
        if not args.run:
            raise TuningTableError("no --run CONFIG REP DIR given")
        runs = [(config, repetition(rep), Path(run)) for config, rep, run in args.run]
        models = RunModels(args.model)
        rows = [row for config, rep, run in runs for row in run_rows(config, rep, run, models)]
        # the file system each configuration made: the same in every repetition
        configs = [config_row(config, run) for config, rep, run in runs if rep == "1"]
        rows = normalize(rows)
        calls = [row for config, rep, run in runs for row in auto_da_alloc_rows(config, rep, run)]
    except (TuningTableError, ModelIndexError, argparse.ArgumentTypeError) as error:
        print(f"ext4tune_table: {error}", file=sys.stderr)
        return 1
    write_table(args.table, COLUMNS, [_rounded(r) for r in rows])
    write_table(args.configs, CONFIG_COLUMNS, configs)
    write_table(args.auto_da_alloc, AUTO_DA_ALLOC_COLUMNS, calls)
    return 0


if __name__ == "__main__":
    sys.exit(main())
