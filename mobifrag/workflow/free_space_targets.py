"""The free-space targets of the aged states (rules/experiments/{filldelete,treat,
user_latency,janusd}.smk): the limits the fill/delete aging thins to and the `--state` words
of `python -m mobifrag.tables.free_space` that check them.

`filldelete` is the config's `filldelete` section (config/experiments/filldelete.yaml):
`hole_limit_kib` (no free extent of an aged level may reach it: TMC §6.1.1's largest
preallocation unit) and `mean_hole_limit_kb` (TMC §4.3 fn. 4's 88 KB pieces, twice), both
for files of the paper's sizes; `size_scale` scales them with the aging files.
"""

from __future__ import annotations

BLOCK_BYTES = 4096  # config filesystems.ext4_mkfs: -b 4096
# The levels of janusd's aged states whose mean free extent is checked (utilization_state).
MEAN_CHECKED_LEVELS = ("high", "full")


def ext4_reserved_bytes(disk_bytes: int) -> int:
    """Space ext4 holds back from ordinary allocations on a disk of disk_bytes: 2 % of
    its blocks, at most 4096 (fs/ext4/super.c, ext4_set_resv_clusters). Where the holes
    are the only free space, a file written into them has this much less room."""
    return min(disk_bytes // BLOCK_BYTES // 50, 4096) * BLOCK_BYTES


def hole_limit(filldelete: dict, size_scale: float) -> int:
    """Bytes no free extent of an aged level may reach, at least two blocks (so holes of
    one block pass at any scale)."""
    scaled = round(filldelete["hole_limit_kib"] * 1024 * size_scale)
    return max(2 * BLOCK_BYTES, scaled)


def mean_hole_limit(filldelete: dict, size_scale: float) -> int:
    """Bytes the mean free extent of an aged level may reach, at least four blocks:
    scaled below that, whole blocks would make the paper's mean unreachable."""
    scaled = round(filldelete["mean_hole_limit_kb"] * 1000 * size_scale)
    return max(4 * BLOCK_BYTES, scaled)


def level_state(
    name: str, free: str, df: str, level: str, filldelete: dict, size_scale: float
) -> str:
    """One `--state` of a fill/delete level: its band, and above Low (pristine, target 0)
    the hole limits."""
    words = [f"--state {name} free={free} df={df} level={level}"]
    if filldelete["levels"][level]:
        words.append(f"largest_below={hole_limit(filldelete, size_scale)}")
        words.append(f"mean_at_most={mean_hole_limit(filldelete, size_scale)}")
    return " ".join(words)


def holes_state(name: str, free: str, df: str, level: str, hole_bytes: int) -> str:
    """One `--state` of a TMC §5.2 state aged to `level` with holes of hole_bytes: no
    free extent larger than a hole (none for No, hole_bytes 0)."""
    words = [f"--state {name} free={free} df={df} level={level}"]
    if hole_bytes:
        words.append(f"largest_at_most={hole_bytes}")
    return " ".join(words)


def utilization_state(
    name: str, free: str, df: str, level: str, utilization: int, filldelete: dict
) -> str:
    """One `--state` of an image fill/delete aged to `utilization` percent with TMC
    §4.3's file sizes (janusd's recurring run): its band, the utilization itself, no free
    extent of the hole limit (holes only) and, at High and Full, the mean hole limit.
    That one is TMC §4.3 fn. 4's Full state (pieces of 88 KB) and holds for the
    treatments' High; at Moderate the paper gives no hole size, and deleting 30 % of a
    full disk's bytes in small files at random joins neighbouring holes (a 70 % image
    held free extents of 188 KB on average, none of 512 KiB: 2026-12-03)."""
    words = [f"--state {name} free={free} df={df} level={level}"]
    words.append(f"utilization_near={utilization}")
    words.append(f"largest_below={hole_limit(filldelete, 1.0)}")
    if level in MEAN_CHECKED_LEVELS:
        words.append(f"mean_at_most={mean_hole_limit(filldelete, 1.0)}")
    return " ".join(words)
