"""Fill/delete aging of a file system (TMC §4.3 after Ganger & Kaashoek's procedure, and
the No / Moderate / Severe states of TMC §5.2).

Large files (≥ 10 MB) and batches of small files (≤ 500 KB) are created alternately,
one byte of small files for every byte of large ones, until the disk is full (the trace
asks for more than the disk holds; the replayer counts the ENOSPC and goes on), and a
last `fill` to 100 % takes every block left (the replayer allocates what the writes
could not, ext4's reserved clusters included): a disk filled only until ENOSPC keeps
2 % of itself free, in runs of megabytes where the last files stopped, and every later
allocation lands there instead of in the holes. Each large file is fsynced; a batch of
small files is written back by one `syncfs` after its last file, before the next large
file is written, so large files and batches still alternate on disk with one journal
commit per batch instead of one per file (under TCG the fill took as long either way:
creating the files dominates). Small files are log-uniform between the bounds (TMC
gives only the bound): the paper's Full state left its free space in pieces of 88 KB on
average (TMC §4.3 fn. 4: a file filling it took 3,098 pieces), and deleting small files
at random leaves holes as large as the files, which average 103 KB log-uniform and
252 KB uniform. Sizes scaled with the disk keep the number of files about the same at
every scale. Then:

- `fill_delete`: small files are deleted at random until the file system is down to the
  target utilization (`thin`), leaving small holes everywhere (TMC §4.3); a file whose
  deletion would join freed neighbours into a free run of `hole_limit` bytes or more is
  spared, so no free extent reaches the largest preallocation unit TMC §6.1.1 tests
  (random deletion alone leaves runs of several deleted neighbours). Target 0 is the
  pristine Low state and writes nothing. On a scaled-down disk the app files written
  afterwards are scaled down too (`reference_disk_gib` in the config), so the aging files
  take the same `size_scale`: a dex file then spans as many holes as on the paper's phone
  (TMC §4.3: 3.2 MB dex files in pieces of 243 KB), where it would fit in one hole of the
  paper's size;
- `holes`: a comb of small files of one size, a filler file, then every other small file
  deleted, leaving holes of that size (TMC §5.2: 500 MB of deleted 64 KB or 8 KB files
  for Moderate and Severe, none for No). Files written one after another in one
  directory are laid out one after another, so a deleted file between two kept ones is a
  hole of its size. With holes the filler takes every block (`fill` 100), so the holes
  are the only free space and the utilization is what they leave; without (No) it stops
  at the fullness;
- `create_delete`: files of one size created and deleted at random until the live files
  hold the target share of the disk (Ext4 tuning §4.1: 256 KB files, half full).

Everything runs in thread 0, so the layout depends only on the seed and the file system.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterator

from mobifrag.workloads.iotrace import Op, make_op

KIB, MIB = 1024, 1024 * 1024
BLOCK = 4 * KIB  # config filesystems.ext4_mkfs: -b 4096
LARGE_BYTES = (10 * MIB, 20 * MIB)  # TMC §4.3: large files ≥ 10 MB
SMALL_BYTES = (4 * KIB, 500 * KIB)  # TMC §4.3: small files ≤ 500 KB
CHUNK = 1 * MIB  # append size of bulk writes
OVERFILL = 1.05  # ask for more than the disk holds: the fill ends in ENOSPC
LARGE_DIR, SMALL_DIR, COMB_DIR = "aging/large", "aging/small", "aging/comb"
CHURN_DIR = "aging/churn"


def _file_ops(path: str, size: int, sync: bool = True) -> Iterator[Op]:
    yield make_op(0, 0, "create", path)
    written = 0
    while written < size:
        step = min(CHUNK, size - written)
        yield make_op(0, 0, "append", path, step)
        written += step
    if sync:
        yield make_op(0, 0, "fsync", path)


def _block_aligned(size: int) -> int:
    return max(BLOCK, size // BLOCK * BLOCK)


def _alternating(
    rng: random.Random, total: int, large_size, small_size
) -> Iterator[tuple[str, int]]:
    """(path, size) of large files, each followed by small files of the same bytes."""
    written = index = 0
    while written < total:
        large = _block_aligned(large_size(rng))
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


def _scaled_range(bounds: tuple[int, int], size_scale: float):
    low, high = (max(1, round(b * size_scale)) for b in bounds)
    return lambda rng: rng.randint(low, high)


def _scaled_log_range(bounds: tuple[int, int], size_scale: float):
    """Sizes whose logarithm is uniform between the scaled bounds, the lower one raised
    to a block (smaller sizes would all take one block anyway)."""
    low, high = (max(1, round(b * size_scale)) for b in bounds)
    low = min(max(low, BLOCK), high)
    log_low, log_high = math.log(low), math.log(high)
    return lambda rng: round(math.exp(rng.uniform(log_low, log_high)))


PARTS = ("all", "fill", "reclaim")


def fill_delete(
    disk_bytes: int,
    target_percent: int,
    seed: int,
    size_scale: float = 1.0,
    part: str = "all",
    hole_limit: int = 0,
) -> list[Op]:
    """Fill the disk with alternating large and small files (TMC §4.3's sizes times
    size_scale, at least one block), then delete small files at random down to
    target_percent utilization, sparing those that would join freed neighbours into a
    free run of hole_limit bytes or more (0: none spared); target 0 is the pristine state
    (Low) and writes nothing. `part` "fill" or "reclaim" gives one half: the fill does
    not depend on the target, so one filled disk can be copied and reclaimed to every
    level."""
    if not 0 <= target_percent < 100:
        raise ValueError(f"target utilization {target_percent} % is not in 0..99")
    if not 0 < size_scale <= 1:
        raise ValueError(f"size scale {size_scale:g} is not in (0, 1]")
    if part not in PARTS:
        raise ValueError(f"part {part!r} is not one of {', '.join(PARTS)}")
    if hole_limit < 0:
        raise ValueError(f"hole limit {hole_limit} is negative")
    if target_percent == 0 and part != "fill":
        return []
    ops = fill(disk_bytes, seed, size_scale) if part != "reclaim" else []
    if part != "fill":
        ops.append(make_op(0, 0, "thin", SMALL_DIR, target_percent, seed, "small-*", hole_limit))
    return ops


def fill(disk_bytes: int, seed: int, size_scale: float) -> list[Op]:
    """The fill of fill_delete: large and small files until the disk is full, then
    every block left."""
    rng = random.Random(seed)
    ops = _header()
    unsynced = False
    for path, size in _alternating(
        rng,
        int(disk_bytes * OVERFILL),
        _scaled_range(LARGE_BYTES, size_scale),
        _scaled_log_range(SMALL_BYTES, size_scale),
    ):
        small = path.startswith(SMALL_DIR)
        if not small and unsynced:
            ops.append(make_op(0, 0, "syncfs", SMALL_DIR))
        ops.extend(_file_ops(path, size, sync=not small))
        unsynced = small
    ops.append(make_op(0, 0, "syncfs", SMALL_DIR))
    ops.append(make_op(0, 0, "fill", f"{LARGE_DIR}/rest.bin", 100))
    return ops


def _comb_ops(count: int, size: int) -> Iterator[Op]:
    """count files of size bytes, written back to back, then all written back at once:
    a filler written while some are still delayed-allocated would take blocks between
    them (measured on a 320 MiB guest, where writeback starts during the comb)."""
    for n in range(count):
        path = f"{COMB_DIR}/{'hole' if n % 2 else 'keep'}-{n // 2:07d}.bin"
        yield make_op(0, 0, "create", path)
        yield make_op(0, 0, "append", path, size)
    if count:
        yield make_op(0, 0, "syncfs", COMB_DIR)


def holes(
    disk_bytes: int, fullness_percent: int, small_bytes: int, small_total: int, seed: int
) -> list[Op]:
    """Free space holding only holes of small_bytes adding up to small_total (TMC §5.2:
    500 MB of deleted 64 KB or 8 KB files), or with no holes (small_total 0, the No
    state) the file system at fullness_percent. A comb of small files comes first, then
    one filler file taking every block left (with holes) or up to the fullness (the
    replayer measures the file system, so no capacity estimate is involved), then every
    other small file is deleted. With holes the utilization is what they leave, about
    100 % less their share of the disk: the caller sizes them for the fullness."""
    if not 0 < fullness_percent <= 100:
        raise ValueError(f"fullness {fullness_percent} % is not between 1 and 100")
    holes_count = -(-small_total // small_bytes) if small_bytes else 0
    fill_to = 100 if holes_count else fullness_percent
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
