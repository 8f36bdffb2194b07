"""Tables of the ARS evaluation (ARS §V, Figs. 4–7; rules/experiments/ars_eval.smk).

    python -m mobifrag.tables.ars_eval KIND --run scheme=ars RUN ... --out TABLE.csv \
        [--model RESULTS/RUN/model/phases.json ...]

RUN is the output folder of one scheme's job; KIND says which table:

- throughput (Fig. 4; jobs/ars-fragbench.sh): sequential and random reads and writes of
  the reserved files at Low and High, and the ratio to F2FS at Low.
- extents (Fig. 4): fragments and extents of the reserved files at Low and High.
- freespace (Fig. 5): free-space fragments per level (`--bounds-kib`) after aging to
  High, after the GC pass and after the High measurements, and their share of the
  phase's fragments.
- gc (Fig. 5): F2FS's GC counters (debugfs status), GC's own reads and writes (F2FS's
  iostat, in 4 KiB blocks), the disk's I/Os and the ARS counters after the aging
  (`aged`), after the GC pass (`collected`) and after the High measurements
  (`measured`); `delta` is the measurement window (measured − collected), the GC "at
  High" of ARS §V.A, `pass_delta` the pass's own (collected − aged).
- fragbench (§V.A): where the fragmentation benchmark left the file system.
- sqlite (Fig. 6; jobs/ars-sqlite.sh): transactions per second of each SQLite trace.
- apps (Fig. 7; jobs/ars-apps.sh): running time of each app trace per state, and its
  ratio to F2FS's in the same state.
- create (§V.D; every job's create.tsv): mean time to create a reserved file.

The four tables of speed (throughput, sqlite, apps, create) are judged on the device
model: the job traced each measured phase (blktrace/<phase>/: a fio run, an SQLite
trace, an app's replay, the creation of the reserved files), and rule ftl_replay_run
replayed each trace through ftl-sim on the device profile with the requests in flight
the trace shows and never fewer than the workload's threads (mobifrag.model.run_phases),
so the emulator's pacing does not leak into the model; `--model` gives each run's kept index.
Their columns: the phase's block requests, bytes read and written, flushes, `device_ms`
and `modeled_ms` (device time + the profile's host overhead per request), the modeled
metric (`modeled_mib_s`: the bytes fio moved over the modeled time; `modeled_tps`;
`modeled_seconds`; `modeled_mean_us`: the modeled time of the creation phases over the
files created) and its ratio to F2FS (`modeled_relative`); then the emulator's wall-time
metric with the prefix `wall_` (what the guest measured: fio's bandwidth, the agent's
seconds, the per-file creation time), a secondary series that says nothing about a
phone.
"""

from __future__ import annotations

import argparse
import csv
import json
import statistics
import sys
from pathlib import Path

from mobifrag.measure import f2fs_state
from mobifrag.measure.fio import fio_jobs
from mobifrag.measure.snapshot import SnapshotError, read_snapshot
from mobifrag.model import ftl
from mobifrag.model.run_phases import ModelIndexError, RunModels
from mobifrag.tables.fragments import dof_rows, parse_label
from mobifrag.workflow.atomic import write_table

MIB = 1024 * 1024
FIO_WORKLOADS = {
    "read": ("seq-read", "read"),
    "write": ("seq-write", "write"),
    "randread": ("rand-read", "read"),
    "randwrite": ("rand-write", "write"),
}
STATES = ("low", "high")
PHASES = ("aged", "collected", "measured")
BASELINE = "f2fs"


def read_json(path: Path) -> dict:
    try:
        return json.loads(Path(path).read_text())
    except json.JSONDecodeError as error:
        raise ValueError(f"{path}: not JSON ({error})") from None


def fio_job(path: Path, direction: str) -> dict:
    """The `direction` (read or write) part of the one job of a fio JSON output."""
    jobs = fio_jobs(path)
    if len(jobs) != 1:
        raise ValueError(f"{path}: expected one fio job, found {len(jobs)}")
    if jobs[0].get("error"):
        raise ValueError(f"{path}: fio reported error {jobs[0]['error']}")
    done = jobs[0][direction]
    if done["bw_bytes"] <= 0 or done.get("io_bytes", 1) <= 0:
        raise ValueError(f"{path}: no {direction} bandwidth")
    return done


COUNTS = ("requests", "read_bytes", "write_bytes", "flushes")
MODELED = (*COUNTS, "device_ms", "modeled_ms")


def modeled_columns(summaries: list[dict]) -> dict[str, str]:
    """ftl.phase_columns of one phase, or of several phases added up."""
    columns = [ftl.phase_columns(s) for s in summaries]
    added = {name: str(sum(int(c[name]) for c in columns)) for name in COUNTS}
    return {
        **added,
        "device_ms": f"{sum(s['time']['device_busy_us'] for s in summaries) / 1e3:.6g}",
        "modeled_ms": f"{sum(ftl.modeled_seconds(s) for s in summaries) * 1e3:.6g}",
    }


def ratios(rows: list[dict], value: str, key, column: str = "relative") -> list[dict]:
    """Each row's value over that of the F2FS row with the same key(row) in the same
    repetition (the `rep` label of a repeated job)."""
    base = {(r.get("rep"), key(r)): float(r[value]) for r in rows if r["scheme"] == BASELINE}
    for row in rows:
        reference = base.get((row.get("rep"), key(row)))
        row[column] = "NA" if not reference else f"{float(row[value]) / reference:.6g}"
    return rows


def throughput_rows(label: dict, run: Path, models: RunModels) -> list[dict]:
    """Each fio run: the bytes it moved over its modeled time (one job of synchronous
    I/O: queue depth 1), and fio's own bandwidth in the emulator."""
    rows = []
    for state in STATES:
        for rw, (name, direction) in FIO_WORKLOADS.items():
            done = fio_job(run / "fio" / f"{state}-{rw}.json", direction)
            summary, _ = models.phase(run, f"{state}-{rw}")
            moved = done["io_bytes"]
            rows.append(
                {
                    **label,
                    "state": state,
                    "workload": name,
                    "workload_bytes": moved,
                    **modeled_columns([summary]),
                    "modeled_mib_s": f"{moved / MIB / ftl.modeled_seconds(summary):.6g}",
                    "wall_mib_s": f"{done['bw_bytes'] / MIB:.6g}",
                }
            )
    return rows


def extents_rows(label: dict, run: Path) -> list[dict]:
    rows = []
    for state in STATES:
        files = dof_rows(read_snapshot(run / "snapshot" / state))
        if not files:
            raise ValueError(f"{run}/snapshot/{state}: no reserved files")
        extents = [int(f["extents"]) for f in files]
        rows.append(
            {
                **label,
                "state": state,
                "files": len(files),
                "fragments": sum(int(f["fragments"]) for f in files),
                "extents": sum(extents),
                "extents_mean": f"{statistics.mean(extents):.6g}",
                "extents_max": max(extents),
            }
        )
    return rows


def freespace_rows(label: dict, run: Path, bounds: list[int]) -> list[dict]:
    rows = []
    for phase in PHASES:
        text = (run / "state" / phase / "segment_bits.txt").read_text()
        counts = f2fs_state.level_counts(
            f2fs_state.free_runs(f2fs_state.segment_bitmaps(text)), bounds
        )
        total = sum(counts.values())
        rows += [
            {
                **label,
                "phase": phase,
                "level": level,
                "fragments": n,
                "share": f"{n / total:.6g}" if total else "0",
            }
            for level, n in counts.items()
        ]
    return rows


STATE_FILES = {
    "status.txt": f2fs_state.status_counters,
    "iostat.txt": f2fs_state.iostat_gc_blocks,
    "diskstat.txt": f2fs_state.disk_ios,
    "ars.txt": f2fs_state.ars_counters,
}


def counters(folder: Path) -> dict[str, int]:
    """The counters of one f2fs_state snapshot; a file that does not parse is named."""
    values = {}
    for name, parse in STATE_FILES.items():
        try:
            values.update(parse((folder / name).read_text()))
        except f2fs_state.StateError as error:
            raise f2fs_state.StateError(f"{folder / name}: {error}") from None
    return values


def gc_rows(label: dict, run: Path) -> list[dict]:
    """Each counter at the three snapshots; the window of the GC claims (`delta`) opens
    after the GC pass, whose own work is `pass_delta`."""
    aged, collected, measured = (counters(run / "state" / phase) for phase in PHASES)
    return [
        {
            **label,
            "counter": name,
            "aged": aged[name],
            "collected": collected[name],
            "measured": measured[name],
            "pass_delta": collected[name] - aged[name],
            "delta": measured[name] - collected[name],
        }
        for name in aged
    ]


def fragbench_rows(label: dict, run: Path) -> list[dict]:
    rows = []
    for path in sorted(run.glob("fragbench-*.json")):
        summary = read_json(path)
        rows.append(
            {
                **label,
                "state": path.stem.removeprefix("fragbench-"),
                **{k: summary[k] for k in ("rounds", "created", "live", "used_percent")},
            }
        )
    if not rows:
        raise ValueError(f"{run}: no fragbench-*.json")
    return rows


def sqlite_rows(label: dict, run: Path, models: RunModels) -> list[dict]:
    rows = []
    for path in sorted((run / "replay").glob("*.json")):
        replay = read_json(path)
        done = replay["ops"]["sql"] - replay["errors"]["sql"]
        if replay["seconds"] <= 0 or done <= 0:
            raise ValueError(f"{path}: no completed transactions")
        summary, depth = models.phase(run, f"sqlite-{path.stem}")
        rows.append(
            {
                **label,
                "kind": path.stem.split("-")[-1],
                "transactions": done,
                "errors": replay["errors"]["sql"],
                "queue_depth": depth,
                **modeled_columns([summary]),
                "modeled_tps": f"{done / ftl.modeled_seconds(summary):.6g}",
                "wall_seconds": replay["seconds"],
                "wall_tps": f"{done / replay['seconds']:.6g}",
            }
        )
    if not rows:
        raise ValueError(f"{run}/replay: no SQLite replays")
    return rows


def apps_rows(label: dict, run: Path, models: RunModels) -> list[dict]:
    rows = []
    for path in sorted((run / "replay").glob("*.json")):
        state, _, app = path.stem.partition("-")
        replay = read_json(path)
        marked = read_json(run / f"marked-{path.stem}.json")
        summary, depth = models.phase(run, path.stem)
        rows.append(
            {
                **label,
                "state": state,
                "app": app,
                "queue_depth": depth,
                **modeled_columns([summary]),
                "modeled_seconds": f"{ftl.modeled_seconds(summary):.6g}",
                "wall_seconds": replay["seconds"],
                "ops": sum(replay["ops"].values()),
                "errors": sum(replay["errors"].values()),
                "reserved_listed": marked["listed"],
                "reserved_marked": marked["marked"],
                # Re-marks of listed files the trace created again (agent --mark-list).
                "marks_set": replay["marks_set"],
                "mark_errors": replay["mark_errors"],
            }
        )
    if not rows:
        raise ValueError(f"{run}/replay: no app replays")
    return rows


def create_phases(models: RunModels, run: Path, workload: str) -> list[str]:
    """The traced creation phases of a workload: create-<workload>[-...]."""
    phases = [
        p
        for p in models.phases(run)
        if p == f"create-{workload}" or p.startswith(f"create-{workload}-")
    ]
    if not phases:
        raise ValueError(f"{run}/blktrace: no create-{workload} trace: the job did not trace it")
    return phases


def create_rows(label: dict, run: Path, models: RunModels) -> list[dict]:
    """Per workload: its files' creation (one open, setxattr and fsync each) on the
    device model — the modeled time of its creation phases over the files created — and
    the mean and median wall time per file the guest measured."""
    times: dict[str, list[int]] = {}
    with open(run / "create.tsv", newline="") as handle:
        for line, row in enumerate(csv.reader(handle, delimiter="\t"), start=1):
            if len(row) != 3 or not row[2].isdigit():
                raise ValueError(f"{run}/create.tsv:{line}: expected workload, path, ns")
            times.setdefault(row[0], []).append(int(row[2]))
    rows = []
    for w, ns in times.items():
        summaries = [models.phase(run, phase)[0] for phase in create_phases(models, run, w)]
        modeled_us = sum(ftl.modeled_seconds(s) for s in summaries) * 1e6
        rows.append(
            {
                **label,
                "workload": w,
                "files": len(ns),
                **modeled_columns(summaries),
                "modeled_mean_us": f"{modeled_us / len(ns):.6g}",
                "wall_mean_us": f"{statistics.mean(ns) / 1e3:.6g}",
                "wall_median_us": f"{statistics.median(ns) / 1e3:.6g}",
            }
        )
    return rows


COLUMNS = {
    "throughput": (
        "state",
        "workload",
        "workload_bytes",
        *MODELED,
        "modeled_mib_s",
        "modeled_relative",
        "wall_mib_s",
        "wall_relative",
    ),
    "extents": ("state", "files", "fragments", "extents", "extents_mean", "extents_max"),
    "freespace": ("phase", "level", "fragments", "share"),
    "gc": ("counter", "aged", "collected", "measured", "pass_delta", "delta"),
    "fragbench": ("state", "rounds", "created", "live", "used_percent"),
    "sqlite": (
        "kind",
        "transactions",
        "errors",
        "queue_depth",
        *MODELED,
        "modeled_tps",
        "modeled_relative",
        "wall_seconds",
        "wall_tps",
        "wall_relative",
    ),
    "apps": (
        "state",
        "app",
        "queue_depth",
        *MODELED,
        "modeled_seconds",
        "modeled_relative",
        "wall_seconds",
        "wall_relative",
        "ops",
        "errors",
        "reserved_listed",
        "reserved_marked",
        "marks_set",
        "mark_errors",
    ),
    "create": (
        "workload",
        "files",
        *MODELED,
        "modeled_mean_us",
        "modeled_relative",
        "wall_mean_us",
        "wall_median_us",
        "wall_relative",
    ),
}
# The tables judged on the device model: they need each run's phase models (--model).
MODELED_KINDS = ("throughput", "sqlite", "apps", "create")


def table(
    kind: str, runs: list[tuple[dict, Path]], bounds: list[int], models: RunModels | None = None
) -> list[dict]:
    readers = {
        "throughput": lambda label, run: throughput_rows(label, run, models),
        "extents": extents_rows,
        "gc": gc_rows,
        "fragbench": fragbench_rows,
        "sqlite": lambda label, run: sqlite_rows(label, run, models),
        "apps": lambda label, run: apps_rows(label, run, models),
        "create": lambda label, run: create_rows(label, run, models),
        "freespace": lambda label, run: freespace_rows(label, run, bounds),
    }
    rows = [row for label, run in runs for row in readers[kind](label, run)]
    if kind == "throughput":
        for series in ("modeled", "wall"):
            relative_to_low(rows, f"{series}_mib_s", f"{series}_relative")
    elif kind == "sqlite":
        for series in ("modeled", "wall"):
            ratios(rows, f"{series}_tps", lambda r: r["kind"], f"{series}_relative")
    elif kind == "apps":
        for series in ("modeled", "wall"):
            ratios(
                rows, f"{series}_seconds", lambda r: (r["state"], r["app"]), f"{series}_relative"
            )
    elif kind == "create":
        for series in ("modeled", "wall"):
            ratios(rows, f"{series}_mean_us", lambda r: r["workload"], f"{series}_relative")
    return rows


def relative_to_low(rows: list[dict], value: str, column: str) -> list[dict]:
    """Fig. 4's normalization: every row over F2FS at Low for the same workload in the
    same repetition."""
    base = {
        (r.get("rep"), r["workload"]): float(r[value])
        for r in rows
        if r["scheme"] == BASELINE and r["state"] == "low"
    }
    for row in rows:
        reference = base.get((row.get("rep"), row["workload"]))
        row[column] = "NA" if not reference else f"{float(row[value]) / reference:.6g}"
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("kind", choices=sorted(COLUMNS))
    parser.add_argument("--run", nargs=2, action="append", metavar=("LABEL", "RUN"))
    parser.add_argument(
        "--bounds-kib", type=int, nargs="+", help="free-space level bounds (freespace only)"
    )
    parser.add_argument(
        "--model", action="append", default=[], type=Path, metavar="INDEX",
        help="a run's phase models (mobifrag.model.run_phases; modeled tables)",
    )  # fmt: skip
    parser.add_argument("--out", required=True, type=Path)
    args = parser.parse_args(argv)
    if not args.run:
        parser.error("at least one --run LABEL RUN is required")
    if args.kind == "freespace" and not args.bounds_kib:
        parser.error("freespace needs --bounds-kib (config ars_eval.free_space_kib)")
    if args.kind in MODELED_KINDS and not args.model:
        parser.error(f"{args.kind} is judged on the device model: it needs --model per run")
    try:
        runs = [(parse_label(text), Path(run)) for text, run in args.run]
        keys: list[str] = []
        for label, _ in runs:
            keys += [k for k in label if k not in keys]
        if "scheme" not in keys:
            raise ValueError("run labels must name the scheme (scheme=...)")
        models = RunModels(args.model) if args.kind in MODELED_KINDS else None
        rows = table(args.kind, runs, args.bounds_kib, models)
        write_table(args.out, (*keys, *COLUMNS[args.kind]), rows)
    except (
        SnapshotError,
        f2fs_state.StateError,
        ModelIndexError,
        ValueError,
        KeyError,
        OSError,
    ) as error:
        print(f"ars_eval_tables: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
