"""TMC Fig. 6 end to end at the test scale: real ext4 in the guest, real fragcheck."""

import csv
import shutil
from collections import defaultdict
from pathlib import Path

import pytest

from conftest import REPO, FreshRun, emulator_platform_run, planned_jobs, snakemake

pytestmark = pytest.mark.emulator

RUN = "results/emulator-emmc/test"
FIGURE = "paper-figures/emulator-emmc/test/tmc-fig06-layout"
PLATFORM_RUN = emulator_platform_run("test")
FRESH_RUN = FreshRun(
    targets=(f"{FIGURE}.pdf", f"{FIGURE}.png"),
    experiments=("",),
    paths=(str(Path(FIGURE).parent),),
)


@pytest.fixture(scope="module")
def fig06(fresh_runs):
    fresh_runs(FRESH_RUN)
    with open(REPO / RUN / "concurrent-appenders" / "dof.csv") as handle:
        dof = list(csv.DictReader(handle))
    with open(REPO / RUN / "concurrent-appenders" / "layout.csv") as handle:
        layout = list(csv.DictReader(handle))
    return first_run(dof), first_run(layout)


def first_run(rows):
    """The rows of repetition 1: each repetition is a fresh guest and disk."""
    assert {r["rep"] for r in rows} == {"1", "2"}  # the test scale's repetitions
    return [r for r in rows if r["rep"] == "1"]


def mean_dof(dof, writers):
    values = [float(r["dof"]) for r in dof if r["writers"] == str(writers) and r["fs"] == "ext4"]
    assert len(values) == writers
    return sum(values) / len(values)


# ext4 serves a file's first 64 KiB (mb_stream_req = 16 blocks) from the locality group
# preallocation of the CPU that allocates, and the rest from the inode's own
# preallocations, each one contiguous range sized to the file's next power of two
# (64-128 KiB, then 128-256 KiB at the test scale's 256 KiB). Each group preallocates 512
# blocks (mb_group_prealloc) at a time, away from the others.
STREAM_BYTES = 64 * 1024
GROUP_PREALLOC_BLOCKS = 512
TEST_FILE_BYTES = 256 * 1024


def fragments_past_stream(layout, writers):
    per_file = defaultdict(int)
    for r in layout:
        if (
            r["fs"] == "ext4"
            and r["writers"] == str(writers)
            and int(r["logical_bytes"]) >= STREAM_BYTES
        ):
            per_file[r["path"]] += 1
    return per_file


def inode_preallocations(file_bytes):
    """The inode preallocations a file of FILE_BYTES takes past the stream threshold:
    one per doubling of its size from 64 KiB."""
    return (file_bytes // STREAM_BYTES).bit_length() - 1


def test_single_writer_grows_from_its_own_preallocations_past_the_stream_threshold(fig06):
    # Each preallocation is one piece; the next usually adjoins the last, but not
    # always: a fresh clone's CI run (2026-12-02) found the 256 KiB file past 64 KiB in
    # 2 pieces, a run here in 1.
    _, layout = fig06
    pieces = fragments_past_stream(layout, 1)
    assert set(pieces) == {"writer0.db"}
    assert 1 <= pieces["writer0.db"] <= inode_preallocations(TEST_FILE_BYTES) == 2


def locality_groups(layout, writers):
    """Runs of the ext4 writers' first-64-KiB blocks, split where a gap of more than a
    quarter of a group's preallocation lies between two: one run per locality group
    drawn from (the 80 blocks of 5 writers from one group lie within 100 of each
    other)."""
    starts = sorted(
        int(r["start_block"])
        for r in layout
        if r["fs"] == "ext4"
        and r["writers"] == str(writers)
        and int(r["logical_bytes"]) < STREAM_BYTES
    )
    gaps = [b - a for a, b in zip(starts, starts[1:], strict=False)]
    return 1 + sum(gap > GROUP_PREALLOC_BLOCKS // 4 for gap in gaps)


def test_five_writers_fragment_each_other(fig06):
    dof, _ = fig06
    assert mean_dof(dof, 5) > mean_dof(dof, 1)


def test_five_writers_draw_from_several_cpus_locality_groups(fig06):
    # The guest has the phone's four vCPUs (config guest_cpus): the writers allocate
    # on several CPUs, so their first 64 KiB comes from several groups. On one vCPU all
    # five took their first 16 blocks one at a time from one group, every file 16
    # single blocks and then its chunks (TMC §4.2.2's 5 would be out of reach).
    _, layout = fig06
    assert locality_groups(layout, 5) >= 2


def test_five_writers_extents_interleave(fig06):
    _, layout = fig06
    fragments = sorted((int(r["start_block"]), r["path"]) for r in layout if r["writers"] == "5")
    owners = [path for _, path in fragments]
    # Interleaved: some file's fragments are separated by another file's fragment.
    spans = defaultdict(list)
    for position, path in enumerate(owners):
        spans[path].append(position)
    assert any(p[-1] - p[0] + 1 > len(p) for p in spans.values())


def test_files_reach_their_size(fig06):
    dof, _ = fig06
    assert {int(r["size_bytes"]) for r in dof} == {TEST_FILE_BYTES}


def test_figure_is_rendered(fig06):
    for ext in ("pdf", "png"):
        assert (REPO / f"{FIGURE}.{ext}").stat().st_size > 1000


def test_finished_work_is_not_redone(fig06):
    run = snakemake("-n", f"{FIGURE}.pdf", "--config", "scale=test")
    assert "Nothing to be done" in run.stdout + run.stderr


def test_interrupted_run_resumes_only_missing_work(fig06):
    # The state an interrupt leaves while writers-2 runs: it and everything downstream
    # of it missing, the other experiments and the kernel done.
    shutil.rmtree(PLATFORM_RUN / "concurrent-appenders" / "ext4" / "writers-2" / "rep-1")
    for table in ("dof.csv", "layout.csv"):
        (REPO / RUN / "concurrent-appenders" / table).unlink()
    for ext in ("pdf", "png"):
        (REPO / f"{FIGURE}.{ext}").unlink()
    run = snakemake("-n", f"{FIGURE}.pdf", "--config", "scale=test")
    jobs = planned_jobs(run.stdout + run.stderr)
    assert jobs == {"concurrent_appenders": 1, "concurrent_appenders_tables": 1, "figure": 1}
    snakemake(f"{FIGURE}.pdf", "--config", "scale=test")
    rerun = PLATFORM_RUN / "concurrent-appenders" / "ext4" / "writers-2" / "rep-1"
    assert (rerun / "snapshot").is_dir()
    assert (REPO / f"{FIGURE}.pdf").is_file()


def test_deleted_figure_reruns_only_its_script(fig06):
    (REPO / f"{FIGURE}.pdf").unlink()
    run = snakemake("-n", f"{FIGURE}.pdf", "--config", "scale=test")
    assert planned_jobs(run.stdout + run.stderr) == {"figure": 1}
    snakemake(f"{FIGURE}.pdf", "--config", "scale=test")
