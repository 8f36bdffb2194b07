"""ftl-sim against FlashSim (TMC §5.3.3 replayed its block traces through FlashSim): the
same traces through both simulators at one matched configuration, compared.

    python -m mobifrag.model.flashsim_diff --ftl-sim ftl-sim/target/release/ftl-sim \
        --flashsim build/flashsim/flashsim-replay --conf model/flashsim/diff.conf \
        --trace NAME=BLKTRACE_DIR_OR_CSV ... --table diff.csv [--runs DIR]

The configuration (model/flashsim/diff.conf) is FlashSim's ssd.conf format; ftl-sim
imports it (`--flashsim-conf`, 7 % over-provisioning; `--flashsim-strict` refuses a key
neither knows, which would leave a default in place), so both have the same geometry,
flash timing and a page-mapped DFTL whose cached mapping table holds CACHE_DFTL_LIMIT
translation pages of entries. FlashSim runs through mobifrag's driver
(model/flashsim/replay.cpp), ftl-sim closed loop (`--arrivals closed`), so both serve one
request after another. What each trace becomes:

* the requests both simulate: reads and writes. Flushes (no device write cache in
  either) and trims (FlashSim's DFTL drops a trimmed page's entry from its cache where
  ftl-sim looks it up) are left out of both and counted.
* a preconditioning trace, uncounted in both: every page the requests touch written once
  in ascending order, so a read finds mapped data (ftl-sim does not charge reads of
  unmapped pages, FlashSim does); then reads of CACHE_DFTL_LIMIT x PAGE_SIZE pages
  beyond the trace's (at least as many entries as the cache holds; unwritten, so only
  their lookups count), so the requests start with a cold cache, the same in both.
* the device: PLANE_SIZE doubled until ftl-sim's logical space holds all of that.

Compared, per trace: requests (must be equal), map-cache hits and misses (must be equal:
both caches are entry LRUs over the same accesses), translation-page write-backs, whether
garbage collection ran in either, and device time. Device time is compared where no GC
ran (FlashSim's GC trigger is defective, ftl-sim/README.md) on a one-plane geometry
(ftl-sim overlaps operations on different planes and channels; the driver issues
FlashSim one page after another, as FlashSim's own uFLIP driver does): it must agree within
TOLERANCE once the one modelling difference is added to FlashSim's time — evicting a
dirty cached entry, ftl-sim reads the translation page and merges before programming it
(DFTL's write-back), FlashSim only programs it, so FlashSim's time + PAGE_READ_DELAY per
translation write-back. The raw difference is in the table too. A mismatch, or a time
outside the tolerance, is an error after the table is written.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

from mobifrag.workflow.atomic import write_table

OVER_PROVISIONING = 0.07  # devices/emulator-emmc.yaml
TOLERANCE = 0.01
SECTOR = 512

TABLE_COLUMNS = (
    "trace",
    "requests",
    "flashsim_requests",
    "flushes_left_out",
    "trims_left_out",
    "read_pages",
    "write_pages",
    "device_pages",
    "cache_entries",
    "ftl_sim_hits",
    "flashsim_hits",
    "ftl_sim_misses",
    "flashsim_misses",
    "hits_misses_equal",
    "ftl_sim_translation_writes",
    "flashsim_translation_writes",
    "gc_ran",
    "ftl_sim_device_ms",
    "flashsim_device_ms",
    "raw_difference_pct",
    "flashsim_with_merge_reads_ms",
    "difference_pct",
    "tolerance_pct",
    "time_within_tolerance",
)


class FlashSimDiffError(RuntimeError):
    """A trace or a simulator that cannot be compared, or a comparison that failed."""


def run(*command: object) -> str:
    done = subprocess.run([str(c) for c in command], capture_output=True, text=True)
    if done.returncode != 0:
        raise FlashSimDiffError(f"{Path(str(command[0])).name}: {done.stderr.strip()}")
    return done.stdout


def conf_values(text: str) -> dict[str, str]:
    """`KEY value` lines of an ssd.conf (FlashSim skips lines starting with #)."""
    values = {}
    for line in text.splitlines():
        fields = line.split()
        if len(fields) >= 2 and not line.startswith("#"):
            values[fields[0]] = fields[1]
    return values


def with_value(text: str, key: str, value: object) -> str:
    lines = [line for line in text.splitlines() if line.split()[:1] != [key]]
    return "\n".join([*lines, f"{key} {value}"]) + "\n"


def sized_conf(text: str, pages_needed: int) -> str:
    """The configuration with PLANE_SIZE doubled until ftl-sim's logical space (physical
    pages / 1.07) holds `pages_needed` pages."""
    values = conf_values(text)
    per_block = 1
    for key in ("SSD_SIZE", "PACKAGE_SIZE", "DIE_SIZE", "BLOCK_SIZE"):
        per_block *= int(values[key])
    blocks = int(values["PLANE_SIZE"])
    while int(blocks * per_block / (1 + OVER_PROVISIONING)) < pages_needed:
        blocks *= 2
    return with_value(text, "PLANE_SIZE", blocks)


def read_requests(path: Path) -> list[tuple[int, str, int, int]]:
    """(time_ns, op, sector, sectors) of ftl-sim's canonical CSV (`convert`)."""
    rows = []
    for line in path.read_text().splitlines()[1:]:
        time_ns, op, sector, sectors = line.split(",")[:4]
        rows.append((int(time_ns), op, int(sector), int(sectors)))
    return rows


def write_requests(path: Path, rows) -> None:
    lines = ["time_ns,op,sector,sectors"]
    lines += [f"{t},{op},{sector},{sectors}" for t, op, sector, sectors in rows]
    path.write_text("\n".join(lines) + "\n")


def pages_of(sector: int, sectors: int, page_sectors: int) -> range:
    return range(sector // page_sectors, -(-(sector + sectors) // page_sectors))


def prepare(ftl_sim: Path, trace: Path, values: dict[str, str], scratch: Path) -> dict:
    """The measured requests, the preconditioning trace and what was left out."""
    page_size = int(values["PAGE_SIZE"])
    fmt = "csv" if trace.is_file() else "blktrace"
    canonical = scratch / "all.csv"
    run(ftl_sim, "convert", "--format", fmt, "-o", canonical, trace)
    rows = read_requests(canonical)
    kept = [r for r in rows if r[1] in ("read", "write")]
    left_out = {op: sum(r[1] == op for r in rows) for op in ("flush", "trim", "remap")}
    if left_out["remap"]:
        raise FlashSimDiffError(f"{trace}: remaps cannot be compared (FlashSim has none)")
    if not kept:
        raise FlashSimDiffError(f"{trace}: no reads or writes to compare")
    page_sectors = page_size // SECTOR
    touched = sorted({p for _, _, s, n in kept for p in pages_of(s, n, page_sectors)})
    measured, pre = scratch / "requests.csv", scratch / "precondition.csv"
    write_requests(measured, kept)
    end = touched[-1] + 1
    cold = int(values["CACHE_DFTL_LIMIT"]) * page_size
    write_requests(
        pre,
        [(0, "write", p * page_sectors, page_sectors) for p in touched]
        + [(0, "read", p * page_sectors, page_sectors) for p in range(end, end + cold)],
    )
    pages = {
        op: sum(len(pages_of(s, n, page_sectors)) for _, o, s, n in kept if o == op)
        for op in ("read", "write")
    }
    return {
        "requests": measured,
        "precondition": pre,
        "count": len(kept),
        "pages": pages,
        "end_page": end + cold,
        "flushes": left_out["flush"],
        "trims": left_out["trim"],
    }


def percent(a: float, b: float) -> float:
    return 100.0 * (a - b) / b if b else 0.0


def compare(
    name: str, trace: Path, ftl_sim: Path, flashsim: Path, conf_text: str, scratch: Path
) -> tuple[dict, dict]:
    """One table row and both simulators' summaries for one trace."""
    values = conf_values(conf_text)
    prepared = prepare(ftl_sim, trace, values, scratch)
    conf = scratch / "ssd.conf"
    conf.write_text(sized_conf(conf_text, prepared["end_page"]))
    flash = json.loads(
        run(
            flashsim,
            "--conf",
            conf,
            "--precondition",
            prepared["precondition"],
            prepared["requests"],
        )
    )
    ours = json.loads(
        run(
            ftl_sim,
            "replay",
            "--flashsim-strict",  # a misspelt key would leave one simulator at a default
            "--flashsim-conf",
            conf,
            "--flashsim-op",
            OVER_PROVISIONING,
            "--format",
            "csv",
            "--precondition-trace",
            prepared["precondition"],
            "--precondition-format",
            "csv",
            "--arrivals",
            "closed",
            prepared["requests"],
        )
    )
    cache = ours["map_cache"]
    if cache["capacity_items"] != flash["config"]["cache_entries"]:
        raise FlashSimDiffError(
            f"{name}: ftl-sim caches {cache['capacity_items']} entries, FlashSim "
            f"{flash['config']['cache_entries']}: not a matched configuration"
        )
    gc_ran = flash["gc"]["ran"] or ours["gc"]["erases"] > 0
    one_plane = ours["device"]["parallel_units"] == 1
    ours_ms = ours["time"]["device_busy_us"] / 1000
    flash_ms = flash["time"]["device_us"] / 1000
    merge_ms = (
        flash["map_cache"]["translation_page_writes"] * float(values["PAGE_READ_DELAY"]) / 1000
    )
    difference = percent(ours_ms, flash_ms + merge_ms)
    equal = (cache["hits"], cache["misses"]) == (
        flash["map_cache"]["hits"],
        flash["map_cache"]["misses"],
    )
    row = {
        "trace": name,
        "requests": ours["replay"]["requests"],
        "flashsim_requests": flash["replay"]["requests"],
        "flushes_left_out": prepared["flushes"],
        "trims_left_out": prepared["trims"],
        "read_pages": prepared["pages"]["read"],
        "write_pages": prepared["pages"]["write"],
        "device_pages": flash["config"]["pages"],
        "cache_entries": flash["config"]["cache_entries"],
        "ftl_sim_hits": cache["hits"],
        "flashsim_hits": flash["map_cache"]["hits"],
        "ftl_sim_misses": cache["misses"],
        "flashsim_misses": flash["map_cache"]["misses"],
        "hits_misses_equal": "yes" if equal else "no",
        "ftl_sim_translation_writes": ours["translation"]["page_writes"],
        "flashsim_translation_writes": flash["map_cache"]["translation_page_writes"],
        "gc_ran": "yes" if gc_ran else "no",
        "ftl_sim_device_ms": f"{ours_ms:.6g}",
        "flashsim_device_ms": f"{flash_ms:.6g}",
        "raw_difference_pct": f"{percent(ours_ms, flash_ms):.4g}",
        "flashsim_with_merge_reads_ms": f"{flash_ms + merge_ms:.6g}",
        "difference_pct": f"{difference:.4g}",
        "tolerance_pct": f"{100 * TOLERANCE:g}",
        "time_within_tolerance": (
            "NA"
            if gc_ran or not one_plane
            else "yes"
            if abs(difference) <= 100 * TOLERANCE
            else "no"
        ),
    }
    return row, {"ftl-sim": ours, "flashsim": flash}


def failures(rows: list[dict]) -> list[str]:
    problems = []
    for r in rows:
        if r["requests"] != r["flashsim_requests"]:
            problems.append(
                f"{r['trace']}: {r['requests']} requests in ftl-sim, "
                f"{r['flashsim_requests']} in FlashSim"
            )
        if r["hits_misses_equal"] != "yes":
            problems.append(
                f"{r['trace']}: map-cache hits/misses {r['ftl_sim_hits']}/"
                f"{r['ftl_sim_misses']} in ftl-sim, {r['flashsim_hits']}/"
                f"{r['flashsim_misses']} in FlashSim"
            )
        if r["time_within_tolerance"] == "no":
            problems.append(
                f"{r['trace']}: device time {r['ftl_sim_device_ms']} ms in ftl-sim vs "
                f"{r['flashsim_with_merge_reads_ms']} ms in FlashSim with its missing merge "
                f"reads: {r['difference_pct']} %, beyond {r['tolerance_pct']} %"
            )
    return problems


def named_trace(text: str) -> tuple[str, Path]:
    name, sep, path = text.partition("=")
    if not sep or not name or not path:
        raise argparse.ArgumentTypeError(f"{text!r} is not NAME=PATH")
    return name, Path(path)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--ftl-sim", type=Path, required=True)
    parser.add_argument("--flashsim", type=Path, required=True)
    parser.add_argument("--conf", type=Path, required=True)
    parser.add_argument(
        "--trace",
        type=named_trace,
        action="append",
        required=True,
        help="NAME=PATH: a blktrace folder or a CSV trace",
    )
    parser.add_argument("--table", type=Path, required=True)
    parser.add_argument("--runs", type=Path, help="both summaries of every trace go here")
    args = parser.parse_args(argv)
    rows = []
    try:
        conf_text = args.conf.read_text()
        for name, trace in args.trace:
            with tempfile.TemporaryDirectory() as scratch:
                row, summaries = compare(
                    name, trace, args.ftl_sim, args.flashsim, conf_text, Path(scratch)
                )
            rows.append(row)
            if args.runs:
                for tool, summary in summaries.items():
                    out = args.runs / name / f"{tool}.json"
                    out.parent.mkdir(parents=True, exist_ok=True)
                    out.write_text(json.dumps(summary, indent=2) + "\n")
    except (FlashSimDiffError, OSError, json.JSONDecodeError) as error:
        print(f"flashsim_diff: {error}", file=sys.stderr)
        return 1
    write_table(args.table, TABLE_COLUMNS, rows)
    for row in rows:
        print(", ".join(f"{k}={row[k]}" for k in TABLE_COLUMNS), file=sys.stderr)
    problems = failures(rows)
    for problem in problems:
        print(f"flashsim_diff: {problem}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
