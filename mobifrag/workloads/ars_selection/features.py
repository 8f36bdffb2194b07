"""Per-file features of ARS §IV.A from `.iotrace` traces.

The unit is a file, as ARS keeps one object per file: one life of a path (an inode)
from its first write to its unlink, or to the end of the traces. A path written again
after an unlink is a new file, its `incarnation` one higher; so is the rollback journal
of every transaction in DELETE mode, which SQLite creates and deletes at each commit.
For every file the traces write:

- `size_bytes`: the largest size it reached (writes, appends, extending fallocate,
  truncate);
- `write_interval_s`: time between its first and last write request (ARS: "the time
  interval between the first and last write of a file in a trace");
- `write_requests`: write system calls that hit it (ARS: "write request times").

A `rename` moves the source file to the target path and ends the file the target held
(the tmp-file-then-rename pattern of shared preferences writes a new file each time); a
`create` of a live path truncates it, as O_TRUNC does, and keeps it the same file. A
`sql` transaction is one line of a trace but many writes for SQLite: the database and
its journal (`-journal`, or `-wal` in WAL mode) get the write requests
`tracegen.estimate` counts per transaction (rollback journal: header + 3 per page;
database: 1 per page; WAL: 2 per page in the WAL, the pages once more in the database
at checkpoint), and their sizes follow the row model of the trace generator (rows of a
table of blobs, oldest rows updated and deleted first, as the replayer does). Files only
created, read or removed are not in the table: ARS selects among written files.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from mobifrag.workloads.estimate import WRITES_PER_JOURNAL_PAGE, sql_pages
from mobifrag.workloads.file_classes import file_class
from mobifrag.workloads.generate import PAGE, db_file_bytes
from mobifrag.workloads.iotrace import Op, iter_trace

FEATURES = ("size_bytes", "write_interval_s", "write_requests")
COLUMNS = ("path", "incarnation", "class") + FEATURES

JOURNAL_HEADER_BYTES = 512  # SQLite rollback journal header (one sector)
WAL_HEADER_BYTES = 32
WAL_FRAME_HEADER_BYTES = 24
WAL_AUTOCHECKPOINT_FRAMES = 1000  # SQLite's default wal_autocheckpoint


@dataclass
class FileStats:
    size: int = 0
    peak_size: int = 0
    write_requests: int = 0
    first_write_us: int | None = None
    last_write_us: int | None = None

    def resize(self, size: int) -> None:
        self.size = size
        self.peak_size = max(self.peak_size, size)

    def wrote(self, time_us: int, requests: int = 1) -> None:
        self.write_requests += requests
        if self.first_write_us is None:
            self.first_write_us = time_us
        self.last_write_us = time_us


@dataclass
class Database:
    rows: deque = field(default_factory=deque)  # blob bytes of each live row, oldest first
    wal_frames: int = 0


class FeatureCollector:
    """Feeds trace operations in order; `rows()` gives the feature table."""

    def __init__(self) -> None:
        self.files: dict[str, FileStats] = {}  # the live file at each path
        self.ended: list[tuple[str, FileStats]] = []  # unlinked or replaced, in order
        self.databases: dict[str, Database] = {}

    def stats(self, path: str) -> FileStats:
        return self.files.setdefault(path, FileStats())

    def end(self, path: str) -> None:
        """The file at path is gone (unlinked, or replaced by a rename)."""
        stats = self.files.pop(path, None)
        if stats is not None:
            self.ended.append((path, stats))

    def feed(self, op: Op, time_us: int) -> None:
        handler = getattr(self, f"_op_{op.op}", None)
        if handler is not None:
            handler(op, time_us)

    def _op_create(self, op: Op, _time_us: int) -> None:
        self.stats(op.path).resize(0)

    def _op_write(self, op: Op, time_us: int) -> None:
        offset, length = op.args
        stats = self.stats(op.path)
        stats.wrote(time_us)
        stats.resize(max(stats.size, offset + length))

    def _op_append(self, op: Op, time_us: int) -> None:
        stats = self.stats(op.path)
        stats.wrote(time_us)
        stats.resize(stats.size + op.args[0])

    def _op_truncate(self, op: Op, _time_us: int) -> None:
        self.stats(op.path).resize(op.args[0])

    def _op_fallocate(self, op: Op, _time_us: int) -> None:
        offset, length, mode = op.args
        if mode == "extend":
            stats = self.stats(op.path)
            stats.resize(max(stats.size, offset + length))

    def _op_unlink(self, op: Op, _time_us: int) -> None:
        self.end(op.path)

    def _op_rename(self, op: Op, _time_us: int) -> None:
        moved = self.files.pop(op.path, None)
        self.end(op.args[0])
        if moved is not None:
            self.files[op.args[0]] = moved

    def _op_sql(self, op: Op, time_us: int) -> None:
        journal, kind, rows, nbytes = op.args
        if kind == "select":
            return
        pages = sql_pages(rows, nbytes)
        db = self.databases.setdefault(op.path, Database())
        apply_rows(db.rows, kind, rows, nbytes)
        if journal == "wal":
            db.wal_frames += pages
            wal = self.stats(op.path + "-wal")
            wal.wrote(time_us, 2 * pages)
            frames = min(db.wal_frames, WAL_AUTOCHECKPOINT_FRAMES)
            wal.resize(WAL_HEADER_BYTES + frames * (PAGE + WAL_FRAME_HEADER_BYTES))
        else:
            rollback = self.stats(op.path + "-journal")
            rollback.wrote(time_us, 1 + WRITES_PER_JOURNAL_PAGE * pages)
            rollback.resize(JOURNAL_HEADER_BYTES + pages * (PAGE + 8))
            if journal == "delete":
                self.end(op.path + "-journal")
        database = self.stats(op.path)
        database.wrote(time_us, pages)
        database.resize(max(database.size, db_file_bytes(sum(db.rows), len(db.rows))))

    def rows(self) -> list[dict[str, object]]:
        """One row per written file, by path, each path's files in order of life."""
        lives = self.ended + list(self.files.items())
        incarnations: dict[str, int] = {}
        table = []
        for path, stats in lives:
            incarnation = incarnations.get(path, 0)
            incarnations[path] = incarnation + 1
            if stats.write_requests:
                table.append(feature_row(path, incarnation, stats))
        return sorted(table, key=lambda row: (row["path"], row["incarnation"]))


def feature_row(path: str, incarnation: int, stats: FileStats) -> dict[str, object]:
    interval = (stats.last_write_us - stats.first_write_us) / 1e6
    return {
        "path": path,
        "incarnation": incarnation,
        "class": file_class(path),
        "size_bytes": stats.peak_size,
        "write_interval_s": round(interval, 6),
        "write_requests": stats.write_requests,
    }


def apply_rows(rows: deque, kind: str, count: int, nbytes: int) -> None:
    """The replayer's table: insert appends, update/delete take the oldest rows."""
    if kind == "insert":
        rows.extend([nbytes] * count)
    elif kind == "update":
        for index in range(min(count, len(rows))):
            rows[index] = nbytes
    elif kind == "delete":
        for _ in range(min(count, len(rows))):
            rows.popleft()


def trace_features(traces: Iterable[Path | str]) -> list[dict[str, object]]:
    """Feature rows of the files written by traces replayed one after another.

    Each trace's clock starts at 0; later traces are shifted past the end of the
    earlier ones, as the replay runs them in turn.
    """
    collector = FeatureCollector()
    offset = 0
    for trace in traces:
        end = 0
        for _, op in iter_trace(trace):
            collector.feed(op, offset + op.time_us)
            end = max(end, op.time_us)
        offset += end + 1
    return collector.rows()
