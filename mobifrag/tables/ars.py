"""Tables of the ARS kernel experiments (ARS §III and §V.A, Figs. 1 and 2).

    python -m mobifrag.tables.ars --case file --run scheme=ars RUN ... \\
        --device devices/D.yaml --ftl-sim ftl-sim/target/release/ftl-sim --out fig01.csv

RUN is the output folder of jobs/ars-motivation.sh or jobs/ars-blocksize.sh: a
`reads.tsv` (case, run, bytes, ns: cold sequential reads of one file per case), the
blktrace of each read under blktrace/read-<case>-<run>/ and a fragcheck snapshot of
that file per case under snapshot/<case>/. One row per run label and case: the file's
fragments and extents (fragment_tables' definitions), its DoF, then the read on the
device model — each read's trace replayed through ftl-sim on the device profile with
the requests in flight the trace shows (readahead's requests issued together stay in
flight together), a job of rule ftl_replay_phase whose summary this module reads; the
columns are those of the run with the median modeled time: its block requests, bytes
read and written, flushes, `device_ms`, `modeled_ms` (device time + the profile's host
overhead per request) and `modeled_mib_s` (the file's bytes over the modeled time) —
and their wall-time twins,
measured where the job ran: `wall_ms`, the median over the reads (a TCG guest on a
shared host now and then stalls one read), and `wall_mib_s`, the bandwidth it gives. On
an emulator only the modeled columns say anything about a phone. A run label with a
`rep` (Fig. 1's jobs repeat, config `repeated`) becomes a column.
"""

from __future__ import annotations

import argparse
import csv
import statistics
import sys
from pathlib import Path

from mobifrag.measure.snapshot import SnapshotError, read_snapshot
from mobifrag.model import ftl
from mobifrag.tables.fragments import dof_rows, parse_label
from mobifrag.workflow.atomic import write_table

LAYOUT_COLUMNS = ("size_bytes", "fragments", "extents", "dof")
MODELED_COLUMNS = ("requests", "read_bytes", "write_bytes", "flushes", "device_ms")
MODELED_COLUMNS += ("modeled_ms", "modeled_mib_s")
MEASURE_COLUMNS = (*LAYOUT_COLUMNS, "read_runs", *MODELED_COLUMNS)
MEASURE_COLUMNS += ("wall_ms", "wall_mib_s")
MIB = 1024 * 1024


class Model:
    """The replays of the reads on the device model: (run folder, phase) → the summary
    rule ftl_replay_phase kept."""

    def __init__(self, summaries: dict[tuple[str, str], Path]):
        self.summaries = {(str(Path(run)), phase): p for (run, phase), p in summaries.items()}

    def replay(self, run: Path, phase: str) -> dict:
        key = (str(Path(run)), phase)
        if key not in self.summaries:
            raise ValueError(f"{run}: no model replay of {phase} (give --model {run} {phase} …)")
        return ftl.load_summary(self.summaries[key])


def read_times(path: Path, case: str) -> dict[str, list[tuple[str, int, int]]]:
    """Case value → (run, bytes, ns) of each cold read in a job's reads.tsv."""
    with open(path, newline="") as handle:
        rows = list(csv.DictReader(handle, delimiter="\t"))
    if not rows or case not in rows[0] or not {"run", "bytes", "ns"} <= rows[0].keys():
        raise ValueError(f"{path}: expected columns {case}, run, bytes, ns")
    times: dict[str, list[tuple[str, int, int]]] = {}
    for line, row in enumerate(rows, start=2):
        try:
            bytes_, ns = int(row["bytes"]), int(row["ns"])
        except (TypeError, ValueError):
            raise ValueError(f"{path}:{line}: bytes and ns must be integers") from None
        if ns <= 0:
            raise ValueError(f"{path}:{line}: read time {ns} ns is not positive")
        times.setdefault(row[case], []).append((row["run"], bytes_, ns))
    return times


def modeled_read(run: Path, value: str, reads: list[tuple[str, int, int]], model: Model) -> dict:
    """The modeled columns of the read whose modeled time is the median (the lower of
    the two middle ones for an even count)."""
    summaries = []
    for number, _, _ in reads:
        phase = f"read-{value}-{number}"
        summary = model.replay(run, phase)
        if summary["requests"]["read"]["count"] == 0:
            raise ValueError(
                f"{run}/blktrace/{phase}: no read requests: the cold read never reached the disk"
            )
        summaries.append(summary)
    summaries.sort(key=lambda s: s["time"]["modeled_us"])
    median = summaries[(len(summaries) - 1) // 2]
    columns = {k: v for k, v in ftl.phase_columns(median).items() if k in MODELED_COLUMNS}
    columns["modeled_mib_s"] = f"{reads[0][1] / MIB / ftl.modeled_seconds(median):.6g}"
    return columns


def case_row(run: Path, value: str, reads: list[tuple[str, int, int]], model: Model) -> dict:
    rows = dof_rows(read_snapshot(run / "snapshot" / value))
    if len(rows) != 1:
        raise ValueError(f"{run}/snapshot/{value}: expected one file, found {len(rows)}")
    if len({b for _, b, _ in reads}) != 1:
        raise ValueError(f"{run}/reads.tsv: reads of {value} differ in size")
    median_ns = statistics.median(ns for _, _, ns in reads)
    row = {column: rows[0][column] for column in LAYOUT_COLUMNS}
    row["read_runs"] = len(reads)
    row.update(modeled_read(run, value, reads, model))
    row["wall_ms"] = f"{median_ns / 1e6:.6g}"
    row["wall_mib_s"] = f"{reads[0][1] / MIB / (median_ns / 1e9):.6g}"
    return row


def run_rows(label: dict[str, str], run: Path, case: str, model: Model) -> list[dict[str, object]]:
    times = read_times(run / "reads.tsv", case)
    return [
        {**label, case: value, **case_row(run, value, reads, model)}
        for value, reads in times.items()
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--case", required=True, help="the case column of reads.tsv")
    parser.add_argument("--run", nargs=2, action="append", metavar=("LABEL", "RUN"))
    parser.add_argument(
        "--model",
        nargs=3,
        action="append",
        required=True,
        metavar=("RUN", "PHASE", "SUMMARY"),
        help="ftl-sim's summary of one cold read of a run",
    )
    parser.add_argument("--out", required=True, type=Path)
    args = parser.parse_args(argv)
    if not args.run:
        parser.error("at least one --run LABEL RUN is required")
    model = Model({(run, phase): Path(path) for run, phase, path in args.model})
    try:
        keys: list[str] = []
        rows: list[dict[str, object]] = []
        for text, run in args.run:
            label = parse_label(text)
            keys += [k for k in label if k not in keys]
            rows += run_rows(label, Path(run), args.case, model)
        write_table(args.out, (*keys, args.case, *MEASURE_COLUMNS), rows)
    except (SnapshotError, ftl.FtlSimError, ValueError, OSError) as error:
        print(f"ars_tables: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
