"""Tables of the ARS evaluation (ARS §V, Figs. 4–7; rules/ars_eval.smk).

    python -m mobifrag.ars_eval_tables KIND --run scheme=ars RUN ... --out TABLE.csv

RUN is the output folder of one scheme's job; KIND says which table:

- throughput (Fig. 4; jobs/ars-fragbench.sh): fio's bandwidth of sequential and random
  reads and writes of the reserved files at Low and High, and its ratio to F2FS at Low.
- extents (Fig. 4): fragments and extents of the reserved files at Low and High.
- freespace (Fig. 5): free-space fragments per level (`--bounds-kib`) after aging to
  High and after the High measurements, and their share of the phase's fragments.
- gc (Fig. 5): F2FS's GC counters, the disk's I/Os and the ARS counters before and
  after the High measurements.
- fragbench (§V.A): where the fragmentation benchmark left the file system.
- sqlite (Fig. 6; jobs/ars-sqlite.sh): transactions per second of each SQLite trace.
- apps (Fig. 7; jobs/ars-apps.sh): running time of each app trace per state, and its
  ratio to F2FS's in the same state.
- create (§V.D; every job's create.tsv): mean time to create a reserved file.
"""

from __future__ import annotations

import argparse
import csv
import json
import statistics
import sys
from pathlib import Path

from mobifrag import f2fs_state
from mobifrag.fragment_tables import dof_rows, parse_label, write_table
from mobifrag.snapshot import SnapshotError, read_snapshot

MIB = 1024 * 1024
FIO_WORKLOADS = {
    "read": ("seq-read", "read"),
    "write": ("seq-write", "write"),
    "randread": ("rand-read", "read"),
    "randwrite": ("rand-write", "write"),
}
STATES = ("low", "high")
PHASES = ("aged", "measured")
BASELINE = "f2fs"


def read_json(path: Path) -> dict:
    try:
        return json.loads(Path(path).read_text())
    except json.JSONDecodeError as error:
        raise ValueError(f"{path}: not JSON ({error})") from None


def fio_json(path: Path) -> dict:
    """A fio --output-format=json file; fio writes its notices (such as `fio: cache
    invalidation of FILE failed` on a kernel without fadvise, where the job drops the
    page cache itself) into the same file before the JSON."""
    text = Path(path).read_text()
    start = text.find("\n{") + 1 if not text.startswith("{") else 0
    try:
        return json.loads(text[start:])
    except json.JSONDecodeError as error:
        raise ValueError(f"{path}: no fio JSON ({error})") from None


def fio_mib_s(path: Path, direction: str) -> float:
    """Bandwidth of the one job of a fio JSON output, in MiB/s."""
    jobs = fio_json(path).get("jobs", [])
    if len(jobs) != 1:
        raise ValueError(f"{path}: expected one fio job, found {len(jobs)}")
    if jobs[0].get("error"):
        raise ValueError(f"{path}: fio reported error {jobs[0]['error']}")
    bw = jobs[0][direction]["bw_bytes"]
    if bw <= 0:
        raise ValueError(f"{path}: no {direction} bandwidth")
    return bw / MIB


def ratios(rows: list[dict], value: str, key, column: str = "relative") -> list[dict]:
    """Each row's value over that of the F2FS row with the same key(row)."""
    base = {key(r): float(r[value]) for r in rows if r["scheme"] == BASELINE}
    for row in rows:
        reference = base.get(key(row))
        row[column] = "NA" if not reference else f"{float(row[value]) / reference:.6g}"
    return rows


def throughput_rows(label: dict, run: Path) -> list[dict]:
    return [
        {
            **label,
            "state": state,
            "workload": name,
            "mib_s": f"{fio_mib_s(run / 'fio' / f'{state}-{rw}.json', direction):.6g}",
        }
        for state in STATES
        for rw, (name, direction) in FIO_WORKLOADS.items()
    ]


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


def counters(folder: Path) -> dict[str, int]:
    values = f2fs_state.status_counters((folder / "status.txt").read_text())
    values.update(f2fs_state.disk_ios((folder / "diskstat.txt").read_text()))
    values.update(f2fs_state.ars_counters((folder / "ars.txt").read_text()))
    return values


def gc_rows(label: dict, run: Path) -> list[dict]:
    before, after = (counters(run / "state" / phase) for phase in PHASES)
    return [
        {
            **label,
            "counter": name,
            "aged": before[name],
            "measured": after[name],
            "delta": after[name] - before[name],
        }
        for name in before
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


def sqlite_rows(label: dict, run: Path) -> list[dict]:
    rows = []
    for path in sorted((run / "replay").glob("*.json")):
        replay = read_json(path)
        done = replay["ops"]["sql"] - replay["errors"]["sql"]
        if replay["seconds"] <= 0 or done <= 0:
            raise ValueError(f"{path}: no completed transactions")
        rows.append(
            {
                **label,
                "kind": path.stem.split("-")[-1],
                "transactions": done,
                "errors": replay["errors"]["sql"],
                "seconds": replay["seconds"],
                "tps": f"{done / replay['seconds']:.6g}",
            }
        )
    if not rows:
        raise ValueError(f"{run}/replay: no SQLite replays")
    return rows


def apps_rows(label: dict, run: Path) -> list[dict]:
    rows = []
    for path in sorted((run / "replay").glob("*.json")):
        state, _, app = path.stem.partition("-")
        replay = read_json(path)
        marked = read_json(run / f"marked-{path.stem}.json")
        rows.append(
            {
                **label,
                "state": state,
                "app": app,
                "seconds": replay["seconds"],
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


def create_rows(label: dict, run: Path) -> list[dict]:
    times: dict[str, list[int]] = {}
    with open(run / "create.tsv", newline="") as handle:
        for line, row in enumerate(csv.reader(handle, delimiter="\t"), start=1):
            if len(row) != 3 or not row[2].isdigit():
                raise ValueError(f"{run}/create.tsv:{line}: expected workload, path, ns")
            times.setdefault(row[0], []).append(int(row[2]))
    return [
        {
            **label,
            "workload": w,
            "files": len(ns),
            "mean_us": f"{statistics.mean(ns) / 1e3:.6g}",
            "median_us": f"{statistics.median(ns) / 1e3:.6g}",
        }
        for w, ns in times.items()
    ]


COLUMNS = {
    "throughput": ("state", "workload", "mib_s", "relative"),
    "extents": ("state", "files", "fragments", "extents", "extents_mean", "extents_max"),
    "freespace": ("phase", "level", "fragments", "share"),
    "gc": ("counter", "aged", "measured", "delta"),
    "fragbench": ("state", "rounds", "created", "live", "used_percent"),
    "sqlite": ("kind", "transactions", "errors", "seconds", "tps", "relative"),
    "apps": (
        "state",
        "app",
        "seconds",
        "relative",
        "ops",
        "errors",
        "reserved_listed",
        "reserved_marked",
        "marks_set",
        "mark_errors",
    ),
    "create": ("workload", "files", "mean_us", "median_us", "relative"),
}


def table(kind: str, runs: list[tuple[dict, Path]], bounds: list[int]) -> list[dict]:
    readers = {
        "throughput": throughput_rows,
        "extents": extents_rows,
        "gc": gc_rows,
        "fragbench": fragbench_rows,
        "sqlite": sqlite_rows,
        "apps": apps_rows,
        "create": create_rows,
        "freespace": lambda label, run: freespace_rows(label, run, bounds),
    }
    rows = [row for label, run in runs for row in readers[kind](label, run)]
    if kind == "throughput":
        return relative_to_low(rows)
    if kind == "sqlite":
        return ratios(rows, "tps", lambda r: r["kind"])
    if kind == "apps":
        return ratios(rows, "seconds", lambda r: (r["state"], r["app"]))
    if kind == "create":
        return ratios(rows, "mean_us", lambda r: r["workload"])
    return rows


def relative_to_low(rows: list[dict]) -> list[dict]:
    """Fig. 4's normalization: every row over F2FS at Low for the same workload."""
    base = {
        r["workload"]: float(r["mib_s"])
        for r in rows
        if r["scheme"] == BASELINE and r["state"] == "low"
    }
    for row in rows:
        reference = base.get(row["workload"])
        row["relative"] = "NA" if not reference else f"{float(row['mib_s']) / reference:.6g}"
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("kind", choices=sorted(COLUMNS))
    parser.add_argument("--run", nargs=2, action="append", metavar=("LABEL", "RUN"))
    parser.add_argument(
        "--bounds-kib", type=int, nargs="+", help="free-space level bounds (freespace only)"
    )
    parser.add_argument("--out", required=True, type=Path)
    args = parser.parse_args(argv)
    if not args.run:
        parser.error("at least one --run LABEL RUN is required")
    if args.kind == "freespace" and not args.bounds_kib:
        parser.error("freespace needs --bounds-kib (config ars_eval.free_space_kib)")
    try:
        runs = [(parse_label(text), Path(run)) for text, run in args.run]
        keys: list[str] = []
        for label, _ in runs:
            keys += [k for k in label if k not in keys]
        if "scheme" not in keys:
            raise ValueError("run labels must name the scheme (scheme=...)")
        write_table(args.out, (*keys, *COLUMNS[args.kind]), table(args.kind, runs, args.bounds_kib))
    except (SnapshotError, f2fs_state.StateError, ValueError, KeyError, OSError) as error:
        print(f"ars_eval_tables: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
