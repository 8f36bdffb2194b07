"""mobifrag.model.run_phases: every traced phase of a run replayed through the real
ftl-sim with the overlap its trace shows and at least the threads its reports give in
flight, and the index the tables read."""

import json

import pytest

from block_traces import DEVICE, readahead_requests, write_blktrace
from conftest import FTL_SIM
from mobifrag.model.run_phases import ModelIndexError, RunModels, main, phase_depths

needs_ftl_sim = pytest.mark.skipif(not FTL_SIM.is_file(), reason="ftl-sim is not built")
WRITES = [(i * 100, "W", i * 64, 8) for i in range(8)]


def fio(path, jobs):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("notice: prerun\n" + json.dumps({"jobs": [{"jobname": j} for j in jobs]}))


def replay(path, threads):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"threads": threads, "seconds": 1.0}))


def run_with(tmp_path, phases):
    for phase in phases:
        write_blktrace(tmp_path / "blktrace" / phase, WRITES)
    return tmp_path


def test_depths_come_from_the_report_that_names_each_phase(tmp_path):
    run = run_with(tmp_path, ["ffsb-small-read", "postmark", "sqlite-1-insert"])
    fio(run / "fio" / "ffsb.json", ["drop-before-small-read", "small-read", "small-read"])
    replay(run / "replay" / "1-insert.json", 3)
    depths = phase_depths(run, "{report}-{job}", "sqlite-{report}", {})
    # a phase no report names ran on one thread; untraced names are left out
    assert depths == {"ffsb-small-read": 2, "postmark": 1, "sqlite-1-insert": 3}
    assert phase_depths(run, "{report}", None, {"postmark": 4})["postmark"] == 4


def test_two_reports_that_disagree_on_a_phase_are_named(tmp_path):
    run = run_with(tmp_path, ["x-a"])
    fio(run / "fio" / "x.json", ["a"])
    with pytest.raises(ModelIndexError, match="phase x-a: its reports give 1 and 5 threads"):
        phase_depths(run, "{report}-{job}", None, {"x-a": 5})


def test_a_replay_report_without_threads_is_named(tmp_path):
    run = run_with(tmp_path, ["low-facebook"])
    (run / "replay").mkdir()
    (run / "replay" / "low-facebook.json").write_text('{"seconds": 1}')
    with pytest.raises(ModelIndexError, match="low-facebook.json: no replay threads"):
        phase_depths(run, None, "{report}", {})


def test_a_run_without_traces_is_refused(tmp_path, capsys):
    out = tmp_path / "phases.json"
    args = [str(tmp_path), "--device", str(DEVICE), "--ftl-sim", str(FTL_SIM), "-o", str(out)]
    assert main(args) == 1
    assert "blktrace: no traced phase" in capsys.readouterr().err
    assert not out.exists()


@needs_ftl_sim
def test_deeper_queues_model_the_same_requests_in_less_time(tmp_path):
    run = run_with(tmp_path / "run", ["one", "four"])
    out = tmp_path / "phases.json"
    sim = ["--device", str(DEVICE), "--ftl-sim", str(FTL_SIM)]
    assert main([str(run), *sim, "--depth", "four", "4", "-o", str(out)]) == 0
    models = RunModels([out])
    assert models.phases(run) == ["four", "one"]
    one, depth_one = models.phase(run, "one")
    four, depth_four = models.phase(run, "four")
    assert (depth_one, depth_four) == (1, 4)
    assert one["requests"]["write"]["count"] == four["requests"]["write"]["count"] == 8
    assert four["time"]["modeled_us"] < one["time"]["modeled_us"]
    with pytest.raises(ModelIndexError, match="no phase two"):
        models.phase(run, "two")
    with pytest.raises(ModelIndexError, match="no phase models given for this run"):
        models.phase(tmp_path, "one")


@needs_ftl_sim
def test_a_phase_replays_the_overlap_its_trace_shows_at_one_thread(tmp_path):
    # The same reads, once as readahead issued them (32 before any completes), once
    # one at a time: one thread each, and only the trace tells them apart.
    run = tmp_path / "run"
    write_blktrace(run / "blktrace" / "together", readahead_requests(together=True))
    write_blktrace(run / "blktrace" / "serialized", readahead_requests(together=False))
    out = tmp_path / "phases.json"
    assert main([str(run), "--device", str(DEVICE), "--ftl-sim", str(FTL_SIM), "-o", str(out)]) == 0
    models = RunModels([out])
    (together, one), (serialized, also_one) = (
        models.phase(run, "together"),
        models.phase(run, "serialized"),
    )
    assert one == also_one == 1
    assert together["replay"]["arrivals"] == "overlap"
    assert together["requests"]["read"]["count"] == serialized["requests"]["read"]["count"]
    assert together["time"]["modeled_us"] < serialized["time"]["modeled_us"]


def test_a_damaged_index_is_named(tmp_path):
    index = tmp_path / "phases.json"
    index.write_text('{"run": "r", "phases": {"a": {"queue_depth": 0, "summary": {}}}}')
    with pytest.raises(ModelIndexError, match="phases.json: not a phase-model index"):
        RunModels([index])
