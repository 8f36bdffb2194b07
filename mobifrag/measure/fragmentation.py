"""Fragmentation metrics of TMC §3.1: degree of fragmentation and fragment-size levels.

A *fragment* is a run of physically contiguous bytes of a file. FIEMAP may report one
fragment as several extents (ext4 splits at 128 MiB, at unwritten/written boundaries and
after a hole), so extents whose physical ranges touch are merged before counting, as
e4defrag's fragment count does.

DoF = extents / ideal extents (TMC §3.1). The ideal is the smallest number of extents
the file system needs for the file's allocated bytes (ext4: one per 128 MiB); the
extents counted are those the file's fragments need, so a physically contiguous run
longer than the extent limit counts as several, and DoF is never below 1.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

KIB = 1024
MIB = 1024 * KIB

# Largest extent a file system can map with one extent; None = no limit below the
# device size. ext4: 32,768 blocks of 4 KiB (TMC §3.1, "a single extent can cover up to
# 128 MB"). F2FS maps blocks one by one and FIEMAP merges contiguous ones.
MAX_EXTENT_BYTES: dict[str, int | None] = {"ext4": 128 * MIB, "f2fs": None}

# Upper bounds (KiB, inclusive) of fragment-size levels L1..L6 of TMC Table 2; L7 is above.
LEVEL_UPPER_KIB = (16, 32, 64, 128, 256, 512)
LEVELS = tuple(f"L{i}" for i in range(1, len(LEVEL_UPPER_KIB) + 2))

# Extents without a stable on-disk location are not fragments of the file's data.
UNPLACED_FLAGS = frozenset({"inline", "delalloc", "unknown"})


@dataclass(frozen=True)
class Extent:
    logical: int
    physical: int
    length: int
    flags: frozenset[str] = frozenset()


def placed(extents: list[Extent]) -> list[Extent]:
    return [e for e in extents if e.length > 0 and not (e.flags & UNPLACED_FLAGS)]


def fragments(extents: list[Extent]) -> list[Extent]:
    """Merge extents into physically contiguous fragments, in logical order."""
    merged: list[Extent] = []
    for extent in sorted(placed(extents), key=lambda e: e.logical):
        if merged and merged[-1].physical + merged[-1].length == extent.physical:
            last = merged[-1]
            merged[-1] = Extent(last.logical, last.physical, last.length + extent.length)
        else:
            merged.append(Extent(extent.logical, extent.physical, extent.length))
    return merged


def ideal_extents(allocated_bytes: int, fs_type: str) -> int:
    if fs_type not in MAX_EXTENT_BYTES:
        known = ", ".join(sorted(MAX_EXTENT_BYTES))
        raise ValueError(f"no extent-size rule for file system {fs_type!r} (known: {known})")
    if allocated_bytes <= 0:
        return 0
    limit = MAX_EXTENT_BYTES[fs_type]
    return 1 if limit is None else math.ceil(allocated_bytes / limit)


def extents_needed(pieces: list[Extent], fs_type: str) -> int:
    return sum(ideal_extents(piece.length, fs_type) for piece in pieces)


def degree_of_fragmentation(extents: list[Extent], fs_type: str) -> float | None:
    """DoF of one file; None for a file with no placed data (nothing to fragment)."""
    pieces = fragments(extents)
    ideal = ideal_extents(sum(p.length for p in pieces), fs_type)
    return extents_needed(pieces, fs_type) / ideal if ideal else None


def size_level(length_bytes: int, upper_kib: tuple[int, ...] = LEVEL_UPPER_KIB) -> str:
    """Fragment-size level: L1 up to upper_kib[0], Ln up to upper_kib[n-1], and one
    level above the last bound; by default the L1..L7 of TMC Table 2."""
    if length_bytes <= 0:
        raise ValueError(f"a fragment has a positive length, got {length_bytes}")
    for n, bound_kib in enumerate(upper_kib, 1):
        if length_bytes <= bound_kib * KIB:
            return f"L{n}"
    return f"L{len(upper_kib) + 1}"


def level_counts(extents: list[Extent]) -> dict[str, int]:
    counts = dict.fromkeys(LEVELS, 0)
    for piece in fragments(extents):
        counts[size_level(piece.length)] += 1
    return counts
