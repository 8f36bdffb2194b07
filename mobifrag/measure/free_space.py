"""The free space of an ext4 file system as the guest jobs record it (jobs/lib.sh):
e2freefrag's report (free extents by size, read from the block bitmaps after the file
system was unmounted or remounted) and `df -k` (used and available space as the
replayer's `fill`, `reclaim` and `thin` measure it).

e2freefrag prints sizes in units it calls KB, which are KiB (1024 bytes), and a
histogram of free extents in power-of-two ranges:

    Blocksize: 4096 bytes
    Total blocks: 32768
    Free blocks: 3177 (9.7%)
    ...
    Max. free extent: 8 KB
    ...
    Extent Size Range :  Free extents   Free Blocks  Percent
        4K...    8K-  :            17            17    0.54%
        8K...   16K-  :          1580          3160   99.46%
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

KIB = 1024
_UNITS = {"K": KIB, "M": KIB**2, "G": KIB**3, "T": KIB**4}
_HEADER_FIELDS = {
    "block_size": re.compile(r"^Blocksize:\s+(\d+) bytes$"),
    "total_blocks": re.compile(r"^Total blocks:\s+(\d+)$"),
    "largest_kib": re.compile(r"^Max\. free extent:\s+(\d+) KB$"),
}
_BUCKET = re.compile(r"^\s*(\d+)([KMGT])\.\.\.\s*(\d+)([KMGT])-\s*:\s+(\d+)\s+(\d+)\s+\S+%$")
_HISTOGRAM_TITLE = "HISTOGRAM OF FREE EXTENT SIZES:"
# What the adb runner's stand-in prints on a phone without e2freefrag
# (mobifrag/platform/adb_wrapper.py, SHIMS).
ABSENT = "e2freefrag: not present on this device"


class FreeSpaceError(ValueError):
    """A free-space record that cannot be read; the message names the file and line."""


@dataclass(frozen=True)
class Bucket:
    """Free extents of at least from_bytes and less than to_bytes."""

    from_bytes: int
    to_bytes: int
    extents: int
    blocks: int


@dataclass(frozen=True)
class FreeSpace:
    block_size: int
    total_blocks: int
    largest_bytes: int
    buckets: tuple[Bucket, ...]

    @property
    def free_extents(self) -> int:
        return sum(b.extents for b in self.buckets)

    @property
    def free_bytes(self) -> int:
        """Free blocks as the histogram counts them, from the bitmaps (the header's count
        is the superblock's)."""
        return sum(b.blocks for b in self.buckets) * self.block_size

    @property
    def mean_bytes(self) -> float:
        return self.free_bytes / self.free_extents if self.free_extents else 0.0


def _size(number: str, unit: str) -> int:
    return int(number) * _UNITS[unit]


def _bucket(path: Path, number: int, line: str) -> Bucket:
    match = _BUCKET.match(line)
    if not match:
        raise FreeSpaceError(f"{path}:{number}: not a histogram row of e2freefrag: {line!r}")
    low, low_unit, high, high_unit, extents, blocks = match.groups()
    return Bucket(_size(low, low_unit), _size(high, high_unit), int(extents), int(blocks))


def parse_e2freefrag(text: str, path: Path) -> FreeSpace:
    """e2freefrag's report (the whole device, no -c); path names it in errors."""
    header: dict[str, int] = {}
    buckets: list[Bucket] = []
    lines = text.splitlines()
    try:
        histogram = lines.index(_HISTOGRAM_TITLE) + 2  # past the column titles
    except ValueError:
        raise FreeSpaceError(
            f"{path}: no {_HISTOGRAM_TITLE!r} line: not e2freefrag's report of an ext4"
            f" file system (first line: {lines[0] if lines else ''!r})"
        ) from None
    for line in lines[:histogram]:
        for name, pattern in _HEADER_FIELDS.items():
            match = pattern.match(line.strip())
            if match:
                header[name] = int(match.group(1))
    missing = sorted(set(_HEADER_FIELDS) - set(header))
    if missing:
        raise FreeSpaceError(f"{path}: e2freefrag's report lacks {', '.join(missing)}")
    for number, line in enumerate(lines[histogram:], start=histogram + 1):
        if line.strip():
            buckets.append(_bucket(path, number, line))
    return FreeSpace(
        block_size=header["block_size"],
        total_blocks=header["total_blocks"],
        largest_bytes=header["largest_kib"] * KIB,
        buckets=tuple(buckets),
    )


def read_e2freefrag(path: Path) -> FreeSpace | None:
    """The report at path; None where the device had no e2freefrag (a phone)."""
    path = Path(path)
    if not path.is_file():
        raise FreeSpaceError(f"{path} is missing: the aging job wrote no free-space report")
    text = path.read_text(errors="replace")
    if text.startswith(ABSENT):
        return None
    return parse_e2freefrag(text, path)


def read_df_utilization(path: Path) -> float:
    """Used share in percent, used / (used + available), of `df -k` output (one file
    system): df's Use% before rounding, what the replayer's fill and reclaim target."""
    path = Path(path)
    if not path.is_file():
        raise FreeSpaceError(f"{path} is missing: the aging job wrote no df output")
    lines = path.read_text().splitlines()
    if len(lines) != 2 or not lines[0].startswith("Filesystem"):
        raise FreeSpaceError(f"{path}: expected df -k's title line and one file system")
    fields = lines[1].split()
    try:
        used, available = int(fields[2]), int(fields[3])
    except (IndexError, ValueError):
        raise FreeSpaceError(f"{path}:2: no used and available 1K-blocks: {lines[1]!r}") from None
    usable = used + available
    return 100.0 * used / usable if usable else 0.0
