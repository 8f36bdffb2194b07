"""janusd end to end at the test scale (TMC §6.2.2, Fig. 17): the real e4defrag on
concurrent appenders' files in the guest, its plan turned into REMAP commands, both
replayed through ftl-sim after the appends' own block trace. Low utilization only.
And janusd's recurring defragmentation (janusd §2.3-2.5, Figs. 3-4): AutoAge's days on
images fill/delete aged to 70 and 90 % with e4defrag daily and weekly, the DoF of each
app's files and its launch around each run."""

import csv
import json
from collections import defaultdict

import pytest

from conftest import REPO, FreshRun, emulator_platform_run
from mobifrag.measure.snapshot import read_snapshot
from mobifrag.tables.fragments import dof_rows

pytestmark = pytest.mark.emulator

RUN = "results/emulator-emmc/test/treat/e4defrag/low/threads-5"
E4DEFRAG_RUN = emulator_platform_run("test") / "treat/e4defrag/low/threads-5"
PAGE = 4096
NAMES = ("append", "e4defrag", "janusdl", "janusd")
RECURRING = "results/emulator-emmc/test/janusd/recurring"
RECURRING_RUN = emulator_platform_run("test") / "janusd/recurring"
FRESH_RUN = FreshRun(
    targets=(
        *(f"{RUN}/ftl-{name}.json" for name in NAMES),
        f"{RECURRING}/dof.csv",
        f"{RECURRING}/launch.csv",
    ),
    experiments=("treat/e4defrag/low/threads-5", "janusd/recurring"),
)


def dop(name):
    with open(REPO / RUN / f"ftl-{name}.dop.csv") as handle:
        return {r["file"]: r for r in csv.DictReader(handle)}


def summary(name):
    return json.loads((REPO / RUN / f"ftl-{name}.json").read_text())


@pytest.fixture(scope="module")
def janusd_run(fresh_runs):
    fresh_runs(FRESH_RUN)
    return {name: summary(name) for name in NAMES}


def test_janusdl_reaches_e4defrags_dof(janusd_run):
    before = dof_rows(read_snapshot(E4DEFRAG_RUN / "run/snapshot"))
    e4defrag = dof_rows(read_snapshot(E4DEFRAG_RUN / "run/after"))
    janusdl = dof_rows(read_snapshot(REPO / RUN / "janusdl/after"))
    assert len(e4defrag) == 5
    assert max(float(r["dof"]) for r in before) > 1
    assert [(r["path"], r["dof"]) for r in janusdl] == [(r["path"], r["dof"]) for r in e4defrag]


def test_janusdl_moves_the_data_without_writing_it(janusd_run):
    e4defrag, janusdl = janusd_run["e4defrag"], janusd_run["janusdl"]
    with open(REPO / RUN / "janusdl/plan.csv") as handle:
        moved = sum(int(r["length_bytes"]) for r in csv.DictReader(handle))
    assert moved > 0
    assert janusdl["flash"]["remapped_pages"] == moved // PAGE
    # e4defrag's trace carries the moved data; janusdL's only the file system's writes.
    assert e4defrag["requests"]["write"]["bytes"] >= moved
    assert janusdl["requests"]["write"]["bytes"] == e4defrag["requests"]["write"]["bytes"] - moved
    # Remaps cost translation-page writes, counted because the cache is drained.
    assert janusdl["replay"]["drained_map_cache"]
    assert janusdl["translation"]["page_writes"] > 0
    ratio = janusdl["flash"]["bytes_written"] / e4defrag["flash"]["bytes_written"]
    assert ratio < 0.2, f"janusdL wrote {ratio:.1%} of e4defrag's flash bytes"


def test_the_appends_trace_holds_every_page_they_wrote(janusd_run):
    # A trace that started late (blktrace's files appear before its trace runs) would
    # leave the first pages of a file unwritten in the FTL.
    for path, row in dop("append").items():
        assert int(row["pages"]) > 0 and row["mapped_pages"] == row["pages"], path


def test_remapped_files_keep_their_flash_pages(janusd_run):
    # After janusdL every page sits at the file's new address, on the plane it was
    # written to: DoF_P is what the appends left. e4defrag's copy stripes them anew.
    appended, janusdl, e4defrag = dop("append"), dop("janusdl"), dop("e4defrag")
    assert set(janusdl) == set(appended) and len(janusdl) == 5
    for path, row in janusdl.items():
        assert row["mapped_pages"] == row["pages"] == appended[path]["pages"]
        assert row["dof_p"] == appended[path]["dof_p"]
        assert float(e4defrag[path]["dof_p"]) <= float(row["dof_p"])


def test_janusdp_copies_only_files_above_the_threshold(janusd_run):
    with open(REPO / RUN / "janusdp/selected.csv") as handle:
        selected = {r["path"] for r in csv.DictReader(handle)}
    appended, after = dop("append"), dop("janusd")
    assert selected == {p for p, r in appended.items() if float(r["dof_p"]) > 0.5}
    for path in selected:
        assert float(after[path]["dof_p"]) < 0.5
    copied = sum(int(appended[p]["pages"]) for p in selected) * PAGE
    extra = janusd_run["janusd"]["requests"]["write"]["bytes"]
    assert extra - janusd_run["janusdl"]["requests"]["write"]["bytes"] == copied


def recurring_table(name):
    with open(REPO / RECURRING / name) as handle:
        return list(csv.DictReader(handle))


@pytest.fixture(scope="module")
def recurring(janusd_run):
    # janusd_run made the module's FRESH_RUN, the recurring runs with it
    return recurring_table("dof.csv")


def test_recurring_dof_has_a_row_per_snapshot_and_app_the_launches_read(recurring):
    key = ("utilization_percent", "interval_days", "day", "package", "phase")
    launches = {tuple(r[k] for k in key): r for r in recurring_table("launch.csv")}
    assert {tuple(r[k] for k in key) for r in recurring} == set(launches)
    for row in recurring:
        # one launch read per contiguous piece, more for a piece over the copy chunk
        assert int(launches[tuple(row[k] for k in key)]["read_requests"]) >= int(row["fragments"])
    # the weekly runs on the images aged to 70 and 90 %, the daily one at 90 %
    for utilization, interval in (("70", "7"), ("90", "1"), ("90", "7")):
        run = RECURRING_RUN / f"util-{utilization}/every-{interval}d/run"
        days = {int(p.name.removeprefix("day-")) for p in (run / "defrag").glob("day-*")}
        found = {
            int(r["day"])
            for r in recurring
            if (r["utilization_percent"], r["interval_days"]) == (utilization, interval)
        }
        assert days and found == days, (utilization, interval)


def test_recurring_runs_start_from_aged_images_that_hold_only_holes(recurring):
    with open(REPO / RECURRING / "free-space.csv") as handle:
        states = {r["state"]: r for r in csv.DictReader(handle)}
    assert set(states) == {"util-70", "util-90"}
    for name, state in states.items():
        target = float(name.removeprefix("util-"))
        assert abs(float(state["utilization_percent"]) - target) <= 2, state
        assert float(state["largest_free_kib"]) < 512, state  # no run of 512 KiB


def test_the_aging_placed_the_deleted_files_extent_tree_blocks(recurring):
    # Blocks FIEMAP does not list, read from the guest's disk: without them a deleted
    # file's leaf block could join a free run past the limit unseen (a 512 KiB run in
    # a .ci/run of 7311bb2). At 70 % the thinning deletes fragmented files too.
    replay = json.loads((RECURRING_RUN / "aged/util-70/replay.json").read_text())
    assert replay["spared_files"] > 0
    assert replay["tree_blocks_freed"] > 0


def test_recurring_dof_falls_with_each_defrag_and_rises_between(recurring):
    for row in recurring:
        assert int(row["fragments"]) >= int(row["files"]) >= 1
        assert float(row["dof"]) >= 1
    mean = defaultdict(list)
    for row in recurring:
        run = (row["utilization_percent"], row["interval_days"])
        mean[(run, row["day"], row["phase"])].append(float(row["dof"]))
    for (run, day, phase), dofs in mean.items():
        if phase == "before_defrag":
            after = mean[(run, day, "after_defrag")]
            assert sum(after) / len(after) <= sum(dofs) / len(dofs), (run, day)
    # the apps' files fragment under AutoAge's installs, updates and use
    assert max(float(r["dof"]) for r in recurring if r["phase"] == "before_defrag") > 1
