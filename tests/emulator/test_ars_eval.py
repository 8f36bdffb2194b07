"""The ARS evaluation's fragmentation-benchmark job (jobs/ars-fragbench.sh, ARS §V.A,
Figs. 4–5) in the emulator at the test scale, under F2FS and ARS, each on a fresh F2FS."""

import csv
import re
from pathlib import Path

import pytest

from conftest import REPO, FreshRun, emulator_platform_run
from mobifrag.measure import f2fs_state
from mobifrag.tables.ars_eval import main as tables
from mobifrag.workflow.study_config import load_config

pytestmark = pytest.mark.emulator

RUN = str((emulator_platform_run("test") / "ars/eval/fragbench").relative_to(REPO))
# each run's phase models (rule ftl_replay_run); the first repetition of each scheme
MODELS = "results/emulator-emmc/test/ars/eval/fragbench/{scheme}/rep-1/model/phases.json"
CONFIG = load_config()
FILES = CONFIG["ars_eval"]["reserved_files"]
BOUNDS = [str(kib) for kib in CONFIG["ars_eval"]["free_space_kib"]]
SCHEMES = ("f2fs", "ars")
FRESH_RUN = FreshRun(
    targets=tuple(MODELS.format(scheme=scheme) for scheme in SCHEMES),
    # the model too: Snakemake does not remake a missing run under a present index
    paths=tuple(
        path
        for scheme in SCHEMES
        for path in (f"{RUN}/{scheme}/rep-1", MODELS.format(scheme=scheme))
    ),
)


@pytest.fixture(scope="module")
def runs(fresh_runs):
    fresh_runs(FRESH_RUN)
    return {scheme: REPO / RUN / scheme / "rep-1" for scheme in SCHEMES}


def table(tmp_path, kind, runs):
    out = tmp_path / f"{kind}.csv"
    args = [kind, "--out", str(out), "--bounds-kib", *BOUNDS]
    for scheme, folder in runs.items():
        args += ["--run", f"scheme={scheme}", str(folder)]
        args += ["--model", str(REPO / MODELS.format(scheme=scheme))]
    assert tables(args) == 0
    with open(out, newline="") as handle:
        return list(csv.DictReader(handle))


def test_fsck_finds_every_file_system_clean(runs):
    for folder in runs.values():
        assert (folder / "fsck.txt").read_text().split("\n")[0] == "fragbench clean"


def utilization_with_held(state: Path) -> float:
    """F2FS's utilization in percent counting ARS's held blocks as used (the patch's own
    reading, ars_utilization), from an f2fs_state dump."""
    valid = re.search(
        r"^Utilization: (\d+)% \((\d+) valid blocks", (state / "status.txt").read_text(), re.M
    )
    held = re.search(r"^ars_held_blocks (\d+)$", (state / "ars.txt").read_text(), re.M)
    percent, blocks = int(valid[1]), int(valid[2])
    return percent * (blocks + int(held[1])) / blocks


def test_the_benchmark_ages_to_high(tmp_path, runs):
    fill = CONFIG["ars_eval"]["fill_percent"]
    for row in table(tmp_path, "fragbench", runs):
        assert row["rounds"] == "6"  # 128 KiB down to 4 KiB
        # the 4 KiB round deletes every other file it wrote too: the end is below the
        # fill, by half of what that round added
        assert 85 <= float(row["used_percent"]) < fill
    gc = {(r["scheme"], r["counter"]): r for r in table(tmp_path, "gc", runs)}
    for scheme in SCHEMES:
        # F2FS's own utilization (valid blocks, with the blocks ARS holds for reserved
        # files but has not written: the file system stays mounted, so they are still
        # held when the benchmark ends) is in High (80–95 %) too.
        assert 80 <= utilization_with_held(runs[scheme] / "state" / "aged") <= 95
        assert int(gc[(scheme, "write_ios")]["delta"]) > 0
    # Every remount keeps the scheme: F2FS with in-place updates off updates nothing in
    # place, ARS (mount option `ars`) updates the reserved files in place.
    assert gc[("f2fs", "ipu_blocks")]["delta"] == "0"
    assert int(gc[("ars", "ipu_blocks")]["delta"]) > 0


def test_androids_gc_pass_ends_and_f2fs_collects_under_every_scheme(tmp_path, runs):
    # The pass (config ars_eval.high_gc_urgent_sleep_ms) once stalled the ARS kernel for
    # good (kernel-patches/README.md): here it ends and its urgent GC cleans dirty
    # segments, in its own span of the GC table (pass_delta), before the window.
    assert CONFIG["ars_eval"]["high_gc_urgent_sleep_ms"] > 0
    gc = {(r["scheme"], r["counter"]): r for r in table(tmp_path, "gc", runs)}
    for scheme, folder in runs.items():
        polls = [line.split("\t") for line in (folder / "gc-pass.tsv").read_text().splitlines()]
        assert int(polls[-1][1]) < int(polls[0][1]), scheme
        assert int(gc[(scheme, "gc_calls")]["pass_delta"]) > 0, scheme


def test_the_gc_window_is_the_high_measurements_with_f2fs_own_gc_io(tmp_path, runs):
    gc = {(r["scheme"], r["counter"]): r for r in table(tmp_path, "gc", runs)}
    for scheme, folder in runs.items():
        for counter in ("gc_calls", "gc_moved_blocks", "gc_write_blocks", "gc_read_blocks"):
            row = gc[(scheme, counter)]
            aged, collected, measured = (int(row[k]) for k in ("aged", "collected", "measured"))
            assert int(row["delta"]) == measured - collected >= 0, (scheme, counter)
            assert int(row["pass_delta"]) == collected - aged >= 0, (scheme, counter)
        # F2FS's iostat counted over the window (turned on at every mount): the fio
        # writes reached it as the application's buffered writes
        app_writes = [
            f2fs_state.iostat_bytes((folder / "state" / phase / "iostat.txt").read_text())[
                ("WRITE", "app buffered data")
            ]
            for phase in ("collected", "measured")
        ]
        assert app_writes[1] > app_writes[0], scheme


def test_ars_keeps_reserved_files_whole_at_high(tmp_path, runs):
    rows = {(r["scheme"], r["state"]): r for r in table(tmp_path, "extents", runs)}
    for scheme in SCHEMES:
        assert rows[(scheme, "high")]["files"] == str(FILES)
    # A file under 2 MiB lies in its reserved section, each block at its offset there,
    # whatever order its writers wrote it in; F2FS interleaves the writers. Reclaim above
    # 80 % gives back the blocks of the sections the files never wrote, not their data,
    # which stays in one extent at High.
    with open(runs["ars"] / "snapshot" / "high" / "files.tsv", newline="") as handle:
        files = list(csv.DictReader(handle, delimiter="\t"))
    assert {f["path"]: f["n_extents"] for f in files} == {f["path"]: "1" for f in files}
    assert int(rows[("f2fs", "high")]["extents"]) >= 20 * int(rows[("ars", "high")]["extents"])


def test_free_space_map_covers_the_free_blocks(tmp_path, runs):
    rows = table(tmp_path, "freespace", runs)
    for scheme in SCHEMES:
        measured = [r for r in rows if r["scheme"] == scheme and r["phase"] == "measured"]
        assert [r["level"] for r in measured] == [f"L{i}" for i in range(1, 8)]
        assert sum(int(r["fragments"]) for r in measured) > 0
        assert sum(float(r["share"]) for r in measured) == pytest.approx(1)


def test_throughput_of_every_workload_and_state(tmp_path, runs):
    rows = table(tmp_path, "throughput", runs)
    assert len(rows) == len(SCHEMES) * 2 * 4
    assert all(float(r["wall_mib_s"]) > 0 for r in rows)
    for row in rows:
        # every fio run was traced, and its trace holds the bytes fio moved
        op = "write_bytes" if row["workload"].endswith("write") else "read_bytes"
        assert int(row[op]) >= int(row["workload_bytes"]) > 0, row
        assert float(row["modeled_ms"]) > float(row["device_ms"]) > 0, row
        assert float(row["modeled_mib_s"]) > 0, row
    by = {(r["scheme"], r["state"], r["workload"]): r for r in rows}
    for state in ("low", "high"):
        # fsync'd writes: a flush per write request reaches the device
        assert int(by[("f2fs", state, "rand-write")]["flushes"]) > 0
        # the reserved files ARS keeps whole read in fewer, larger requests
        f2fs, ars = by[("f2fs", state, "seq-read")], by[("ars", state, "seq-read")]
        assert int(ars["requests"]) < int(f2fs["requests"])
        assert float(ars["modeled_mib_s"]) > float(f2fs["modeled_mib_s"])


def test_creation_of_the_reserved_files_is_traced(tmp_path, runs):
    rows = {r["scheme"]: r for r in table(tmp_path, "create", runs)}
    for scheme in SCHEMES:
        row = rows[scheme]
        assert (row["workload"], row["files"]) == ("synthetic", str(FILES))
        assert int(row["write_bytes"]) > 0 and float(row["modeled_mean_us"]) > 0
