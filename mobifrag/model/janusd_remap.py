"""janusd (janusd §4, TMC §6.2.2): e4defrag's relocation plan as FTL REMAP commands.

    python -m mobifrag.model.janusd_remap logical --before SNAP --after SNAP --trace e4defrag.csv \
        --out DIR
    python -m mobifrag.model.janusd_remap physical --dop dop.csv --snapshot SNAP --threshold 0.5 \
        --follow janusdl.csv --out DIR
    python -m mobifrag.model.janusd_remap launch --snapshot SNAP --package PACKAGE --out DIR

`logical` (janusdL): the plan is what the real e4defrag did — for every block of every
file, its device address in the snapshot before (`--before`) and after (`--after`)
the defragmentation; runs of blocks that moved together become REMAP(src, dst, len).
The trace (`--trace`, e4defrag's block trace as CSV from `ftl-sim convert`) keeps the
file system's own requests (metadata, journal, flushes) but loses e4defrag's data
copies (reads of the moved blocks' old addresses, writes of their new ones): janusdL
remaps instead. A file's remaps are issued when e4defrag first touched its data, so
they run in e4defrag's order (a block freed by one file may be the destination of a
later one). DIR gets `plan.csv` (one row per REMAP), `janusdl.csv` (ftl-sim's CSV
trace) and `after/`, the snapshot the remaps leave: the before snapshot with every
file's blocks moved as the REMAP records say.

`launch`: an app's launch as block reads over a snapshot's layout (every file of the
app read once, one request per physically contiguous piece), `reads.csv`, and the same
blocks as writes in address order, `writes.csv`, to place them in the FTL first.

`physical` (janusdP): the files whose DoF_P (ftl-sim's `--dop-out` table) exceeds the
threshold are copied — read, then rewritten at the same addresses in file order, so
the FTL stripes them again. DIR gets `selected.csv` and `janusd.csv`: the trace given
with `--follow` (janusdL's), then the copies.
"""

from __future__ import annotations

import argparse
import csv
import sys
from dataclasses import dataclass, replace
from pathlib import Path

from mobifrag.measure.fragmentation import Extent, fragments, placed
from mobifrag.measure.snapshot import (
    EXTENTS_COLUMNS,
    Snapshot,
    SnapshotError,
    read_snapshot,
    unescape_path,
)

SECTOR = 512
TRACE_COLUMNS = ("time_ns", "op", "sector", "sectors", "dst_sector")
PLAN_COLUMNS = ("path", "order", "time_ns", "src_bytes", "dst_bytes", "length_bytes")
# janusdP copies in requests of this size (the block layer's usual largest request).
COPY_CHUNK_BYTES = 512 * 1024


class JanusdError(ValueError):
    """A plan or trace janusd cannot use; the message names the file and the problem."""


@dataclass(frozen=True)
class Remap:
    """REMAP(src, dst, length): bytes at src move to dst, addresses in bytes."""

    src: int
    dst: int
    length: int


@dataclass(frozen=True)
class Request:
    time_ns: int
    op: str
    sector: int
    sectors: int
    dst_sector: int | None = None

    @property
    def end(self) -> int:
        return self.sector + self.sectors


def block_map(path: str, extents: list[Extent], block: int) -> dict[int, int]:
    """File block number → device block number of every placed block."""
    blocks = {}
    for e in placed(extents):
        if e.logical % block or e.physical % block or e.length % block:
            raise JanusdError(f"{path}: extent {e} is not aligned to {block}-byte blocks")
        for i in range(e.length // block):
            blocks[e.logical // block + i] = e.physical // block + i
    return blocks


def file_remaps(old: dict[int, int], new: dict[int, int], block: int) -> list[Remap]:
    """Runs of blocks that moved together (consecutive in the file, at both ends)."""
    remaps: list[Remap] = []
    run: list[int] | None = None  # [first file block, src block, dst block, blocks]
    for lb in sorted(old):
        src, dst = old[lb], new[lb]
        if src == dst:
            run = None
            continue
        if run and lb == run[0] + run[3] and src == run[1] + run[3] and dst == run[2] + run[3]:
            run[3] += 1
            remaps[-1] = Remap(run[1] * block, run[2] * block, run[3] * block)
            continue
        run = [lb, src, dst, 1]
        remaps.append(Remap(src * block, dst * block, block))
    return remaps


def relocation_plan(before: Snapshot, after: Snapshot) -> dict[str, list[Remap]]:
    """Per file that moved, its REMAP records (what e4defrag relocated)."""
    if before.block_size != after.block_size:
        raise JanusdError(
            f"block size {before.block_size} before but {after.block_size} after the defrag"
        )
    block = before.block_size
    plan = {}
    for path in sorted(before.extents):
        old = block_map(path, before.extents[path], block)
        if not old:
            continue
        if path not in after.extents:
            raise JanusdError(f"{path}: in the snapshot before the defrag but not after it")
        new = block_map(path, after.extents[path], block)
        if old.keys() != new.keys():
            raise JanusdError(
                f"{path}: {len(old)} blocks before the defrag but {len(new)} after "
                "(e4defrag must not change which file blocks exist)"
            )
        remaps = file_remaps(old, new, block)
        if remaps:
            plan[path] = remaps
    return plan


def apply_remaps(extents: list[Extent], remaps: list[Remap], block: int) -> list[Extent]:
    """A file's extents after its remaps: each block at its new device address."""
    moved = {}
    for r in remaps:
        for i in range(r.length // block):
            moved[r.src // block + i] = r.dst // block + i
    result: list[Extent] = []
    for lb, pb in sorted(block_map("", extents, block).items()):
        pb = moved.get(pb, pb)
        last = result[-1] if result else None
        if (
            last
            and last.logical + last.length == lb * block
            and (last.physical + last.length == pb * block)
        ):
            result[-1] = Extent(last.logical, last.physical, last.length + block)
        else:
            result.append(Extent(lb * block, pb * block, block))
    return result


def remapped_snapshot(before: Snapshot, plan: dict[str, list[Remap]]) -> Snapshot:
    """The layout janusdL leaves: the before snapshot with the plan applied."""
    extents = {
        path: apply_remaps(exts, plan[path], before.block_size) if path in plan else exts
        for path, exts in before.extents.items()
    }
    return Snapshot(
        before.fs_type,
        before.block_size,
        before.total_blocks,
        before.free_blocks,
        list(before.files),
        extents,
    )


def read_trace(path: Path) -> list[Request]:
    """ftl-sim's CSV trace (`ftl-sim convert` output)."""
    requests = []
    with open(path, newline="") as handle:
        reader = csv.reader(handle)
        header = next(reader, None)
        if header is None or tuple(header[:4]) != TRACE_COLUMNS[:4]:
            raise JanusdError(f"{path}: header is {header}, expected {list(TRACE_COLUMNS)}")
        for number, row in enumerate(reader, start=2):
            try:
                time_ns, op, sector, sectors = int(row[0]), row[1], int(row[2]), int(row[3])
                dst = int(row[4]) if len(row) > 4 and row[4] else None
            except (ValueError, IndexError):
                raise JanusdError(f"{path}:{number}: not a trace row: {row}") from None
            requests.append(Request(time_ns, op, sector, sectors, dst))
    return requests


def write_trace(path: Path, requests: list[Request]) -> None:
    with open(path, "w", newline="") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(TRACE_COLUMNS)
        for r in requests:
            dst = "" if r.dst_sector is None else r.dst_sector
            writer.writerow((r.time_ns, r.op, r.sector, r.sectors, dst))


def subtract(request: Request, ranges: list[tuple[int, int]]) -> list[Request]:
    """The parts of a request outside sorted, disjoint sector ranges [lo, hi)."""
    pieces, start = [], request.sector
    for lo, hi in ranges:
        if hi <= start or lo >= request.end:
            continue
        if lo > start:
            pieces.append((start, lo))
        start = max(start, hi)
    if start < request.end:
        pieces.append((start, request.end))
    return [Request(request.time_ns, request.op, lo, hi - lo) for lo, hi in pieces]


def merged_ranges(ranges: list[tuple[int, int]]) -> list[tuple[int, int]]:
    merged: list[tuple[int, int]] = []
    for lo, hi in sorted(ranges):
        if merged and lo <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], hi))
        else:
            merged.append((lo, hi))
    return merged


def sector_ranges(remaps: list[Remap], end: str) -> list[tuple[int, int]]:
    return [((getattr(r, end)) // SECTOR, (getattr(r, end) + r.length) // SECTOR) for r in remaps]


def overlaps(request: Request, ranges: list[tuple[int, int]]) -> bool:
    return any(lo < request.end and request.sector < hi for lo, hi in ranges)


def issue_times(trace: list[Request], plan: dict[str, list[Remap]]) -> dict[str, int]:
    """When e4defrag first touched each file's data: its first read of the old blocks
    (the copy reads are synchronous, in e4defrag's file order), else its first write to
    the new ones, else the trace's end."""
    end = max((r.time_ns for r in trace), default=0)
    times = {}
    for path, remaps in plan.items():
        src, dst = sector_ranges(remaps, "src"), sector_ranges(remaps, "dst")
        reads = [r.time_ns for r in trace if r.op == "read" and overlaps(r, src)]
        writes = [r.time_ns for r in trace if r.op == "write" and overlaps(r, dst)]
        times[path] = min(reads or writes or [end])
    return times


def check_order(plan: dict[str, list[Remap]], order: list[str], block: int) -> None:
    """No remap may land on blocks another file still has to move away."""
    pending = {
        pb: path
        for path in order
        for r in plan[path]
        for pb in range(r.src // block, (r.src + r.length) // block)
    }
    for path in order:
        for r in plan[path]:
            for pb in range(r.src // block, (r.src + r.length) // block):
                pending.pop(pb, None)
        for r in plan[path]:
            for pb in range(r.dst // block, (r.dst + r.length) // block):
                if pb in pending:
                    raise JanusdError(
                        f"{path}: its remap to block {pb} would overwrite data of "
                        f"{pending[pb]} before that file is moved"
                    )


def logical_trace(
    trace: list[Request], plan: dict[str, list[Remap]], block: int
) -> tuple[list[Request], list[tuple[str, int, int, Remap]]]:
    """janusdL's trace (e4defrag's without its data copies, plus REMAPs) and the plan
    rows (path, order, time, remap)."""
    times = issue_times(trace, plan)
    order = sorted(plan, key=lambda p: (times[p], p))
    check_order(plan, order, block)
    copies = {
        "read": merged_ranges([s for rs in plan.values() for s in sector_ranges(rs, "src")]),
        "write": merged_ranges([s for rs in plan.values() for s in sector_ranges(rs, "dst")]),
    }
    kept = []
    for r in trace:
        kept += subtract(r, copies[r.op]) if r.op in copies else [r]
    rows = [(path, n, times[path], r) for n, path in enumerate(order) for r in plan[path]]
    remaps = [
        Request(t, "remap", r.src // SECTOR, r.length // SECTOR, r.dst // SECTOR)
        for _, _, t, r in rows
    ]
    # A file's remaps go before the requests of the same instant: e4defrag's file
    # system updates for a file follow its data move.
    merged = sorted(remaps + kept, key=lambda r: (r.time_ns, r.op != "remap"))
    return merged, rows


def write_snapshot(source: Path, snapshot: Snapshot, out: Path) -> None:
    """fragcheck tables of `snapshot`, paths and file rows as in the `source` snapshot."""
    out.mkdir(parents=True, exist_ok=True)
    (out / "fs.tsv").write_bytes((source / "fs.tsv").read_bytes())
    # The source's file rows, each n_extents the count of rows written for it below.
    with open(source / "files.tsv", newline="", encoding="utf-8", errors="surrogateescape") as h:
        rows = list(csv.reader(h, delimiter="\t", quoting=csv.QUOTE_NONE))
    column = rows[0].index("n_extents")
    for row in rows[1:]:
        row[column] = str(len(snapshot.extents.get(unescape_path(row[0]), ())))
    with open(out / "files.tsv", "w", encoding="utf-8", errors="surrogateescape") as handle:
        handle.writelines("\t".join(row) + "\n" for row in rows)
    raw_paths = {}
    with open(source / "extents.tsv", newline="", encoding="utf-8", errors="surrogateescape") as h:
        for row in csv.DictReader(h, delimiter="\t", quoting=csv.QUOTE_NONE):
            raw_paths.setdefault(row["path"], None)
    escaped = {unescape_path(raw): raw for raw in raw_paths}
    with open(out / "extents.tsv", "w", encoding="utf-8", errors="surrogateescape") as handle:
        handle.write("\t".join(EXTENTS_COLUMNS) + "\n")
        for path in sorted(snapshot.extents):
            for n, e in enumerate(snapshot.extents[path]):
                flags = ",".join(sorted(e.flags - {"last"})) or "-"
                fields = (escaped[path], n, e.logical, e.physical, e.length, flags)
                handle.write("\t".join(str(f) for f in fields) + "\n")


def write_plan(path: Path, rows: list[tuple[str, int, int, Remap]]) -> None:
    with open(path, "w", newline="") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(PLAN_COLUMNS)
        for file, order, time_ns, r in rows:
            writer.writerow((file, order, time_ns, r.src, r.dst, r.length))


def unwritten_blocks(snapshot: Snapshot) -> set[int]:
    """Device blocks of unwritten extents (allocated, never written: a fill's fallocated
    rest), which hold no data."""
    block = snapshot.block_size
    return {
        e.physical // block + i
        for extents in snapshot.extents.values()
        for e in extents
        if "unwritten" in e.flags
        for i in range(e.length // block)
    }


def data_plan(before: Snapshot, plan: dict[str, list[Remap]]) -> dict[str, list[Remap]]:
    """The remaps that move data: e4defrag swaps a file's unwritten extents without
    reading or writing them (EXT4_IOC_MOVE_EXT), so there is nothing for the FTL to
    remap, no request of the trace to order them by, and remapping them after a file
    that took their old blocks would map that file's data twice. The layout still
    takes them (remapped_snapshot gets the whole plan)."""
    block, empty = before.block_size, unwritten_blocks(before)
    kept = {}
    for path, remaps in plan.items():
        moving = [
            r
            for r in remaps
            if not all(r.src // block + i in empty for i in range(r.length // block))
        ]
        if moving:
            kept[path] = moving
    return kept


def logical(before_dir: Path, after_dir: Path, trace_csv: Path, out: Path) -> int:
    before, after = read_snapshot(before_dir), read_snapshot(after_dir)
    plan = relocation_plan(before, after)
    moving = data_plan(before, plan)
    requests, rows = logical_trace(read_trace(trace_csv), moving, before.block_size)
    out.mkdir(parents=True, exist_ok=True)
    write_plan(out / "plan.csv", rows)
    write_trace(out / "janusdl.csv", requests)
    write_snapshot(before_dir, remapped_snapshot(before, plan), out / "after")
    return len(rows)


def read_dop(path: Path) -> dict[str, float]:
    """file → DoF_P from ftl-sim's --dop-out table."""
    with open(path, newline="") as handle:
        reader = csv.DictReader(handle)
        if not reader.fieldnames or not {"file", "dof_p"} <= set(reader.fieldnames):
            raise JanusdError(f"{path}: not an ftl-sim DoP table (needs file and dof_p)")
        try:
            return {unescape_path(r["file"]): float(r["dof_p"]) for r in reader}
        except ValueError as error:
            raise JanusdError(f"{path}: {error}") from None


def select_physical(dof_p: dict[str, float], threshold: float) -> list[str]:
    """janusdP's files: DoF_P above the threshold (janusd §3: DoF_P ≥ 0.5 is rare)."""
    if not 0 <= threshold < 1:
        raise JanusdError(f"DoF_P threshold {threshold} is not in [0, 1)")
    return sorted(path for path, value in dof_p.items() if value > threshold)


def copy_trace(snapshot: Snapshot, paths: list[str], chunk: int = COPY_CHUNK_BYTES):
    """Read each selected file in file order, then write it back to the same addresses."""
    requests: list[Request] = []
    for path in paths:
        if path not in snapshot.extents:
            raise JanusdError(f"{path}: selected for janusdP but not in the snapshot")
        pieces = []
        for e in sorted(placed(snapshot.extents[path]), key=lambda e: e.logical):
            for offset in range(0, e.length, chunk):
                length = min(chunk, e.length - offset)
                pieces.append(((e.physical + offset) // SECTOR, length // SECTOR))
        for op in ("read", "write"):
            for sector, sectors in pieces:
                requests.append(Request(len(requests) * 1000, op, sector, sectors))
    return requests


def physical(dop_csv: Path, snapshot_dir: Path, threshold: float, follow: Path, out: Path) -> int:
    dof_p = read_dop(dop_csv)
    selected = select_physical(dof_p, threshold)
    before = read_trace(follow)
    start = max((r.time_ns for r in before), default=0) + 1000
    copies = copy_trace(read_snapshot(snapshot_dir), selected)
    requests = before + [replace(r, time_ns=r.time_ns + start) for r in copies]
    out.mkdir(parents=True, exist_ok=True)
    with open(out / "selected.csv", "w", newline="") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(("path", "dof_p"))
        writer.writerows((p, f"{dof_p[p]:.6g}") for p in selected)
    write_trace(out / "janusd.csv", requests)
    return len(selected)


def app_files(snapshot: Snapshot, package: str) -> list[str]:
    """What launching an app reads: its installed code (app/PACKAGE-N/) and data
    (data/PACKAGE/), the files AutoAge gives it (traces/FORMAT.md)."""
    prefixes = (f"app/{package}-", f"data/{package}/")
    return sorted(p for p in snapshot.extents if p.startswith(prefixes))


def launch_trace(snapshot: Snapshot, package: str, chunk: int = COPY_CHUNK_BYTES):
    """Read every file of the app once, in file order: one request per physically
    contiguous piece (up to `chunk` bytes), as the block layer would issue them."""
    requests: list[Request] = []
    for path in app_files(snapshot, package):
        for piece in fragments(snapshot.extents[path]):
            for offset in range(0, piece.length, chunk):
                length = min(chunk, piece.length - offset)
                sector = (piece.physical + offset) // SECTOR
                requests.append(Request(len(requests) * 1000, "read", sector, length // SECTOR))
    return requests


def launch(snapshot_dir: Path, package: str, out: Path) -> int:
    """`reads.csv`, the app's launch reads, and `writes.csv`, the same blocks written in
    address order first (so the FTL holds them, striped alike for every layout)."""
    reads = launch_trace(read_snapshot(snapshot_dir), package)
    if not reads:
        return 0  # not installed (yet): nothing to launch
    writes = sorted((replace(r, op="write") for r in reads), key=lambda r: r.sector)
    out.mkdir(parents=True, exist_ok=True)
    write_trace(out / "reads.csv", reads)
    write_trace(out / "writes.csv", [replace(r, time_ns=n) for n, r in enumerate(writes)])
    return len(reads)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    log = commands.add_parser("logical", help="janusdL: e4defrag's plan as REMAPs")
    log.add_argument("--before", type=Path, required=True)
    log.add_argument("--after", type=Path, required=True)
    log.add_argument("--trace", type=Path, required=True)
    log.add_argument("--out", type=Path, required=True)
    phys = commands.add_parser("physical", help="janusdP: copy files with high DoF_P")
    phys.add_argument("--dop", type=Path, required=True)
    phys.add_argument("--snapshot", type=Path, required=True)
    phys.add_argument("--threshold", type=float, default=0.5)
    phys.add_argument("--follow", type=Path, required=True, help="janusdL's trace")
    phys.add_argument("--out", type=Path, required=True)
    app = commands.add_parser("launch", help="an app's launch reads over a snapshot")
    app.add_argument("--snapshot", type=Path, required=True)
    app.add_argument("--package", required=True)
    app.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    try:
        if args.command == "launch":
            n = launch(args.snapshot, args.package, args.out)
            print(f"janusd: {n} launch reads", file=sys.stderr)
        elif args.command == "logical":
            n = logical(args.before, args.after, args.trace, args.out)
            print(f"janusd: {n} remap commands", file=sys.stderr)
        else:
            n = physical(args.dop, args.snapshot, args.threshold, args.follow, args.out)
            print(f"janusd: {n} files selected for janusdP", file=sys.stderr)
    except (JanusdError, SnapshotError, OSError) as error:
        print(f"janusd: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
