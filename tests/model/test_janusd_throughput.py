"""janusd Fig. 7 in the FTL model (mobifrag.model.janusd_throughput): the traces that place a
file on some planes and read it extent by extent, and one real ftl-sim run."""

import csv

import pytest

from conftest import REPO, snakemake
from mobifrag.model import janusd_throughput as tp


def rows(lines):
    return [line.split(",") for line in lines]


def test_extents_are_equal_with_holes_between():
    assert [tp.file_page_address(p, 8, 4) for p in range(8)] == [0, 1, 4, 5, 8, 9, 12, 13]
    assert [tp.file_page_address(p, 4, 1) for p in range(4)] == [0, 1, 2, 3]


def test_placement_interleaves_other_pages_so_the_file_takes_every_kth_plane():
    writes = rows(tp.placement(pages=4, dof_l=1, planes_used=2, planes=8))
    # Each file page is followed by 8 / 2 - 1 = 3 pages of the other file.
    sectors = [int(w[2]) // tp.SECTORS for w in writes]
    filler = tp.FILLER_FIRST_PAGE
    assert sectors[::4] == [0, 1, 2, 3]
    assert sectors[1:4] == [filler, filler + 1, filler + 2]
    assert len(writes) == 16
    with pytest.raises(tp.ThroughputError):
        tp.placement(pages=4, dof_l=1, planes_used=3, planes=8)


def test_reads_split_at_extents_and_at_512_kib():
    reads = rows(tp.reads(pages=256, dof_l=2))  # two 512 KiB extents
    assert [(int(r[2]) // tp.SECTORS, int(r[3]) // tp.SECTORS) for r in reads] == [
        (0, 128),
        (256, 128),
    ]
    reads = rows(tp.reads(pages=256, dof_l=1))
    assert [int(r[3]) // tp.SECTORS for r in reads] == [128, 128]


@pytest.mark.workflow
def test_model_run_measures_dof_p_and_slower_reads_when_fragmented():
    out = "results/emulator-emmc/test/janusd/throughput.csv"
    snakemake(out, "--config", "scale=test")
    with open(REPO / out) as handle:
        table = {(r["dof_l"], r["planes_used"]): r for r in csv.DictReader(handle)}
    assert float(table[("1", "8")]["dof_p"]) == 0
    assert float(table[("1", "2")]["dof_p"]) == 0.75
    assert table[("8", "8")]["read_requests"] == "8"
    best = float(table[("1", "8")]["throughput_mb_s"])
    assert float(table[("8", "8")]["throughput_mb_s"]) < best
    assert float(table[("1", "2")]["throughput_mb_s"]) < best
