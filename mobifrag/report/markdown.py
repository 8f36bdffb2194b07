"""Markdown tables of the generated pages and reports, laid out by tabulate."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from tabulate import tabulate


def markdown_table(header: Sequence[str], rows: Iterable[Sequence[object]]) -> list[str]:
    """The lines of a GitHub-flavoured table. Cells are written as given: a cell that
    looks like a number keeps its digits (tabulate would reformat 1.50 as 1.5)."""
    text = tabulate(
        [[str(c) for c in row] for row in rows],
        headers=list(header),
        tablefmt="github",
        disable_numparse=True,
    )
    return text.splitlines()
