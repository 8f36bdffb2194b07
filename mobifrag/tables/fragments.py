"""Tidy result tables from fragcheck snapshots: per-file DoF and fragment layout.

    python -m mobifrag.tables.fragments --run writers=1 SNAPDIR1 --run writers=5 SNAPDIR5 \
        --dof dof.csv --layout layout.csv

Each --run labels one snapshot; the label's key=value pairs become leading columns, so
several runs stack into one table (one row per observation).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from mobifrag.measure.fragmentation import (
    LEVELS,
    degree_of_fragmentation,
    extents_needed,
    fragments,
    ideal_extents,
    level_counts,
)
from mobifrag.measure.snapshot import Snapshot, SnapshotError, read_snapshot
from mobifrag.workflow.atomic import write_table
from mobifrag.workloads.file_classes import FILE_CLASSES, file_class

DOF_COLUMNS = ("path", "class", "size_bytes", "allocated_bytes", "fragments", "extents")
DOF_COLUMNS += ("ideal_extents",)
DOF_COLUMNS += ("dof",) + LEVELS
LAYOUT_COLUMNS = ("path", "fragment", "logical_bytes", "start_block", "length_blocks")
LEVEL_COLUMNS = ("class", "level", "fragments")


def dof_rows(snapshot: Snapshot) -> list[dict[str, object]]:
    rows = []
    for entry in sorted(snapshot.files, key=lambda f: f.path):
        extents = snapshot.extents.get(entry.path, [])
        pieces = fragments(extents)
        dof = degree_of_fragmentation(extents, snapshot.fs_type)
        row: dict[str, object] = {
            "path": entry.path,
            "class": file_class(entry.path),
            "size_bytes": entry.size_bytes,
            "allocated_bytes": entry.allocated_bytes,
            "fragments": len(pieces),
            "extents": extents_needed(pieces, snapshot.fs_type),
            "ideal_extents": ideal_extents(sum(p.length for p in pieces), snapshot.fs_type),
            "dof": "NA" if dof is None else f"{dof:.6g}",
        }
        row.update(level_counts(extents))
        rows.append(row)
    return rows


def level_rows(snapshot: Snapshot) -> list[dict[str, object]]:
    """Fragments per file class and size level (TMC Fig. 5b, Fig. 2b), zeros included."""
    totals = {(cls, level): 0 for cls in FILE_CLASSES for level in LEVELS}
    for path, extents in snapshot.extents.items():
        for level, count in level_counts(extents).items():
            totals[(file_class(path), level)] += count
    return [{"class": c, "level": lv, "fragments": n} for (c, lv), n in totals.items()]


def layout_rows(snapshot: Snapshot) -> list[dict[str, object]]:
    """Fragments in file-system blocks, relative to the lowest block any file uses."""
    pieces = {path: fragments(extents) for path, extents in snapshot.extents.items()}
    starts = [p.physical for file_pieces in pieces.values() for p in file_pieces]
    if not starts:
        return []
    origin = min(starts)
    block = snapshot.block_size
    rows = []
    for path in sorted(pieces):
        for index, piece in enumerate(pieces[path]):
            rows.append(
                {
                    "path": path,
                    "fragment": index,
                    "logical_bytes": piece.logical,
                    "start_block": (piece.physical - origin) // block,
                    "length_blocks": -(-piece.length // block),
                }
            )
    return rows


def parse_label(text: str) -> dict[str, str]:
    label = {}
    for pair in text.split(","):
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise ValueError(f"run label {text!r}: expected key=value[,key=value...]")
        label[key.strip()] = value.strip()
    return label


def labelled(runs, derive) -> tuple[tuple[str, ...], list[dict[str, object]]]:
    keys: list[str] = []
    rows = []
    for label, snapshot in runs:
        keys += [k for k in label if k not in keys]
        rows += [{**label, **row} for row in derive(snapshot)]
    return tuple(keys), rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--run", nargs=2, action="append", metavar=("LABEL", "SNAPSHOT"))
    parser.add_argument("--dof", type=Path, help="per-file DoF table (CSV)")
    parser.add_argument("--layout", type=Path, help="fragment layout table (CSV)")
    parser.add_argument("--levels", type=Path, help="fragments per class and level (CSV)")
    args = parser.parse_args(argv)
    if not args.run:
        parser.error("at least one --run LABEL SNAPSHOT is required")
    try:
        runs = [(parse_label(label), read_snapshot(Path(d))) for label, d in args.run]
        if args.dof:
            keys, rows = labelled(runs, dof_rows)
            write_table(args.dof, keys + DOF_COLUMNS, rows)
        if args.layout:
            keys, rows = labelled(runs, layout_rows)
            write_table(args.layout, keys + LAYOUT_COLUMNS, rows)
        if args.levels:
            keys, rows = labelled(runs, level_rows)
            write_table(args.levels, keys + LEVEL_COLUMNS, rows)
    except (SnapshotError, ValueError, OSError) as error:
        print(f"fragment_tables: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
