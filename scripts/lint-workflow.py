#!/usr/bin/env python3
"""`snakemake --lint`, minus the one lint this project answers otherwise.

Snakemake asks every rule for a conda environment or a container. This project defines
its software by one Debian package list (bootstrap/debian-packages.txt, installed by
scripts/bootstrap.sh) and a Nix flake (flake.nix) instead: no conda channel or container
registry is reachable from its machines, so a conda env file could never be tested. That
one lint, matched by its exact title, is ignored with the reason printed once; every other
finding is printed (rule, file:line, title) and makes this exit 1.

Run from the repository root with the venv's python: `python scripts/lint-workflow.py`.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path

IGNORED_TITLE = "Specify a conda environment or container for each rule."
IGNORED_REASON = "software comes from bootstrap/debian-packages.txt and flake.nix, see README"

# Snakemake 9.27's CLI accepts `--lint json` but calls WorkflowApi.lint() without passing
# the format on, so the lints come out as text on stderr. This runs the same CLI with the
# format passed through, which prints {"snakefiles": [...], "rules": [...]} on stdout.
# Where the CLI passes it on itself, the wrapper changes nothing.
_LINT_JSON = """
import json
import sys
import snakemake.api

# A rule derived with `use rule` names its snakefile by a source-file object, which
# json cannot write; its path is what the report needs.
_dumps = json.dumps
json.dumps = lambda obj, *args, **kwargs: _dumps(
    obj, *args, default=lambda o: o.get_path_or_uri(secret_free=True), **kwargs
)
from snakemake.cli import main

_lint = snakemake.api.WorkflowApi.lint
snakemake.api.WorkflowApi.lint = lambda self, json=False: _lint(self, json=True)
sys.argv[0] = "snakemake"
main()
"""


def findings(report: dict) -> Iterator[tuple[str, str, str]]:
    """(rule, where, title) for every lint in a `snakemake --lint json` report.

    Snakefile-level lints have no rule ("-") and no line of their own (their title says
    the line); rule lints name the rule and its line in its snakefile.
    """
    for entry in report.get("snakefiles") or []:
        where = entry["for"]["snakefile"]
        for lint in entry["lints"]:
            yield "-", where, lint["title"]
    for entry in report.get("rules") or []:
        item = entry["for"]
        where = item["snakefile"]
        if item.get("line") is not None:
            where = f"{where}:{item['line']}"
        for lint in entry["lints"]:
            yield item["rule"], where, lint["title"]


def split(found: Iterable[tuple[str, str, str]]) -> tuple[list, list]:
    """(kept, ignored): ignored are exactly the conda-or-container lints."""
    kept, ignored = [], []
    for finding in found:
        (ignored if finding[2] == IGNORED_TITLE else kept).append(finding)
    return kept, ignored


def report_findings(report: dict, out=sys.stdout) -> int:
    """Print what remains of a lint report; 1 if anything does, else 0."""
    kept, ignored = split(findings(report))
    if ignored:
        print(
            f"snakemake --lint: ignoring {len(ignored)} x '{IGNORED_TITLE}': {IGNORED_REASON}",
            file=out,
        )
    for rule, where, title in kept:
        print(f"snakemake --lint: rule {rule} ({where}): {title}", file=out)
    if kept:
        print(f"snakemake --lint: {len(kept)} finding(s)", file=out)
        return 1
    print("snakemake --lint: clean", file=out)
    return 0


def run_lint(cwd: Path) -> dict:
    proc = subprocess.run(
        [sys.executable, "-c", _LINT_JSON, "--lint", "json"],
        cwd=cwd,
        capture_output=True,
        text=True,
    )
    try:
        report = json.loads(proc.stdout)
    except json.JSONDecodeError:
        sys.stderr.write(proc.stderr)
        sys.exit(f"snakemake --lint json (exit {proc.returncode}) printed no JSON report")
    if not isinstance(report, dict) or not {"snakefiles", "rules"} <= report.keys():
        sys.exit(f"snakemake --lint json printed an unexpected report: {proc.stdout[:200]}")
    return report


def main() -> int:
    repo = Path(__file__).resolve().parent.parent
    return report_findings(run_lint(repo))


if __name__ == "__main__":
    sys.exit(main())
