"""A Mobibench-like SQLite insert benchmark as an `.iotrace` (TMC §6.1.2, Fig. 15).

    python -m mobifrag.insert_benchmark --threads 5 --journal wal --inserts 200 \
        --row-bytes 100 --out wal-threads-5.iotrace

Mobibench's "insert" test: THREADS threads, each inserting into its own database, one
row per transaction (autocommit), with `PRAGMA synchronous=FULL` (the agent's SQLite
connections use it) in one journal mode. Thread i writes `mobibench/db-<i>.db`; the
agent runs every thread concurrently, so the databases (and journals) grow side by side.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from mobifrag.tracegen.iotrace import Op, make_op, write_trace

JOURNAL_MODES = ("delete", "truncate", "persist", "wal")
DIRECTORY = "mobibench"


def database_path(thread: int) -> str:
    return f"{DIRECTORY}/db-{thread}.db"


def insert_ops(threads: int, journal: str, inserts: int, row_bytes: int) -> list[Op]:
    """Every thread's `sql ... insert 1 BYTES` lines, one transaction per row."""
    if threads < 1 or inserts < 1 or row_bytes < 1:
        raise ValueError("threads, inserts and row bytes must be positive")
    if journal not in JOURNAL_MODES:
        raise ValueError(f"journal mode {journal!r} is not one of {', '.join(JOURNAL_MODES)}")
    ops = [make_op(0, t, "mkdir", DIRECTORY) for t in range(threads)]
    for thread in range(threads):
        path = database_path(thread)
        ops += [
            make_op(1 + i, thread, "sql", path, journal, "insert", 1, row_bytes)
            for i in range(inserts)
        ]
    return ops


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--threads", type=int, required=True)
    parser.add_argument("--journal", choices=JOURNAL_MODES, required=True)
    parser.add_argument("--inserts", type=int, required=True, help="transactions per thread")
    parser.add_argument("--row-bytes", type=int, required=True, help="blob bytes per row")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    try:
        ops = insert_ops(args.threads, args.journal, args.inserts, args.row_bytes)
    except ValueError as error:
        print(f"insert_benchmark: {error}", file=sys.stderr)
        return 1
    comment = (
        f"Mobibench-like insert: {args.threads} threads x {args.inserts} one-row "
        f"transactions of {args.row_bytes} bytes, journal_mode={args.journal}"
    )
    write_trace(args.out, ops, comments=[comment])
    print(json.dumps({"ops": len(ops), "threads": args.threads, "journal": args.journal}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
