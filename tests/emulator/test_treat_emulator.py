"""Treatments end to end at the test scale (TMC §6.1.1 Fig. 14a, §6.2.1 Fig. 17a): real
ext4 in the guest, the agent's fallocate preallocation, the real e4defrag under
blktrace, ftl-sim on its block trace. Only the Low-utilization runs, to stay short; the
High image is aged (every run waits for both levels' free-space check) but not used."""

import csv
import json
import statistics

import pytest

from conftest import REPO, FreshRun, emulator_platform_run
from mobifrag.measure.snapshot import read_snapshot
from mobifrag.tables.treat import treatment_rows

pytestmark = pytest.mark.emulator

TREAT = "results/emulator-emmc/test/treat"
RUNS = emulator_platform_run("test") / "treat"
PREALLOC = (RUNS / "prealloc/low/threads-5").relative_to(REPO)
RUN_DEFRAG = (RUNS / "e4defrag/low/threads-5").relative_to(REPO)
DEFRAG = f"{TREAT}/e4defrag/low/threads-5"
FILE_BYTES = 256 * 1024  # scales.test.treat.file_kib
FRESH_RUN = FreshRun(
    targets=(f"{PREALLOC}/unit-0", f"{PREALLOC}/unit-128", f"{DEFRAG}/ftl.json"),
    experiments=("treat",),
)


def dof_of(snapshot):
    rows = treatment_rows(read_snapshot(REPO / snapshot))
    assert len(rows) == 5, f"{snapshot}: expected the 5 appenders' files"
    return rows


def mean_dof(rows):
    return statistics.fmean(float(r["dof"]) for r in rows)


@pytest.fixture(scope="module")
def treated(fresh_runs):
    fresh_runs(FRESH_RUN)
    return {
        "none": dof_of(f"{PREALLOC}/unit-0/snapshot"),
        "prealloc": dof_of(f"{PREALLOC}/unit-128/snapshot"),
        "before": dof_of(f"{RUN_DEFRAG}/run/snapshot"),
        "after": dof_of(f"{RUN_DEFRAG}/run/after"),
        "ftl": json.loads((REPO / DEFRAG / "ftl.json").read_text()),
    }


def test_files_reach_their_size(treated):
    for run in ("none", "prealloc", "before", "after"):
        assert {r["size_bytes"] for r in treated[run]} == {FILE_BYTES}, run


def test_concurrent_appenders_fragment_without_preallocation(treated):
    assert mean_dof(treated["none"]) >= 2


def test_128k_preallocation_lowers_dof(treated):
    # Two 128 KiB reservations per 256 KiB file instead of 64 interleaved 4 KiB appends.
    assert mean_dof(treated["prealloc"]) < mean_dof(treated["none"]) / 2
    assert max(float(r["dof"]) for r in treated["prealloc"]) <= 2
    # Files of exactly two units leave nothing reserved and unused.
    assert {r["past_eof_bytes"] for r in treated["prealloc"]} == {0}


def test_e4defrag_defragments_at_low_utilization(treated):
    before, after = mean_dof(treated["before"]), mean_dof(treated["after"])
    assert before >= 2
    assert after < before
    assert after <= 1.2  # TMC §6.2.1: DoF 1 at Low


def test_high_leaves_holes_no_preallocation_unit_fits(treated):
    # TMC §6.1.1: at High a 512 KB unit finds no contiguous space; TMC §4.3 fn. 4: the
    # free space lies in pieces of 88 KB. Uniform 4-500 KB files deleted at random, on a
    # disk filled only until ENOSPC, left 512 KiB-8 MiB free runs.
    with open(RUNS / "aged/free-space.csv") as handle:
        rows = {r["state"]: r for r in csv.DictReader(handle)}
    high, low = rows["high"], rows["low"]
    assert float(high["largest_free_kib"]) < 512
    assert float(high["mean_free_kib"]) <= 176_000 / 1024  # twice TMC's 88 KB
    assert 80 <= float(high["utilization_percent"]) <= 95
    assert float(low["largest_free_kib"]) > 64 * 1024  # pristine
    aging = json.loads((RUNS / "aged/high/replay.json").read_text())
    assert aging["ops"]["thin"] == 1 and aging["errors"]["thin"] == 0
    assert aging["reclaimed_files"] > 0


def test_e4defrag_writes_reach_flash(treated):
    # Copy-based defragmentation rewrites the moved files' data: the block trace of the
    # defrag phase carries at least their bytes, and the FTL programs at least that.
    moved = sum(r["size_bytes"] for r in treated["before"] if float(r["dof"]) > 1)
    assert moved > 0
    ftl = treated["ftl"]
    assert ftl["requests"]["write"]["bytes"] >= 0.9 * moved
    assert ftl["flash"]["bytes_written"] >= ftl["requests"]["write"]["bytes"] * 0.99
    assert (REPO / RUN_DEFRAG / "blktrace").is_dir()
