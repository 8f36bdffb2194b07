"""User-perceived latencies (TMC §5.2, Figs. 10–12): one row per (state, phase, app)
and repetition of `jobs/user-latency.sh` runs: one run per aged state and repetition
(config `repeated`): the runs' block requests, and on a phone their wall time, vary from
run to run.

    python -m mobifrag.tables.user_latency --run no 1 RUN_DIR --run severe 1 RUN_DIR ... \
        --model no 1 launch-chrome \
        RUN_RESULTS/model/launch-chrome/ftl_fill100_history_overlap.json ... \
        --table latency.csv

Phases: `install` (the app's install trace replayed: APK written, files extracted, each
written then fsync'ed), `launch` (the app's APK, compiled code, libraries and databases
read cold) and `sqlite` (the tile-cache query log replayed cold; app `tiles`). Per row:
the files of the app's launch set (the tile database for `sqlite`), their fragments and
DoF after the run (fragcheck), the block requests of the phase's trace, `modeled_ms`
(ftl-sim's device time, with the requests in flight the trace shows, plus the
profile's per-request host overhead; each
phase's replay is a job of rule ftl_replay_phase, whose summary this module reads) and
`wall_ms` (the phase's wall time where it ran: the emulator's guest, or the phone).
"""

from __future__ import annotations

import argparse
import csv
import sys
from pathlib import Path

from mobifrag.measure.fragmentation import degree_of_fragmentation, fragments
from mobifrag.measure.snapshot import Snapshot, SnapshotError, read_snapshot
from mobifrag.model import ftl
from mobifrag.tables.repetitions import repetition
from mobifrag.workflow.atomic import write_table

COLUMNS = ("rep", "state", "phase", "app", "files", "fragments", "mean_dof", "max_dof")
COLUMNS += ("requests", "device_ms", "modeled_ms", "wall_ms")
PHASES = ("install", "launch", "sqlite")
TILE_DATABASE = "tiles/mirth_cache.db"


class LatencyError(RuntimeError):
    """A run that cannot be tabulated; the message names the file."""


def read_times(run: Path) -> list[tuple[str, str, int]]:
    """(phase, app, nanoseconds) of the run's latency.tsv, in the order measured."""
    path = run / "latency.tsv"
    if not path.is_file():
        raise LatencyError(f"{path} is missing: the user-latency job did not finish")
    rows = []
    with open(path, newline="") as handle:
        for line, row in enumerate(csv.DictReader(handle, delimiter="\t"), start=2):
            try:
                phase, app, ns = row["phase"], row["app"], int(row["ns"])
            except (KeyError, TypeError, ValueError):
                raise LatencyError(f"{path}:{line}: expected phase, app, ns") from None
            if phase not in PHASES:
                raise LatencyError(f"{path}:{line}: unknown phase {phase!r}")
            rows.append((phase, app, ns))
    if not rows:
        raise LatencyError(f"{path}: no measurements")
    return rows


def phase_files(run: Path, phase: str, app: str) -> list[str]:
    """Paths (relative to the replay root) of the files a phase works on."""
    if phase == "sqlite":
        return [TILE_DATABASE]
    listing = run / "launch" / f"{app}.txt"
    if not listing.is_file():
        raise LatencyError(f"{listing} is missing: no launch set of {app}")
    return [line for line in listing.read_text().splitlines() if line]


def file_fragmentation(snapshot: Snapshot, paths: list[str], where: Path) -> dict[str, str]:
    """Fragments, mean and max DoF of the files (DoF 1 for a file with no data)."""
    listed = {entry.path for entry in snapshot.files}
    missing = [p for p in paths if p not in listed]
    if missing:
        raise LatencyError(f"{where}: no fragcheck entry for {missing[0]}")
    extents = [snapshot.extents.get(p, []) for p in paths]
    pieces = [len(fragments(e)) for e in extents]
    dofs = [degree_of_fragmentation(e, snapshot.fs_type) or 1.0 for e in extents]
    return {
        "files": str(len(paths)),
        "fragments": str(sum(pieces)),
        "mean_dof": f"{sum(dofs) / len(dofs):.6g}",
        "max_dof": f"{max(dofs):.6g}",
    }


Models = dict[tuple[str, str, str], Path]


def read_summary(models: Models, state: str, rep: str, phase: str) -> dict:
    """The ftl-sim summary of one phase of one state's run (rule ftl_replay_phase)."""
    key = (state, rep, phase)
    if key not in models:
        raise LatencyError(f"no model replay of {' '.join(key)} (give --model {' '.join(key)} …)")
    return ftl.load_phase_replay(models[key])


def run_rows(state: str, rep: str, run: Path, models: Models) -> list[dict[str, str]]:
    times = read_times(run)
    snapshot = read_snapshot(run / "snapshot")
    rows = []
    for phase, app, ns in times:
        traced = "sqlite" if phase == "sqlite" else f"{phase}-{app}"
        summary = read_summary(models, state, rep, traced)
        files = phase_files(run, phase, app)
        rows.append(
            {
                "rep": rep,
                "state": state,
                "phase": phase,
                "app": app,
                **file_fragmentation(snapshot, files, run / "snapshot"),
                "requests": str(ftl.block_requests(summary)),
                **ftl.times_ms(summary),
                "wall_ms": f"{ns / 1e6:.6g}",
            }
        )
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--run", nargs=3, action="append", required=True, metavar=("STATE", "REP", "DIR")
    )
    parser.add_argument(
        "--model",
        nargs=4,
        action="append",
        required=True,
        metavar=("STATE", "REP", "PHASE", "SUMMARY"),
        help="ftl-sim's summary of one phase of one state's run",
    )
    parser.add_argument("--table", type=Path, required=True)
    args = parser.parse_args(argv)
    try:
        models = {
            (state, repetition(rep), phase): Path(path) for state, rep, phase, path in args.model
        }
        runs = [(state, repetition(rep), Path(run)) for state, rep, run in args.run]
    except argparse.ArgumentTypeError as error:
        parser.error(str(error))
    try:
        rows = [row for state, rep, run in runs for row in run_rows(state, rep, run, models)]
    except (LatencyError, ftl.FtlSimError, KeyError, SnapshotError, OSError) as error:
        print(f"user_latency_table: {error}", file=sys.stderr)
        return 1
    write_table(args.table, COLUMNS, rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
