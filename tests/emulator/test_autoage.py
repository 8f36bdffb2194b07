"""TMC §4.1 AutoAge end to end at the test scale: real traces replayed on real ext4."""

import csv
import json
from collections import defaultdict

import pytest

from conftest import REPO, FreshRun, emulator_platform_run

pytestmark = pytest.mark.emulator

RUN = REPO / "results/emulator-emmc/test"
TABLES = RUN / "autoage/ext4"
FRESH_RUN = FreshRun(
    targets=(str((TABLES / "dof.csv").relative_to(REPO)),), experiments=("autoage",)
)


@pytest.fixture(scope="module")
def autoage(fresh_runs):
    fresh_runs(FRESH_RUN)
    with open(TABLES / "dof.csv") as handle:
        dof = list(csv.DictReader(handle))
    with open(TABLES / "levels.csv") as handle:
        levels = list(csv.DictReader(handle))
    return dof, levels


def mean_dof(dof, day, classes):
    values = [
        float(r["dof"])
        for r in dof
        if r["day"] == str(day) and r["class"] in classes and r["dof"] != "NA"
    ]
    assert values, f"no files of {classes} on day {day}"
    return sum(values) / len(values)


def last_day(rows):
    return max(int(r["day"]) for r in rows)


def test_sqlite_files_fragment_at_low_utilization(autoage):
    dof, _ = autoage
    assert mean_dof(dof, 1, {"sqlite"}) > 1


def test_non_sqlite_files_fragment_only_when_full(autoage):
    dof, _ = autoage
    others = {"executable", "multimedia", "other"}
    early, late = mean_dof(dof, 1, others), mean_dof(dof, last_day(dof), others)
    assert early < 1.1
    assert late > early


def test_level_one_fragments_are_most_numerous(autoage):
    _, levels = autoage
    final = last_day(levels)
    totals = defaultdict(int)
    for row in levels:
        if int(row["day"]) == final:
            totals[row["level"]] += int(row["fragments"])
    assert max(totals, key=totals.get) == "L1"


def test_disk_was_driven_full_and_images_reclaimed(autoage):
    replay = emulator_platform_run("test") / "autoage/ext4/rep-1/run/replay"
    summaries = [json.loads(p.read_text()) for p in sorted(replay.glob("day-*.json"))]
    assert sum(s["reclaimed_files"] for s in summaries) > 0
    snapshots = emulator_platform_run("test") / "autoage/ext4/rep-1/run/snapshots"
    fs = (snapshots / f"day-{last_day(autoage[0]):02d}/fs.tsv").read_text()
    _, block, total, free, _ = fs.splitlines()[1].split("\t")
    assert int(free) / int(total) < 0.15
