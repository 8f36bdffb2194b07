"""Tables of the ARS kernel experiments (ARS §III and §V.A, Figs. 1 and 2).

    python -m mobifrag.ars_tables --case file --run scheme=ars RUN ... --out fig01.csv

RUN is the output folder of jobs/ars-motivation.sh or jobs/ars-blocksize.sh: a
`reads.tsv` (case, run, bytes, ns: cold sequential reads of one file per case) and a
fragcheck snapshot of that file per case under snapshot/<case>/. One row per run label
and case: the file's fragments and extents (fragment_tables' definitions), its DoF, and
the median cold sequential read time over the runs with the bandwidth it gives (the
median, as a TCG guest on a shared host now and then stalls one read).
"""

from __future__ import annotations

import argparse
import csv
import statistics
import sys
from pathlib import Path

from mobifrag.fragment_tables import dof_rows, parse_label, write_table
from mobifrag.snapshot import SnapshotError, read_snapshot

MEASURE_COLUMNS = ("size_bytes", "fragments", "extents", "dof")
MEASURE_COLUMNS += ("read_runs", "read_ms", "read_mib_s")
MIB = 1024 * 1024


def read_times(path: Path, case: str) -> dict[str, list[tuple[int, int]]]:
    """Case value → (bytes, ns) of each cold read in a job's reads.tsv."""
    with open(path, newline="") as handle:
        rows = list(csv.DictReader(handle, delimiter="\t"))
    if not rows or case not in rows[0] or not {"bytes", "ns"} <= rows[0].keys():
        raise ValueError(f"{path}: expected columns {case}, run, bytes, ns")
    times: dict[str, list[tuple[int, int]]] = {}
    for line, row in enumerate(rows, start=2):
        try:
            bytes_, ns = int(row["bytes"]), int(row["ns"])
        except (TypeError, ValueError):
            raise ValueError(f"{path}:{line}: bytes and ns must be integers") from None
        if ns <= 0:
            raise ValueError(f"{path}:{line}: read time {ns} ns is not positive")
        times.setdefault(row[case], []).append((bytes_, ns))
    return times


def case_row(run: Path, value: str, reads: list[tuple[int, int]]) -> dict[str, object]:
    rows = dof_rows(read_snapshot(run / "snapshot" / value))
    if len(rows) != 1:
        raise ValueError(f"{run}/snapshot/{value}: expected one file, found {len(rows)}")
    if len({b for b, _ in reads}) != 1:
        raise ValueError(f"{run}/reads.tsv: reads of {value} differ in size")
    median_ns = statistics.median(ns for _, ns in reads)
    row = {column: rows[0][column] for column in MEASURE_COLUMNS[:4]}
    row["read_runs"] = len(reads)
    row["read_ms"] = f"{median_ns / 1e6:.6g}"
    row["read_mib_s"] = f"{reads[0][0] / MIB / (median_ns / 1e9):.6g}"
    return row


def run_rows(label: dict[str, str], run: Path, case: str) -> list[dict[str, object]]:
    times = read_times(run / "reads.tsv", case)
    return [{**label, case: value, **case_row(run, value, reads)} for value, reads in times.items()]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--case", required=True, help="the case column of reads.tsv")
    parser.add_argument("--run", nargs=2, action="append", metavar=("LABEL", "RUN"))
    parser.add_argument("--out", required=True, type=Path)
    args = parser.parse_args(argv)
    if not args.run:
        parser.error("at least one --run LABEL RUN is required")
    try:
        keys: list[str] = []
        rows: list[dict[str, object]] = []
        for text, run in args.run:
            label = parse_label(text)
            keys += [k for k in label if k not in keys]
            rows += run_rows(label, Path(run), args.case)
        write_table(args.out, (*keys, args.case, *MEASURE_COLUMNS), rows)
    except (SnapshotError, ValueError, OSError) as error:
        print(f"ars_tables: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
