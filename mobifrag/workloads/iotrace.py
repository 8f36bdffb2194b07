"""The `.iotrace` workload format (traces/FORMAT.md): typed operations, writer, reader.

A trace is `#iotrace v1`, then one tab-separated operation per line:
TIME_US THREAD OP PATH ARG...  The reader checks every line as the replayer does and
reports the first problem as `FILE:LINE: message`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from mobifrag.workflow.atomic import write_lines_atomic

HEADER = "#iotrace v1"

JOURNAL_MODES = ("delete", "truncate", "persist", "wal")
SQL_KINDS = ("insert", "update", "delete", "select")
FALLOCATE_MODES = ("keep", "extend")

# Argument kinds: "int" (non-negative integer), "path", or a tuple of allowed words.
OP_ARGS: dict[str, tuple] = {
    "mkdir": (),
    "create": (),
    "write": ("int", "int"),
    "append": ("int",),
    "read": ("int", "int"),
    "fsync": (),
    "fdatasync": (),
    "syncfs": (),
    "fallocate": ("int", "int", FALLOCATE_MODES),
    "truncate": ("int",),
    "unlink": (),
    "rename": ("path",),
    "sql": (JOURNAL_MODES, SQL_KINDS, "int", "int"),
    "fill": ("int",),
    "reclaim": ("int", "int", "int", "str"),
}


class TraceError(ValueError):
    """A malformed trace line; the message starts with FILE:LINE."""


@dataclass(frozen=True)
class Op:
    time_us: int
    thread: int
    op: str
    path: str
    args: tuple = ()

    def line(self) -> str:
        fields = [str(self.time_us), str(self.thread), self.op, escape(self.path)]
        for kind, value in zip(OP_ARGS[self.op], self.args, strict=True):
            fields.append(escape(value) if kind == "path" else str(value))
        return "\t".join(fields)


_ESCAPES = {"\\": "\\\\", "\t": "\\t", "\n": "\\n"}


def escape(text: str) -> str:
    """Escape a path as fragcheck tables do: `\\\\`, `\\t`, `\\n`, `\\xHH` for control bytes."""
    out = []
    for ch in text:
        code = ord(ch)
        if ch in _ESCAPES:
            out.append(_ESCAPES[ch])
        elif code < 0x20 or code == 0x7F:
            out.append(f"\\x{code:02x}")
        elif 0xDC80 <= code <= 0xDCFF:  # undecodable byte kept by surrogateescape
            out.append(f"\\x{code - 0xDC00:02x}")
        else:
            out.append(ch)
    return "".join(out)


_UNESCAPE = re.compile(r"\\(x[0-9a-fA-F]{2}|.)", re.DOTALL)


def unescape(text: str) -> str:
    def replace(match: re.Match) -> str:
        token = match.group(1)
        if token == "\\":
            return "\\"
        if token == "t":
            return "\t"
        if token == "n":
            return "\n"
        if token.startswith("x") and len(token) == 3:
            value = int(token[1:], 16)
            return chr(value) if value < 0x80 else chr(0xDC00 + value)
        raise ValueError(f"unknown escape \\{token}")

    if text.endswith("\\") and not text.endswith("\\\\"):
        raise ValueError("dangling backslash")
    return _UNESCAPE.sub(replace, text)


def path_problem(path: str) -> str | None:
    """Why a path may not appear in a trace, or None if it may."""
    if path == "":
        return "empty path"
    if path.startswith("/"):
        return f"absolute path {path!r}"
    if ".." in path.split("/"):
        return f"path {path!r} contains '..'"
    if "\0" in path:
        return "path contains a NUL byte"
    return None


def make_op(time_us: int, thread: int, op: str, path: str, *args) -> Op:
    """A checked operation (raises ValueError on a bad one)."""
    if op not in OP_ARGS:
        raise ValueError(f"unknown op {op!r}")
    if time_us < 0 or thread < 0:
        raise ValueError("time and thread must be non-negative")
    problem = path_problem(path)
    if problem:
        raise ValueError(problem)
    kinds = OP_ARGS[op]
    if len(args) != len(kinds):
        raise ValueError(f"{op} takes {len(kinds)} argument(s), got {len(args)}")
    for kind, value in zip(kinds, args, strict=True):
        if kind == "int" and (not isinstance(value, int) or value < 0):
            raise ValueError(f"{op}: {value!r} is not a non-negative integer")
        if kind == "path":
            problem = path_problem(value)
            if problem:
                raise ValueError(f"{op}: {problem}")
        if isinstance(kind, tuple) and value not in kind:
            raise ValueError(f"{op}: {value!r} is not one of {', '.join(kind)}")
    return Op(time_us, thread, op, path, tuple(args))


def _parse_int(text: str, what: str) -> int:
    if not text.isdigit() or not text.isascii():
        raise ValueError(f"{what} {text!r} is not a non-negative integer")
    return int(text)


def parse_line(text: str) -> Op:
    """One operation line (not a comment) → Op; ValueError says what is wrong."""
    fields = text.split("\t")
    if len(fields) < 4:
        raise ValueError(f"expected at least 4 tab-separated fields, got {len(fields)}")
    time_us = _parse_int(fields[0], "TIME_US")
    thread = _parse_int(fields[1], "THREAD")
    op = fields[2]
    if op not in OP_ARGS:
        raise ValueError(f"unknown op {op!r}")
    kinds = OP_ARGS[op]
    if len(fields) != 4 + len(kinds):
        raise ValueError(f"{op} takes {len(kinds)} argument(s), got {len(fields) - 4}")
    path = unescape(fields[3])
    args = []
    for kind, field in zip(kinds, fields[4:], strict=True):
        if kind == "int":
            args.append(_parse_int(field, f"{op} argument"))
        elif kind == "path":
            args.append(unescape(field))
        else:
            args.append(field)
    return make_op(time_us, thread, op, path, *args)


def iter_trace(path: Path | str) -> Iterator[tuple[int, Op]]:
    """(line number, Op) for each operation; TraceError names FILE:LINE on the first problem."""
    name = str(path)
    last_time: dict[int, int] = {}
    header_seen = False
    with open(path, encoding="utf-8", newline="\n") as handle:
        for number, raw in enumerate(handle, start=1):
            text = raw[:-1] if raw.endswith("\n") else raw
            if number == 1:
                if text != HEADER:
                    raise TraceError(f"{name}:1: first line must be exactly {HEADER!r}")
                header_seen = True
                continue
            if text == "" or text.startswith("#"):
                continue
            try:
                op = parse_line(text)
            except ValueError as error:
                raise TraceError(f"{name}:{number}: {error}") from None
            if op.time_us < last_time.get(op.thread, 0):
                raise TraceError(
                    f"{name}:{number}: TIME_US {op.time_us} goes back in thread {op.thread}"
                )
            last_time[op.thread] = op.time_us
            yield number, op
    if not header_seen:
        raise TraceError(f"{name}:1: empty file, expected {HEADER!r}")


def read_trace(path: Path | str) -> list[Op]:
    return [op for _, op in iter_trace(path)]


def trace_lines(ops: Iterable[Op], comments: Iterable[str] = ()) -> Iterator[str]:
    yield HEADER
    for comment in comments:
        for part in comment.split("\n"):
            yield f"# {part}".rstrip()
    for op in ops:
        yield op.line()


def write_trace(path: Path | str, ops: Iterable[Op], comments: Iterable[str] = ()) -> None:
    """Write a trace atomically (temporary file, then rename)."""
    write_lines_atomic(path, trace_lines(ops, comments))
