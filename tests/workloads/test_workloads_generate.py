"""Trace generation: deterministic, seeded, safe paths, scale keeps the patterns."""

import json

import pytest

from mobifrag.workloads.__main__ import main
from mobifrag.workloads.generate import scenario_ops
from mobifrag.workloads.iotrace import path_problem, read_trace
from mobifrag.workloads.scenarios import SCENARIO_DIR, load_model, load_models


def _scenario(tmp_path, name, seed, scale="0.1"):
    out = tmp_path / f"{name}-{seed}-{scale}.iotrace"
    model = SCENARIO_DIR / f"{name}.yaml"
    args = ["scenario", "--model", str(model), "--seed", str(seed), "--scale", scale]
    assert main([*args, "--out", str(out)]) == 0
    return out


def test_same_seed_gives_byte_identical_traces(tmp_path):
    first = _scenario(tmp_path / "a", "facebook", 11)
    second = _scenario(tmp_path / "b", "facebook", 11)
    assert first.read_bytes() == second.read_bytes()


def test_different_seeds_give_different_traces(tmp_path):
    assert (
        _scenario(tmp_path, "twitter", 1).read_bytes()
        != _scenario(tmp_path, "twitter", 2).read_bytes()
    )


APPS = sorted(p.stem for p in SCENARIO_DIR.glob("*.yaml") if p.stem not in ("schema", "autoage"))


@pytest.mark.parametrize("name", APPS)
def test_generated_traces_are_valid_and_paths_stay_inside_the_root(tmp_path, name):
    trace = _scenario(tmp_path, name, 5, "0.2")
    ops = read_trace(trace)  # validates every line, including per-thread time order
    assert ops
    for op in ops:
        assert path_problem(op.path) is None
        assert not op.path.startswith("/") and ".." not in op.path.split("/")
        if op.op == "rename":
            assert path_problem(op.args[0]) is None


def test_scale_keeps_record_sizes_journals_and_threads():
    apps, _ = load_models(SCENARIO_DIR)
    for app in apps:
        full = scenario_ops(app, 9, scale=0.5)
        small = scenario_ops(app, 9, scale=0.05)
        assert len(small) < len(full)

        def journals(ops):
            return {(op.path, op.args[0]) for op in ops if op.op == "sql"}

        assert journals(small) == journals(full)
        writers_full = {op.thread for op in full if op.op == "sql"}
        writers_small = {op.thread for op in small if op.op == "sql"}
        assert writers_small == writers_full
        limits = {db.name: db.record_bytes for db in app.databases}
        for op in small:
            if op.op == "sql" and op.args[1] == "insert":
                spec = limits[op.path.rsplit("/", 1)[1]]
                low = spec if isinstance(spec, int) else spec["min"]
                high = spec if isinstance(spec, int) else spec["max"]
                assert low <= op.args[3] <= high


def test_each_file_stays_on_one_thread():
    apps, _ = load_models(SCENARIO_DIR)
    model = load_model(SCENARIO_DIR / "chrome.yaml")
    assert model in apps
    owner = {}
    for op in scenario_ops(model, 4, scale=0.3, sessions=3):
        if op.op in ("fill", "reclaim"):
            continue
        for path in (op.path, *(op.args[:1] if op.op == "rename" else ())):
            assert owner.setdefault(path, op.thread) == op.thread, path


@pytest.mark.parametrize(
    ("name", "minutes", "sessions"),
    [("twitter", 60, 11), ("messenger", 60, 15), ("facebook", 5, 1)],
)
def test_minutes_of_use_give_the_sessions_that_fill_them(tmp_path, capsys, name, minutes, sessions):
    out = tmp_path / f"{name}.iotrace"
    model = SCENARIO_DIR / f"{name}.yaml"
    args = ["scenario", "--model", str(model), "--seed", "3", "--minutes", str(minutes)]
    assert main([*args, "--out", str(out)]) == 0
    assert json.loads(capsys.readouterr().out)["sessions"] == sessions
    assert f"sessions={sessions} " in out.read_text()


def test_minutes_and_sessions_are_one_or_the_other(tmp_path):
    model = SCENARIO_DIR / "twitter.yaml"
    args = ["scenario", "--model", str(model), "--seed", "3", "--out", str(tmp_path / "t")]
    with pytest.raises(SystemExit):
        main([*args, "--minutes", "60", "--sessions", "2"])
    with pytest.raises(SystemExit):
        main([*args, "--sessions", "0"])
