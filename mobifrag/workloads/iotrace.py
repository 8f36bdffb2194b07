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

# Limits of the replayer (agent/src/trace_line.c, trace.h): offsets and lengths below
# 2^63 (and OFFSET + LENGTH too), a SQLite blob at most 10^9 bytes, other integers 64-bit.
MAX_U64 = 2**64 - 1
MAX_FILE_OFFSET = 2**63 - 1
MAX_SQL_BLOB = 1_000_000_000
TRACE_MAX_THREADS = 256

# Argument kinds: "offset" (integer up to MAX_FILE_OFFSET), "u64", "blob" (integer up to
# MAX_SQL_BLOB), "percent" (70 or 72.5, at most 100), "path", "glob" (a file-name
# pattern, taken as written), or a tuple of allowed words.
OP_ARGS: dict[str, tuple] = {
    "mkdir": (),
    "create": (),
    "write": ("offset", "offset"),
    "append": ("offset",),
    "read": ("offset", "offset"),
    "fsync": (),
    "fdatasync": (),
    "syncfs": (),
    "fallocate": ("offset", "offset", FALLOCATE_MODES),
    "truncate": ("offset",),
    "unlink": (),
    "rename": ("path",),
    "sql": (JOURNAL_MODES, SQL_KINDS, "offset", "blob"),
    "fill": ("percent",),
    "reclaim": ("percent", "u64", "u64", "glob"),
    "thin": ("percent", "u64", "glob", "offset"),
}
_INT_LIMITS = {"offset": MAX_FILE_OFFSET, "u64": MAX_U64, "blob": MAX_SQL_BLOB}
_SPANS = ("write", "read", "fallocate")  # OFFSET + LENGTH within the largest file offset


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
        fields = [str(self.time_us), str(self.thread), self.op, _path_field(self.path)]
        for kind, value in zip(OP_ARGS[self.op], self.args, strict=True):
            if kind == "path":
                fields.append(_path_field(value))
            elif kind == "percent":
                fields.append(_percent_text(value))
            else:
                fields.append(str(value))
        return "\t".join(fields)


def _path_field(path: str) -> str:
    """An escaped PATH field; a file named `-` is written `\\x2d`, since a bare `-` means
    "no path" in the format and is refused."""
    text = escape(path)
    return "\\x2d" if text == "-" else text


def _percent_text(value: float) -> str:
    """A percentage as the replayer reads it: digits with an optional fraction."""
    if isinstance(value, int):
        return str(value)
    text = repr(float(value))
    if "e" in text:
        text = format(value, ".15f").rstrip("0").rstrip(".")
    return text


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


_SIMPLE_ESCAPES = {"\\": "\\", "t": "\t", "n": "\n"}
_HEX = "0123456789abcdefABCDEF"


def unescape(text: str) -> str:
    """Undo `escape` in one left-to-right pass, as the replayer does: `\\\\`, `\\t`,
    `\\n`, `\\xHH` (hex in either case); any other backslash sequence is an error."""
    out = []
    i = 0
    while i < len(text):
        ch = text[i]
        if ch != "\\":
            out.append(ch)
            i += 1
            continue
        token = text[i + 1 : i + 2]
        if token in _SIMPLE_ESCAPES:
            out.append(_SIMPLE_ESCAPES[token])
            i += 2
        elif token == "x" and len(text) >= i + 4 and all(c in _HEX for c in text[i + 2 : i + 4]):
            value = int(text[i + 2 : i + 4], 16)
            out.append(chr(value) if value < 0x80 else chr(0xDC00 + value))
            i += 4
        elif token == "":
            raise ValueError("dangling backslash")
        else:
            raise ValueError(f"unknown escape \\{token}")
    return "".join(out)


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
    for name, value in (("TIME_US", time_us), ("THREAD", thread)):
        if not isinstance(value, int) or not 0 <= value <= MAX_U64:
            raise ValueError(f"{name} {value!r} is not an integer from 0 to 2^64 - 1")
    problem = path_problem(path)
    if problem:
        raise ValueError(problem)
    kinds = OP_ARGS[op]
    if len(args) != len(kinds):
        raise ValueError(f"{op} takes {len(kinds)} argument(s), got {len(args)}")
    for kind, value in zip(kinds, args, strict=True):
        if kind in _INT_LIMITS:
            limit = _INT_LIMITS[kind]
            if not isinstance(value, int) or not 0 <= value <= limit:
                raise ValueError(f"{op}: {value!r} is not an integer from 0 to {limit}")
        if kind == "percent" and (
            not isinstance(value, int | float) or not 0 <= value <= 100 or value != value
        ):
            raise ValueError(f"{op}: PERCENT {value!r} is not a number from 0 to 100")
        if kind == "path":
            problem = path_problem(value)
            if problem:
                raise ValueError(f"{op}: {problem}")
        if kind == "glob" and (not isinstance(value, str) or value == "" or "/" in value):
            raise ValueError(f"{op}: GLOB must be a non-empty file-name pattern without '/'")
        if isinstance(kind, tuple) and value not in kind:
            raise ValueError(f"{op}: {value!r} is not one of {', '.join(kind)}")
    if op in _SPANS and args[0] + args[1] > MAX_FILE_OFFSET:
        raise ValueError(f"{op}: OFFSET + LENGTH beyond the largest file offset")
    return Op(time_us, thread, op, path, tuple(args))


def _parse_int(text: str, what: str, limit: int = MAX_U64) -> int:
    if not text.isdigit() or not text.isascii():
        raise ValueError(f"{what} {text!r} is not a non-negative integer")
    digits = text.lstrip("0") or "0"
    value = int(digits) if len(digits) <= 20 else limit + 1  # no 4300-digit int parse
    if value > limit:
        raise ValueError(f"{what} {text[:40]!r} is too large (at most {limit})")
    return value


_PERCENT = re.compile(r"[0-9]+(\.[0-9]+)?")


def _parse_percent(text: str) -> int | float:
    if not _PERCENT.fullmatch(text):
        raise ValueError(f"PERCENT {text!r} is not a percentage (like 70 or 72.5)")
    value = float(text)
    if value > 100:
        raise ValueError(f"PERCENT {text!r} is above 100")
    return int(text) if text.isdigit() else value


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
        if kind in _INT_LIMITS:
            args.append(_parse_int(field, f"{op} argument", _INT_LIMITS[kind]))
        elif kind == "percent":
            args.append(_parse_percent(field))
        elif kind == "path":
            if field == "-":
                raise ValueError("NEWPATH '-': this operation needs a path")
            args.append(unescape(field))
        else:
            args.append(field)
    if fields[3] == "-":
        raise ValueError("this operation needs a path, not '-' (write a file named - as ./-)")
    return make_op(time_us, thread, op, path, *args)


def iter_trace(path: Path | str) -> Iterator[tuple[int, Op]]:
    """(line number, Op) for each operation; TraceError names FILE:LINE on the first problem.

    Accepts exactly the lines the replayer accepts (`mobifrag-agent replay --check`):
    bytes that are not UTF-8 are kept (surrogateescape) as the replayer keeps them, a NUL
    byte anywhere is an error, and at most TRACE_MAX_THREADS distinct THREAD values."""
    name = str(path)
    last_time: dict[int, int] = {}
    header_seen = False
    with open(path, encoding="utf-8", errors="surrogateescape", newline="\n") as handle:
        for number, raw in enumerate(handle, start=1):
            text = raw[:-1] if raw.endswith("\n") else raw
            if "\0" in text:
                raise TraceError(f"{name}:{number}: NUL byte in line")
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
            if op.thread not in last_time and len(last_time) == TRACE_MAX_THREADS:
                raise TraceError(
                    f"{name}:{number}: THREAD {op.thread} is distinct THREAD value number "
                    f"{TRACE_MAX_THREADS + 1}; a trace may use at most {TRACE_MAX_THREADS}"
                )
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
