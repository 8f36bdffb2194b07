"""Atomic output: write a temporary file next to the target, then rename it into place."""

from __future__ import annotations

import contextlib
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


def write_text_atomic(path: Path | str, text: str) -> None:
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    write_lines_atomic(path, lines)
