"""The Jinja2 templates of the generated Markdown pages (mobifrag/report/templates/docs/):
docs/appendix.md, docs/figures.md, docs/artifact-appendix.md and README's verdict counts.

The templates hold each page's prose and layout; the modules that call `render` gather
the values. Markdown is not escaped; a value a template names but is not given fails
(StrictUndefined), naming the template and its line. Three filters: `cell` (a value on one
line, its pipes escaped, as a table cell or a list item holds it), `links` (links to
headings, comma separated) and `table` (rows laid out as a Markdown table by tabulate,
the header given as arguments).
"""

from __future__ import annotations

import traceback
from collections.abc import Iterable, Sequence
from functools import lru_cache
from pathlib import Path

from jinja2 import Environment, PackageLoader, StrictUndefined, UndefinedError

from mobifrag import REPO
from mobifrag.report.markdown import markdown_table

FOLDER = "templates/docs"
SUFFIX = ".md.j2"


def cell(text: object) -> str:
    """A value on one line with its pipes escaped."""
    return " ".join(str(text).split()).replace("|", "\\|")


def links(anchors: Iterable[str], page: str = "") -> str:
    """Links to the headings `anchors` of `page` (this page where ""), comma separated."""
    return ", ".join(f"[{a}]({page}#{a})" for a in anchors)


def table(rows: Iterable[Sequence[object]], *header: str) -> str:
    return "\n".join(markdown_table(header, rows))


def template_environment(folder: str, filters: dict, **options) -> Environment:
    """The templates of mobifrag/report/<folder>: a value a template names but is not
    given fails, block tags leave no blank lines; `options` are Jinja2's (escaping)."""
    env = Environment(
        loader=PackageLoader("mobifrag.report", folder),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        **options,
    )
    env.filters.update(filters)
    return env


@lru_cache(maxsize=1)
def environment() -> Environment:
    """The docs pages' templates: Markdown, nothing escaped."""
    filters = {"cell": cell, "table": table, "links": links}
    return template_environment(FOLDER, filters, autoescape=False, keep_trailing_newline=True)


def template_line(error: BaseException) -> str:
    """`<template file>:<line>` of the innermost template frame of the error, or ""."""
    frames = [f for f in traceback.extract_tb(error.__traceback__) if f.filename.endswith(SUFFIX)]
    if not frames:
        return ""
    path = Path(frames[-1].filename)
    return f"{path.relative_to(REPO) if path.is_relative_to(REPO) else path}:{frames[-1].lineno}"


def render(name: str, **context: object) -> str:
    """The text template `name` writes from `context`, ending in one newline."""
    try:
        text = environment().get_template(name).render(**context)
    except UndefinedError as error:
        where = template_line(error) or name
        raise UndefinedError(f"{where} (rendering {name}): {error.message}") from error
    return text.rstrip() + "\n"
