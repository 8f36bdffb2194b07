"""Unit tests of the TMC §5.2 table code, the tile cache and the install traces."""

import csv
import json
import sqlite3

import pytest

from conftest import REPO, empty_trace_summary, needs_ftl_sim
from mobifrag.tables import user_latency as table
from mobifrag.workloads.__main__ import main as workloads
from mobifrag.workloads.scenarios import ModelError
from mobifrag.workloads.tile_cache import TileCacheError, build
from mobifrag.workloads.user_latency import app_models, install_traces

KIB = 1024
FILES_HEADER = "path\tsize_bytes\tallocated_bytes\tn_extents\tinode\n"
EXTENTS_HEADER = "path\textent\tlogical_bytes\tphysical_bytes\tlength_bytes\tflags\n"
FS_ROW = "fs_type\tblock_size\ttotal_blocks\tfree_blocks\tdevice\next4\t4096\t32768\t100\tvda\n"


def write_snapshot(folder, files):
    """files: path → list of (logical, physical, length) extents."""
    folder.mkdir(parents=True)
    (folder / "fs.tsv").write_text(FS_ROW)
    rows, extents = [FILES_HEADER], [EXTENTS_HEADER]
    for n, (path, pieces) in enumerate(files.items()):
        size = sum(length for _, _, length in pieces)
        rows.append(f"{path}\t{size}\t{size}\t{len(pieces)}\t{n + 12}\n")
        for i, (logical, physical, length) in enumerate(pieces):
            extents.append(f"{path}\t{i}\t{logical}\t{physical}\t{length}\t\n")
    (folder / "files.tsv").write_text("".join(rows))
    (folder / "extents.tsv").write_text("".join(extents))


def summary(reads, writes, device_us, modeled_us):
    return {
        "requests": {"read": {"count": reads}, "write": {"count": writes}},
        "time": {"device_busy_us": device_us, "modeled_us": modeled_us},
    }


@pytest.fixture
def run(tmp_path):
    run = tmp_path / "run"
    write_snapshot(
        run / "snapshot",
        {
            "app/x-1/base.apk": [(0, 0, 64 * KIB), (64 * KIB, 1024 * KIB, 64 * KIB)],
            "data/x/databases/a.db": [(0, 4096 * KIB, 8 * KIB)],
            "data/x/databases/empty.db": [],
            "tiles/mirth_cache.db": [(0, 8192 * KIB, 256 * KIB)],
        },
    )
    (run / "launch").mkdir()
    (run / "launch/x.txt").write_text(
        "app/x-1/base.apk\ndata/x/databases/a.db\ndata/x/databases/empty.db\n"
    )
    (run / "latency.tsv").write_text(
        "phase\tapp\tns\ninstall\tx\t2000000\nlaunch\tx\t1500000\nsqlite\ttiles\t3000000\n"
    )
    return run


def models(folder, state, values, rep="1"):
    """(state, rep, phase) → a written ftl-sim summary, for each phase → summary in values."""
    found = {}
    for phase, value in values.items():
        path = folder / f"{state}-{rep}-{phase}.json"
        path.write_text(json.dumps(value))
        found[(state, rep, phase)] = path
    return found


def test_rows_join_times_requests_and_fragmentation(run, tmp_path):
    phases = ("install-x", "launch-x", "sqlite")
    replays = models(tmp_path, "severe", {p: summary(3, 7, 1500, 1840) for p in phases})
    replays[("severe", "1", "install-x")].write_text(json.dumps(summary(1, 1, 1, 1)))
    rows = table.run_rows("severe", "1", run, replays)
    assert [r["requests"] for r in rows] == ["2", "10", "10"]
    launch = rows[1]
    assert (launch["rep"], launch["state"], launch["phase"], launch["app"]) == (
        "1",
        "severe",
        "launch",
        "x",
    )
    assert launch["files"] == "3" and launch["fragments"] == "3"
    assert float(launch["max_dof"]) == 2
    assert float(launch["mean_dof"]) == pytest.approx(4 / 3, rel=1e-5)
    assert launch["requests"] == "10"
    assert launch["modeled_ms"] == "1.84" and launch["device_ms"] == "1.5"
    assert launch["wall_ms"] == "1.5"
    assert rows[2]["files"] == "1" and rows[2]["max_dof"] == "1"


@needs_ftl_sim
def test_a_replay_of_an_empty_trace_is_refused_naming_its_summary(run, tmp_path, capsys):
    phases = ("install-x", "launch-x", "sqlite")
    replays = models(tmp_path, "severe", {p: summary(3, 7, 1500, 1840) for p in phases})
    replays[("severe", "1", "launch-x")] = empty_trace_summary(tmp_path)
    with pytest.raises(table.ftl.FtlSimError, match="met no read or write"):
        table.run_rows("severe", "1", run, replays)
    argv = ["--run", "severe", "1", str(run)]
    for key, path in replays.items():
        argv += ["--model", *key, str(path)]
    out = tmp_path / "latency.csv"
    assert table.main([*argv, "--table", str(out)]) == 1
    assert f"{replays['severe', '1', 'launch-x']}: the replay of" in capsys.readouterr().err
    assert not out.exists()


def test_unfinished_run_is_named(tmp_path):
    with pytest.raises(table.LatencyError, match="latency.tsv is missing"):
        table.read_times(tmp_path)


def test_bad_time_row_names_the_line(run):
    (run / "latency.tsv").write_text("phase\tapp\tns\nlaunch\tx\tsoon\n")
    with pytest.raises(table.LatencyError, match=r"latency.tsv:2: expected phase, app, ns"):
        table.read_times(run)


def test_unknown_phase_is_refused(run):
    (run / "latency.tsv").write_text("phase\tapp\tns\nboot\tx\t5\n")
    with pytest.raises(table.LatencyError, match="unknown phase 'boot'"):
        table.read_times(run)


def test_launched_file_missing_from_snapshot_is_named(run, tmp_path):
    phases = ("install-x", "launch-x", "sqlite")
    replays = models(tmp_path, "no", {p: summary(1, 0, 1, 1) for p in phases})
    (run / "launch/x.txt").write_text("app/x-1/gone.odex\n")
    with pytest.raises(table.LatencyError, match="no fragcheck entry for app/x-1/gone.odex"):
        table.run_rows("no", "1", run, replays)


def test_a_phase_without_its_replay_is_named(run, tmp_path):
    replays = models(tmp_path, "no", {"install-x": summary(1, 0, 1, 1)})
    with pytest.raises(table.LatencyError, match="no model replay of no 1 launch-x"):
        table.run_rows("no", "1", run, replays)


def test_command_reports_errors_without_a_table(tmp_path, capsys):
    out = tmp_path / "latency.csv"
    argv = ["--run", "no", "1", str(tmp_path), "--model", "no", "1", "sqlite", "s.json"]
    assert table.main([*argv, "--table", str(out)]) == 1
    assert "latency.tsv is missing" in capsys.readouterr().err and not out.exists()


def test_each_repetition_is_a_row_of_its_own(run, tmp_path):
    phases = ("install-x", "launch-x", "sqlite")
    replays = {
        **models(tmp_path, "no", {p: summary(1, 0, 1, 1) for p in phases}, rep="1"),
        **models(tmp_path, "no", {p: summary(5, 0, 1, 1) for p in phases}, rep="2"),
    }
    out = tmp_path / "latency.csv"
    argv = ["--run", "no", "1", str(run), "--run", "no", "02", str(run), "--table", str(out)]
    argv += [a for key, path in replays.items() for a in ("--model", *key, str(path))]
    assert table.main(argv) == 0
    rows = list(csv.DictReader(out.open()))
    assert [(r["rep"], r["phase"], r["requests"]) for r in rows] == [
        ("1", "install", "1"),
        ("1", "launch", "1"),
        ("1", "sqlite", "1"),
        ("2", "install", "5"),
        ("2", "launch", "5"),
        ("2", "sqlite", "5"),
    ]


def test_a_bad_repetition_is_refused(tmp_path, capsys):
    argv = ["--run", "no", "0", str(tmp_path), "--model", "no", "1", "sqlite", "s.json"]
    with pytest.raises(SystemExit):
        table.main([*argv, "--table", str(tmp_path / "latency.csv")])
    assert "a repetition is a number from 1, not '0'" in capsys.readouterr().err


def test_tile_cache_reaches_its_size_and_answers_the_query_log(tmp_path):
    db = tmp_path / "tiles.db"
    rows = build(db, 1024 * KIB, seed=3)
    assert rows > 10 and 1024 * KIB <= db.stat().st_size < 2 * 1024 * KIB
    log = (REPO / "traces/sql/tile-cache.sql").read_text().splitlines()
    queries = [line for line in log if line and not line.startswith("--")]
    assert len(queries) > 30 and all(q.startswith("SELECT") for q in queries)
    with sqlite3.connect(db) as con:
        for query in queries:
            con.execute(query).fetchall()
        assert not con.execute("SELECT count(*) FROM tiles WHERE length(data) < 1024").fetchone()[0]


def test_tile_cache_refuses_a_size_of_zero(tmp_path):
    with pytest.raises(TileCacheError, match="not positive"):
        build(tmp_path / "tiles.db", 0, seed=1)


def test_install_traces_list_apps_in_order(tmp_path):
    models = app_models(
        ["chrome", "game"],
        [REPO / "traces/scenarios/chrome.yaml", REPO / "traces/launch/game.yaml"],
    )
    install_traces(models, seed=1, size_scale=0.01, out=tmp_path)
    lines = (tmp_path / "apps.tsv").read_text().splitlines()
    assert lines[1:] == [
        "chrome\tcom.android.chrome\t01-chrome.iotrace",
        "game\tcom.rovio.angrybirds\t02-game.iotrace",
    ]
    trace = (tmp_path / "02-game.iotrace").read_text()
    assert "app/com.rovio.angrybirds-1/base.apk" in trace and "\tfsync\t" in trace


def test_model_of_another_app_is_refused():
    with pytest.raises(ModelError, match="not the app model of 'game'"):
        app_models(["game"], [REPO / "traces/scenarios/chrome.yaml"])


def test_no_state_trace_only_fills(tmp_path, capsys):
    out = tmp_path / "no.iotrace"
    argv = ["holes", "--disk-bytes", "128M", "--fullness", "90", "--small-bytes", "4K"]
    assert workloads([*argv, "--small-total", "0", "--seed", "1", "--out", str(out)]) == 0
    ops = [line.split("\t")[2] for line in out.read_text().splitlines() if line[0] != "#"]
    assert ops.count("fill") == 1 and "reclaim" not in ops and "create" not in ops
