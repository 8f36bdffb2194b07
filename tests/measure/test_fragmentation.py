import pytest

from mobifrag.measure.fragmentation import (
    MIB,
    Extent,
    degree_of_fragmentation,
    fragments,
    ideal_extents,
    level_counts,
    size_level,
)
from mobifrag.workloads.file_classes import file_class

KIB = 1024


def test_one_extent_is_unfragmented():
    assert degree_of_fragmentation([Extent(0, 40 * KIB, 64 * KIB)], "ext4") == 1.0


def test_physically_adjacent_extents_merge_into_one_fragment():
    # ext4 reports an unwritten→written boundary as two extents of one contiguous run.
    extents = [
        Extent(0, 1000 * KIB, 16 * KIB, frozenset({"unwritten"})),
        Extent(16 * KIB, 1016 * KIB, 16 * KIB),
    ]
    assert len(fragments(extents)) == 1
    assert degree_of_fragmentation(extents, "ext4") == 1.0


def test_interleaved_extents_count_each_piece():
    extents = [Extent(i * 4 * KIB, (100 + 2 * i) * 4 * KIB, 4 * KIB) for i in range(5)]
    assert degree_of_fragmentation(extents, "ext4") == 5.0


def test_fragments_follow_logical_order_not_table_order():
    extents = [Extent(4 * KIB, 8 * KIB, 4 * KIB), Extent(0, 4 * KIB, 4 * KIB)]
    assert fragments(extents) == [Extent(0, 4 * KIB, 8 * KIB)]


def test_large_file_ideal_extents_follow_ext4_128mib_limit():
    # TMC §3.1: a 1 GB file needs at least 8 extents; 16 separate 64 MiB pieces give DoF 2.
    assert ideal_extents(1024 * MIB, "ext4") == 8
    assert ideal_extents(1024 * MIB + 1, "ext4") == 9
    extents = [Extent(i * 64 * MIB, i * 70 * MIB, 64 * MIB) for i in range(16)]
    assert degree_of_fragmentation(extents, "ext4") == 2.0


def test_contiguous_run_longer_than_an_extent_is_not_below_one():
    # 700 MiB in 3 physically separate runs still needs 6 ext4 extents at least.
    extents = [
        Extent(0, 0, 300 * MIB),
        Extent(300 * MIB, 400 * MIB, 300 * MIB),
        Extent(600 * MIB, 800 * MIB, 100 * MIB),
    ]
    assert degree_of_fragmentation(extents, "ext4") == pytest.approx(7 / 6)
    assert degree_of_fragmentation([Extent(0, 0, 700 * MIB)], "ext4") == 1.0


def test_f2fs_has_no_extent_limit():
    assert ideal_extents(4096 * MIB, "f2fs") == 1


def test_unknown_file_system_is_named():
    with pytest.raises(ValueError, match="btrfs"):
        ideal_extents(4096, "btrfs")


def test_empty_file_has_no_dof():
    assert degree_of_fragmentation([], "ext4") is None


def test_inline_and_delalloc_extents_are_not_fragments():
    extents = [Extent(0, 0, 60, frozenset({"inline", "last"}))]
    assert degree_of_fragmentation(extents, "ext4") is None


def test_sparse_file_counts_physically_separate_pieces():
    # Data at 0 and at 1 MiB with a hole between: two pieces wherever they lie.
    extents = [Extent(0, 10 * MIB, 4 * KIB), Extent(1 * MIB, 20 * MIB, 4 * KIB)]
    assert len(fragments(extents)) == 2
    assert degree_of_fragmentation(extents, "ext4") == 2.0


@pytest.mark.parametrize(
    ("kib", "level"),
    [
        (4, "L1"),
        (16, "L1"),
        (17, "L2"),
        (32, "L2"),
        (64, "L3"),
        (65, "L4"),
        (256, "L5"),
        (512, "L6"),
        (513, "L7"),
        (100_000, "L7"),
    ],
)
def test_size_levels_follow_tmc_table_2(kib, level):
    assert size_level(kib * KIB) == level


def test_level_counts_use_merged_fragments():
    extents = [Extent(0, 0, 16 * KIB), Extent(16 * KIB, 16 * KIB, 16 * KIB)]
    counts = level_counts(extents)
    assert counts["L2"] == 1 and sum(counts.values()) == 1


def test_zero_length_fragment_is_rejected():
    with pytest.raises(ValueError):
        size_level(0)


@pytest.mark.parametrize(
    ("name", "cls"),
    [
        ("databases/fb.db", "sqlite"),
        ("databases/fb.db-journal", "sqlite"),
        ("x/y.db-wal", "sqlite"),
        ("x/y.db-shm", "sqlite"),
        ("app/base.apk", "executable"),
        ("oat/arm64/base.odex", "executable"),
        ("lib/libc++.so", "executable"),
        ("DCIM/IMG_0001.JPG", "multimedia"),
        ("Movies/v.mp4", "multimedia"),
        ("cache/blob.bin", "other"),
    ],
)
def test_file_classes(name, cls):
    assert file_class(name) == cls
