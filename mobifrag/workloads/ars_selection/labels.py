"""The label of ARS §IV.A: should a file get reserved space?

ARS tags files "by file type, access behaviours and fragmentation degree" and names
written-many files (written more than 100 times in the Facebook and Twitter traces) as
the good reserved objects, written-once files as free of fragmentation. The rule here:

    reserve = written_many and fragmented

- written_many (access behaviour): the file's write requests in the trace are more
  than `written_many_more_than` (ARS §IV: 100);
- fragmented (fragmentation degree): the largest DoF fragcheck measured for the path
  in any snapshot of a replay of the same traces is above `fragmented_dof_above`
  (DoF > 1: more extents than the file system needs, TMC §3.1). A path no snapshot
  holds (deleted before it, e.g. a rollback journal removed at commit) falls back to
  its file type: SQLite files count as fragmented (ARS §IV: .db, .db-wal and
  .db-journal files are written-many and among the most fragmented), others not.
  `label_source` says which of the two decided.
"""

from __future__ import annotations

import csv
from pathlib import Path

LABEL_COLUMNS = ("dof_max", "written_many", "fragmented", "label_source", "reserve")


class LabelError(ValueError):
    """A DoF table that cannot be read; the message names the file."""


def max_dof_by_path(tables: list[Path]) -> dict[str, float]:
    """Largest measured DoF of every path over all rows (snapshots) of the tables."""
    largest: dict[str, float] = {}
    for table in tables:
        with open(table, newline="") as handle:
            reader = csv.DictReader(handle)
            missing = {"path", "dof"} - set(reader.fieldnames or ())
            if missing:
                raise LabelError(f"{table}: no column {', '.join(sorted(missing))}")
            for number, row in enumerate(reader, start=2):
                if row["dof"] in ("", "NA"):
                    continue
                try:
                    dof = float(row["dof"])
                except ValueError:
                    raise LabelError(f"{table}:{number}: dof {row['dof']!r}") from None
                largest[row["path"]] = max(dof, largest.get(row["path"], dof))
    return largest


def label(row: dict, dof: float | None, written_many_more_than: int, dof_above: float) -> dict:
    """The label columns of one feature row."""
    written_many = int(row["write_requests"]) > written_many_more_than
    if dof is None:
        fragmented = row["class"] == "sqlite"
        source = "file_type"
    else:
        fragmented = dof > dof_above
        source = "measured"
    return {
        "dof_max": "NA" if dof is None else f"{dof:.6g}",
        "written_many": int(written_many),
        "fragmented": int(fragmented),
        "label_source": source,
        "reserve": int(written_many and fragmented),
    }


def labelled_rows(
    features: list[dict], dofs: dict[str, float], written_many_more_than: int, dof_above: float
) -> list[dict]:
    return [
        {**row, **label(row, dofs.get(row["path"]), written_many_more_than, dof_above)}
        for row in features
    ]
