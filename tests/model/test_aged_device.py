"""mobifrag.model.aged_device: phase pairs on a fresh-filled and on an aged device (the
real ftl-sim on a small profile)."""

import csv

import pytest

from block_traces import write_blktrace
from conftest import FTL_SIM
from mobifrag.model.aged_device import main

needs_ftl_sim = pytest.mark.skipif(not FTL_SIM.is_file(), reason="ftl-sim is not built")

PROFILE = """name: small
storage:
  class: emmc
  host_overhead_us: 34
  ftl:
    geometry: {channels: 4, ways_per_channel: 1, blocks_per_plane: 64, pages_per_block: 64}
    over_provisioning: 0.25
    timing: {page_read_us: 50, page_program_us: 500, block_erase_us: 3000,
             channel_mb_per_s: 200, host_mb_per_s: 400}
"""


def run_with_writes(folder, first_page):
    """A run whose one phase writes 512 pages in bursts of 64, 5 ms apart."""
    requests = [
        (burst * 5_000_000 + i * 10_000, "W", (first_page + burst * 64 + i) * 8, 8)
        for burst in range(8)
        for i in range(64)
    ]
    write_blktrace(folder / "blktrace" / "write", requests)
    return folder


def probe(tmp_path, *extra):
    device = tmp_path / "small.yaml"
    device.write_text(PROFILE)
    a = run_with_writes(tmp_path / "a", 0)
    b = run_with_writes(tmp_path / "b", 4096)
    out = tmp_path / f"probe{len(extra)}.csv"
    args = ["--ftl-sim", str(FTL_SIM), "--device", str(device), "--aged-fraction", "1"]
    args += [*extra, "--pair", "a-over-b", str(a), "write", str(b), "write", "--out", str(out)]
    assert main(args) == 0
    with open(out, newline="") as handle:
        return {row["device"]: row for row in csv.DictReader(handle)}


@needs_ftl_sim
def test_the_aged_device_runs_gc_in_the_phase_and_settling_leaves_it_less(tmp_path):
    rows = probe(tmp_path)
    assert rows["fresh"]["a_gc_copies"] == "0"
    assert int(rows["aged"]["a_gc_copies"]) > 0
    assert float(rows["aged"]["a_ms"]) > float(rows["fresh"]["a_ms"])
    settled = probe(tmp_path, "--settle")
    assert int(settled["aged"]["a_gc_copies"]) < int(rows["aged"]["a_gc_copies"])


@needs_ftl_sim
def test_a_phase_missing_from_the_run_is_named(tmp_path, capsys):
    run = run_with_writes(tmp_path / "a", 0)
    args = ["--ftl-sim", str(FTL_SIM), "--device", str(tmp_path / "x.yaml")]
    args += ["--pair", "x", str(run), "gone", str(run), "write", "--out", str(tmp_path / "o")]
    assert main(args) == 1
    assert "no phase 'gone'" in capsys.readouterr().err
