"""Scenario models → `.iotrace` operations: installs, updates and app sessions.

Everything random comes from one `random.Random` seeded by the caller, and the models are
walked in a fixed order, so the same seed gives the same trace byte for byte.

Threads of a trace (fixed for a given list of apps, so a multi-day run keeps them):
- thread 0: shared storage (`media/`): photos, saved pictures, fill and reclaim;
- per app, in the order given: one package thread (install, update, compiled code), its
  SQLite writer threads (databases round-robin), its I/O threads for the other files.
Every operation on one file stays on one thread, so the replayer, which keeps order only
within a thread, runs each file's operations in the order generated.

Scaling (`scale`, `size_scale`): counts per session (transactions, files created, ...)
and the session's length are multiplied by `scale` (expected values kept by random
rounding; a database with transactions keeps at least one a session so every writer
thread stays active), and so are the cache limits (`keep`) and rows made at install.
Sizes of bulk files made in sessions (groups marked `size_scales`) are multiplied by
`size_scale`; those of packages (APK, code, libraries), written a fixed number of times,
by `package_scale`, and fixed bulk files by `scale * size_scale`. Row limits of
databases are kept up to DB_KEEP_BYTES of rows and scaled beyond. Record sizes, rows
per transaction, journal modes, thread counts and chunk sizes never change.
"""

from __future__ import annotations

import math
import random
from collections import deque
from dataclasses import dataclass, field

from mobifrag.workloads.iotrace import Op, make_op
from mobifrag.workloads.scenarios import AppModel, Database, FileGroup

MEDIA_THREAD = 0
MEDIA_ROOT = "media/0"
STORE_CACHE = "data/com.android.vending/cache"
PAGE = 4096
INITIAL_BATCH_ROWS = 100
# Row limits of databases up to this size are kept at every scale (their growth in small
# steps is the pattern under study); larger ones (map tiles) shrink with `scale`.
DB_KEEP_BYTES = 1 << 20
MAX_READS_PER_FILE = 64

# Time stamps only (replay ignores them unless paced): a rough cost per operation.
OP_US = 150
BYTES_PER_US = 100  # ~100 MB/s sequential
SYNC_US = 2_000
SQL_US = 4_000


def op_cost(op: str, nbytes: int = 0) -> int:
    if op in ("fsync", "fdatasync", "syncfs"):
        return SYNC_US
    if op == "sql":
        return SQL_US
    return OP_US + nbytes // BYTES_PER_US


def draw_count(rng: random.Random, spec) -> int:
    if isinstance(spec, int):
        return spec
    return rng.randint(spec["min"], spec["max"])


def draw_size(rng: random.Random, spec) -> int:
    if isinstance(spec, int):
        return spec
    low, high = spec["min"], spec["max"]
    if "median" in spec:
        value = math.exp(rng.gauss(math.log(spec["median"]), spec["sigma"]))
    else:
        value = math.exp(rng.uniform(math.log(low), math.log(high)))
    return int(min(max(value, low), high))


def mean_size(spec) -> float:
    """Expected value of a size spec (numerically for the clamped log-normal)."""
    if isinstance(spec, int):
        return float(spec)
    low, high = spec["min"], spec["max"]
    if "median" not in spec:
        if low == high:
            return float(low)
        return (high - low) / math.log(high / low)
    mu, sigma = math.log(spec["median"]), spec["sigma"]
    steps, total = 400, 0.0
    for i in range(steps):
        z = -4 + 8 * (i + 0.5) / steps
        weight = math.exp(-z * z / 2) / math.sqrt(2 * math.pi) * 8 / steps
        total += weight * min(max(math.exp(mu + sigma * z), low), high)
    return total


def mean_count(spec) -> float:
    return float(spec) if isinstance(spec, int) else (spec["min"] + spec["max"]) / 2


def scaled(rng: random.Random, value: float, scale: float) -> int:
    """value × scale rounded at random so that the expected value is kept."""
    exact = value * scale
    whole = math.floor(exact)
    return whole + (1 if rng.random() < exact - whole else 0)


def db_file_bytes(rows_bytes: int, rows: int) -> int:
    """Rough size of a rowid table of blobs: 2 pages + rows at ~90 % page fill."""
    payload = rows_bytes + 16 * rows
    return PAGE * (2 + math.ceil(payload / (PAGE * 0.9)))


@dataclass
class DbState:
    rows: deque = field(default_factory=deque)  # blob size of each live row, oldest first
    live_bytes: int = 0
    peak_bytes: int = 0  # SQLite does not shrink the file without VACUUM

    def insert(self, n: int, size: int) -> None:
        self.rows.extend([size] * n)
        self.live_bytes += n * size
        self.peak_bytes = max(self.peak_bytes, db_file_bytes(self.live_bytes, len(self.rows)))

    def delete(self, n: int) -> int:
        n = min(n, len(self.rows))
        for _ in range(n):
            self.live_bytes -= self.rows.popleft()
        return n

    def update(self, n: int, size: int) -> int:
        n = min(n, len(self.rows))
        for i in range(n):
            self.live_bytes += size - self.rows[i]
            self.rows[i] = size
        self.peak_bytes = max(self.peak_bytes, db_file_bytes(self.live_bytes, len(self.rows)))
        return n


@dataclass(frozen=True)
class AppThreads:
    package: int
    writers: tuple[int, ...]
    io: tuple[int, ...]


def thread_layout(apps: list[AppModel]) -> dict[str, AppThreads]:
    layout: dict[str, AppThreads] = {}
    next_thread = MEDIA_THREAD + 1
    for app in apps:
        package = next_thread
        writers = tuple(range(package + 1, package + 1 + app.sqlite_writers))
        io_start = package + 1 + app.sqlite_writers
        io = tuple(range(io_start, io_start + app.io_threads))
        layout[app.app] = AppThreads(package, writers, io)
        next_thread = io_start + app.io_threads
    return layout


class Generator:
    """Generator state across sessions and days: which files exist, their sizes, rows."""

    def __init__(
        self,
        apps: list[AppModel],
        rng: random.Random,
        scale: float = 1.0,
        size_scale: float = 1.0,
        package_scale: float | None = None,
    ) -> None:
        package_scale = size_scale if package_scale is None else package_scale
        if scale <= 0 or size_scale <= 0 or package_scale <= 0:
            raise ValueError("scales must be positive")
        self.apps = {app.app: app for app in apps}
        self.threads = thread_layout(apps)
        self.rng = rng
        self.scale = scale
        self.size_scale = size_scale
        self.package_scale = package_scale
        self.files: dict[str, int] = {}  # path → size of every non-SQLite file
        self.groups: dict[tuple[str, str], list[str]] = {}  # (dir, pattern) → paths, oldest first
        self.counters: dict[tuple[str, str], int] = {}
        self.dbs: dict[str, DbState] = {}
        self.journals: dict[str, str] = {}  # database path → journal mode
        self.versions: dict[str, int] = {}
        self.code_files: dict[str, list[str]] = {}
        self._ops: list[tuple[int, int, Op]] = []
        self._seq = 0

    # -- emitting -------------------------------------------------------------------------
    def emit(self, time_us: int, thread: int, op: str, path: str, *args) -> int:
        """Add one operation; returns the time at which it ends (for the next one)."""
        self._ops.append((time_us, self._seq, make_op(time_us, thread, op, path, *args)))
        self._seq += 1
        nbytes = args[1] if op in ("write", "read") else args[0] if op == "append" else 0
        return time_us + op_cost(op, nbytes)

    def take_ops(self) -> list[Op]:
        """The operations so far in time order (ties keep generation order); clears them."""
        ops = [op for _, _, op in sorted(self._ops, key=lambda item: (item[0], item[1]))]
        self._ops = []
        return ops

    # -- helpers --------------------------------------------------------------------------
    def _bulk(self, nbytes: int) -> int:
        return max(1, round(nbytes * self.size_scale))

    def _package_bytes(self, nbytes: int) -> int:
        return max(1, round(nbytes * self.package_scale))

    def _max_rows(self, db: Database) -> int | None:
        if db.max_rows is None:
            return None
        real = min(db.max_rows, math.ceil(DB_KEEP_BYTES / mean_size(db.record_bytes)))
        return max(1, real, round(db.max_rows * self.scale))

    def _keep(self, group: FileGroup) -> int | None:
        return None if group.keep is None else max(1, round(group.keep * self.scale))

    def _write_file(
        self,
        t: int,
        thread: int,
        path: str,
        size: int,
        chunk: int,
        sync: str,
        sync_each: bool = False,
    ) -> int:
        t = self.emit(t, thread, "create", path)
        done = 0
        while done < size:
            n = min(chunk, size - done)
            t = self.emit(t, thread, "append", path, n)
            done += n
            if sync_each and sync != "none":
                t = self.emit(t, thread, sync, path)
        if sync != "none" and not sync_each:
            t = self.emit(t, thread, sync, path)
        self.files[path] = size
        return t

    def _unlink(self, t: int, thread: int, path: str) -> int:
        self.files.pop(path, None)
        return self.emit(t, thread, "unlink", path)

    def _event_times(self, start: int, length: int, n: int) -> list[int]:
        return sorted(start + int(self.rng.random() * length) for _ in range(n))

    def _session_count(self, spec, at_least_one: bool = False) -> int:
        n = scaled(self.rng, draw_count(self.rng, spec), self.scale)
        if at_least_one and n == 0 and mean_count(spec) > 0:
            n = 1
        return n

    def db_path(self, app: AppModel, db: Database) -> str:
        return f"{app.data_dir}/databases/{db.name}"

    def group_dir(self, app: AppModel, group: FileGroup) -> str:
        if group.area == "media":
            return f"{MEDIA_ROOT}/{group.dir}"
        return f"{app.data_dir}/{group.dir}"

    def group_thread(self, app: AppModel, group: FileGroup) -> int:
        if group.area == "media":
            return MEDIA_THREAD
        return self.threads[app.app].io[group.thread]

    def _group_key(self, app: AppModel, group: FileGroup) -> tuple[str, str]:
        return (self.group_dir(app, group), group.pattern or "\t".join(group.names))

    # -- SQLite ---------------------------------------------------------------------------
    def _sql(
        self, t: int, thread: int, path: str, journal: str, kind: str, rows: int, size: int
    ) -> int:
        state = self.dbs.setdefault(path, DbState())
        self.journals[path] = journal
        if kind in ("update", "delete") and not state.rows:
            kind = "insert"
        if kind == "insert":
            state.insert(rows, size)
        elif kind == "delete":
            rows = state.delete(rows)
        elif kind == "update":
            rows = state.update(rows, size)
        else:
            rows = min(rows, len(state.rows))
        return self.emit(t, thread, "sql", path, journal, kind, rows, size)

    def _db_session(self, app: AppModel, db: Database, start: int, length: int) -> None:
        thread = self.threads[app.app].writers[db.writer]
        path = self.db_path(app, db)
        kinds = [k for k, _ in db.mix]
        weights = [w for _, w in db.mix]
        n = self._session_count(db.tx_per_session, at_least_one=True)
        times = self._event_times(start, length, n)
        if mean_count(db.tx_per_session) > 0:
            # Every database of a session is written across its middle, so all writer
            # threads of the app overlap in time at every scale (TMC §4.3).
            middle = start + length // 2
            if len(times) < 2:
                times = [start, middle]
            if times[0] >= middle:
                times[0] = start + int(self.rng.random() * (length // 2))
            if times[-1] < middle:
                times[-1] = middle + int(self.rng.random() * (length - length // 2))
            times.sort()
        last = -1
        for t in times:
            t = max(t, last + 1)
            kind = self.rng.choices(kinds, weights)[0]
            rows = max(1, draw_count(self.rng, db.rows_per_tx))
            size = draw_size(self.rng, db.record_bytes)
            last = self._sql(t, thread, path, db.journal, kind, rows, size)
            state = self.dbs[path]
            max_rows = self._max_rows(db)
            if max_rows is not None and len(state.rows) > max_rows:
                excess = len(state.rows) - max_rows
                last = self._sql(last, thread, path, db.journal, "delete", excess, size)

    # -- packages -------------------------------------------------------------------------
    def _write_package(self, app: AppModel, t: int, version: int, jitter: float) -> int:
        inst = app.install
        thread = self.threads[app.app].package
        root = f"{app.code_dir}-{version}"
        written: list[str] = []
        apk = self._package_bytes(int(inst.apk_bytes * jitter))
        if inst.download:
            staging = f"{STORE_CACHE}/{app.package}.apk"
            t = self._write_file(t, thread, staging, apk, inst.chunk_bytes, "fsync")
        t = self._write_file(t, thread, f"{root}/base.apk", apk, inst.chunk_bytes, "fsync")
        written.append(f"{root}/base.apk")
        if inst.download:
            t = self._unlink(t, thread, staging)
        for i in range(inst.lib_count):
            path = f"{root}/lib/arm64/lib{app.app}{i:02d}.so"
            size = self._package_bytes(int(draw_size(self.rng, inst.lib_bytes) * jitter))
            t = self._write_file(t, thread, path, size, inst.chunk_bytes, "fsync")
            written.append(path)
        for name, nbytes in inst.code:
            path = f"{root}/{name}"
            size = self._package_bytes(int(nbytes * jitter))
            t = self._write_file(t, thread, path, size, inst.chunk_bytes, "fsync")
            written.append(path)
        self.code_files[app.app] = written
        return t

    def install(self, name: str, t: int) -> int:
        """Install an app: APK (staged by the store), libraries, compiled code, data."""
        app = self.apps[name]
        if name in self.versions:
            return self.update(name, t)
        self.versions[name] = 1
        end = self._write_package(app, t, 1, 1.0)
        threads = self.threads[name]
        for db in app.databases:
            thread = threads.writers[db.writer]
            path = self.db_path(app, db)
            tt = end
            rows_left = scaled(self.rng, db.initial_rows, self.scale)
            tt = self._sql(tt, thread, path, db.journal, "select", 0, 0)
            while rows_left > 0:
                n = min(INITIAL_BATCH_ROWS, rows_left)
                size = draw_size(self.rng, db.record_bytes)
                tt = self._sql(tt, thread, path, db.journal, "insert", n, size)
                rows_left -= n
        for group in app.files:
            thread = self.group_thread(app, group)
            tt = end
            if group.names:
                for file_name in group.names:
                    tt = self._new_file(app, group, tt, thread, file_name)
            else:
                for _ in range(group.initial):
                    tt = self._new_file(app, group, tt, thread)
        return end

    def update(self, name: str, t: int) -> int:
        """Install the next version next to the old one, then delete the old one."""
        app = self.apps[name]
        old = self.versions.get(name)
        if old is None:
            return self.install(name, t)
        old_files = self.code_files.get(name, [])
        new = 2 if old == 1 else 1
        self.versions[name] = new
        jitter = self.rng.uniform(0.97, 1.06)
        t = self._write_package(app, t, new, jitter)
        thread = self.threads[name].package
        for path in old_files:
            t = self._unlink(t, thread, path)
        for db in app.databases:
            path = self.db_path(app, db)
            tt = t
            for _ in range(app.install.update_transactions):
                size = draw_size(self.rng, db.record_bytes)
                wthread = self.threads[name].writers[db.writer]
                tt = self._sql(tt, wthread, path, db.journal, "update", 1, size)
        return t

    # -- files ----------------------------------------------------------------------------
    def _new_file(
        self, app: AppModel, group: FileGroup, t: int, thread: int, file_name: str | None = None
    ) -> int:
        key = self._group_key(app, group)
        paths = self.groups.setdefault(key, [])
        if file_name is None:
            n = self.counters.get(key, 0)
            self.counters[key] = n + 1
            file_name = group.pattern.format(n=n)
        path = f"{key[0]}/{file_name}"
        size = draw_size(self.rng, group.bytes)
        if group.size_scales and group.names:  # made once: scales like a package
            size = max(1, round(size * self.scale * self.size_scale))
        elif group.size_scales:
            size = self._bulk(size)
        if group.replace:
            tmp = f"{path}.tmp"
            t = self._write_file(
                t, thread, tmp, size, group.chunk_bytes, group.sync, group.sync_each_chunk
            )
            self.files.pop(tmp, None)
            t = self.emit(t, thread, "rename", tmp, path)
            self.files[path] = size
        else:
            t = self._write_file(
                t, thread, path, size, group.chunk_bytes, group.sync, group.sync_each_chunk
            )
        if path in paths:
            paths.remove(path)
        paths.append(path)
        keep = self._keep(group)
        if keep is not None:
            while len(paths) > keep:
                t = self._unlink(t, thread, paths.pop(0))
        return t

    def _pick(self, app: AppModel, group: FileGroup) -> str | None:
        paths = self.groups.get(self._group_key(app, group), [])
        return self.rng.choice(paths) if paths else None

    def _file_event(self, app: AppModel, group: FileGroup, kind: str, t: int, thread: int) -> int:
        if kind == "create":
            return self._new_file(app, group, t, thread)
        path = self._pick(app, group)
        if path is None:
            return t
        key = self._group_key(app, group)
        size = self.files.get(path, 0)
        if kind == "delete":
            self.groups[key].remove(path)
            return self._unlink(t, thread, path)
        if kind == "rewrite":
            if group.replace or size == 0:
                return self._new_file(app, group, t, thread, path.rsplit("/", 1)[1])
            chunk = min(group.chunk_bytes, size)
            offset = self.rng.randrange(0, max(1, size - chunk + 1), PAGE) if size > chunk else 0
            t = self.emit(t, thread, "write", path, offset, chunk)
            return self.emit(t, thread, group.sync, path) if group.sync != "none" else t
        if kind == "append":
            spec = group.append_bytes if group.append_bytes is not None else group.chunk_bytes
            n = max(1, draw_size(self.rng, spec))
            t = self.emit(t, thread, "append", path, n)
            self.files[path] = size + n
            return self.emit(t, thread, group.sync, path) if group.sync != "none" else t
        if kind == "truncate":
            self.files[path] = 0
            return self.emit(t, thread, "truncate", path, 0)
        if kind == "read":
            chunk = max(group.chunk_bytes, -(-size // MAX_READS_PER_FILE))
            offset = 0
            while offset < size:
                t = self.emit(t, thread, "read", path, offset, min(chunk, size - offset))
                offset += chunk
            return t
        raise ValueError(kind)

    def _group_session(self, app: AppModel, group: FileGroup, start: int, length: int) -> None:
        thread = self.group_thread(app, group)
        order = ("create", "rewrite", "append", "read", "truncate", "delete")
        events: list[tuple[int, int, str]] = []
        for rank, kind in enumerate(order):
            spec = group.per_session.get(kind)
            if spec is None:
                continue
            for t in self._event_times(start, length, self._session_count(spec)):
                events.append((t, rank, kind))
        cursor = start
        for t, _, kind in sorted(events):
            cursor = self._file_event(app, group, kind, max(t, cursor), thread)

    # -- sessions -------------------------------------------------------------------------
    def session_length_us(self, name: str) -> int:
        return max(1_000_000, int(self.apps[name].session_seconds * self.scale * 1e6))

    def session(self, name: str, t: int) -> int:
        """One run of the app's scenario starting at t; returns its end time."""
        app = self.apps[name]
        if name not in self.versions:
            t = self.install(name, t)
        length = self.session_length_us(name)
        for db in app.databases:
            self._db_session(app, db, t, length)
        for group in app.files:
            self._group_session(app, group, t, length)
        return t + length

    # -- state summaries (for checks and reports) ----------------------------------------
    def file_sizes(self) -> dict[str, int]:
        """Every file the generator believes exists: non-SQLite files and databases."""
        sizes = dict(self.files)
        for path, state in self.dbs.items():
            sizes[path] = state.peak_bytes
        return sizes


def scenario_ops(
    app: AppModel,
    seed: int,
    scale: float = 1.0,
    size_scale: float = 1.0,
    sessions: int = 1,
    install: bool = True,
    package_scale: float | None = None,
) -> list[Op]:
    """A trace of one app: its install (optional) followed by `sessions` scenario runs."""
    rng = random.Random(f"scenario:{app.app}:{seed}")
    gen = Generator([app], rng, scale, size_scale, package_scale)
    t = 0
    if install:
        t = gen.install(app.app, t)
    else:
        gen.versions[app.app] = 1  # installed before the trace: only the sessions
    for _ in range(sessions):
        t = gen.session(app.app, t)
    return gen.take_ops()
