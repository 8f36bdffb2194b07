"""The TMC §5.3.2–5.3.3 table code (mobifrag/tables/dispersed.py) on synthetic job outputs:
each phase's fio report and ftl-sim summaries, per repetition."""

import json

import pytest

from conftest import empty_trace_summary, needs_ftl_sim
from mobifrag.tables import dispersed as dispersed_table


def summary(path, reads=0, writes=0):
    requests = {"read": {"count": reads}, "write": {"count": writes}}
    path.write_text(
        json.dumps({"requests": requests, "time": {"device_busy_us": 2000, "modeled_us": 3000}})
    )
    return str(path)


def fio_report(run, phase, runtime):
    (run / "fio").mkdir(exist_ok=True)
    (run / "fio" / f"{phase}.json").write_text(json.dumps({"jobs": [{"job_runtime": runtime}]}))


def test_rows_come_from_each_models_summary_in_phase_order(tmp_path):
    for phase, runtime in (("read-16", 7), ("read-1", 5)):
        (tmp_path / "blktrace" / phase).mkdir(parents=True)
        fio_report(tmp_path, phase, runtime)
    models = [
        ("read", "16", "R-16", summary(tmp_path / "a.json", reads=16)),
        ("read", "1", "R-16", summary(tmp_path / "b.json", reads=1)),
    ]
    rows = dispersed_table.dispersed_rows(tmp_path, models)
    assert [(r["region_mib"], r["requests"], r["wall_ms"]) for r in rows] == [
        (1, 1, "5"),
        (16, 16, "7"),
    ]
    assert rows[0]["device_ms"] == "2" and rows[0]["modeled_ms"] == "3"


def test_a_model_of_a_phase_the_job_did_not_run_is_named(tmp_path):
    (tmp_path / "blktrace" / "read-1").mkdir(parents=True)
    models = [("write", "64", "W-GC", summary(tmp_path / "a.json"))]
    with pytest.raises(dispersed_table.DispersedError, match="write-64 for model W-GC"):
        dispersed_table.dispersed_rows(tmp_path, models)


@needs_ftl_sim
def test_a_replay_of_an_empty_trace_is_refused_naming_its_summary(tmp_path):
    (tmp_path / "blktrace" / "write-1").mkdir(parents=True)
    fio_report(tmp_path, "write-1", 5)
    empty = empty_trace_summary(tmp_path / "model")
    with pytest.raises(dispersed_table.ftl.FtlSimError, match=f"{empty}: the replay of .*met no"):
        dispersed_table.dispersed_rows(tmp_path, [("write", "1", "W-GC", str(empty))])


def test_a_damaged_summary_is_named(tmp_path):
    (tmp_path / "blktrace" / "read-1").mkdir(parents=True)
    fio_report(tmp_path, "read-1", 5)
    (tmp_path / "bad.json").write_text("{")
    with pytest.raises(dispersed_table.ftl.FtlSimError, match="bad.json"):
        dispersed_table.dispersed_rows(
            tmp_path, [("read", "1", "R-16", str(tmp_path / "bad.json"))]
        )


def two_repetitions(tmp_path):
    runs = {}
    for rep, runtime in (("1", 5), ("2", 6)):
        run = tmp_path / f"rep-{rep}"
        (run / "blktrace" / "read-1").mkdir(parents=True)
        fio_report(run, "read-1", runtime)
        runs[rep] = run
    return runs


def test_each_repetition_gives_its_own_rows_in_repetition_order(tmp_path):
    runs = two_repetitions(tmp_path)
    models = [
        ("2", "read", "1", "R-16", summary(tmp_path / "b.json", reads=20)),
        ("1", "read", "1", "R-16", summary(tmp_path / "a.json", reads=10)),
    ]
    rows = dispersed_table.repeated_rows(runs, models)
    assert [(r["rep"], r["requests"], r["wall_ms"]) for r in rows] == [
        ("1", 10, "5"),
        ("2", 20, "6"),
    ]


def test_a_repetition_without_models_is_named(tmp_path):
    runs = two_repetitions(tmp_path)
    models = [("1", "read", "1", "R-16", summary(tmp_path / "a.json", reads=1))]
    with pytest.raises(dispersed_table.DispersedError, match="no --model of repetition 2"):
        dispersed_table.repeated_rows(runs, models)


def test_a_model_of_an_unknown_repetition_is_named(tmp_path):
    runs = two_repetitions(tmp_path)
    models = [("3", "read", "1", "R-16", summary(tmp_path / "a.json"))]
    with pytest.raises(dispersed_table.DispersedError, match="repetition 3, which has no --run"):
        dispersed_table.repeated_rows(runs, models)


def test_the_command_line_rejects_a_repetition_that_is_not_a_number(tmp_path, capsys):
    runs = two_repetitions(tmp_path)
    model = summary(tmp_path / "a.json")
    argv = ["--run", "first", str(runs["1"]), "--model", "first", "read", "1", "R-16", model]
    assert dispersed_table.main([*argv, "--table", str(tmp_path / "t.csv")]) == 1
    assert "not 'first'" in capsys.readouterr().err
    assert not (tmp_path / "t.csv").exists()


def test_phase_folders_are_ordered_by_operation_and_region(tmp_path):
    for name in ("write-64", "read-16", "read-1"):
        (tmp_path / "blktrace" / name).mkdir(parents=True)
    # the job's phase order (jobs/lib.sh trace_start) is a file beside the folders
    (tmp_path / "blktrace" / "order").write_text("write-64\nread-16\nread-1\n")
    assert dispersed_table.phases(tmp_path) == [("read", 1), ("read", 16), ("write", 64)]


def test_a_stray_phase_folder_is_named(tmp_path):
    (tmp_path / "blktrace" / "scan-1").mkdir(parents=True)
    with pytest.raises(dispersed_table.DispersedError, match="scan-1"):
        dispersed_table.phases(tmp_path)


def test_fio_warnings_ahead_of_the_report_are_skipped(tmp_path):
    (tmp_path / "fio").mkdir()
    report = {"jobs": [{"job_runtime": 1234}]}
    text = "fio: cache invalidation failed\n" + json.dumps(report)
    (tmp_path / "fio" / "read-1.json").write_text(text)
    assert dispersed_table.fio_wall_ms(tmp_path, "read-1") == "1234"


def test_a_missing_fio_report_is_named(tmp_path):
    with pytest.raises(dispersed_table.DispersedError, match="write-1.json"):
        dispersed_table.fio_wall_ms(tmp_path, "write-1")
