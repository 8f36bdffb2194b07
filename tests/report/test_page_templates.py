"""The generated Markdown pages' templates (mobifrag/report/page_templates.py)."""

import re
import subprocess

import pytest
from jinja2 import UndefinedError

from conftest import REPO
from mobifrag.report import page_templates

FOLDER = REPO / "mobifrag" / "report" / page_templates.FOLDER


def test_a_variable_the_page_is_not_given_fails_naming_the_template_and_line():
    with pytest.raises(UndefinedError) as raised:
        page_templates.render("figures.md.j2", sources="`x`")
    assert re.fullmatch(
        r"mobifrag/report/templates/docs/figures\.md\.j2:\d+ \(rendering figures\.md\.j2\): "
        r"'count' is undefined",
        str(raised.value),
    )


def test_a_missing_variable_of_an_included_template_names_both():
    with pytest.raises(UndefinedError) as raised:
        page_templates.render("appendix.md.j2")
    assert str(raised.value).startswith(
        "mobifrag/report/templates/docs/header.md.j2:1 (rendering appendix.md.j2): "
    )


def test_every_template_in_the_folder_is_found_by_the_loader():
    on_disk = sorted(p.name for p in FOLDER.glob(f"*{page_templates.SUFFIX}"))
    assert on_disk and page_templates.environment().list_templates() == on_disk


def test_every_template_is_tracked_so_the_release_archive_carries_it():
    # `make dist` archives what git tracks (mobifrag/release.py); a template left
    # untracked would render here and be missing from the deposited archive.
    tracked = subprocess.run(
        ["git", "ls-files", str(FOLDER)], cwd=REPO, capture_output=True, text=True, check=True
    ).stdout.split()
    names = sorted(path.rsplit("/", 1)[-1] for path in tracked)
    assert names == page_templates.environment().list_templates()


def test_markdown_is_written_unescaped():
    template = page_templates.environment().from_string("{{ text }}")
    assert template.render(text="<b> & `a|b`") == "<b> & `a|b`"


def test_filters_write_cells_links_and_tables():
    env = page_templates.environment()
    text = env.from_string(
        '{{ "a |\n b" | cell }}; {{ ["x", "y"] | links("p.md") }}\n{{ rows | table("k", "v") }}'
    ).render(rows=[("a", "1.50")])
    assert text.splitlines() == [
        "a \\| b; [x](p.md#x), [y](p.md#y)",
        "| k   | v    |",
        "|-----|------|",
        "| a   | 1.50 |",
    ]


def test_a_page_ends_in_one_newline():
    assert page_templates.render("header.md.j2", sources="s").endswith("page. -->\n")
