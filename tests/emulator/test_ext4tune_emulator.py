"""Ext4 tuning end to end at the test scale (seed 004): two configurations — the default
and every parameter of Fig. 4 together — each a real ext4 in the guest, aged by the
create/delete trace, benchmarked with IOzone (Debian's iozone3, rule iozone_fetch: its
four tests one invocation each), FFSB's four tests in filebench (built from its pinned
source) and postmark, then tabulated and normalized to the default."""

import csv
import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REPO, FreshRun, emulator_platform_run
from mobifrag.workflow.study_config import load_config

pytestmark = pytest.mark.emulator

RUNS = str((emulator_platform_run("test") / "ext4tune/runs").relative_to(REPO))


def first_run(name):
    """The folder of a configuration's first repetition, the one these tests build."""
    return REPO / RUNS / name / "rep-1"


# each run's phase models (rule ftl_replay_run); the first repetition of each configuration
MODELS = "results/emulator-emmc/test/ext4tune/runs/{}/rep-1/model/phases.json"
CONFIG_FILE = load_config()
CONFIG = CONFIG_FILE["ext4tune"]
CONFIG_TEST = CONFIG_FILE["scales"]["test"]["ext4tune"]
CONFIGS = ("default", "tuned")
# Their phase models go too: Snakemake keeps an existing output whose input folder is
# gone, so the guests would not run again.
FRESH_RUN = FreshRun(
    targets=tuple(MODELS.format(name) for name in CONFIGS),
    paths=tuple(
        path
        for name in CONFIGS
        for path in (str(first_run(name).relative_to(REPO)), str(Path(MODELS.format(name)).parent))
    ),
)


@pytest.fixture(scope="module")
def tables(fresh_runs, tmp_path_factory):
    fresh_runs(FRESH_RUN)
    models = FRESH_RUN.targets
    out = tmp_path_factory.mktemp("ext4tune")
    command = [sys.executable, "-m", "mobifrag.tables.ext4tune"]
    command += ["--run", "default", "1", str(first_run("default"))]
    command += ["--run", "tuned", "1", str(first_run("tuned"))]
    command += [arg for model in models for arg in ("--model", model)]
    command += ["--table", str(out / "bench.csv"), "--configs", str(out / "configs.csv")]
    command += ["--auto-da-alloc", str(out / "auto-da-alloc.csv")]
    subprocess.run(command, cwd=REPO, check=True)
    return {
        "auto_da_alloc": list(csv.DictReader((out / "auto-da-alloc.csv").open())),
        "bench": list(csv.DictReader((out / "bench.csv").open())),
        "configs": {r["config"]: r for r in csv.DictReader((out / "configs.csv").open())},
    }


def test_configurations_are_what_the_paper_sets(tables):
    default, tuned = tables["configs"]["default"], tables["configs"]["tuned"]
    assert (default["inode_size"], default["flex_bg_size"]) == ("256", "16")
    # -G 32 over the disk's 32 block groups: one flex group spanning all of them
    assert (tuned["inode_size"], tuned["flex_bg_size"]) == ("128", "32")
    assert default["block_groups"] == tuned["block_groups"] == str(CONFIG["block_groups"])
    options = set(tuned["mount_options"].split(","))
    assert {"noatime", "noauto_da_alloc", "journal_async_commit", "data=writeback"} <= options
    assert "noatime" not in default["mount_options"].split(",")


def test_auto_da_alloc_is_counted_in_every_phase_and_never_with_noauto_da_alloc(tables):
    rows = tables["auto_da_alloc"]
    phases = {r["phase"] for r in rows}
    assert {"postmark", "iozone-seq-write", "filebench-small-write"} <= phases
    # the tuned configuration mounts with noauto_da_alloc: ext4 never forces the
    # delayed allocation there, whatever the benchmarks do
    assert {r["calls"] for r in rows if r["config"] == "tuned"} == {"0"}
    assert all(r["calls"].isdigit() for r in rows)


def test_kernel_refuses_async_commit_in_ordered_mode(tables):
    assert tables["configs"]["tuned"]["async_commit_alone"] == "journal_async_commit alone: refused"
    assert tables["configs"]["default"]["async_commit_alone"] == ""
    probe = (first_run("tuned") / "async-commit-probe.txt").read_text()
    assert "data=ordered" in probe


def test_aging_leaves_the_disk_about_half_full(tables):
    for name, facts in tables["configs"].items():
        assert 45 <= int(facts["used_percent"]) <= 65, name
        aging = json.loads((first_run(name) / "aging.json").read_text())
        assert aging["ops"]["unlink"] > 0, name
        assert sum(aging["errors"].values()) == 0, name


def test_every_benchmark_has_a_positive_rate_normalized_to_default(tables):
    rows = tables["bench"]
    assert len(rows) == 20
    for row in rows:
        for series in ("modeled", "wall"):
            assert float(row[f"{series}_mib_s"]) > 0, row
            assert math.isfinite(float(row[f"{series}_normalized"])), row
    for series in ("modeled", "wall"):
        normalized = f"{series}_normalized"
        assert {r[normalized] for r in rows if r["config"] == "default"} == {"1"}
    assert {r["benchmark"] for r in rows} == {"IOzone", "FFSB", "Postmark"}
    assert {r["tool"] for r in rows if r["benchmark"] == "IOzone"} == {"iozone"}
    assert {r["tool"] for r in rows if r["benchmark"] == "FFSB"} == {"filebench"}


def test_every_benchmark_run_is_traced_and_modeled(tables):
    sections = {f"iozone-{t}" for t in ("seq-write", "seq-read", "rand-write", "rand-read")}
    sections |= {
        f"filebench-{m}" for m in ("large-write", "large-read", "small-write", "small-read")
    }
    for name in ("default", "tuned"):
        traced = {p.name for p in (first_run(name) / "blktrace").iterdir()}
        assert sections | {"postmark"} <= traced, name
    for row in tables["bench"]:
        # IOzone's data reaches the device within its phase (fsync, -e, then the sync
        # that closes the trace); Postmark deletes its files at its end, so much of its
        # data never leaves the page cache and its trace is mostly the journal's
        if row["benchmark"] == "Postmark":
            assert int(row["write_bytes"]) > 0, row
        else:
            assert int(row[f"{row['op']}_bytes"]) >= int(row["workload_bytes"]), row
        assert float(row["modeled_ms"]) > float(row["device_ms"]) > 0, row
    ffsb = {(r["config"], r["workload"]): r for r in tables["bench"] if r["benchmark"] == "FFSB"}
    assert {r["threads"] for r in ffsb.values()} == {str(CONFIG["ffsb_threads"])}


def test_noatime_leaves_the_small_file_reads_without_inode_writes(tables):
    # The mechanism the paper credits for better reads (§4.2): with atime, reading the
    # files just written updates their inodes, which the section's trace carries.
    small = {
        r["config"]: r
        for r in tables["bench"]
        if r["benchmark"] == "FFSB" and r["workload"] == "small-read"
    }
    assert int(small["tuned"]["write_bytes"]) < int(small["default"]["write_bytes"])


def test_ffsb_read_and_write_are_separate_filebench_phases(tables):
    # each of FFSB's four tests ran in filebench as a traced phase of its own: the writes'
    # traces carry the files' data written, the reads' the data read, each in its row
    ffsb = [r for r in tables["bench"] if r["benchmark"] == "FFSB"]
    assert len(ffsb) == 8
    size = {"large": CONFIG_TEST["ffsb_large_mib"] * 1024 * 1024, "small": 40 * 1024}
    files = {"large": 1, "small": CONFIG_TEST["ffsb_small_files"]}
    for row in ffsb:
        kind, op = row["workload"].split("-")
        assert row["op"] == op, row
        expected = CONFIG["ffsb_threads"] * files[kind] * size[kind]
        assert int(row["workload_bytes"]) == expected, row
        assert int(row[f"{op}_bytes"]) >= expected, row
        if op == "read":
            # a read phase reads what the write before it wrote, and writes little
            assert int(row["write_bytes"]) < int(row["read_bytes"]), row
    for name in ("default", "tuned"):
        for mix in ("large-write", "large-read", "small-write", "small-read"):
            report = (first_run(name) / "filebench" / f"{mix}.txt").read_text()
            assert "IO Summary:" in report, (name, mix)


def test_iozone_tests_are_separate_invocations_and_phases(tables):
    # each of IOzone's four tests ran as one IOzone process of its own after the cache
    # was dropped: the writes' traces carry the file written, the reads' the file read
    iozone = [r for r in tables["bench"] if r["benchmark"] == "IOzone"]
    assert len(iozone) == 8
    size = CONFIG_TEST["iozone_mib"] * 1024 * 1024
    labels = {"seq-write": "initial writers", "seq-read": "readers"}
    for row in iozone:
        assert row["threads"] == "1", row
        assert int(row["workload_bytes"]) == size, row
        assert row["op"] == row["workload"].split("-")[1], row
        assert int(row[f"{row['op']}_bytes"]) >= size, row
        if row["op"] == "read":
            # a read test reads the file from the device, and writes little
            assert int(row["write_bytes"]) < int(row["read_bytes"]), row
    for name in ("default", "tuned"):
        for test in ("seq-write", "seq-read", "rand-write", "rand-read"):
            report = (first_run(name) / "iozone" / f"{test}.txt").read_text()
            assert "Throughput test with 1 process" in report, (name, test)
            assert labels.get(test, "mixed workload") in report, (name, test)
