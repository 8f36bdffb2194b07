"""Scenario models (traces/scenarios/*.yaml): load, validate, and give them types.

Every error names the file, the line and the field, e.g.
`traces/scenarios/facebook.yaml:41: databases[2].journal: 'wall' is not one of [...]`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

import jsonschema
import yaml

from mobifrag import REPO
from mobifrag.workloads.iotrace import path_problem

SCENARIO_DIR = REPO / "traces" / "scenarios"
SCHEMA_FILE = "schema.yaml"
SCHEDULE_FILE = "autoage.yaml"


class ModelError(ValueError):
    """A scenario model that does not validate; the message starts with FILE:LINE."""


# Counts and sizes as written in a model: an int, or a dict (see schema.yaml $defs).
Spec = int | dict


@dataclass(frozen=True)
class Package:
    apk_bytes: int
    download: bool
    chunk_bytes: int
    code: tuple[tuple[str, int], ...]
    lib_count: int
    lib_bytes: Spec
    update_every_days: float | None
    update_transactions: int


@dataclass(frozen=True)
class Database:
    name: str  # file name under databases/
    journal: str
    record_bytes: Spec
    rows_per_tx: Spec
    tx_per_session: Spec
    mix: tuple[tuple[str, float], ...]
    initial_rows: int
    max_rows: int | None
    writer: int  # index among the app's sqlite writer threads


@dataclass(frozen=True)
class FileGroup:
    name: str
    area: str
    dir: str
    pattern: str | None
    names: tuple[str, ...]
    bytes: Spec
    size_scales: bool
    chunk_bytes: int
    append_bytes: Spec | None
    sync: str
    sync_each_chunk: bool
    replace: bool
    initial: int
    keep: int | None
    thread: int
    per_session: dict[str, Spec]


@dataclass(frozen=True)
class AppModel:
    source: str
    app: str
    package: str
    type: str
    scenario: str
    session_seconds: float
    usage_share: float
    sqlite_writers: int
    io_threads: int
    install: Package
    databases: tuple[Database, ...]
    files: tuple[FileGroup, ...]

    @property
    def data_dir(self) -> str:
        return f"data/{self.package}"

    @property
    def code_dir(self) -> str:
        return f"app/{self.package}"

    def sessions_in(self, minutes: float) -> int:
        """Sessions that fill `minutes` of use (at least one; a started session runs
        to its end, so the replay covers the whole span)."""
        return max(1, math.ceil(minutes * 60 / self.session_seconds - 1e-9))


@dataclass(frozen=True)
class Reclaim:
    percent: int
    bytes: int
    dir: str
    glob: str


@dataclass(frozen=True)
class Schedule:
    source: str
    days: int
    use_hours_per_day: float
    fill_percent: int
    reference_disk_bytes: int
    update_every_days: float
    update_jitter_days: int
    session_gap_seconds: float
    reclaim: Reclaim


@dataclass
class _Located:
    """A YAML document with the line of every node, to name lines in errors."""

    source: str
    data: object
    root: yaml.Node | None = field(default=None)

    def line(self, path) -> int:
        node = self.root
        line = node.start_mark.line + 1 if node is not None else 1
        for key in path:
            if isinstance(node, yaml.MappingNode):
                found = None
                for key_node, value_node in node.value:
                    if key_node.value == key:
                        found = value_node
                        line = key_node.start_mark.line + 1
                        break
                node = found
            elif isinstance(node, yaml.SequenceNode) and isinstance(key, int):
                if key < len(node.value):
                    node = node.value[key]
                    line = node.start_mark.line + 1
                else:
                    node = None
            else:
                node = None
            if node is None:
                break
        return line

    def error(self, path, message: str) -> ModelError:
        where = field_name(path)
        prefix = f"{self.source}:{self.line(path)}: "
        return ModelError(prefix + (f"{where}: " if where else "") + message)


def field_name(path) -> str:
    text = ""
    for key in path:
        if isinstance(key, int):
            text += f"[{key}]"
        else:
            text += ("." if text else "") + str(key)
    return text


_schema_cache: dict[Path, dict] = {}


def load_schema(directory: Path = SCENARIO_DIR) -> dict:
    path = Path(directory) / SCHEMA_FILE
    if path not in _schema_cache:
        schema = yaml.safe_load(path.read_text())
        jsonschema.Draft202012Validator.check_schema(schema)
        _schema_cache[path] = schema
    return _schema_cache[path]


def _read(path: Path) -> _Located:
    source = str(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise ModelError(f"{source}:1: cannot read: {error.strerror}") from None
    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
        data = yaml.safe_load(text)
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        line = mark.line + 1 if mark else 1
        raise ModelError(f"{source}:{line}: not valid YAML: {error}") from None
    if not isinstance(data, dict):
        raise ModelError(f"{source}:1: expected a mapping at the top level")
    return _Located(source, data, root)


def _best_error(errors):
    """The most specific schema error (deepest path; within oneOf, the closest branch)."""
    error = jsonschema.exceptions.best_match(errors)
    return error


def _validate(doc: _Located, schema: dict) -> None:
    validator = jsonschema.Draft202012Validator(schema)
    errors = list(validator.iter_errors(doc.data))
    if not errors:
        return
    error = _best_error(errors)
    raise doc.error(list(error.absolute_path), error.message)


def _check_spec(doc: _Located, path: list, spec) -> None:
    if isinstance(spec, dict) and spec["min"] > spec["max"]:
        raise doc.error(path, f"min {spec['min']} is larger than max {spec['max']}")
    if isinstance(spec, dict) and "median" in spec and not spec["min"] <= spec["median"]:
        raise doc.error(path, "median is below min")
    if isinstance(spec, dict) and "median" in spec and not spec["median"] <= spec["max"]:
        raise doc.error(path, "median is above max")


def _check_path(doc: _Located, path: list, value: str) -> None:
    problem = path_problem(value)
    if problem:
        raise doc.error(path, problem)


def load_model(path: Path | str, schema_dir: Path | None = None) -> AppModel | Schedule:
    """Load and validate one model file (app or schedule)."""
    path = Path(path)
    doc = _read(path)
    if schema_dir is None:
        own = path.parent / SCHEMA_FILE
        schema_dir = path.parent if own.exists() else SCENARIO_DIR
    _validate(doc, load_schema(schema_dir))
    if doc.data["kind"] == "autoage":
        return _schedule(doc)
    return _app(doc, path)


def _schedule(doc: _Located) -> Schedule:
    d = doc.data
    _check_path(doc, ["reclaim", "dir"], d["reclaim"]["dir"])
    return Schedule(
        source=doc.source,
        days=d["days"],
        use_hours_per_day=float(d["use_hours_per_day"]),
        fill_percent=d["fill_percent"],
        reference_disk_bytes=d["reference_disk_bytes"],
        update_every_days=float(d["update_every_days"]),
        update_jitter_days=d.get("update_jitter_days", 0),
        session_gap_seconds=float(d.get("session_gap_seconds", 0)),
        reclaim=Reclaim(**d["reclaim"]),
    )


def _app(doc: _Located, path: Path) -> AppModel:
    d = doc.data
    if d["app"] != path.stem:
        raise doc.error(["app"], f"{d['app']!r} differs from the file name {path.stem!r}")
    inst = d["install"]
    _check_spec(doc, ["install", "libs", "bytes"], inst["libs"]["bytes"])
    for i, code in enumerate(inst["code"]):
        _check_path(doc, ["install", "code", i, "name"], code["name"])
    package = Package(
        apk_bytes=inst["apk_bytes"],
        download=inst.get("download", True),
        chunk_bytes=inst.get("chunk_bytes", 65536),
        code=tuple((c["name"], c["bytes"]) for c in inst["code"]),
        lib_count=inst["libs"]["count"],
        lib_bytes=inst["libs"]["bytes"],
        update_every_days=inst.get("update_every_days"),
        update_transactions=inst.get("update_transactions", 2),
    )
    writers = d["threads"]["sqlite_writers"]
    databases: list[Database] = []
    seen: set[str] = set()
    for i, db in enumerate(d["databases"]):
        where = ["databases", i]
        for key in ("record_bytes", "rows_per_tx", "tx_per_session"):
            _check_spec(doc, [*where, key], db[key])
        if sum(db["mix"].values()) <= 0:
            raise doc.error([*where, "mix"], "weights must not all be zero")
        count = db.get("count", 1)
        if count > 1 and "{i}" not in db["name"]:
            raise doc.error([*where, "name"], "count > 1 needs '{i}' in the name")
        for copy in range(count):
            name = db["name"].replace("{i}", str(copy))
            if name in seen:
                raise doc.error([*where, "name"], f"database {name!r} appears twice")
            seen.add(name)
            databases.append(
                Database(
                    name=name,
                    journal=db["journal"],
                    record_bytes=db["record_bytes"],
                    rows_per_tx=db["rows_per_tx"],
                    tx_per_session=db["tx_per_session"],
                    mix=tuple(sorted(db["mix"].items())),
                    initial_rows=db.get("initial_rows", 0),
                    max_rows=db.get("max_rows"),
                    writer=len(databases) % writers if writers else 0,
                )
            )
    if databases and writers == 0:
        raise doc.error(["threads", "sqlite_writers"], "databases need at least one writer")
    if len(databases) < writers:
        raise doc.error(
            ["threads", "sqlite_writers"],
            f"{writers} writer threads but only {len(databases)} databases",
        )
    io = d["threads"]["io"]
    groups: list[FileGroup] = []
    for i, g in enumerate(d["files"]):
        where = ["files", i]
        _check_path(doc, [*where, "dir"], g["dir"])
        _check_spec(doc, [*where, "bytes"], g["bytes"])
        if "append_bytes" in g:
            _check_spec(doc, [*where, "append_bytes"], g["append_bytes"])
        per_session = g.get("per_session", {})
        for key, spec in per_session.items():
            _check_spec(doc, [*where, "per_session", key], spec)
        if "pattern" in g:
            try:
                g["pattern"].format(n=0)
            except (KeyError, IndexError, ValueError) as error:
                raise doc.error([*where, "pattern"], f"bad pattern: {error}") from None
        thread = g.get("thread", i % io)
        if thread >= io:
            raise doc.error([*where, "thread"], f"thread {thread} but only {io} io threads")
        if "names" in g and ("create" in per_session or "keep" in g):
            raise doc.error([*where, "names"], "fixed names cannot be created or evicted")
        groups.append(
            FileGroup(
                name=g["name"],
                area=g.get("area", "data"),
                dir=g["dir"],
                pattern=g.get("pattern"),
                names=tuple(g.get("names", ())),
                bytes=g["bytes"],
                size_scales=g.get("size_scales", False),
                chunk_bytes=g.get("chunk_bytes", 65536),
                append_bytes=g.get("append_bytes"),
                sync=g.get("sync", "none"),
                sync_each_chunk=g.get("sync_each_chunk", False),
                replace=g.get("replace", False),
                initial=g.get("initial", 0),
                keep=g.get("keep"),
                thread=thread,
                per_session=dict(per_session),
            )
        )
    return AppModel(
        source=doc.source,
        app=d["app"],
        package=d["package"],
        type=d["type"],
        scenario=d["scenario"],
        session_seconds=float(d["session_seconds"]),
        usage_share=float(d.get("usage_share", 1.0)),
        sqlite_writers=writers,
        io_threads=io,
        install=package,
        databases=tuple(databases),
        files=tuple(groups),
    )


def load_models(directory: Path | str = SCENARIO_DIR) -> tuple[list[AppModel], Schedule | None]:
    """Every app model of a directory (sorted by name) and its schedule, if any."""
    directory = Path(directory)
    apps: list[AppModel] = []
    schedule: Schedule | None = None
    for path in sorted(directory.glob("*.yaml")):
        if path.name == SCHEMA_FILE:
            continue
        model = load_model(path, directory)
        if isinstance(model, Schedule):
            schedule = model
        else:
            apps.append(model)
    if not apps:
        raise ModelError(f"{directory}: no app models (*.yaml with kind: app)")
    return apps, schedule
