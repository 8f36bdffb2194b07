"""mobifrag.report.guest_cpu: guest CPU-minutes and busy share per job script, from the
runs' platform-run.json."""

import json
from pathlib import Path

import pytest

from mobifrag.report import guest_cpu

PLATFORM = "platform/qemu-x86_64-0123456789/quick"


def record(root: Path, run: str, **fields) -> Path:
    path = root / PLATFORM / run / "platform-run.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"platform": "qemu", "accel": "tcg", **fields}))
    return path


@pytest.fixture
def results(tmp_path):
    ext4tune = "jobs/ext4tune-bench.sh"
    record(
        tmp_path,
        "ext4tune/runs/default/rep-1",
        script=ext4tune,
        emulator_wall_seconds=90,
        emulator_cpu_seconds=54,
    )
    record(
        tmp_path,
        "ext4tune/runs/tuned/rep-1",
        script=ext4tune,
        emulator_wall_seconds=30,
        emulator_cpu_seconds=18,
    )
    record(
        tmp_path,
        "scan/ext4/rep-1",
        script="jobs/scan.sh",
        emulator_wall_seconds=120,
        emulator_cpu_seconds=108,
    )
    # A run recorded before the CPU was: counted apart.
    record(tmp_path, "scan/ext4/rep-2", emulator_wall_seconds=118)
    return tmp_path


def test_each_script_sums_its_runs_and_the_busiest_comes_first(results):
    rows = guest_cpu.script_rows(guest_cpu.collect(results, "quick"))
    assert rows == [("jobs/scan.sh", 1, 2.0, 1.8), ("jobs/ext4tune-bench.sh", 2, 2.0, 1.2)]


def test_the_summary_gives_busy_shares_and_counts_old_runs_apart(results, capsys):
    assert guest_cpu.main(["quick", "--results", str(results)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[1] == "jobs/scan.sh\t1\t2.0\t1.8\t90"
    assert out[2] == "jobs/ext4tune-bench.sh\t2\t2.0\t1.2\t60"
    assert out[-1] == (
        "# 3 runs: 3.0 guest CPU-min in 4.0 job-min (75 % busy); "
        "1 runs without CPU seconds not counted"
    )


def test_another_scale_or_platform_has_no_runs(results, capsys):
    assert guest_cpu.main(["test", "--results", str(results)]) == 1
    assert "no run with its CPU seconds recorded" in capsys.readouterr().err
    assert guest_cpu.collect(results, "quick", platform="qemu-x86_64-other") == []


@pytest.mark.parametrize(
    "text, message",
    [
        ("{not json", "not a run record"),
        ("[1, 2]", "a JSON object"),
        ('{"emulator_wall_seconds": "90"}', "wall seconds is '90'"),
        ('{"emulator_wall_seconds": 9, "emulator_cpu_seconds": -1}', "emulator_cpu_seconds"),
        ('{"accel": "tcg"}', "no emulator_wall_seconds"),
    ],
)
def test_a_damaged_record_is_named_with_what_is_wrong(results, capsys, text, message):
    damaged = results / PLATFORM / "scan/ext4/rep-3/platform-run.json"
    damaged.parent.mkdir(parents=True)
    damaged.write_text(text)
    assert guest_cpu.main(["quick", "--results", str(results)]) == 1
    err = capsys.readouterr().err
    assert str(damaged) in err and message in err


def test_the_runner_records_the_script_as_the_workflow_names_it(tmp_path):
    from mobifrag import REPO
    from mobifrag.platform.run import repo_relative

    assert repo_relative(REPO / "jobs" / "scan.sh") == "jobs/scan.sh"
    assert repo_relative(tmp_path / "x.sh") == str(tmp_path / "x.sh")


def phase(what, seconds, cpu):
    return {"step": 1, "what": what, "seconds": seconds, "cpu_seconds": cpu}


def test_phases_are_summed_by_kind_across_runs(tmp_path, capsys):
    for rep, cpu in (("rep-1", 30), ("rep-2", 40)):
        record(
            tmp_path,
            f"scan/ext4/{rep}",
            script="jobs/scan.sh",
            emulator_wall_seconds=120,
            emulator_cpu_seconds=100,
            phases=[
                phase("boot", 6, 3),
                phase("replay holes-000004k", 60, cpu),
                phase("replay holes-001024k", 30, 24),
                phase("measured: cold read after holes-000004k", 24, 6),
            ],
        )
    assert guest_cpu.main(["quick", "--results", str(tmp_path), "--phases"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[1:4] == [
        "jobs/scan.sh\treplay\t4\t3.0\t2.0\t66",
        "jobs/scan.sh\tmeasured\t2\t0.8\t0.2\t25",
        "jobs/scan.sh\tboot\t2\t0.2\t0.1\t50",
    ]
    assert out[-1] == "# 2 of 2 runs with their phases timed"


@pytest.mark.parametrize(
    "phases, message",
    [
        ({"what": "boot"}, "phases is .* not a list"),
        ([{"what": "mkfs", "seconds": 2}], "phase 0 has no 'cpu_seconds'"),
        ([phase("mkfs", -1, 0)], r"phase 0 \(mkfs\): seconds are not numbers >= 0"),
    ],
)
def test_a_damaged_phase_list_names_the_file_and_the_phase(tmp_path, phases, message):
    path = record(tmp_path, "scan/ext4/rep-1", emulator_wall_seconds=1, phases=phases)
    with pytest.raises(guest_cpu.RecordError, match=message) as caught:
        guest_cpu.collect(tmp_path, "quick")
    assert str(path) in str(caught.value)
