"""Verdicts whatever failed: the claims of a run judged from the tables that exist.

    python -m mobifrag.report.partial --device DEV --scale SCALE [--snakemake-log FILE]

`make reproduce` calls it when `snakemake all` ended with an error (one experiment's job
failed, so the `claims` rule, which needs every table, never ran). It writes
results/DEV/SCALE/claims.md and claims.csv from what exists: a claim whose table is
missing is "not measured", with the failed jobs of its experiment and their logs named
(from Snakemake's log of the run); the summary says how many jobs failed. When the run
got as far as its provenance record, report.html is written too. The exit status is
that of the judging, never a reason to hide the run's own failure (the caller keeps
Snakemake's status).
"""

from __future__ import annotations

import argparse
import re
import sys
from dataclasses import dataclass, replace
from pathlib import Path

from mobifrag import REPO
from mobifrag.report.claim_inputs import experiment_of
from mobifrag.report.claims import (
    CSV_COLUMNS,
    NOT_MEASURED,
    ClaimsError,
    Verdict,
    check,
    csv_rows,
    load_checks,
    load_claims_file,
    markdown,
    write_markdown,
)
from mobifrag.report.reference import reference_path
from mobifrag.workflow.atomic import write_table
from mobifrag.workflow.profiles import load_device
from mobifrag.workflow.stages import FIGURES, RESULTS, as_prose, run_of

ERROR = re.compile(r"^Error in rule (?P<rule>[A-Za-z0-9_]+):")
LOG = re.compile(r"^\s+log: (?P<logs>.+?)(?: \(check log file\(s\) for error details\))?$")


@dataclass(frozen=True)
class FailedJob:
    rule: str
    logs: str = ""


def failed_jobs(log_text: str) -> list[FailedJob]:
    """Each job Snakemake's log reports as failed, with its log files."""
    jobs: list[FailedJob] = []
    for line in log_text.splitlines():
        error = ERROR.match(line)
        if error:
            jobs.append(FailedJob(error.group("rule")))
            continue
        log = LOG.match(line)
        if log and jobs and not jobs[-1].logs:
            jobs[-1] = replace(jobs[-1], logs=log.group("logs"))
    return jobs


def latest_snakemake_log(since: float = 0.0, root: Path = REPO) -> Path | None:
    """The log of the latest Snakemake run that started after `since` (epoch seconds)."""
    logs = sorted((root / ".snakemake" / "log").glob("*.snakemake.log"))
    logs = [log for log in logs if log.stat().st_mtime >= since]
    return logs[-1] if logs else None


def rule_prefix(table: str) -> str:
    """The prefix of the rules of a table's experiment (results folder ars/eval →
    ars_eval_…), as rules/experiments/<experiment>.smk names them."""
    return experiment_of(table).replace("/", "_").replace("-", "_")


def explained(verdict: Verdict, failed: list[FailedJob]) -> Verdict:
    """A not-measured verdict with the failed jobs of its experiment named."""
    if verdict.verdict != NOT_MEASURED or not verdict.note.startswith("needs "):
        return verdict
    try:
        prefix = rule_prefix(verdict.note.removeprefix("needs "))
    except ValueError:
        return verdict
    causes = [j for j in failed if j.rule.startswith(prefix)]
    if not causes:
        return verdict
    named = "; ".join(f"{j.rule}" + (f" (log {j.logs})" if j.logs else "") for j in causes)
    return replace(verdict, note=f"{verdict.note}: failed {named}")


def judge_partial(
    claims_path: Path, results: Path, platform: str, failed: list[FailedJob]
) -> tuple[list[Verdict], list[dict]]:
    claims_file = load_claims_file(claims_path)
    verdicts = [explained(v, failed) for v in check(claims_file["claims"], results, platform)]
    return verdicts, claims_file.get("scope", [])


def failure_line(failed: list[FailedJob]) -> str:
    rules = ", ".join(sorted({j.rule for j in failed})) or "see Snakemake's log"
    return (
        f"The run did not finish: {len(failed)} job(s) failed ({rules}); "
        "the verdicts below are of the tables that exist."
    )


def write_report_html(results: Path, figures: Path, claims_path: Path) -> bool:
    """report.html when the run has a provenance record; whether it was written."""
    from mobifrag.report import html

    provenance = results / "provenance.json"
    if not provenance.is_file():
        return False
    charts = sorted(results.glob("claims-chart-*.png"))
    reference = reference_path(*run_of(results))
    args = [
        *("--claims-csv", str(results / "claims.csv"), "--claims", str(claims_path)),
        *("--provenance", str(provenance), "--registry", str(REPO / "paper-figures/registry.yaml")),
        *("--figures", str(figures), "--out", str(results / "report.html")),
        *(arg for chart in charts for arg in ("--chart", str(chart))),
        *(("--reference", str(reference)) if reference.is_file() else ()),
    ]
    return html.main(args) == 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Judge the claims of an unfinished run.")
    parser.add_argument("--device", required=True)
    parser.add_argument("--scale", required=True)
    parser.add_argument("--claims", type=Path, default=REPO / "config" / "claims.yaml")
    parser.add_argument("--snakemake-log", type=Path, help="default: the latest in .snakemake/log")
    parser.add_argument("--since", type=float, default=0.0, help="the run's start (epoch s)")
    parser.add_argument("--results", type=Path, help=f"default: {as_prose(RESULTS)}")
    parser.add_argument("--figures", type=Path, help=f"default: {as_prose(FIGURES)}")
    args = parser.parse_args(argv)
    results = args.results or REPO / RESULTS.format(device=args.device, scale=args.scale)
    figures = args.figures or REPO / FIGURES.format(device=args.device, scale=args.scale)
    log = args.snakemake_log or latest_snakemake_log(args.since)
    failed = failed_jobs(log.read_text(errors="replace")) if log and log.is_file() else []
    try:
        platform = load_device(args.device)["platform"]["type"]
        verdicts, scope = judge_partial(args.claims, results, platform, failed)
        checks = load_checks(args.claims)
    except (ClaimsError, ValueError, OSError) as error:
        print(f"partial: {error}", file=sys.stderr)
        return 1
    results.mkdir(parents=True, exist_ok=True)
    write_table(results / "claims.csv", CSV_COLUMNS, csv_rows(verdicts))
    lines = markdown(verdicts, f"{results} (unfinished run)", scope, checks).split("\n")
    lines[2] += " " + failure_line(failed)  # the summary line make reproduce prints
    write_markdown(results / "claims.md", "\n".join(lines))
    wrote_html = write_report_html(results, figures, args.claims)
    print(
        f"partial: wrote {results / 'claims.md'}, claims.csv"
        + (", report.html" if wrote_html else " (no report.html: no provenance.json yet)"),
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
