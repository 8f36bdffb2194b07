"""Atomic output: write a temporary file next to the target, then rename it into place,
so a half-written table or trace never looks complete."""

from __future__ import annotations

import contextlib
import csv
import os
import tempfile
from collections.abc import Iterable
from pathlib import Path


def write_lines_atomic(path: Path | str, lines: Iterable[str]) -> None:
    """Write lines (each without its newline) to path; a reader never sees half a file."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as out:
            for line in lines:
                out.write(line)
                out.write("\n")
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def write_table(path: Path, columns: tuple[str, ...], rows: list[dict[str, object]]) -> None:
    """Write atomically: a half-written table must never look complete."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".partial")
    with open(partial, "w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=columns, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    os.replace(partial, path)
