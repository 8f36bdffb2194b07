"""Estimates used to ground the models in the seeds' numbers (see ASSUMPTIONS.md).

- write system calls of a trace, counting what SQLite issues for each transaction,
  to compare with the Facebook and Twitter traces of the ARS paper (14,429 and 6,029);
- concurrency of SQLite writer threads (TMC §4.3: Facebook's 18);
- the share of files of at most 4 KiB (Ext4-tuning paper: about half).
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from mobifrag.workloads.generate import PAGE
from mobifrag.workloads.iotrace import Op

# Rollback journals: journal header, then page number + page + checksum per page, then
# the database pages themselves. WAL: frame header + page per page.
WRITES_PER_JOURNAL_PAGE = 3


def sql_pages(rows: int, nbytes: int) -> int:
    """Pages a transaction dirties: page 1 (change counter) + the rows' pages."""
    return 1 + math.ceil(rows * (nbytes + 16) / PAGE) if rows else 1


def sql_writes(journal: str, kind: str, rows: int, nbytes: int) -> int:
    if kind == "select":
        return 0
    pages = sql_pages(rows, nbytes)
    if journal == "wal":
        return 2 * pages
    return 1 + WRITES_PER_JOURNAL_PAGE * pages + pages


def write_syscalls(ops: Iterable[Op]) -> int:
    total = 0
    for op in ops:
        if op.op in ("write", "append"):
            total += 1
        elif op.op == "sql":
            journal, kind, rows, nbytes = op.args
            total += sql_writes(journal, kind, rows, nbytes)
    return total


def max_concurrent_sql_writers(ops: Iterable[Op]) -> int:
    """Most threads whose spans of writing SQLite transactions overlap at one time."""
    spans: dict[int, list[int]] = {}
    for op in ops:
        if op.op == "sql" and op.args[1] != "select":
            span = spans.setdefault(op.thread, [op.time_us, op.time_us])
            span[0] = min(span[0], op.time_us)
            span[1] = max(span[1], op.time_us)
    events = []
    for start, end in spans.values():
        events.append((start, 1))
        events.append((end, -1))
    best = current = 0
    for _, change in sorted(events, key=lambda e: (e[0], -e[1])):
        current += change
        best = max(best, current)
    return best


def small_file_share(sizes: dict[str, int], limit: int = 4096) -> float:
    if not sizes:
        return 0.0
    return sum(1 for size in sizes.values() if size <= limit) / len(sizes)
