"""Ext4 tuning configurations (seed 004, Fig. 4): the guest's mkfs options of one
configuration on a disk of a given size.

Every configuration cuts the disk into the same number of block groups as the paper's
4 GB partition (32, §4.2), so `-G 32` is one flex group spanning all of them and the
default flex size (16) is two, as in the paper, whatever the scale's disk size.
"""

from __future__ import annotations

BLOCK_BYTES = 4096
# FFSB's tests as filebench workloads (benchmarks/filebench/ffsb-<mix>.f), in the order
# the job runs them: each read reads the files the write before it wrote.
FILEBENCH_MIXES = ("large-write", "large-read", "small-write", "small-read")
# IOzone's four tests (jobs/ext4tune-bench.sh's IOZONE_TESTS), in the order the job runs
# them, each one IOzone process traced as phase iozone-<test>.
IOZONE_TESTS = ("seq-write", "seq-read", "rand-write", "rand-read")
MAX_BLOCKS_PER_GROUP = 8 * BLOCK_BYTES  # one block bitmap block covers a group
MIN_BLOCKS_PER_GROUP = 256  # mke2fs's lower bound


class TuningError(ValueError):
    """A configuration that cannot be built on the disk; the message says why."""


def blocks_per_group(disk_mib: int, groups: int) -> int:
    """Blocks per group that divide a disk of disk_mib into `groups` groups (mke2fs -g
    takes a multiple of 8 between 256 and 8 × the block size)."""
    blocks = disk_mib * 1024 * 1024 // BLOCK_BYTES
    per_group = blocks // groups // 8 * 8
    if not MIN_BLOCKS_PER_GROUP <= per_group <= MAX_BLOCKS_PER_GROUP:
        raise TuningError(
            f"a {disk_mib} MiB disk cannot have {groups} block groups of 4 KiB blocks: "
            f"{per_group} blocks per group is outside {MIN_BLOCKS_PER_GROUP}.."
            f"{MAX_BLOCKS_PER_GROUP} (choose disk_mib between "
            f"{groups * MIN_BLOCKS_PER_GROUP * BLOCK_BYTES >> 20} and "
            f"{groups * MAX_BLOCKS_PER_GROUP * BLOCK_BYTES >> 20})"
        )
    return per_group


def mkfs_options(base: str, disk_mib: int, groups: int, configuration: str) -> str:
    """The project's ext4 options, the group size, then the configuration's own."""
    if "-b" in configuration.split() or "-g" in configuration.split():
        raise TuningError(f"configuration mkfs options {configuration!r} may not set -b or -g")
    parts = [base, f"-g {blocks_per_group(disk_mib, groups)}", configuration]
    return " ".join(part for part in parts if part)
