"""The ARS kernel patch in the emulator: jobs/ars-checks.sh at the test scale on real
F2FS file systems (ARS §IV.B–C; kernel-patches/README.md describes the patch)."""

import csv

import pytest

from conftest import REPO, FreshRun, emulator_platform_run
from mobifrag.workflow.study_config import load_config

pytestmark = pytest.mark.emulator

RUN = str((emulator_platform_run("test") / "ars/checks").relative_to(REPO))
CONFIG = load_config()
FILE_MIB = CONFIG["scales"]["test"]["ars"]["file_mib"]
SECTION_BLOCKS = 512  # one 2 MiB section of 4 KiB blocks (mkfs.f2fs defaults)
SECTION_BYTES = SECTION_BLOCKS * 4096
SECTORS_PER_BLOCK = 8
# What a reservation or a cut may write beyond the same write or cut of an unmarked file:
# a summary block of the reserved section and what else the checkpoint after it writes.
# Zeroing the section (the patch before 2026-12-02) wrote its 2 MiB.
NOZERO_SLACK_BYTES = 128 * 1024
FRESH_RUN = FreshRun(targets=(RUN,), paths=(RUN,))


@pytest.fixture(scope="module")
def checks(fresh_runs):
    fresh_runs(FRESH_RUN)
    return REPO / RUN


def tsv(path):
    with open(path, newline="") as handle:
        return list(csv.DictReader(handle, delimiter="\t"))


def extents_of(snapshot, name):
    (row,) = [r for r in tsv(snapshot / "files.tsv") if r["path"].endswith(name)]
    return int(row["n_extents"])


def policy(checks):
    return {(r["step"], r["name"]): int(r["value"]) for r in tsv(checks / "policy.tsv")}


def test_concurrent_fsync_writers_leave_few_extents_with_ars(checks):
    ars = extents_of(checks / "layout" / "ars" / "reserved", "file.db")
    plain = extents_of(checks / "layout" / "plain" / "reserved", "file.db")
    assert 1 <= ars <= 5
    # At most one extent per reserved section; without ARS the writers interleave.
    assert ars <= -(-FILE_MIB // 2)
    assert plain >= 20 * ars


def block_map(snapshot):
    """Logical 4 KiB block → physical block of every extent of the snapshot's file."""
    blocks = {}
    for r in tsv(snapshot / "extents.tsv"):
        logical, physical = int(r["logical_bytes"]) // 4096, int(r["physical_bytes"]) // 4096
        for i in range(int(r["length_bytes"]) // 4096):
            blocks[logical + i] = physical + i
    return blocks


def test_unreserved_file_layout_does_not_depend_on_the_patch(checks):
    plain = block_map(checks / "layout" / "plain" / "unreserved")
    ars = block_map(checks / "layout" / "ars" / "unreserved")
    assert len(plain) == 256 and ars.keys() == plain.keys()
    # The same random 4 KiB fsync writes, with and without `ars`, put the blocks at the
    # same addresses. Unpatched F2FS itself is not bit-for-bit repeatable between runs
    # (a background flush may place a block elsewhere: seen for 1 block of 256), so a
    # handful of blocks may differ; a policy reaching unreserved files moves them all.
    same = sum(ars[block] == physical for block, physical in plain.items())
    assert same >= 0.98 * len(plain)


def test_a_reserved_file_holds_a_section_and_grows_by_another(checks):
    values = policy(checks)
    assert values[("start", "utilization")] < 70
    assert values[("reserve", "reservations")] == 1
    # The section is held, not given to the file: its other 511 blocks are charged as
    # used space, and the file owns only the block it wrote.
    assert values[("reserve", "held_blocks")] == SECTION_BLOCKS - 1
    assert values[("reserve", "a_sectors")] == SECTORS_PER_BLOCK
    # 70–80 % band: the reserved file gets its second section, a new file none.
    assert values[("band", "reservations")] == 2
    assert values[("band", "refused")] == 1
    assert values[("band", "held_sections")] == 2
    assert values[("band", "a_sectors")] == 2 * SECTORS_PER_BLOCK
    assert values[("band", "b_sectors")] == SECTORS_PER_BLOCK


def test_above_80_percent_nothing_is_reserved_and_unused_space_returns(checks):
    values = policy(checks)
    assert values[("full", "utilization")] > 80
    assert values[("full", "held_blocks")] == 2 * (SECTION_BLOCKS - 1)
    assert values[("high", "reservations")] == 2
    assert values[("high", "refused")] == 2
    assert values[("high", "c_sectors")] == SECTORS_PER_BLOCK
    # a.db wrote blocks 0 and 512: the 2 x 511 blocks of its sections it never wrote
    # return to free space, its data stays.
    assert values[("high", "reclaimed_blocks")] == 2 * (SECTION_BLOCKS - 1)
    assert values[("high", "held_sections")] == 0
    assert values[("high", "held_blocks")] == 0
    assert values[("high", "a_sectors")] == values[("full", "a_sectors")]


def test_reserving_and_cutting_write_no_zeros(checks):
    values = policy(checks)
    assert values[("nozero", "reservations")] == 1
    assert values[("nozero", "held_sections")] == 1
    assert values[("nozero", "held_blocks")] == SECTION_BLOCKS - 1
    assert values[("nozero", "file_sectors")] == SECTORS_PER_BLOCK
    # The disk writes for the first 4 KiB of a reserved file what it writes for an
    # unmarked one, and for a cut of 1 MiB what it writes for the unmarked file's cut.
    reserve = values[("nozero", "reserve_write_bytes")] - values[("nozero", "plain_write_bytes")]
    assert reserve < NOZERO_SLACK_BYTES
    cut = values[("cut", "reserve_bytes")] - values[("cut", "plain_bytes")]
    assert cut < NOZERO_SLACK_BYTES


def test_reserved_blocks_never_written_read_zeros_over_old_data(checks):
    values = policy(checks)
    # The disk under the reserved section still holds the deleted file's 0xA5: nothing
    # zeroed it, so the zeros the file reads come from F2FS's map, not from the disk.
    assert values[("nozero", "old_on_disk")] > 0
    # Extended over its section with a write of 100 bytes inside a page never written:
    # 4 KiB and 100 bytes of 0x5A, zeros elsewhere, no byte of the old file, from the page
    # cache and from the disk; the partial page went to its own block of the section.
    for step in ("nozero_cached", "nozero_cold"):
        assert values[(step, "size")] == SECTION_BYTES
        assert values[(step, "new_bytes")] == 4096 + 100
        assert values[(step, "old_bytes")] == 0
        assert values[(step, "zeros")] == SECTION_BYTES - 4096 - 100
    assert values[("nozero_cold", "partial_at")] == 1048586


def test_a_cut_reserved_file_keeps_its_section_without_old_data(checks):
    values = policy(checks)
    # Cut to nothing, the file owns no block but keeps its section: written again, its
    # first block lands at the section's start, with no new reservation.
    assert values[("cut", "file_sectors")] == 0
    assert values[("cut", "held_sections")] == 1
    assert values[("regrown_cut", "first_at")] == 0
    assert values[("regrown_cut", "reservations")] == 1
    # Extended again over the section: neither the cut 0xC3 nor the old file's 0xA5,
    # before and after a remount (which forgets the hold).
    for step in ("regrown_cut", "remounted"):
        assert values[(step, "size")] == SECTION_BYTES
        assert values[(step, "new_bytes")] == 4096
        assert values[(step, "cut_bytes")] == 0
        assert values[(step, "old_bytes")] == 0
        assert values[(step, "zeros")] == SECTION_BYTES - 4096


def test_fsck_is_clean_after_every_part(checks):
    lines = (checks / "fsck.txt").read_text().split("\n")
    assert [line for line in lines if line] == [
        "layout-plain clean",
        "layout-ars clean",
        "nozero clean",
        "truncate clean",
        "policy clean",
    ]


def test_a_cut_reserved_file_keeps_its_section_and_shows_no_old_data(checks):
    values = policy(checks)
    assert values[("truncate", "reservations")] == 1
    # The cut frees the blocks past the new size, as unmarked files' cuts do; the file
    # keeps holding its section.
    assert values[("truncate", "cut_sectors")] == SECTORS_PER_BLOCK
    assert values[("truncate", "held_sections")] == 1
    # After the cut to 1000 bytes, the write at 40 KiB and the extension to 60 KiB, only
    # the new bytes are there: the old 0xA5 bytes read back nowhere past the cut.
    assert values[("truncate", "size")] == 61440
    assert values[("truncate", "old_bytes")] == 0
    assert values[("truncate", "new_bytes")] == 4096
    # A marked inline file is cut like any other: no section, no kept blocks. Its one
    # extent is FIEMAP's inline data, so this is the inline path and not a small file.
    (extent,) = tsv(checks / "truncate-inline" / "extents.tsv")
    assert "inline" in extent["flags"].split(",")
    assert values[("inline", "size")] == 10
    assert values[("inline", "new_bytes")] == 10


def test_a_journal_cut_and_rewritten_reuses_its_section(checks):
    values = policy(checks)
    # 20 commits of a TRUNCATE-mode journal after a remount (which forgets holds and
    # restarts the counters): the first reserves a section, every later one writes the
    # journal's 4 blocks again where the first put them.
    assert values[("regrow", "reservations")] == 1
    assert values[("regrow", "first_block")] == values[("regrow", "last_block")]
    assert values[("regrow", "sectors")] == 4 * SECTORS_PER_BLOCK


def test_regrown_ranges_of_a_cut_reserved_file_read_as_zeros(checks):
    values = policy(checks)
    # The regrown file reserved one section (one more than the journal's).
    assert values[("regrown", "reservations")] == values[("regrow", "reservations")] + 1
    # 64 KiB regrown from 1000 bytes by ftruncate, a 100-byte write at 30000 and ftruncate:
    # the 1000 bytes kept hold the newest data, the 100 written bytes are there, and every
    # other byte reads as zero: neither the 0xA5 on disk nor the 0xC3 dropped from the
    # page cache by the cut, whether read at once or from the disk with cold caches.
    for step in ("regrown", "regrown_cold"):
        assert values[(step, "size")] == 65536
        assert values[(step, "kept_bytes")] == 1000
        assert values[(step, "new_bytes")] == 100
        assert values[(step, "zeros")] == 65536 - 1000 - 100
