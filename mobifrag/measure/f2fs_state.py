"""What a mounted F2FS reports about itself, as jobs/ars-lib.sh's `f2fs_state` copies it.

- `segment_bits.txt` (/proc/fs/f2fs/<dev>/segment_bits): per main-area segment its type,
  valid blocks and valid-block bitmap (64 bytes for 512 blocks; bit i of a segment is
  bit 7 - i % 8 of byte i // 8, F2FS's f2fs_test_bit). Runs of invalid blocks, followed
  across segment boundaries in address order, are the free-space fragments (ARS Fig. 5).
- `status.txt` (/sys/kernel/debug/f2fs/status): GC calls, segments and moved blocks,
  utilization, in-place/SSR/LFS block counts of the first F2FS listed.
- `iostat.txt` (/proc/fs/f2fs/<dev>/iostat_info, CONFIG_F2FS_IOSTAT): bytes F2FS read
  and wrote since its statistics were turned on, by origin, GC's own among them. In
  Linux 6.1 (fs/f2fs/iostat.c, gc.c, node.c) `[WRITE] fs gc data` and `fs gc node` are
  the blocks foreground GC writes itself (background GC, the GC thread and Android's
  urgent pass, only dirties the blocks it moves: they are written back as `fs data`
  and `fs node`); `[READ] fs gc data` counts GC's reads of files that need post-read
  processing only (encrypted, verity, compressed), GC's reads of other files count as
  `fs data`; GC's node reads have no counter of their own.
- `diskstat.txt` (/sys/block/<dev>/stat): completed reads and writes of the disk.
- `ars.txt`: the ARS patch's sysfs counters (kernel-patches/README.md), `name value` lines.
"""

from __future__ import annotations

import re

from mobifrag.measure.fragmentation import size_level

BLOCK_KIB = 4


class StateError(ValueError):
    pass


def segment_bitmaps(text: str) -> list[bytes]:
    """The valid-block bitmap of every segment of a segment_bits dump, in segment order."""
    bitmaps = []
    for line in text.splitlines():
        match = re.match(r"^(\d+)\s+\d+\|\s*(\d+)\s*\|((?:\s+[0-9a-f]{2})+)\s*$", line)
        if not match:
            continue
        segno, valid = int(match[1]), int(match[2])
        if segno != len(bitmaps):
            raise StateError(f"segment_bits: segment {segno} where {len(bitmaps)} was due")
        bitmap = bytes(int(b, 16) for b in match[3].split())
        if sum(bin(b).count("1") for b in bitmap) != valid:
            raise StateError(f"segment_bits: segment {segno} bitmap disagrees with {valid}")
        bitmaps.append(bitmap)
    if not bitmaps:
        raise StateError("segment_bits: no segments")
    return bitmaps


def free_runs(bitmaps: list[bytes]) -> list[int]:
    """Lengths in blocks of the maximal runs of invalid blocks over the main area."""
    runs, current = [], 0
    for bitmap in bitmaps:
        for byte in bitmap:
            for bit in range(7, -1, -1):
                if byte >> bit & 1:
                    if current:
                        runs.append(current)
                    current = 0
                else:
                    current += 1
    if current:
        runs.append(current)
    return runs


def level_counts(runs: list[int], bounds_kib: list[int]) -> dict[str, int]:
    """Free-space fragments per level: L1 up to bounds_kib[0], Ln up to bounds_kib[n-1]
    (above the previous bound), and one level above the last bound (ARS Fig. 5)."""
    counts = {f"L{i}": 0 for i in range(1, len(bounds_kib) + 2)}
    for run in runs:
        counts[size_level(run * BLOCK_KIB * 1024, tuple(bounds_kib))] += 1
    return counts


STATUS_FIELDS = {
    "gc_calls": r"^GC calls: (\d+)",
    "gc_bg_calls": r"^GC calls: \d+ \(BG: (\d+)\)",
    "gc_data_segments": r"^\s*- data segments : (\d+)",
    "gc_node_segments": r"^\s*- node segments : (\d+)",
    "gc_moved_blocks": r"^Try to move (\d+) blocks",
    "gc_data_blocks": r"^\s*- data blocks : (\d+)",
    "gc_node_blocks": r"^\s*- node blocks : (\d+)",
    "utilization_percent": r"^Utilization: (\d+)%",
    "ipu_blocks": r"^IPU: (\d+) blocks",
    "ssr_blocks": r"^SSR: (\d+) blocks",
    "lfs_blocks": r"^LFS: (\d+) blocks",
}


def status_counters(text: str) -> dict[str, int]:
    """The counters of STATUS_FIELDS from the first F2FS in a debugfs status file."""
    parts = re.split(r"^=+\[ partition info", text, flags=re.MULTILINE)
    if len(parts) < 2:
        raise StateError("status: no F2FS partition listed")
    first = parts[1]
    counters = {}
    for name, pattern in STATUS_FIELDS.items():
        match = re.search(pattern, first, flags=re.MULTILINE)
        if not match:
            raise StateError(f"status: no {name} ({pattern})")
        counters[name] = int(match[1])
    return counters


IOSTAT_SECTIONS = ("WRITE", "READ", "OTHER")
# GC's own I/O (iostat_info's section and line), in F2FS blocks: F2FS adds a block's
# bytes per block it reads or writes.
IOSTAT_GC = {
    "gc_data_write_blocks": ("WRITE", "fs gc data"),
    "gc_node_write_blocks": ("WRITE", "fs gc node"),
    "gc_read_blocks": ("READ", "fs gc data"),
}


def iostat_bytes(text: str) -> dict[tuple[str, str], int]:
    """Every `name: bytes` line of an iostat_info dump by (section, name)."""
    if not text.strip():
        raise StateError("iostat: empty: F2FS's iostat_enable was off (jobs/ars-lib.sh)")
    values, section = {}, None
    for number, line in enumerate(text.splitlines(), start=1):
        heading = re.fullmatch(r"\[(\w+)\]", line.strip())
        if heading and heading[1] in IOSTAT_SECTIONS:
            section = heading[1]
            continue
        name, colon, value = line.partition(":")
        if not colon or not value.strip().isdigit():
            if line.strip():
                raise StateError(f"iostat: line {number} is not `name: count`: {line!r}")
            continue
        if section:
            values[(section, name.strip())] = int(value)
    return values


def iostat_gc_blocks(text: str) -> dict[str, int]:
    """GC's own reads and writes (IOSTAT_GC) of an iostat_info dump, in 4 KiB blocks,
    with the writes of data and node blocks added up as gc_write_blocks."""
    values = iostat_bytes(text)
    blocks = {}
    for counter, key in IOSTAT_GC.items():
        if key not in values:
            raise StateError(f"iostat: no [{key[0]}] {key[1]!r} line")
        count, rest = divmod(values[key], BLOCK_KIB * 1024)
        if rest:
            raise StateError(f"iostat: [{key[0]}] {key[1]!r} is not whole blocks")
        blocks[counter] = count
    blocks["gc_write_blocks"] = blocks["gc_data_write_blocks"] + blocks["gc_node_write_blocks"]
    return blocks


def disk_ios(text: str) -> dict[str, int]:
    """Completed reads and writes of a /sys/block/<dev>/stat line."""
    fields = text.split()
    if len(fields) < 8 or not all(f.isdigit() for f in fields[:8]):
        raise StateError(f"diskstat: not a block device stat line: {text[:80]!r}")
    return {"read_ios": int(fields[0]), "write_ios": int(fields[4])}


def ars_counters(text: str) -> dict[str, int]:
    """The `name value` lines of ars.txt."""
    values = {}
    for line in text.splitlines():
        name, _, value = line.partition(" ")
        if not name.startswith("ars_") or not value.strip().isdigit():
            raise StateError(f"ars.txt: not a counter line: {line!r}")
        values[name] = int(value)
    return values
