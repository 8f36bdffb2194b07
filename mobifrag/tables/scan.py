"""Scan time vs DoF (TMC §5.1, Fig. 9; §5.3.1): one row per repetition and aged state
of `jobs/scan.sh` runs, and per repetition a linear fit t = a·DoF + b.

    python -m mobifrag.tables.scan --run 1 REP1_DIR --run 2 REP2_DIR \
        --model 1 holes-000004k rep-1/model/holes-000004k/ftl_fill100_history_overlap.json ... \
        --table scan.csv --fit fit.csv

Times per row: `modeled_ms` (ftl-sim's device busy time for the captured read trace,
replayed with the requests in flight the trace shows — readahead submits a window's
requests together, 32 of them over 4 KiB pieces — on a device whose logical space was
written once, plus the profile's per-request host overhead; each replay is a job of rule
ftl_replay_phase, whose summary this module reads) and `wall_ms`
(the read's wall time where it ran: the emulator's guest, or the phone).
"""

from __future__ import annotations

import argparse
import csv
import re
import sys
from pathlib import Path

from scipy.stats import linregress

from mobifrag.measure.fragmentation import degree_of_fragmentation, fragments
from mobifrag.measure.snapshot import SnapshotError, read_snapshot
from mobifrag.model import ftl
from mobifrag.tables import repetitions
from mobifrag.workflow.atomic import write_table

TABLE_COLUMNS = ("rep", "trace", "hole_kib", "dof", "fragments", "requests", "device_ms")
TABLE_COLUMNS += ("modeled_ms", "wall_ms")
FIT_COLUMNS = ("rep", "time", "slope_ms_per_dof", "intercept_ms", "r2", "points")
HOLE_NAME = re.compile(r"holes-0*(\d+)k$")


class ScanError(RuntimeError):
    """A scan run that cannot be tabulated; the message names the file."""


def hole_kib(trace: str) -> int | str:
    match = HOLE_NAME.match(trace)
    return int(match.group(1)) if match else "NA"


def scanned_file_dof(snapshot_dir: Path) -> tuple[float, int]:
    snapshot = read_snapshot(snapshot_dir)
    if len(snapshot.extents) != 1:
        raise ScanError(f"{snapshot_dir}: expected one scanned file, found {len(snapshot.extents)}")
    (extents,) = snapshot.extents.values()
    return degree_of_fragmentation(extents, snapshot.fs_type) or 1.0, len(fragments(extents))


def read_summary(models: dict[tuple[str, str], Path], rep: str, phase: str) -> dict:
    """The ftl-sim summary of one scanned file's cold read (rule ftl_replay_phase)."""
    if (rep, phase) not in models:
        raise ScanError(
            f"no model replay of {phase} in repetition {rep} (give --model {rep} {phase} SUMMARY)"
        )
    return ftl.load_phase_replay(models[rep, phase])


def scan_rows(rep: str, run: Path, models: dict[tuple[str, str], Path]) -> list[dict[str, object]]:
    """The rows of one repetition's run."""
    times = run / "scan.tsv"
    if not times.is_file():
        raise ScanError(f"{times} is missing: the scan job did not finish")
    with open(times, newline="") as handle:
        rows = list(csv.DictReader(handle, delimiter="\t"))
    table = []
    for row in rows:
        name = row["trace"]
        dof, pieces = scanned_file_dof(run / "snapshots" / name)
        summary = read_summary(models, rep, name)
        table.append(
            {
                "rep": rep,
                "trace": name,
                "hole_kib": hole_kib(name),
                "dof": f"{dof:.6g}",
                "fragments": pieces,
                "requests": summary["requests"]["read"]["count"],
                **ftl.times_ms(summary),
                "wall_ms": f"{int(row['read_ns']) / 1e6:.6g}",
            }
        )
    return table


def linear_fit(xs: list[float], ys: list[float]) -> tuple[float, float, float]:
    """Least squares y = a·x + b; returns (a, b, R²)."""
    if len(set(xs)) < 2:
        raise ScanError(f"a fit needs two different DoF values, got {sorted(set(xs))}")
    fit = linregress(xs, ys)
    # a constant time is fitted exactly by the flat line, where linregress leaves r undefined
    r2 = 1.0 if len(set(ys)) == 1 else float(fit.rvalue) ** 2
    return float(fit.slope), float(fit.intercept), r2


def fit_rows(rep: str, table: list[dict[str, object]]) -> list[dict[str, object]]:
    """The fits of one repetition's rows, modeled and wall time."""
    dofs = [float(r["dof"]) for r in table]
    rows = []
    for time in ("modeled_ms", "wall_ms"):
        slope, intercept, r2 = linear_fit(dofs, [float(r[time]) for r in table])
        rows.append(
            {
                "rep": rep,
                "time": time,
                "slope_ms_per_dof": f"{slope:.6g}",
                "intercept_ms": f"{intercept:.6g}",
                "r2": f"{r2:.6g}",
                "points": len(table),
            }
        )
    return rows


def tables(
    runs: dict[str, Path], models: dict[tuple[str, str], Path]
) -> tuple[list[dict[str, object]], list[dict[str, object]]]:
    """The scan table and the fits of every repetition, in repetition order."""
    table, fits = [], []
    for rep in repetitions.in_order(runs):
        rows = scan_rows(rep, runs[rep], models)
        table += rows
        fits += fit_rows(rep, rows)
    return table, fits


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    repetitions.add_options(
        parser,
        "scan",
        ("PHASE", "SUMMARY"),
        "ftl-sim's summary of one scanned file's cold read in one repetition",
    )
    parser.add_argument("--table", type=Path, required=True)
    parser.add_argument("--fit", type=Path, required=True)
    args = parser.parse_args(argv)
    try:
        models = {(rep, phase): Path(path) for rep, phase, path in repetitions.models(args.model)}
        table, fits = tables(repetitions.runs(args.run), models)
    except (
        argparse.ArgumentTypeError,
        ScanError,
        ftl.FtlSimError,
        KeyError,
        SnapshotError,
        OSError,
    ) as error:
        print(f"scan_table: {error}", file=sys.stderr)
        return 1
    write_table(args.table, TABLE_COLUMNS, table)
    write_table(args.fit, FIT_COLUMNS, fits)
    return 0


if __name__ == "__main__":
    sys.exit(main())
