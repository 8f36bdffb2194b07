"""Convert an `strace -f -tt` log into an `.iotrace`, to replay what was captured on a phone.

Capture, e.g.:  strace -f -tt -e trace=%file,%desc -o app.strace -p <pid>

Supported calls: open/openat/creat, write/pwrite64/writev/pwritev (bytes = return value),
read/pread64, fsync, fdatasync, syncfs, ftruncate, fallocate, unlink/unlinkat, rename/renameat/
renameat2, mkdir/mkdirat, close, dup/dup2/dup3, lseek, clone (CLONE_FILES shares the fd
table). `<unfinished ...>` / `<... resumed>` pairs are joined. File descriptors are tracked
per pid (threads created with CLONE_FILES share their parent's table; `shared_fds`
treats every traced task as one process, for `strace -f -p` attached to a running app).

Lines that are not a supported call (other syscalls, signals, exits) are skipped and
counted; so are calls that failed, on descriptors not opened in the log (sockets,
pipes), or on paths outside the chosen root. A supported call whose text cannot be
parsed, or whose numbers an `.iotrace` cannot hold (an offset past the largest file
offset, more tasks than a trace may have threads), is an error reported as FILE:LINE.
"""

from __future__ import annotations

import posixpath
import re
from collections import Counter
from dataclasses import dataclass, field

from mobifrag.workloads.iotrace import TRACE_MAX_THREADS, Op, make_op, path_problem

LINE = re.compile(
    r"^(?:\[pid\s+(?P<pid1>\d+)\]\s+|(?P<pid2>\d+)\s+)?"
    r"(?P<h>\d{1,2}):(?P<m>\d{2}):(?P<s>\d{2})\.(?P<us>\d{1,9})\s+(?P<rest>.*)$"
)
CALL = re.compile(r"^(?P<name>[a-z_0-9]+)\((?P<body>.*)$", re.DOTALL)
RESUMED = re.compile(r"^<\.\.\.\s+(?P<name>[a-z_0-9]+)\s+resumed>\s?(?P<body>.*)$", re.DOTALL)
UNFINISHED = re.compile(r"\s*<unfinished \.\.\.>\s*$")
RESULT = re.compile(r"^\s*=\s*(?P<ret>-?\d+|0x[0-9a-fA-F]+|\?)(?P<tail>.*)$")

O_FLAGS = {"O_CREAT", "O_TRUNC", "O_APPEND", "O_EXCL", "O_DIRECTORY"}
SUPPORTED = {
    "open", "openat", "creat", "write", "pwrite64", "pwrite", "writev", "pwritev",
    "pwritev2", "read", "pread64", "pread", "fsync", "fdatasync", "syncfs", "ftruncate",
    "ftruncate64", "fallocate", "unlink", "unlinkat", "rename", "renameat", "renameat2",
    "mkdir", "mkdirat", "close", "dup", "dup2", "dup3", "lseek", "_llseek", "clone",
    "clone3",
}  # fmt: skip
DEFAULT_EXCLUDE = ("/proc", "/sys", "/dev", "/system", "/apex", "/vendor", "/acct")


class StraceError(ValueError):
    """A malformed line of a supported call; the message starts with FILE:LINE."""


@dataclass
class OpenFile:
    path: str
    offset: int = 0
    append: bool = False
    directory: bool = False


@dataclass
class ImportResult:
    ops: list[Op]
    lines: int = 0
    skipped: Counter = field(default_factory=Counter)
    errors: list[str] = field(default_factory=list)

    def summary(self) -> dict:
        return {
            "lines": self.lines,
            "ops": len(self.ops),
            "ops_per_kind": dict(sorted(Counter(op.op for op in self.ops).items())),
            "skipped": dict(sorted(self.skipped.items())),
            "malformed": len(self.errors),
        }


class Malformed(ValueError):
    pass


class Skip(Exception):  # noqa: N818 - control flow, not an error
    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def split_args(body: str) -> tuple[list[str], str]:
    """Split `a, "b,c", {x, y})` → (['a', '"b,c"', '{x, y}'], rest after ')')."""
    args: list[str] = []
    depth = 0
    current: list[str] = []
    i = 0
    in_string = False
    while i < len(body):
        ch = body[i]
        if in_string:
            current.append(ch)
            if ch == "\\" and i + 1 < len(body):
                current.append(body[i + 1])
                i += 1
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
            current.append(ch)
        elif ch in "([{":
            depth += 1
            current.append(ch)
        elif ch in ")]}":
            if depth == 0:
                if ch != ")":
                    raise Malformed(f"unbalanced {ch!r}")
                text = "".join(current).strip()
                if text or args:
                    args.append(text)
                return args, body[i + 1 :]
            depth -= 1
            current.append(ch)
        elif ch == "," and depth == 0:
            args.append("".join(current).strip())
            current = []
        else:
            current.append(ch)
        i += 1
    raise Malformed("missing ')' closing the arguments")


_C_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "v": "\v", "f": "\f", "a": "\a", "b": "\b"}


def parse_string(arg: str) -> str:
    """A C string argument as strace prints it (octal/hex escapes) → str."""
    text = arg.strip()
    if text.endswith("..."):
        text = text[:-3]
    if len(text) < 2 or text[0] != '"' or text[-1] != '"':
        raise Malformed(f"expected a quoted string, got {arg!r}")
    raw = bytearray()
    body = text[1:-1]
    i = 0
    while i < len(body):
        ch = body[i]
        if ch != "\\":
            raw.extend(ch.encode("utf-8"))
            i += 1
            continue
        i += 1
        if i >= len(body):
            raise Malformed("dangling backslash in string")
        ch = body[i]
        if ch == "x":
            digits = re.match(r"[0-9a-fA-F]{1,2}", body[i + 1 :])
            if not digits:
                raise Malformed("bad \\x escape in string")
            raw.append(int(digits.group(0), 16))
            i += 1 + len(digits.group(0))
        elif ch in "01234567":
            digits = re.match(r"[0-7]{1,3}", body[i:]).group(0)
            raw.append(int(digits, 8) & 0xFF)
            i += len(digits)
        else:
            raw.extend(_C_ESCAPES.get(ch, ch).encode("utf-8"))
            i += 1
    return raw.decode("utf-8", errors="surrogateescape")


def parse_int(arg: str) -> int:
    text = arg.strip()
    match = re.match(r"^(-?)(0x[0-9a-fA-F]+|\d+)", text)
    if not match:
        raise Malformed(f"expected a number, got {arg!r}")
    value = int(match.group(2), 0)
    return -value if match.group(1) else value


def parse_fd(arg: str) -> int:
    text = arg.strip()
    match = re.match(r"^(-?\d+)(<.*>)?$", text)  # -y prints fd<path>
    if not match:
        raise Malformed(f"expected a file descriptor, got {arg!r}")
    return int(match.group(1))


def flag_set(arg: str) -> set[str]:
    return {part.strip() for part in arg.split("|")}


class Importer:
    def __init__(
        self, source: str, root_prefix: str = "/", exclude=DEFAULT_EXCLUDE, shared_fds: bool = False
    ) -> None:
        self.source = source
        self.root_prefix = "/" + root_prefix.strip("/") if root_prefix.strip("/") else "/"
        self.exclude = tuple(exclude)
        self.shared_fds = shared_fds
        self.tables: dict[int, dict[int, OpenFile]] = {}
        self.threads: dict[int, int] = {}
        self.pending: dict[tuple[int, str], tuple[int, str]] = {}
        self.start_us: int | None = None
        self.day_offset = 0
        self.last_raw = 0
        self.result = ImportResult([])

    # -- helpers --------------------------------------------------------------------------
    def table(self, pid: int) -> dict[int, OpenFile]:
        key = 0 if self.shared_fds else pid
        return self.tables.setdefault(key, {})

    def thread(self, pid: int) -> int:
        return self.threads.setdefault(pid, len(self.threads))

    def resolve(self, pid: int, dirfd_arg: str | None, path: str) -> str:
        """A path of the log → a path relative to the replay root (or Skip)."""
        if path.startswith("/"):
            full = posixpath.normpath(path)
            if self.root_prefix == "/":
                if full.startswith(self.exclude):
                    raise Skip("excluded path")
            elif full != self.root_prefix and not full.startswith(self.root_prefix + "/"):
                raise Skip("outside root")
            else:
                full = full[len(self.root_prefix) :]
            full = full.lstrip("/")
        elif dirfd_arg is None or dirfd_arg.strip() == "AT_FDCWD":
            full = posixpath.normpath(path)  # relative to an unknown cwd: kept relative
        else:
            entry = self.table(pid).get(parse_fd(dirfd_arg))
            if entry is None:
                raise Skip("relative to an unknown directory fd")
            full = posixpath.normpath(posixpath.join(entry.path, path))
        if full in ("", "."):
            raise Skip("the root itself")
        if path_problem(full):
            raise Skip("path escapes the root")
        return full

    def fd_entry(self, pid: int, arg: str) -> OpenFile:
        fd = parse_fd(arg)
        entry = self.table(pid).get(fd)
        if entry is None:
            raise Skip("untracked fd")
        return entry

    def emit(self, time_us: int, pid: int, op: str, path: str, *args) -> None:
        thread = self.thread(pid)
        if thread >= TRACE_MAX_THREADS:
            raise Malformed(
                f"task {pid} would be thread {thread + 1}; a trace may have at most "
                f"{TRACE_MAX_THREADS}"
            )
        self.result.ops.append(make_op(time_us, thread, op, path, *args))

    # -- lines ----------------------------------------------------------------------------
    def timestamp(self, match: re.Match) -> int:
        micro = match.group("us")[:6].ljust(6, "0")
        raw = (int(match.group("h")) * 60 + int(match.group("m"))) * 60 + int(match.group("s"))
        raw = raw * 1_000_000 + int(micro)
        if raw + 12 * 3600 * 1_000_000 < self.last_raw:  # past midnight
            self.day_offset += 24 * 3600 * 1_000_000
        self.last_raw = raw
        absolute = raw + self.day_offset
        if self.start_us is None:
            self.start_us = absolute
        return max(0, absolute - self.start_us)

    def feed(self, number: int, text: str) -> None:
        self.result.lines += 1
        match = LINE.match(text.rstrip("\n"))
        if not match:
            self.result.skipped["not a syscall line"] += 1
            return
        pid = int(match.group("pid1") or match.group("pid2") or 0)
        time_us = self.timestamp(match)
        rest = match.group("rest")
        resumed = RESUMED.match(rest)
        if resumed:
            name = resumed.group("name")
            start = self.pending.pop((pid, name), None)
            if start is None:
                reason = "resumed without its start" if name in SUPPORTED else "unsupported syscall"
                self.result.skipped[reason] += 1
                return
            time_us, head = start
            rest = head + resumed.group("body")
        call = CALL.match(rest)
        if not call:
            self.result.skipped["not a syscall line"] += 1
            return
        name = call.group("name")
        if name not in SUPPORTED:
            self.result.skipped["unsupported syscall"] += 1
            return
        if UNFINISHED.search(rest):
            self.pending[(pid, name)] = (time_us, UNFINISHED.sub("", rest))
            return
        try:
            args, after = split_args(call.group("body"))
            result = RESULT.match(after)
            if not result:
                raise Malformed("missing ' = RESULT' after the arguments")
            ret_text = result.group("ret")
            if ret_text == "?":
                raise Skip("no result (task exited)")
            ret = int(ret_text, 0)
            if ret < 0:
                raise Skip("failed call")
            self.call(pid, time_us, name, args, ret)
        except Skip as skip:
            self.result.skipped[skip.reason] += 1
        except ValueError as error:  # Malformed, or a number an `.iotrace` cannot hold
            self.result.errors.append(f"{self.source}:{number}: {name}: {error}")

    def need(self, name: str, args: list[str], count: int) -> None:
        if len(args) < count:
            raise Malformed(f"expected at least {count} arguments, got {len(args)}")

    # -- calls ----------------------------------------------------------------------------
    def call(self, pid: int, t: int, name: str, args: list[str], ret: int) -> None:
        table = self.table(pid)
        if name in ("open", "openat", "creat"):
            if name == "openat":
                self.need(name, args, 3)
                dirfd, path_arg, flags_arg = args[0], args[1], args[2]
            elif name == "open":
                self.need(name, args, 2)
                dirfd, path_arg, flags_arg = None, args[0], args[1]
            else:
                self.need(name, args, 1)
                dirfd, path_arg, flags_arg = None, args[0], "O_CREAT|O_WRONLY|O_TRUNC"
            raw = parse_string(path_arg)
            flags = flag_set(flags_arg) & O_FLAGS
            path = self.resolve(pid, dirfd, raw)
            table[ret] = OpenFile(path, 0, "O_APPEND" in flags, "O_DIRECTORY" in flags)
            if "O_DIRECTORY" in flags:
                raise Skip("directory opened")
            if "O_TRUNC" in flags or {"O_CREAT", "O_EXCL"} <= flags:
                self.emit(t, pid, "create", path)
            return
        if name == "close":
            self.need(name, args, 1)
            table.pop(parse_fd(args[0]), None)
            return
        if name in ("dup", "dup2", "dup3"):
            self.need(name, args, 1)
            entry = self.fd_entry(pid, args[0])
            table[ret] = entry
            return
        if name in ("clone", "clone3"):
            if ret > 0 and not self.shared_fds:
                shares = "CLONE_FILES" in " ".join(args) or "CLONE_THREAD" in " ".join(args)
                parent = self.table(pid)
                self.tables[ret] = parent if shares else dict(parent)
            return
        if name in ("lseek", "_llseek"):
            self.need(name, args, 2)
            entry = self.fd_entry(pid, args[0])
            if name == "lseek":
                entry.offset = ret
            else:
                match = re.search(r"\[(\d+)\]", ", ".join(args))
                if not match:
                    raise Malformed("missing [offset] result")
                entry.offset = int(match.group(1))
            return
        if name in ("write", "writev", "pwrite64", "pwrite", "pwritev", "pwritev2"):
            self.need(name, args, 3 if name.startswith("p") else 2)
            entry = self.fd_entry(pid, args[0])
            if ret == 0:
                raise Skip("empty write")
            if name.startswith("p"):
                offset = parse_int(args[3] if len(args) > 3 else args[-1])
                self.emit(t, pid, "write", entry.path, offset, ret)
            elif entry.append:
                self.emit(t, pid, "append", entry.path, ret)
            else:
                self.emit(t, pid, "write", entry.path, entry.offset, ret)
                entry.offset += ret
            return
        if name in ("read", "pread64", "pread"):
            self.need(name, args, 4 if name.startswith("p") else 3)
            entry = self.fd_entry(pid, args[0])
            if ret == 0:
                raise Skip("read at end of file")
            if name.startswith("p"):
                self.emit(t, pid, "read", entry.path, parse_int(args[3]), ret)
            else:
                self.emit(t, pid, "read", entry.path, entry.offset, ret)
                entry.offset += ret
            return
        if name in ("fsync", "fdatasync", "syncfs"):
            self.need(name, args, 1)
            entry = self.fd_entry(pid, args[0])
            self.emit(t, pid, name, entry.path)
            return
        if name in ("ftruncate", "ftruncate64"):
            self.need(name, args, 2)
            entry = self.fd_entry(pid, args[0])
            self.emit(t, pid, "truncate", entry.path, parse_int(args[1]))
            return
        if name == "fallocate":
            self.need(name, args, 4)
            entry = self.fd_entry(pid, args[0])
            mode = flag_set(args[1])
            if mode <= {"0"}:
                kind = "extend"
            elif mode == {"FALLOC_FL_KEEP_SIZE"}:
                kind = "keep"
            else:
                raise Skip("fallocate mode not replayable")
            self.emit(t, pid, "fallocate", entry.path, parse_int(args[2]), parse_int(args[3]), kind)
            return
        if name in ("unlink", "unlinkat"):
            if name == "unlinkat":
                self.need(name, args, 3)
                if "AT_REMOVEDIR" in args[2]:
                    raise Skip("directory removal")
                path = self.resolve(pid, args[0], parse_string(args[1]))
            else:
                self.need(name, args, 1)
                path = self.resolve(pid, None, parse_string(args[0]))
            self.emit(t, pid, "unlink", path)
            return
        if name in ("rename", "renameat", "renameat2"):
            if name == "rename":
                self.need(name, args, 2)
                old = self.resolve(pid, None, parse_string(args[0]))
                new = self.resolve(pid, None, parse_string(args[1]))
            else:
                self.need(name, args, 4)
                if name == "renameat2" and len(args) > 4 and "RENAME_EXCHANGE" in args[4]:
                    raise Skip("rename exchange")
                old = self.resolve(pid, args[0], parse_string(args[1]))
                new = self.resolve(pid, args[2], parse_string(args[3]))
            self.emit(t, pid, "rename", old, new)
            return
        if name in ("mkdir", "mkdirat"):
            if name == "mkdirat":
                self.need(name, args, 2)
                path = self.resolve(pid, args[0], parse_string(args[1]))
            else:
                self.need(name, args, 1)
                path = self.resolve(pid, None, parse_string(args[0]))
            self.emit(t, pid, "mkdir", path)
            return
        raise Skip("unsupported syscall")


def import_strace(
    path, root_prefix: str = "/", shared_fds: bool = False, exclude=DEFAULT_EXCLUDE
) -> ImportResult:
    """Parse a log; malformed lines of supported calls are collected in result.errors."""
    importer = Importer(str(path), root_prefix, exclude, shared_fds)
    with open(path, encoding="utf-8", errors="surrogateescape") as handle:
        for number, line in enumerate(handle, start=1):
            importer.feed(number, line)
    for _ in importer.pending:
        importer.result.skipped["unfinished at end of log"] += 1
    result = importer.result
    # Per thread, times are already non-decreasing (strace prints each task in order).
    result.ops.sort(key=lambda op: op.time_us)
    return result


def check(result: ImportResult) -> None:
    if result.errors:
        raise StraceError("\n".join(result.errors))
