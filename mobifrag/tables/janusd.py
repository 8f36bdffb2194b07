"""Tidy tables of the janusd experiments (rules/experiments/janusd.smk; janusd §2.4–3.1).

    python -m mobifrag.tables.janusd recurring --run interval_days=7 DEFRAGS ... \
        --out copies.csv --launch-out launch.csv
    python -m mobifrag.tables.janusd recurring-dof --run interval_days=7 RUN ... \
        --packages PACKAGE ... --out dof.csv
    python -m mobifrag.tables.janusd dof-lp --run level=low,threads=5 SNAPSHOT DOP_CSV ... \
        --out dof-lp.csv

`recurring`: per recurring run (`DEFRAGS`, the folder of its replayed defragmentations
`day-NN/`), one row per day and method with the files and bytes e4defrag moved, the
size of the file system it ran on (`fs_bytes`: what each defragmentation's writes wear,
janusd §2.5) and the host and flash writes of each method (janusd Fig. 5); with
`--launch-out`, one row per day, app and phase with its modeled launch (janusd Fig. 4).

`recurring-dof`: per recurring run (`RUN`, the guest job's folder with its snapshots
`defrag/day-NN/{before,after}/`), one row per day, phase and app with the mean DoF of
the app's files (janusd Fig. 3), over the same layouts the launches read.

`dof-lp`: per e4defrag run folder, each appender file's DoF_L (fragcheck) and DoF_P
(ftl-sim after the appends' trace) (janusd §3.1, Fig. 6).
"""

from __future__ import annotations

import argparse
import csv
import json
import statistics
import sys
from pathlib import Path

from mobifrag.measure.fragmentation import degree_of_fragmentation, fragments
from mobifrag.measure.snapshot import Snapshot, SnapshotError, read_snapshot, unescape_path
from mobifrag.model.janusd_remap import JanusdError, app_files, read_dop
from mobifrag.tables.fragments import dof_rows, parse_label
from mobifrag.tables.treat import FLASH_COLUMNS, flash_row
from mobifrag.workflow.atomic import write_table

RECURRING_COLUMNS = ("day", "method", "files_moved", "moved_bytes", "fs_bytes")
RECURRING_COLUMNS += FLASH_COLUMNS


def fs_bytes(snapshot: Path) -> int:
    """The size of the file system a snapshot was taken of (its blocks × block size)."""
    fs = read_snapshot(snapshot)
    return fs.total_blocks * fs.block_size


def recurring_rows(label: dict[str, str], defrags: Path) -> list[dict[str, object]]:
    """Per defragmentation day of one recurring run (`defrags/day-NN/`): the files and
    bytes e4defrag moved, the file system's size (janusdL's `after` snapshot keeps the
    file system's own fs.tsv) and what each method wrote to the device and to flash."""
    rows = []
    days = sorted(defrags.glob("day-*"))
    if not days:
        raise JanusdError(f"{defrags}: no day-NN defragmentations")
    for folder in days:
        with open(folder / "janusdl" / "plan.csv", newline="") as handle:
            plan = list(csv.DictReader(handle))
        moved = {
            "files_moved": len({r["path"] for r in plan}),
            "moved_bytes": sum(int(r["length_bytes"]) for r in plan),
            "fs_bytes": fs_bytes(folder / "janusdl" / "after"),
        }
        day = int(folder.name.removeprefix("day-"))
        for method in ("e4defrag", "janusdL"):
            summary = flash_row(folder / f"ftl-{method.lower()}.json")
            rows.append({**label, "day": day, "method": method, **moved, **summary})
    return rows


DOF_LP_COLUMNS = ("path", "dof", "dof_p", "pages")


def dof_lp_rows(label: dict[str, str], snapshot: Path, dop: Path) -> list[dict[str, object]]:
    """Each appender file's logical DoF (the run's fragcheck snapshot) and physical DoF_P
    (ftl-sim after the appends' trace, `ftl-append.dop.csv`) (janusd §3.1, Fig. 6)."""
    dof_p = read_dop(dop)
    with open(dop, newline="") as handle:
        pages = {unescape_path(r["file"]): r["pages"] for r in csv.DictReader(handle)}
    rows = []
    for row in dof_rows(read_snapshot(snapshot)):
        path = str(row["path"])
        if path not in dof_p:
            raise JanusdError(f"{dop}: {path} of {snapshot} has no DoF_P")
        rows.append(
            {**label, "path": path, "dof": row["dof"], "dof_p": dof_p[path], "pages": pages[path]}
        )
    return rows


def dof_lp_table(runs: list[tuple[dict[str, str], Path, Path]], out: Path) -> None:
    keys: list[str] = []
    rows = []
    for label, snapshot, dop in runs:
        keys += [k for k in label if k not in keys]
        rows += dof_lp_rows(label, snapshot, dop)
    write_table(out, tuple(keys) + DOF_LP_COLUMNS, rows)


LAUNCH_COLUMNS = ("day", "package", "phase", "read_requests", "read_bytes")
LAUNCH_COLUMNS += ("device_ms", "modeled_ms")

# The recurring job's snapshot around each e4defrag run → the phase the tables name.
PHASES = {"before": "before_defrag", "after": "after_defrag"}


def launch_rows(label: dict[str, str], defrags: Path) -> list[dict[str, object]]:
    """Per defragmentation day, app and phase (before_defrag / after_defrag): the
    launch's read requests and ftl-sim's times (`day-NN/launch-PACKAGE-PHASE.json`)."""
    rows = []
    for summary in sorted(defrags.glob("day-*/launch-*-*.json")):
        package, phase = summary.stem.removeprefix("launch-").rsplit("-", 1)
        data = json.loads(summary.read_text())
        time = data["time"]
        rows.append(
            {
                **label,
                "day": int(summary.parent.name.removeprefix("day-")),
                "package": package,
                "phase": PHASES[phase],
                "read_requests": data["requests"]["read"]["count"],
                "read_bytes": data["requests"]["read"]["bytes"],
                "device_ms": f"{time['device_busy_us'] / 1000:.6g}",
                "modeled_ms": f"{time['modeled_us'] / 1000:.6g}",
            }
        )
    return rows


RECURRING_DOF_COLUMNS = ("day", "phase", "package", "files", "fragments", "dof")


def app_dof(snapshot: Snapshot, package: str) -> dict[str, object] | None:
    """janusd Fig. 3's average DoF of an app's files: the mean over the files of the app
    (those its launch reads) that hold data of each one's DoF, its extents over the fewest
    that could hold it (janusd §2.1; for a file under 128 MiB its physically contiguous
    pieces); `fragments` sums those pieces. None when the app has no such file yet."""
    dofs, pieces = [], 0
    for path in app_files(snapshot, package):
        dof = degree_of_fragmentation(snapshot.extents[path], snapshot.fs_type)
        if dof is not None:
            dofs.append(dof)
            pieces += len(fragments(snapshot.extents[path]))
    if not dofs:
        return None
    return {"files": len(dofs), "fragments": pieces, "dof": f"{statistics.fmean(dofs):.6g}"}


def recurring_dof_rows(
    label: dict[str, str], run: Path, packages: list[str]
) -> list[dict[str, object]]:
    """Per defragmentation day of one recurring run (`run/defrag/day-NN/`), phase and app:
    the DoF of the app's files in the snapshot just before or just after e4defrag."""
    days = sorted(run.glob("defrag/day-*"))
    if not days:
        raise JanusdError(f"{run}: no defrag/day-NN snapshots")
    rows = []
    for folder in days:
        day = int(folder.name.removeprefix("day-"))
        for name, phase in PHASES.items():
            snapshot = read_snapshot(folder / name)
            for package in packages:
                dof = app_dof(snapshot, package)
                if dof is not None:
                    rows.append({**label, "day": day, "phase": phase, "package": package, **dof})
    return rows


def recurring_dof_table(
    runs: list[tuple[dict[str, str], Path]], packages: list[str], out: Path
) -> None:
    keys: list[str] = []
    rows = []
    for label, run in runs:
        keys += [k for k in label if k not in keys]
        rows += recurring_dof_rows(label, run, packages)
    write_table(out, tuple(keys) + RECURRING_DOF_COLUMNS, rows)


def recurring_table(
    runs: list[tuple[dict[str, str], Path]], out: Path, launch_out: Path | None = None
) -> None:
    keys: list[str] = []
    rows, launches = [], []
    for label, defrags in runs:
        keys += [k for k in label if k not in keys]
        rows += recurring_rows(label, defrags)
        launches += launch_rows(label, defrags)
    write_table(out, tuple(keys) + RECURRING_COLUMNS, rows)
    if launch_out:
        write_table(launch_out, tuple(keys) + LAUNCH_COLUMNS, launches)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    recurring = commands.add_parser("recurring", help="bytes per recurring defrag")
    recurring.add_argument("--run", nargs=2, action="append", required=True)
    recurring.add_argument("--out", type=Path, required=True)
    recurring.add_argument("--launch-out", type=Path, help="launch reads before/after")
    dof = commands.add_parser("recurring-dof", help="DoF of each app's files before/after")
    dof.add_argument("--run", nargs=2, action="append", required=True, metavar=("LABEL", "RUN"))
    dof.add_argument("--packages", nargs="+", required=True)
    dof.add_argument("--out", type=Path, required=True)
    lp = commands.add_parser("dof-lp", help="DoF_L and DoF_P of the appenders' files")
    lp.add_argument(
        "--run",
        nargs=3,
        action="append",
        required=True,
        metavar=("LABEL", "SNAPSHOT", "DOP_CSV"),
    )
    lp.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    try:
        runs = [(parse_label(label), *map(Path, paths)) for label, *paths in args.run]
        if args.command == "recurring":
            recurring_table(runs, args.out, args.launch_out)
        elif args.command == "recurring-dof":
            recurring_dof_table(runs, args.packages, args.out)
        else:
            dof_lp_table(runs, args.out)
    except (JanusdError, SnapshotError, ValueError, OSError) as error:
        print(f"janusd_tables: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
