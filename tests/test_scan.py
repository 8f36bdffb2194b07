"""TMC §5.1/§5.3.1 at the test scale: a file in 4 KiB holes vs the same file pristine."""

import csv

import pytest

from conftest import REPO, clear_results, emulator_platform_run, snakemake

pytestmark = pytest.mark.emulator

SCAN = REPO / "results/emulator-emmc/test/scan"


@pytest.fixture(scope="module")
def scan(emulator_kernel):
    clear_results("test", "scan")
    snakemake(str((SCAN / "ext4/fit.csv").relative_to(REPO)), "--config", "scale=test")
    with open(SCAN / "ext4/scan.csv") as handle:
        rows = {row["trace"]: row for row in csv.DictReader(handle)}
    with open(SCAN / "ext4/fit.csv") as handle:
        fits = {row["time"]: row for row in csv.DictReader(handle)}
    return rows, fits


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


def test_blktrace_files_are_kept_with_the_results(scan):
    for name in ("pristine", "holes-000004k"):
        assert list(
            (emulator_platform_run("test") / "scan/ext4/run/blktrace" / name).glob(
                "trace.blktrace.*"
            )
        )
