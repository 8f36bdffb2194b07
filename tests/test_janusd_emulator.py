"""janusd end to end at the test scale (TMC §6.2.2, Fig. 17): the real e4defrag on
concurrent appenders' files in the guest, its plan turned into REMAP commands, both
replayed through ftl-sim after the appends' own block trace. Low utilization only."""

import csv
import json

import pytest

from conftest import REPO, FreshRun, emulator_platform_run
from mobifrag.measure.snapshot import read_snapshot
from mobifrag.tables.fragments import dof_rows

pytestmark = pytest.mark.emulator

RUN = "results/emulator-emmc/test/treat/e4defrag/low/threads-5"
E4DEFRAG_RUN = emulator_platform_run("test") / "treat/e4defrag/low/threads-5"
PAGE = 4096
NAMES = ("append", "e4defrag", "janusdl", "janusd")
FRESH_RUN = FreshRun(
    targets=tuple(f"{RUN}/ftl-{name}.json" for name in NAMES),
    experiments=("treat/e4defrag/low/threads-5",),
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
