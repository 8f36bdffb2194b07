"""TMC §5.1/§5.3.1 at the test scale: a file in 4 KiB holes vs the same file pristine."""

import csv

import pytest

from conftest import REPO, FreshRun, emulator_platform_run

pytestmark = pytest.mark.emulator

SCAN = REPO / "results/emulator-emmc/test/scan"
FRESH_RUN = FreshRun(
    targets=(str((SCAN / "ext4/fit.csv").relative_to(REPO)),), experiments=("scan",)
)


def by_repetition(table, key):
    rows = {}
    with open(table) as handle:
        for row in csv.DictReader(handle):
            rows.setdefault(row["rep"], {})[row[key]] = row
    return rows


@pytest.fixture(scope="module")
def repetitions(fresh_runs):
    """(scan rows, fits) per repetition of the test scale's scan."""
    fresh_runs(FRESH_RUN)
    rows = by_repetition(SCAN / "ext4/scan.csv", "trace")
    fits = by_repetition(SCAN / "ext4/fit.csv", "time")
    return {rep: (rows[rep], fits[rep]) for rep in rows}


@pytest.fixture(scope="module")
def scan(repetitions):
    return repetitions["1"]


def test_every_repetition_scans_every_file_with_its_own_fit(repetitions):
    assert sorted(repetitions) == ["1", "2"]  # scales.test.repetitions
    for rows, fits in repetitions.values():
        assert set(rows) == {"holes-000004k", "holes-000064k", "holes-001024k", "pristine"}
        assert set(fits) == {"modeled_ms", "wall_ms"}


def test_holes_set_the_fragment_size(scan):
    rows, _ = scan
    dof = {name: float(row["dof"]) for name, row in rows.items()}
    assert dof["pristine"] == 1
    assert dof["holes-000004k"] > dof["holes-000064k"] > dof["holes-001024k"]
    assert dof["holes-000004k"] > 0.5 * 8 * 1024 / 4  # most of an 8 MiB file in 4 KiB pieces


def test_fragmented_file_needs_twenty_times_the_requests(scan):
    rows, _ = scan
    assert int(rows["holes-000004k"]["requests"]) >= 20 * int(rows["pristine"]["requests"])


def test_modeled_time_is_linear_in_dof(scan):
    rows, fits = scan
    assert float(fits["modeled_ms"]["r2"]) >= 0.9
    assert float(fits["modeled_ms"]["slope_ms_per_dof"]) > 0
    assert float(rows["holes-000004k"]["modeled_ms"]) > float(rows["pristine"]["modeled_ms"])


def test_readahead_keeps_the_fragmented_reads_in_flight_on_the_model(scan):
    # Readahead issues a window's 4 KiB reads before any completes; replayed with that
    # overlap they spread over the planes, so the file in 4 KiB pieces costs the flash
    # about what the pristine file does (one at a time it cost 3.9 times as much), and
    # one more request costs about TMC §5.3.1's 34 µs, the host overhead it was fitted
    # to (-0.04 and 0.69 µs of flash per extra request in two runs).
    rows, _ = scan
    fragmented, pristine = rows["holes-000004k"], rows["pristine"]
    assert float(fragmented["device_ms"]) < 1.25 * float(pristine["device_ms"])
    extra = int(fragmented["requests"]) - int(pristine["requests"])
    modeled = float(fragmented["modeled_ms"]) - float(pristine["modeled_ms"])
    assert modeled * 1000 / extra == pytest.approx(1.6e6 / 46_748, rel=0.2)


def test_blktrace_files_are_kept_with_the_results(scan):
    for name in ("pristine", "holes-000004k"):
        folder = emulator_platform_run("test") / "scan/ext4/rep-2/blktrace" / name
        assert list(folder.glob("trace.blktrace.*"))
        # blktrace's summary: the events it recorded and those it dropped
        assert "dropped" in (folder / "blktrace.log").read_text()
