"""TMC §5.3.2–5.3.3 (Fig. 13) at the test scale: dispersed 4 KiB I/O within growing
regions of one file."""

import csv
import json

import pytest

from conftest import REPO, FreshRun, emulator_platform_run, planned_jobs, snakemake
from mobifrag.workflow.study_config import load_config

DISPERSED = REPO / "results/emulator-emmc/test/dispersed/ext4"
FRESH_RUN = FreshRun(
    targets=(str((DISPERSED / "dispersed.csv").relative_to(REPO)),), experiments=("dispersed",)
)


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
