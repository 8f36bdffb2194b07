"""Fill/delete aging of a file system (TMC §4.3 after Ganger & Kaashoek's procedure, and
the No / Moderate / Severe states of TMC §5.2).

Large files (≥ 10 MB) and batches of small files (≤ 500 KB) are created alternately,
one byte of small files for every byte of large ones, until the disk is full (the trace
asks for more than the disk holds; the replayer counts the ENOSPC and goes on). Then:

- `fill_delete`: small files are deleted at random until the file system is down to the
  target utilization (reclaim with BYTES 0), leaving small holes everywhere (TMC §4.3);
  target 0 is the pristine Low state and writes nothing;
- `holes`: a comb of small files of one size, a filler file up to a fullness, then every
  other small file deleted, leaving holes of that size (TMC §5.2: 500 MB of deleted
  64 KB or 8 KB files for Moderate and Severe, none for No). Files written one after
  another in one directory are laid out one after another, so a deleted file between two
  kept ones is a hole of its size;
- `create_delete`: files of one size created and deleted at random until the live files
  hold the target share of the disk (Ext4 tuning §4.1: 256 KB files, half full).

Everything runs in thread 0, so the layout depends only on the seed and the file system.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

from mobifrag.tracegen.iotrace import Op, make_op

KIB, MIB = 1024, 1024 * 1024
LARGE_BYTES = (10 * MIB, 20 * MIB)  # TMC §4.3: large files ≥ 10 MB
SMALL_BYTES = (4 * KIB, 500 * KIB)  # TMC §4.3: small files ≤ 500 KB
CHUNK = 1 * MIB  # append size of bulk writes
OVERFILL = 1.05  # ask for more than the disk holds: the fill ends in ENOSPC
LARGE_DIR, SMALL_DIR, COMB_DIR = "aging/large", "aging/small", "aging/comb"
CHURN_DIR = "aging/churn"


def _file_ops(path: str, size: int) -> Iterator[Op]:
    yield make_op(0, 0, "create", path)
    written = 0
    while written < size:
        step = min(CHUNK, size - written)
        yield make_op(0, 0, "append", path, step)
        written += step
    yield make_op(0, 0, "fsync", path)


def _block_aligned(size: int) -> int:
    return max(4 * KIB, size // (4 * KIB) * (4 * KIB))


def _alternating(rng: random.Random, total: int, small_size) -> Iterator[tuple[str, int]]:
    """(path, size) of large files, each followed by small files of the same bytes."""
    written = index = 0
    while written < total:
        large = _block_aligned(rng.randint(*LARGE_BYTES))
        yield f"{LARGE_DIR}/large-{index:05d}.bin", large
        written += large
        batch = 0
        while batch < large and written < total:
            small = _block_aligned(small_size(rng))
            yield f"{SMALL_DIR}/small-{index:05d}-{batch:06d}.bin", small
            batch += small
            written += small
        index += 1


def _header() -> list[Op]:
    return [make_op(0, 0, "mkdir", LARGE_DIR), make_op(0, 0, "mkdir", SMALL_DIR)]


def fill_delete(disk_bytes: int, target_percent: int, seed: int) -> list[Op]:
    """Fill the disk with alternating large and small files, then delete small files
    at random down to target_percent utilization; target 0 is the pristine state (Low)."""
    if not 0 <= target_percent < 100:
        raise ValueError(f"target utilization {target_percent} % is not in 0..99")
    if target_percent == 0:
        return []
    rng = random.Random(seed)
    ops = _header()
    for path, size in _alternating(
        rng, int(disk_bytes * OVERFILL), lambda r: r.randint(*SMALL_BYTES)
    ):
        ops.extend(_file_ops(path, size))
    ops.append(make_op(0, 0, "reclaim", SMALL_DIR, target_percent, 0, seed, "small-*"))
    return ops


def _comb_ops(count: int, size: int) -> Iterator[Op]:
    """count files of size bytes, written back to back; only the last one is synced."""
    for n in range(count):
        path = f"{COMB_DIR}/{'hole' if n % 2 else 'keep'}-{n // 2:07d}.bin"
        yield make_op(0, 0, "create", path)
        yield make_op(0, 0, "append", path, size)
    if count:
        yield make_op(0, 0, "fsync", path)


def holes(
    disk_bytes: int, fullness_percent: int, small_bytes: int, small_total: int, seed: int
) -> list[Op]:
    """Free space holding holes of small_bytes adding up to small_total, the file system
    at fullness_percent afterwards (TMC §5.2: 500 MB of deleted 64 KB or 8 KB files;
    fullness 100 leaves no free space but the holes). A comb of small files comes first,
    then one filler file up to the fullness plus the holes' share (the replayer measures
    the file system, so no capacity estimate is involved), then every other small file
    is deleted."""
    if not 0 < fullness_percent <= 100:
        raise ValueError(f"fullness {fullness_percent} % is not between 1 and 100")
    holes_count = -(-small_total // small_bytes) if small_bytes else 0
    hole_share = 100 * holes_count * small_bytes / disk_bytes
    fill_to = min(100, round(fullness_percent + hole_share))
    ops = _header() + [make_op(0, 0, "mkdir", COMB_DIR)]
    ops.extend(_comb_ops(2 * holes_count, small_bytes))
    ops.append(make_op(0, 0, "fill", f"{LARGE_DIR}/filler.bin", fill_to))
    if holes_count:
        # PERCENT 0 always applies; twice the bytes of the holes makes reclaim delete
        # every "hole-" file (allocated bytes exceed sizes by at most metadata blocks).
        everything = 2 * holes_count * small_bytes
        ops.append(make_op(0, 0, "reclaim", COMB_DIR, 0, everything, seed, "hole-*"))
    return ops


def create_delete(
    disk_bytes: int, target_percent: int, file_bytes: int, create_share: float, seed: int
) -> list[Op]:
    """Files of file_bytes, each written and fsynced, created or (a random live one)
    deleted at random, a create with probability create_share, until the live files
    hold target_percent of disk_bytes (Ext4 tuning §4.1: "repeating the creation and
    deletion of 256KB-sized files randomly until the half of the filesystem is filled").
    The live files hold target_percent of the disk; the file system holds less than the
    disk (journal, inode tables), so a last reclaim deletes random live files until the
    file system itself reports target_percent used. Every mkfs option replays the same
    trace."""
    if not 0 < target_percent < 100:
        raise ValueError(f"target utilization {target_percent} % is not in 1..99")
    if not 0.5 < create_share <= 1:
        raise ValueError(f"create share {create_share} must be above 0.5 and at most 1")
    if file_bytes <= 0 or file_bytes % (4 * KIB):
        raise ValueError(f"file size {file_bytes} is not a positive multiple of 4 KiB")
    rng = random.Random(seed)
    ops = [make_op(0, 0, "mkdir", CHURN_DIR)]
    live: list[str] = []
    wanted = disk_bytes * target_percent // 100 // file_bytes
    created = 0
    while len(live) < wanted:
        if live and rng.random() >= create_share:
            path = live.pop(rng.randrange(len(live)))
            ops.append(make_op(0, 0, "unlink", path))
            continue
        path = f"{CHURN_DIR}/file-{created:07d}.bin"
        ops.extend(_file_ops(path, file_bytes))
        live.append(path)
        created += 1
    ops.append(make_op(0, 0, "reclaim", CHURN_DIR, target_percent, 0, seed, "file-*"))
    return ops
