"""TMC §5.3.2–5.3.3 (Fig. 13): dispersed 4 KiB I/O within growing regions of one file."""

import csv
import json

import pytest

from conftest import (
    REPO,
    FreshRun,
    empty_trace_summary,
    emulator_platform_run,
    needs_ftl_sim,
    planned_jobs,
    snakemake,
)
from mobifrag.tables import dispersed as dispersed_table
from mobifrag.workflow.study_config import load_config

DISPERSED = REPO / "results/emulator-emmc/test/dispersed/ext4"
FRESH_RUN = FreshRun(
    targets=(str((DISPERSED / "dispersed.csv").relative_to(REPO)),), experiments=("dispersed",)
)


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


@pytest.fixture(scope="module")
def repetitions(fresh_runs):
    """Rows per repetition of the test scale's dispersed table."""
    fresh_runs(FRESH_RUN)
    by_rep = {}
    with open(DISPERSED / "dispersed.csv") as handle:
        for r in csv.DictReader(handle):
            by_rep.setdefault(r["rep"], {})[(r["op"], int(r["region_mib"]), r["model"])] = r
    return by_rep


@pytest.fixture(scope="module")
def dispersed(repetitions):
    return repetitions["1"]


def device_ms(rows, op, region, model):
    return float(rows[(op, region, model)]["device_ms"])


@pytest.mark.emulator
def test_every_direct_read_reaches_the_device(dispersed):
    ios = 1000  # scales.test.dispersed.ios
    reads = [row for (op, _, _), row in dispersed.items() if op == "read"]
    assert reads and all(int(row["requests"]) >= ios for row in reads)


@pytest.mark.emulator
def test_a_small_map_cache_slows_reads_spread_wide(dispersed):
    regions = sorted({region for _, region, _ in dispersed})
    narrow, wide = regions[0], regions[-1]
    gap_16 = device_ms(dispersed, "read", wide, "R-16") - device_ms(
        dispersed, "read", narrow, "R-16"
    )
    gap_128 = device_ms(dispersed, "read", wide, "R-128") - device_ms(
        dispersed, "read", narrow, "R-128"
    )
    assert gap_16 > 0.2 * device_ms(dispersed, "read", narrow, "R-16")
    assert gap_128 < 0.5 * gap_16


@pytest.mark.emulator
def test_garbage_collection_dominates_aged_writes(dispersed):
    for region in {region for op, region, _ in dispersed if op == "write"}:
        assert device_ms(dispersed, "write", region, "W-GC") > 2 * device_ms(
            dispersed, "write", region, "W-128"
        )


@pytest.mark.emulator
def test_each_phase_keeps_its_block_trace(dispersed):
    for op, region, _ in dispersed:
        assert list(
            (
                emulator_platform_run("test") / "dispersed/ext4/rep-1/blktrace" / f"{op}-{region}"
            ).glob("trace.blktrace.*")
        )


def fio_seed(run, phase):
    text = (run / "fio" / f"{phase}.json").read_text()
    return json.loads(text[text.find("{") :])["jobs"][0]["job options"]["randseed"]


@pytest.mark.emulator
def test_repetitions_draw_their_own_offsets(repetitions):
    # scales.test.repetitions: 2; the first repetition keeps the study's seed, the second
    # draws its random offsets from another.
    assert sorted(repetitions) == ["1", "2"]
    assert repetitions["1"].keys() == repetitions["2"].keys()
    seed = load_config()["seed"]
    runs = {rep: emulator_platform_run("test") / f"dispersed/ext4/rep-{rep}" for rep in "12"}
    assert fio_seed(runs["1"], "write-1") == str(seed)
    assert fio_seed(runs["2"], "write-1") == str(seed + 1)


@pytest.mark.emulator
def test_a_changed_seed_reruns_the_guest_jobs(repetitions):
    # The seed reaches the guest only through the job's arguments, which read the input
    # (guest_job_args): their values must still be compared with the last run's.
    target = str((DISPERSED / "dispersed.csv").relative_to(REPO))
    seed = load_config()["seed"]
    same = snakemake("-n", target, "--config", "scale=test")
    assert "dispersed_run" not in planned_jobs(same.stdout + same.stderr)
    changed = snakemake("-n", target, "--config", "scale=test", f"seed={seed + 100}")
    assert planned_jobs(changed.stdout + changed.stderr)["dispersed_run"] == 2
    assert "Params have changed" in changed.stdout + changed.stderr
