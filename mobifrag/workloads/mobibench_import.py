"""Convert a Mobibench (MobiGen) app trace into an `.iotrace`, replayed as `mobibench -g` does.

Mobibench's MobiGen turns `strace -f -tt` of a real app into one system call a line,
fields separated by single spaces (`mobibench.c`, replay_script() reads them with
strtok):

    THREAD TIME_US CALL ARG... [RESULT]

    open PATH FLAGS FD          PATH quoted ("/system/fonts/x.ttf") or not (data/data:
                                MobiGen's placeholder for a file whose name it dropped)
    close FD RET                write FD LENGTH           pwrite FD OFFSET LENGTH
    read FD LENGTH              pread FD OFFSET LENGTH    fsync FD RET / fdatasync FD RET
    fstat64 FD RET              stat64|lstat64|access "PATH" RET
    unlink "PATH" RET

The conversion follows Mobibench's replayer (do_script() in mobibench.c), so the
`.iotrace` does what `mobibench -g` does on a phone:

- every open of an unquoted path makes a new file, named as Mobibench names it
  (`temp_<thread>_<n>.dat`, n counting opens in time order) under DIR, and truncates it
  (`create`): Mobibench opens it O_RDWR|O_CREAT|O_TRUNC whatever the captured flags;
- an open of a quoted path is read-only in Mobibench (every such open in the traces is
  O_RDONLY) and touches the phone's own files (/system fonts, /proc, a database folder
  fsync'd): not on the file system under test, so it and the calls on its descriptor are
  skipped and counted;
- LENGTH is what the call returned in the capture, so a read of -1 (failed) or 0 moves
  nothing and is skipped (Mobibench passes it on to a call that fails);
- write/read advance the descriptor's offset (a read stops at the end of the file);
  pwrite/pread carry their offset; fsync/fdatasync as they are;
- calls on a descriptor no open of the trace made (opened before the capture, or a
  failed open) are skipped, as Mobibench skips them; so are close, the stat calls,
  access (no operation of the format) and unlink (its quoted path names a phone file the
  replay never creates).

The descriptor table is shared by all threads (one app process) and calls are taken in
time order (the file is grouped by thread); an open of a descriptor still open replaces
it. Every line must parse: a malformed one is an error naming FILE:LINE.

Trace statistics (ARS §IV, 002_9c752af6cbdd8f95.txt:405-409): the paper counts writes as
the write and pwrite calls of the trace, and files by descriptor ("the write operation
object in the replay file is described by fd", :524-526); a file is written-many when it
has more than 100 write calls. `stats()` gives those, and the same counts over the files
the `.iotrace` writes.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from mobifrag.workloads.iotrace import TRACE_MAX_THREADS, Op, make_op, path_problem

# Fields after THREAD TIME_US CALL, as mobibench.c reads them (RESULT included).
ARITY = {
    "open": 3,
    "close": 2,
    "write": 2,
    "pwrite": 3,
    "read": 2,
    "pread": 3,
    "fsync": 2,
    "fdatasync": 2,
    "fstat64": 2,
    "stat64": 2,
    "lstat64": 2,
    "access": 2,
    "unlink": 2,
}
WRITES = ("write", "pwrite")
DEFAULT_DIR = "mobigen_temp"
WRITTEN_MANY_MORE_THAN = 100  # ARS §IV: "written more than 100 times"


class MobibenchError(ValueError):
    """A malformed trace line, or one whose numbers an `.iotrace` cannot hold; the
    message starts with FILE:LINE."""


@dataclass(frozen=True)
class Call:
    line: int
    thread: int
    time_us: int
    name: str
    args: tuple


@dataclass
class OpenFile:
    path: str
    offset: int = 0


@dataclass
class ImportResult:
    calls: list[Call]
    ops: list[Op] = field(default_factory=list)
    skipped: Counter = field(default_factory=Counter)
    descriptors: dict[str, int] = field(default_factory=dict)  # file made → its open's fd

    def summary(self) -> dict:
        return {
            "calls": len(self.calls),
            "ops": len(self.ops),
            "ops_per_kind": dict(sorted(Counter(op.op for op in self.ops).items())),
            "skipped": dict(sorted(self.skipped.items())),
        }


def _int(text: str, what: str, signed: bool = False) -> int:
    body = text[1:] if signed and text.startswith("-") else text
    if not body.isdigit() or not body.isascii():
        raise ValueError(f"{what} {text!r} is not {'an' if signed else 'a non-negative'} integer")
    return int(text)


def parse_line(text: str) -> Call | None:
    """One line → Call (line number 0), None for an empty line; ValueError says why."""
    if text.strip() == "":
        return None
    fields = text.split()
    if len(fields) < 3:
        raise ValueError(f"expected THREAD TIME_US CALL ..., got {len(fields)} field(s)")
    thread = _int(fields[0], "THREAD")
    time_us = _int(fields[1], "TIME_US")
    name = fields[2]
    if name not in ARITY:
        raise ValueError(f"unknown call {name!r}")
    args = fields[3:]
    if len(args) != ARITY[name]:
        raise ValueError(f"{name} takes {ARITY[name]} field(s), got {len(args)}")
    if name == "open":
        parsed = (args[0], args[1], _int(args[2], "open: FD", signed=True))
    elif name in ("stat64", "lstat64", "access", "unlink"):
        if len(args[0]) < 2 or not (args[0].startswith('"') and args[0].endswith('"')):
            raise ValueError(f"{name}: expected a quoted path, got {args[0]!r}")
        parsed = (args[0][1:-1], _int(args[1], f"{name}: RESULT", signed=True))
    else:
        fd = _int(args[0], f"{name}: FD", signed=True)
        rest = args[1:]
        if name in ("pwrite", "pread"):
            length = _int(rest[1], f"{name}: LENGTH", signed=True)
            parsed = (fd, _int(rest[0], f"{name}: OFFSET"), length)
        elif name in ("write", "read"):
            parsed = (fd, _int(rest[0], f"{name}: LENGTH", signed=True))
        else:
            parsed = (fd, _int(rest[0], f"{name}: RESULT", signed=True))
    return Call(0, thread, time_us, name, parsed)


def read_calls(path: Path | str) -> list[Call]:
    """Every call of a Mobibench trace, in file order; MobibenchError names FILE:LINE."""
    calls = []
    with open(path, encoding="utf-8", errors="surrogateescape") as handle:
        for number, raw in enumerate(handle, start=1):
            text = raw.rstrip("\r\n")
            if "\0" in text:
                raise MobibenchError(f"{path}:{number}: NUL byte in line")
            try:
                call = parse_line(text)
            except ValueError as error:
                raise MobibenchError(f"{path}:{number}: {error}") from None
            if call is not None:
                calls.append(Call(number, call.thread, call.time_us, call.name, call.args))
    if not calls:
        raise MobibenchError(f"{path}:1: no calls")
    return calls


def convert(calls: list[Call], directory: str = DEFAULT_DIR, source: str = "trace") -> ImportResult:
    """The calls → `.iotrace` operations, as Mobibench's replayer does them; a number the
    format cannot hold (an offset past the largest file offset, a time past 2^64 - 1, more
    threads than a trace may have) is a MobibenchError naming `source`:LINE."""
    directory = directory.strip("/")
    if directory and path_problem(directory):
        raise ValueError(f"--dir: {path_problem(directory)}")
    result = ImportResult(calls)
    table: dict[int, OpenFile | None] = {}  # None: a quoted (phone's own) file
    sizes: dict[str, int] = {}
    threads: set[int] = set()
    opens = 0
    for call in sorted(calls, key=lambda c: c.time_us):  # stable: threads keep file order
        name, args = call.name, call.args

        def emit(op: str, path: str, *values, call=call) -> None:
            threads.add(call.thread)
            try:
                if len(threads) > TRACE_MAX_THREADS:
                    raise ValueError(
                        f"THREAD {call.thread} would be distinct thread {len(threads)}; a "
                        f"trace may have at most {TRACE_MAX_THREADS}"
                    )
                result.ops.append(make_op(call.time_us, call.thread, op, path, *values))
            except ValueError as error:
                raise MobibenchError(f"{source}:{call.line}: {call.name}: {error}") from None

        if name == "open":
            raw, _flags, fd = args
            if fd < 0:
                result.skipped["open that failed in the capture"] += 1
                continue
            if fd in table:
                result.skipped["descriptor opened again without close"] += 1
            if raw.startswith('"'):
                table[fd] = None
                result.skipped["open of a named phone file (read-only)"] += 1
                continue
            base = f"temp_{call.thread}_{opens}.dat"
            opens += 1
            path = f"{directory}/{base}" if directory else base
            table[fd] = OpenFile(path)
            sizes[path] = 0
            result.descriptors[path] = fd
            emit("create", path)
            continue
        if name == "close":
            table.pop(args[0], None)
            result.skipped["close"] += 1
            continue
        if name in ("fstat64", "stat64", "lstat64", "access"):
            result.skipped[f"{name} (no operation)"] += 1
            continue
        if name == "unlink":
            result.skipped["unlink of a named phone file"] += 1
            continue
        fd = args[0]
        if fd not in table:
            result.skipped[f"{name} on a descriptor the trace did not open"] += 1
            continue
        entry = table[fd]
        if entry is None:
            result.skipped[f"{name} on a named phone file"] += 1
            continue
        path = entry.path
        if name in ("write", "read", "pwrite", "pread") and args[-1] <= 0:
            result.skipped[f"{name} that moved no bytes in the capture"] += 1
            continue
        if name == "write":
            emit("write", path, entry.offset, args[1])
            entry.offset += args[1]
            sizes[path] = max(sizes[path], entry.offset)
        elif name == "pwrite":
            emit("write", path, args[1], args[2])
            sizes[path] = max(sizes[path], args[1] + args[2])
        elif name == "read":
            emit("read", path, entry.offset, args[1])
            entry.offset += max(0, min(args[1], sizes[path] - entry.offset))
        elif name == "pread":
            emit("read", path, args[1], args[2])
        else:  # fsync, fdatasync
            emit(name, path)
    return result


def import_mobibench(path: Path | str, directory: str = DEFAULT_DIR) -> ImportResult:
    return convert(read_calls(path), directory, str(path))


def _written_many(counts: Counter, more_than: int) -> int:
    return sum(1 for n in counts.values() if n > more_than)


def stats(result: ImportResult, more_than: int = WRITTEN_MANY_MORE_THAN) -> dict:
    """The trace statistics of ARS §IV, counted as the paper counts them (by descriptor),
    and the same over the files the `.iotrace` writes (one per open, as replayed)."""
    by_fd = Counter(c.args[0] for c in result.calls if c.name in WRITES)
    by_file = Counter(op.path for op in result.ops if op.op == "write")
    many_fd = _written_many(by_fd, more_than)
    many_file = _written_many(by_file, more_than)
    return {
        "calls": len(result.calls),
        "writes": sum(by_fd.values()),
        "write_calls": sum(1 for c in result.calls if c.name == "write"),
        "pwrite_calls": sum(1 for c in result.calls if c.name == "pwrite"),
        "files": len(by_fd),
        "written_many": many_fd,
        "written_many_percent": round(100 * many_fd / len(by_fd), 4) if by_fd else "NA",
        "replayed_ops": len(result.ops),
        "replayed_writes": sum(by_file.values()),
        "replayed_files": len(by_file),
        "replayed_written_many": many_file,
        "replayed_written_many_percent": (
            round(100 * many_file / len(by_file), 4) if by_file else "NA"
        ),
    }


STATS_COLUMNS = (
    "app",
    "calls",
    "writes",
    "write_calls",
    "pwrite_calls",
    "files",
    "written_many",
    "written_many_percent",
    "replayed_ops",
    "replayed_writes",
    "replayed_files",
    "replayed_written_many",
    "replayed_written_many_percent",
)


def written_many_paths(ops: list[Op], more_than: int = WRITTEN_MANY_MORE_THAN) -> list[str]:
    """The files of the `.iotrace` with more than `more_than` writes, in first-write order."""
    counts = Counter(op.path for op in ops if op.op == "write")
    return [path for path in counts if counts[path] > more_than]
