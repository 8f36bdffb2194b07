"""Tidy tables of the fragmentation treatments (TMC §6.1–6.2.1, Figs. 14–17a).

    python -m mobifrag.tables.treat dof --run level=low,threads=5,unit_kib=128 SNAP \
        ... --out dof.csv
    python -m mobifrag.tables.treat prealloc-summary --dof dof.csv --out summary.csv
    python -m mobifrag.tables.treat flash --run level=high,threads=5 ftl.json \
        ... --out flash-writes.csv

`dof`: fragment_tables' per-file DoF table plus two columns: `kind` (SQLite `database`,
`journal`, `wal`, `shm`, or `other` for non-SQLite files) and `past_eof_bytes` (bytes
of the file's extents beyond its size rounded up to a block: space reserved by
preallocation and not used, the "wasted" space of TMC Fig. 16).

`prealloc-summary`: per label group of a `dof` table, the SQLite files, the share of
those with DoF 1 (unfragmented) and the bytes reserved past EOF (TMC Fig. 16).

`flash`: per ftl-sim replay summary (of the block trace of one defragmentation), the host
write requests and bytes the block trace carried, the bytes ftl-sim programmed to
flash (TMC Fig. 17b's quantity), the pages remapped and the translation pages written.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
from collections import defaultdict
from pathlib import Path, PurePosixPath

from mobifrag.measure.fragmentation import placed
from mobifrag.measure.snapshot import Snapshot, SnapshotError, read_snapshot
from mobifrag.tables.fragments import DOF_COLUMNS, dof_rows, parse_label
from mobifrag.workflow.atomic import write_table
from mobifrag.workloads.file_classes import file_class

TREATMENT_COLUMNS = DOF_COLUMNS + ("kind", "past_eof_bytes")
SUMMARY_COLUMNS = ("sqlite_files", "unfragmented_files", "unfragmented_share")
SUMMARY_COLUMNS += ("wasted_bytes", "sqlite_bytes")
FLASH_COLUMNS = ("host_write_requests", "host_write_bytes", "flash_bytes_written")
FLASH_COLUMNS += ("flash_page_programs", "waf", "remapped_pages", "translation_page_writes")


def sqlite_kind(path: str) -> str:
    """database, journal (rollback), wal, shm, or other for a non-SQLite file."""
    if file_class(path) != "sqlite":
        return "other"
    name = PurePosixPath(path).name.lower()
    for suffix, kind in (("-journal", "journal"), ("-wal", "wal"), ("-shm", "shm")):
        if name.endswith(suffix):
            return kind
    return "database"


def past_eof_bytes(size: int, extents, block_size: int) -> int:
    """Bytes of placed extents beyond the file's last block (reserved, unused)."""
    boundary = -(-size // block_size) * block_size
    return sum(max(0, e.logical + e.length - max(e.logical, boundary)) for e in placed(extents))


def treatment_rows(snapshot: Snapshot) -> list[dict[str, object]]:
    sizes = {f.path: f.size_bytes for f in snapshot.files}
    rows = []
    for row in dof_rows(snapshot):
        path = str(row["path"])
        extents = snapshot.extents.get(path, [])
        row["kind"] = sqlite_kind(path)
        row["past_eof_bytes"] = past_eof_bytes(sizes[path], extents, snapshot.block_size)
        rows.append(row)
    return rows


def dof_table(runs: list[tuple[dict[str, str], Path]], out: Path) -> None:
    keys: list[str] = []
    rows = []
    for label, directory in runs:
        keys += [k for k in label if k not in keys]
        rows += [{**label, **row} for row in treatment_rows(read_snapshot(directory))]
    write_table(out, tuple(keys) + TREATMENT_COLUMNS, rows)


def prealloc_summary(dof_csv: Path, out: Path) -> None:
    """Per label group (the columns before `path`): SQLite files unfragmented, waste."""
    with open(dof_csv, newline="") as handle:
        reader = csv.DictReader(handle)
        columns = reader.fieldnames or []
        if "path" not in columns:
            raise ValueError(f"{dof_csv}: not a treatment DoF table (no path column)")
        keys = tuple(columns[: columns.index("path")])
        groups: dict[tuple[str, ...], list[dict[str, str]]] = defaultdict(list)
        for row in reader:
            groups[tuple(row[k] for k in keys)].append(row)
    rows = []
    for group, members in groups.items():
        sqlite = [r for r in members if r["class"] == "sqlite"]
        placed_rows = [r for r in sqlite if r["dof"] != "NA"]
        unfragmented = sum(float(r["dof"]) == 1 for r in placed_rows)
        rows.append(
            {
                **dict(zip(keys, group, strict=True)),
                "sqlite_files": len(placed_rows),
                "unfragmented_files": unfragmented,
                "unfragmented_share": (
                    f"{unfragmented / len(placed_rows):.6g}" if placed_rows else "NA"
                ),
                "wasted_bytes": sum(int(r["past_eof_bytes"]) for r in sqlite),
                "sqlite_bytes": sum(int(r["size_bytes"]) for r in sqlite),
            }
        )
    write_table(out, keys + SUMMARY_COLUMNS, rows)


def flash_row(summary_json: Path) -> dict[str, object]:
    data = json.loads(Path(summary_json).read_text())
    try:
        write = data["requests"]["write"]
        flash = data["flash"]
        return {
            "host_write_requests": write["count"],
            "host_write_bytes": write["bytes"],
            "flash_bytes_written": flash["bytes_written"],
            "flash_page_programs": flash["page_programs"],
            "waf": flash["waf"],
            # janusdL's REMAPs move mapping entries only; their cost is translation writes.
            "remapped_pages": flash["remapped_pages"],
            "translation_page_writes": data["translation"]["page_writes"],
        }
    except (KeyError, TypeError) as error:
        raise ValueError(f"{summary_json}: not an ftl-sim summary (no {error})") from None


def flash_table(runs: list[tuple[dict[str, str], Path]], out: Path) -> None:
    keys: list[str] = []
    rows = []
    for label, summary in runs:
        keys += [k for k in label if k not in keys]
        rows.append({**label, **flash_row(summary)})
    write_table(out, tuple(keys) + FLASH_COLUMNS, rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    dof = commands.add_parser("dof", help="per-file DoF, SQLite kind, bytes past EOF")
    dof.add_argument("--run", nargs=2, action="append", required=True)
    dof.add_argument("--out", type=Path, required=True)
    summary = commands.add_parser("prealloc-summary", help="TMC Fig. 16 per group")
    summary.add_argument("--dof", type=Path, required=True)
    summary.add_argument("--out", type=Path, required=True)
    flash = commands.add_parser("flash", help="host and flash writes of ftl-sim replays")
    flash.add_argument("--run", nargs=2, action="append", required=True)
    flash.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    try:
        if args.command == "prealloc-summary":
            prealloc_summary(args.dof, args.out)
            return 0
        runs = [(parse_label(label), Path(path)) for label, path in args.run]
        if args.command == "dof":
            dof_table(runs, args.out)
        else:
            flash_table(runs, args.out)
    except (SnapshotError, ValueError, OSError) as error:
        print(f"treatment_tables: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
