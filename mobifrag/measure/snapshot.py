"""Read the tables `mobifrag-agent fragcheck` writes (see agent/README.md)."""

from __future__ import annotations

import csv
import re
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from mobifrag.measure.fragmentation import Extent

FILES_COLUMNS = ("path", "size_bytes", "allocated_bytes", "n_extents", "inode")
EXTENTS_COLUMNS = ("path", "extent", "logical_bytes", "physical_bytes", "length_bytes", "flags")
FS_COLUMNS = ("fs_type", "block_size", "total_blocks", "free_blocks", "device")

_ESCAPES = {"\\\\": "\\", "\\t": "\t", "\\n": "\n"}
_ESCAPE_RE = re.compile(r"\\\\|\\t|\\n|\\x([0-9a-fA-F]{2})")


class SnapshotError(ValueError):
    """A fragcheck table that cannot be read; the message names file and line."""


@dataclass(frozen=True)
class FileEntry:
    path: str
    size_bytes: int
    allocated_bytes: int


@dataclass
class Snapshot:
    fs_type: str
    block_size: int
    total_blocks: int
    free_blocks: int
    files: list[FileEntry] = field(default_factory=list)
    extents: dict[str, list[Extent]] = field(default_factory=dict)


def unescape_path(text: str) -> str:
    def replace(match: re.Match[str]) -> str:
        if match.group(1):
            return chr(int(match.group(1), 16))
        return _ESCAPES[match.group(0)]

    return _ESCAPE_RE.sub(replace, text)


def _rows(path: Path, columns: tuple[str, ...]):
    with open(path, newline="", encoding="utf-8", errors="surrogateescape") as handle:
        reader = csv.reader(handle, delimiter="\t", quoting=csv.QUOTE_NONE)
        header = next(reader, None)
        if header is None or tuple(header) != columns:
            raise SnapshotError(f"{path}: header is {header}, expected {list(columns)}")
        for line_number, row in enumerate(reader, start=2):
            if len(row) != len(columns):
                raise SnapshotError(
                    f"{path}:{line_number}: {len(row)} fields, expected {len(columns)}"
                )
            yield line_number, dict(zip(columns, row, strict=True))


def _int(path: Path, line: int, row: dict[str, str], column: str) -> int:
    try:
        return int(row[column])
    except ValueError:
        raise SnapshotError(f"{path}:{line}: {column} is not an integer: {row[column]!r}") from None


def _flags(text: str) -> frozenset[str]:
    return frozenset() if text in ("", "-") else frozenset(text.split(","))


def read_snapshot(directory: Path) -> Snapshot:
    """Read files.tsv, extents.tsv and fs.tsv from one fragcheck snapshot directory."""
    directory = Path(directory)
    fs_rows = list(_rows(directory / "fs.tsv", FS_COLUMNS))
    if len(fs_rows) != 1:
        raise SnapshotError(f"{directory / 'fs.tsv'}: expected one row, found {len(fs_rows)}")
    line, fs_row = fs_rows[0]
    fs_path = directory / "fs.tsv"
    snapshot = Snapshot(
        fs_type=fs_row["fs_type"],
        block_size=_int(fs_path, line, fs_row, "block_size"),
        total_blocks=_int(fs_path, line, fs_row, "total_blocks"),
        free_blocks=_int(fs_path, line, fs_row, "free_blocks"),
    )
    files_path = directory / "files.tsv"
    counts: dict[str, tuple[int, int]] = {}  # path -> (line in files.tsv, n_extents)
    for line, row in _rows(files_path, FILES_COLUMNS):
        path = unescape_path(row["path"])
        snapshot.files.append(
            FileEntry(
                path=path,
                size_bytes=_int(files_path, line, row, "size_bytes"),
                allocated_bytes=_int(files_path, line, row, "allocated_bytes"),
            )
        )
        counts[path] = (line, _int(files_path, line, row, "n_extents"))
    extents: dict[str, list[Extent]] = defaultdict(list)
    extents_path = directory / "extents.tsv"
    for line, row in _rows(extents_path, EXTENTS_COLUMNS):
        extents[unescape_path(row["path"])].append(
            Extent(
                logical=_int(extents_path, line, row, "logical_bytes"),
                physical=_int(extents_path, line, row, "physical_bytes"),
                length=_int(extents_path, line, row, "length_bytes"),
                flags=_flags(row["flags"]),
            )
        )
    snapshot.extents = dict(extents)
    check_extent_counts(files_path, extents_path, counts, snapshot.extents)
    return snapshot


def check_extent_counts(
    files_path: Path,
    extents_path: Path,
    counts: dict[str, tuple[int, int]],
    extents: dict[str, list[Extent]],
) -> None:
    """Every file has as many rows in extents.tsv as its n_extents says, and extents.tsv
    lists no file that files.tsv lacks: a table cut short (a full disk, an interrupted
    copy) is refused instead of read as a less fragmented file system."""
    for path, (line, expected) in counts.items():
        found = len(extents.get(path, ()))
        if found != expected:
            raise SnapshotError(
                f"{files_path}:{line}: {path!r} has n_extents {expected}, but {extents_path} "
                f"has {found} rows for it (a damaged or truncated snapshot)"
            )
    for path, rows in extents.items():
        if path not in counts:
            raise SnapshotError(
                f"{extents_path}: {len(rows)} rows for {path!r}, which {files_path} does not "
                "list (a damaged or truncated snapshot)"
            )
