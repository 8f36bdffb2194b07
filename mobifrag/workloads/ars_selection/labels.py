"""The label of ARS §IV.A: should a file get reserved space?

ARS tags files by "file type, access behaviors and fragmentation degree" (§IV.A). In a
Mobibench trace the file type is unknown ("we can't obtain the file type directly",
§IV.A), and every access behaviour the paper names — written-many, "written more than
100 times" (§IV), the write count — is one of the features, so a label built from it
is a threshold on a feature that any classifier relearns exactly. The label is therefore
the fragmentation degree alone, measured:

    reserve = the largest DoF fragcheck measured among the files written through the
              descriptor, after replaying the whole trace on F2FS, is above
              `fragmented_dof_above`

Its only inputs are the replay's DoF table and the threshold, never a feature column:
whether a file fragments depends on what the other threads write between its writes
and where the file system puts them, which the file's own size, write interval and
write count do not fix. A file with no placed data (inline in its inode, DoF NA) has
nothing fragmented. A descriptor the replay writes no file through (only written while
opened before the capture: Mobibench skips those calls) is not reserved,
`label_source` = no_file.
"""

from __future__ import annotations

import csv
from pathlib import Path

LABEL_COLUMNS = ("files", "files_measured", "dof_max", "label_source", "reserve")
FILE_COLUMNS = ("descriptor", "path", "dof")


class LabelError(ValueError):
    """A DoF table that cannot be read, or files it lacks; the message names the file."""


def max_dof_by_path(tables: list[Path]) -> dict[str, float | None]:
    """Largest measured DoF of every path over all rows (snapshots) of the tables; None
    for a path whose every row is NA (no placed data)."""
    largest: dict[str, float | None] = {}
    for table in tables:
        with open(table, newline="") as handle:
            reader = csv.DictReader(handle)
            missing = {"path", "dof"} - set(reader.fieldnames or ())
            if missing:
                raise LabelError(f"{table}: no column {', '.join(sorted(missing))}")
            for number, row in enumerate(reader, start=2):
                largest.setdefault(row["path"], None)
                if row["dof"] in ("", "NA"):
                    continue
                try:
                    dof = float(row["dof"])
                except ValueError:
                    raise LabelError(f"{table}:{number}: dof {row['dof']!r}") from None
                known = largest[row["path"]]
                largest[row["path"]] = dof if known is None else max(known, dof)
    return largest


def label(dofs: list[float | None], dof_above: float) -> dict[str, object]:
    """The label columns from the measured DoFs of a descriptor's files (None: no data)."""
    measured = [d for d in dofs if d is not None]
    dof_max = max(measured) if measured else None
    return {
        "files": len(dofs),
        "files_measured": len(measured),
        "dof_max": _dof_text(dof_max),
        "label_source": "measured" if dofs else "no_file",
        "reserve": int(dof_max is not None and dof_max > dof_above),
    }


def file_dofs(
    files: dict[int, list[str]], dofs: dict[str, float | None], source: str
) -> dict[int, list[float | None]]:
    """Descriptor → the DoF of each of its files; LabelError names a file the table lacks."""
    out = {}
    for fd, paths in files.items():
        missing = [p for p in paths if p not in dofs]
        if missing:
            raise LabelError(
                f"{source}: no row for {missing[0]} (descriptor {fd}, {len(missing)} of its "
                f"{len(paths)} files missing): the DoF table is not of this trace's replay"
            )
        out[fd] = [dofs[p] for p in paths]
    return out


def labelled_rows(
    features: list[dict], by_descriptor: dict[int, list[float | None]], dof_above: float
) -> list[dict]:
    """The feature rows with their label columns; the label reads no feature column."""
    return [
        {**row, **label(by_descriptor.get(int(row["descriptor"]), []), dof_above)}
        for row in features
    ]


def file_rows(files: dict[int, list[str]], dofs: dict[str, float | None]) -> list[dict]:
    """One row per replayed file: the evidence behind each descriptor's label."""
    return [
        {"descriptor": fd, "path": path, "dof": _dof_text(dofs[path])}
        for fd, paths in sorted(files.items())
        for path in paths
    ]


def _dof_text(dof: float | None) -> str:
    return "NA" if dof is None else f"{dof:.6g}"
