"""A Mobibench-like SQLite benchmark as an `.iotrace` (TMC §6.1.2, Fig. 15; ARS Fig. 6).

    python -m mobifrag.workloads.insert_benchmark --threads 5 --journal wal --inserts 200 \
        --row-bytes 100 --out wal-threads-5.iotrace [--kind update] [--reserved FILE]

Mobibench's insert (or update, delete) test: THREADS threads, each working on its own
database, one row per transaction (autocommit), with `PRAGMA synchronous=FULL` (the
agent's SQLite connections use it) in one journal mode. Thread i writes
`mobibench/db-<i>.db`; the agent runs every thread concurrently, so the databases (and
journals) grow side by side. An update or delete trace changes the oldest row per
transaction, so it runs after an insert trace that left the rows. `--reserved FILE`
lists the databases and their rollback journals, the files ARS reserves space for.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from mobifrag.workloads.iotrace import Op, make_op, write_trace

JOURNAL_MODES = ("delete", "truncate", "persist", "wal")
KINDS = ("insert", "update", "delete")
DIRECTORY = "mobibench"


def database_path(thread: int) -> str:
    return f"{DIRECTORY}/db-{thread}.db"


def insert_ops(
    threads: int, journal: str, inserts: int, row_bytes: int, kind: str = "insert"
) -> list[Op]:
    """Every thread's `sql ... KIND 1 BYTES` lines, one transaction per row."""
    if kind not in KINDS:
        raise ValueError(f"kind {kind!r} is not one of {', '.join(KINDS)}")
    if threads < 1 or inserts < 1 or row_bytes < 1:
        raise ValueError("threads, inserts and row bytes must be positive")
    if journal not in JOURNAL_MODES:
        raise ValueError(f"journal mode {journal!r} is not one of {', '.join(JOURNAL_MODES)}")
    ops = [make_op(0, t, "mkdir", DIRECTORY) for t in range(threads)]
    for thread in range(threads):
        path = database_path(thread)
        ops += [
            make_op(1 + i, thread, "sql", path, journal, kind, 1, row_bytes) for i in range(inserts)
        ]
    return ops


def reserved_files(threads: int, journal: str) -> list[str]:
    """The databases and their journals (a WAL database's `-wal`)."""
    suffix = "-wal" if journal == "wal" else "-journal"
    return [p for t in range(threads) for p in (database_path(t), database_path(t) + suffix)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--threads", type=int, required=True)
    parser.add_argument("--journal", choices=JOURNAL_MODES, required=True)
    parser.add_argument("--inserts", type=int, required=True, help="transactions per thread")
    parser.add_argument("--row-bytes", type=int, required=True, help="blob bytes per row")
    parser.add_argument("--kind", choices=KINDS, default="insert")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--reserved", type=Path, help="write the reserved-file list here")
    args = parser.parse_args(argv)
    try:
        ops = insert_ops(args.threads, args.journal, args.inserts, args.row_bytes, args.kind)
    except ValueError as error:
        print(f"insert_benchmark: {error}", file=sys.stderr)
        return 1
    comment = (
        f"Mobibench-like {args.kind}: {args.threads} threads x {args.inserts} one-row "
        f"transactions of {args.row_bytes} bytes, journal_mode={args.journal}"
    )
    write_trace(args.out, ops, comments=[comment])
    if args.reserved:
        files = reserved_files(args.threads, args.journal)
        args.reserved.write_text("".join(f"{path}\n" for path in files))
    print(json.dumps({"ops": len(ops), "threads": args.threads, "journal": args.journal}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
