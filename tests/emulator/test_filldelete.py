"""TMC §4.3 fill/delete aging end to end at the test scale: one filled ext4 disk, copied
and reclaimed to High, then an app's scenario; Low on a fresh disk."""

import csv
import json
from statistics import mean

import pytest

from conftest import REPO, FreshRun, emulator_platform_run

pytestmark = pytest.mark.emulator

RUN = REPO / "results/emulator-emmc/test"
RUNS = RUN / "filldelete/ext4"
PLATFORM_RUNS = emulator_platform_run("test") / "filldelete/ext4"
FRESH_RUN = FreshRun(
    targets=(str((RUNS / "dof.csv").relative_to(REPO)),), experiments=("filldelete",)
)


@pytest.fixture(scope="module")
def dof(fresh_runs):
    fresh_runs(FRESH_RUN)
    with open(RUNS / "dof.csv") as handle:
        return list(csv.DictReader(handle))


def own_files(rows, level, app, sqlite):
    return [
        float(r["dof"])
        for r in rows
        if (r["level"], r["app"]) == (level, app)
        and r["path"].split("/")[1].startswith(r["package"])
        and (r["class"] == "sqlite") == sqlite
        and r["dof"] != "NA"
    ]


def test_the_filled_disk_is_reclaimed_to_the_level(dof):
    filled = json.loads((PLATFORM_RUNS / "filled/replay.json").read_text())
    assert filled["errno"].get("ENOSPC", 0) > 0  # the fill ran the disk full
    assert filled["ops"]["syncfs"] > 0
    reclaim = json.loads((PLATFORM_RUNS / "rep-1/high-facebook/replay/00-aging.json").read_text())
    assert reclaim["reclaimed_files"] > 0
    assert not (
        PLATFORM_RUNS / "rep-1/high-facebook/disk.img"
    ).exists()  # only the filled disk is kept
    low = json.loads((PLATFORM_RUNS / "rep-1/low-facebook/replay/00-aging.json").read_text())
    assert sum(low["ops"].values()) == 0


def test_high_holds_only_holes_of_the_scaled_size(dof):
    # The aging files are scaled by 1/128 here (one block each): no free run of the
    # scaled 512 KiB limit (two blocks) may form, and the fill leaves no free block.
    with open(RUNS / "free-space.csv") as handle:
        rows = list(csv.DictReader(handle))
    for app in ("facebook", "earth"):
        high = [r for r in rows if r["state"] == f"high-{app}-rep-1"]
        assert {r["largest_free_kib"] for r in high} == {"4.0"}, app
        assert 80 <= float(high[0]["utilization_percent"]) <= 95, app
    filled = json.loads((PLATFORM_RUNS / "filled/replay.json").read_text())
    assert filled["ops"]["fill"] == 1 and filled["errors"]["fill"] == 0
    thinned = json.loads((PLATFORM_RUNS / "rep-1/high-facebook/replay/00-aging.json").read_text())
    assert thinned["spared_files"] > 0  # neighbours of deleted files stay


def test_non_sqlite_files_fragment_when_the_disk_is_nearly_full(dof):
    for app in ("facebook", "earth"):
        low = mean(own_files(dof, "low", app, sqlite=False))
        high = mean(own_files(dof, "high", app, sqlite=False))
        assert low < 1.1, app
        assert high > 1.5 * low, app
