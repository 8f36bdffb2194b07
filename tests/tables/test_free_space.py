"""The aged states' free-space check (mobifrag/tables/free_space.py) on real e2freefrag
reports: small ext4 images made with mke2fs, their block bitmaps set with debugfs so the
free space is exactly the holes a test wants (no kernel, no guest)."""

from __future__ import annotations

import csv
import shutil
import subprocess

import pytest

from mobifrag.measure.free_space import (
    ABSENT,
    FreeSpaceError,
    read_df_utilization,
    read_e2freefrag,
)
from mobifrag.platform import adb_wrapper
from mobifrag.tables import free_space
from mobifrag.workflow import free_space_targets

TOOLS = ("mke2fs", "debugfs", "e2freefrag")
pytestmark = pytest.mark.skipif(
    not all(shutil.which(t) for t in TOOLS), reason="e2fsprogs is not installed"
)

BLOCKS = 8192  # a 32 MiB image of 4 KiB blocks
KIB = 1024


def aged_image(tmp_path, free_runs: list[tuple[int, int]]):
    """An ext4 image whose only free blocks are free_runs (start block, blocks), and
    e2freefrag's report of it."""
    image = tmp_path / "disk.img"
    with open(image, "wb") as handle:
        handle.truncate(BLOCKS * 4096)
    subprocess.run(
        ["mke2fs", "-q", "-F", "-t", "ext4", "-b", "4096", "-m", "0", str(image)],
        check=True,
        capture_output=True,
    )
    commands = [f"setb 1 {BLOCKS - 1}"] + [f"freeb {start} {n}" for start, n in free_runs]
    script = tmp_path / "debugfs.cmd"
    script.write_text("\n".join(commands) + "\n")
    subprocess.run(
        ["debugfs", "-w", "-f", str(script), str(image)], check=True, capture_output=True
    )
    report = tmp_path / "freespace.txt"
    report.write_text(
        subprocess.run(
            ["e2freefrag", str(image)], check=True, capture_output=True, text=True
        ).stdout
    )
    return report


def df_file(tmp_path, used_kib: int, available_kib: int):
    path = tmp_path / "df.txt"
    path.write_text(
        "Filesystem     1K-blocks  Used Available Use% Mounted on\n"
        f"/dev/vdb           {used_kib + available_kib} {used_kib} {available_kib} 90% /mnt\n"
    )
    return path


def severe_holes(count=40):
    """count holes of two blocks (8 KiB), one block apart."""
    return [(6000 + 3 * i, 2) for i in range(count)]


def run(tmp_path, *states):
    out = tmp_path / "free-space.csv"
    argv = [word for state in states for word in ("--state", *state)]
    return free_space.main([*argv, "--out", str(out)]), out


def test_report_gives_the_largest_extent_and_the_histogram(tmp_path):
    space = read_e2freefrag(aged_image(tmp_path, [*severe_holes(), (7000, 128), (7500, 1)]))
    assert space.block_size == 4096
    assert space.largest_bytes == 512 * KIB
    assert space.free_extents == 42
    assert space.free_bytes == (40 * 2 + 128 + 1) * 4096
    by_range = {(b.from_bytes, b.to_bytes): (b.extents, b.blocks) for b in space.buckets}
    assert by_range == {
        (4 * KIB, 8 * KIB): (1, 1),
        (8 * KIB, 16 * KIB): (40, 80),
        (512 * KIB, 1024 * KIB): (1, 128),
    }


def test_holes_only_meet_a_hole_sized_limit(tmp_path):
    report = aged_image(tmp_path, severe_holes())
    df = df_file(tmp_path, 90_000, 10_000)
    state = ["severe", f"free={report}", f"df={df}", "level=high", "largest_at_most=8192"]
    status, out = run(tmp_path, state)
    assert status == 0
    with open(out) as handle:
        (row,) = list(csv.DictReader(handle))
    assert row["state"] == "severe" and row["level"] == "high"
    assert float(row["utilization_percent"]) == 90.0
    assert (row["largest_free_kib"], row["largest_limit_kib"]) == ("8.0", "8.0")
    assert (row["from_kib"], row["to_kib"], row["extents"]) == ("8.0", "16.0", "40")


def test_contiguous_free_space_fails_naming_the_state_extent_and_limit(tmp_path, capsys):
    # the old filler's Severe: the holes, and megabytes it left free at its end
    report = aged_image(tmp_path, [*severe_holes(), (7000, 512)])
    df = df_file(tmp_path, 90_000, 10_000)
    state = ["severe", f"free={report}", f"df={df}", "level=high", "largest_at_most=8192"]
    status, out = run(tmp_path, state)
    assert status == 1
    assert not out.exists()
    err = capsys.readouterr().err
    assert "severe: largest free extent 2.0 MiB is above the limit of 8 KiB" in err
    assert str(report) in err


def test_below_a_unit_allows_whole_blocks_under_it(tmp_path, capsys):
    df = df_file(tmp_path, 90_000, 10_000)
    below = "largest_below=524288"
    fits = aged_image(tmp_path, [(7000, 127)])  # 508 KiB
    assert run(tmp_path, ["high", f"free={fits}", f"df={df}", below])[0] == 0
    whole = aged_image(tmp_path, [(7000, 128)])  # 512 KiB: a 512 KiB unit fits whole
    assert run(tmp_path, ["high", f"free={whole}", f"df={df}", below])[0] == 1
    assert "high: largest free extent 512 KiB is above the limit of 508 KiB" in (
        capsys.readouterr().err
    )


def test_mean_free_extent_is_checked(tmp_path, capsys):
    report = aged_image(tmp_path, [(7000, 50), (7100, 50)])  # 200 KiB on average
    df = df_file(tmp_path, 90_000, 10_000)
    state = ["high", f"free={report}", f"df={df}", "mean_at_most=176000"]
    assert run(tmp_path, state)[0] == 1
    assert "high: mean free extent 200 KiB is above the limit of 172 KiB" in (
        capsys.readouterr().err
    )


@pytest.mark.parametrize(
    ("level", "used", "ok"),
    [
        ("high", 80, True),
        ("high", 95, True),
        ("high", 96, False),
        ("high", 79, False),
        ("moderate", 79, True),
        ("moderate", 80, False),
        ("full", 96, True),
        ("full", 95, False),
        ("low", 1, True),
    ],
)
def test_utilization_lies_in_the_levels_band(tmp_path, capsys, level, used, ok):
    report = aged_image(tmp_path, severe_holes(4))
    df = df_file(tmp_path, used * 1000, (100 - used) * 1000)
    status, _ = run(tmp_path, [level, f"free={report}", f"df={df}", f"level={level}"])
    assert status == (0 if ok else 1)
    if not ok:
        assert f"{level}: utilization {used:.1f} % is outside" in capsys.readouterr().err


def test_a_state_without_free_space_has_one_row(tmp_path):
    report = aged_image(tmp_path, [])
    df = df_file(tmp_path, 100_000, 0)
    status, out = run(tmp_path, ["full", f"free={report}", f"df={df}", "largest_at_most=4096"])
    assert status == 0
    with open(out) as handle:
        (row,) = list(csv.DictReader(handle))
    assert (row["free_extents"], row["largest_free_kib"], row["from_kib"]) == ("0", "0.0", "")


def test_not_an_ext4_report_is_named(tmp_path):
    status = tmp_path / "freespace.txt"
    status.write_text("=====[ partition info(vdb). #0, RW, CP: Good]=====\n")
    with pytest.raises(FreeSpaceError, match=f"{status}: no 'HISTOGRAM"):
        read_e2freefrag(status)
    bad_df = tmp_path / "df.txt"
    bad_df.write_text("Filesystem 1K-blocks Used Available Use% Mounted on\n/dev/vdb 1 x y\n")
    with pytest.raises(FreeSpaceError, match=f"{bad_df}:2"):
        read_df_utilization(bad_df)
    with pytest.raises(FreeSpaceError, match="missing"):
        read_df_utilization(tmp_path / "none.txt")


def test_a_phone_without_e2freefrag_is_recorded_unmeasured(tmp_path, capsys):
    assert ABSENT in adb_wrapper.SHIMS  # the stand-in's words
    report = tmp_path / "freespace.txt"
    report.write_text(f"{ABSENT}, no free-space histogram of /dev/block/sdd\n")
    df = df_file(tmp_path, 90_000, 10_000)
    state = ["severe", f"free={report}", f"df={df}", "level=high", "largest_at_most=8192"]
    status, out = run(tmp_path, state)
    assert status == 0
    assert "severe: no e2freefrag on the device" in capsys.readouterr().err
    with open(out) as handle:
        (row,) = list(csv.DictReader(handle))
    assert (row["measured"], row["utilization_percent"], row["largest_free_kib"]) == (
        "no",
        "90.0",
        "",
    )
    # its utilization is still checked
    df = df_file(tmp_path, 99_000, 1_000)
    assert run(tmp_path, state)[0] == 1


@pytest.mark.parametrize(
    ("words", "message"),
    [
        (["x", "df=d"], "free=PATH is missing"),
        (["x", "free=f", "df=d", "level=half"], "level='half'"),
        (["x", "free=f", "df=d", "largest_at_most=8K"], "not a positive byte count"),
        (["x", "free=f", "df=d", "size=1"], "'size=1' is not key=value"),
        (["free=f"], "the first word must be the name"),
    ],
)
def test_bad_state_words_are_named(words, message):
    with pytest.raises(free_space.TargetError, match=message):
        free_space.parse_state(words)


FILLDELETE = {"levels": {"low": 0, "high": 90}, "hole_limit_kib": 512, "mean_hole_limit_kb": 176}


def test_targets_scale_with_the_aging_files_down_to_whole_blocks():
    assert free_space_targets.hole_limit(FILLDELETE, 1.0) == 512 * KIB
    assert free_space_targets.mean_hole_limit(FILLDELETE, 1.0) == 176_000
    assert free_space_targets.hole_limit(FILLDELETE, 1 / 32) == 16 * KIB
    assert free_space_targets.hole_limit(FILLDELETE, 1 / 128) == 8 * KIB  # two blocks
    assert free_space_targets.mean_hole_limit(FILLDELETE, 1 / 32) == 16 * KIB  # four blocks
    high = free_space_targets.level_state("high", "f", "d", "high", FILLDELETE, 1.0)
    assert high == "--state high free=f df=d level=high largest_below=524288 mean_at_most=176000"
    low = free_space_targets.level_state("low", "f", "d", "low", FILLDELETE, 1.0)
    assert low == "--state low free=f df=d level=low"
    assert free_space_targets.holes_state("no", "f", "d", "high", 0).endswith("level=high")
    severe = free_space_targets.holes_state("severe", "f", "d", "high", 8192)
    assert severe.endswith("largest_at_most=8192")
    # ext4's reserve: 2 % of the blocks, at most 4096 of them
    assert free_space_targets.ext4_reserved_bytes(64 << 20) == 327 * 4096
    assert free_space_targets.ext4_reserved_bytes(8 << 30) == 4096 * 4096


def recurring_state(report, df, utilization=70, level="moderate"):
    """The words janusd's recurring rule gives an aged state (rules/experiments/janusd.smk)."""
    words = free_space_targets.utilization_state(
        f"util-{utilization}", str(report), str(df), level, utilization, FILLDELETE
    )
    return words.split()[1:]  # without the leading --state


def test_janusds_aged_state_checks_its_utilization_and_its_holes():
    words = free_space_targets.utilization_state("util-90", "f", "d", "high", 90, FILLDELETE)
    assert words == (
        "--state util-90 free=f df=d level=high utilization_near=90"
        " largest_below=524288 mean_at_most=176000"
    )
    # TMC's 88 KB pieces are the Full state's: at Moderate only the holes' largest
    words = free_space_targets.utilization_state("util-70", "f", "d", "moderate", 70, FILLDELETE)
    assert words == "--state util-70 free=f df=d level=moderate utilization_near=70" + (
        " largest_below=524288"
    )


def test_janusds_aged_state_with_holes_at_its_utilization_passes(tmp_path):
    report = aged_image(tmp_path, [(6000 + 30 * i, 20) for i in range(20)])  # 80 KiB holes
    df = df_file(tmp_path, 69_000, 31_000)
    status, out = run(tmp_path, recurring_state(report, df))
    assert status == 0
    with open(out) as handle:
        (row,) = list(csv.DictReader(handle))
    assert (row["state"], row["utilization_target_percent"]) == ("util-70", "70")


def test_janusds_aged_state_with_contiguous_free_space_fails_naming_it(tmp_path, capsys):
    # what the recurring run started from before: the holes, then a sequential fill's
    # untouched megabytes
    report = aged_image(tmp_path, [*[(6000 + 30 * i, 20) for i in range(20)], (7000, 1024)])
    df = df_file(tmp_path, 70_000, 30_000)
    status, out = run(tmp_path, recurring_state(report, df))
    assert status == 1 and not out.exists()
    assert "util-70: largest free extent 4.0 MiB is above the limit of 508 KiB" in (
        capsys.readouterr().err
    )


@pytest.mark.parametrize(("used", "ok"), [(68, True), (72, True), (73, False), (67, False)])
def test_janusds_aged_state_must_lie_near_its_utilization(tmp_path, capsys, used, ok):
    # within TMC's Moderate band (below 80 %) but further from 70 % than the thinning's
    # last file can leave it: the aging ran out of files it could delete
    report = aged_image(tmp_path, severe_holes(4))
    df = df_file(tmp_path, used * 1000, (100 - used) * 1000)
    status, _ = run(tmp_path, recurring_state(report, df))
    assert status == (0 if ok else 1)
    if not ok:
        assert f"util-70: utilization {used:.1f} % is more than 2 points from its target 70 %" in (
            capsys.readouterr().err
        )


def test_a_utilization_target_that_is_no_percentage_is_named():
    with pytest.raises(free_space.TargetError, match="utilization_near='7x'"):
        free_space.parse_state(["x", "free=f", "df=d", "utilization_near=7x"])
    with pytest.raises(free_space.TargetError, match="not a percentage"):
        free_space.parse_state(["x", "free=f", "df=d", "utilization_near=100"])
