"""Check the papers' claims (config/claims.yaml) against one run's result tables.

    python -m mobifrag.claims --claims config/claims.yaml --results results/DEV/SCALE \
        --markdown claims.md --csv claims.csv [--check NAME]

A claim names a measure (a statistic of one column of a result table, rows filtered by
other columns and optionally to the last or first value of one, e.g. the last day,
optionally
divided by a second measure), the paper's value, and what
counts as reproduced. A claim whose table is missing is "not measured", never a failure
of the checker, so a partial run still gets a report.

A check (`checks:` in the claims file) names a set of claims that must all be
reproduced: with --check NAME only those are reported, and the exit status is 1 unless
every one of them is, the message naming each that is not.
"""

from __future__ import annotations

import argparse
import csv
import statistics
import sys
from dataclasses import dataclass
from pathlib import Path

import jsonschema
import yaml

from mobifrag.fragment_tables import write_table

REPO = Path(__file__).resolve().parent.parent
SCHEMA = REPO / "config" / "claims.schema.yaml"

STATISTICS = {
    "mean": statistics.fmean,
    "median": statistics.median,
    "min": min,
    "max": max,
    "sum": sum,
    "count": len,
    "share_above_1": lambda values: sum(v > 1 for v in values) / len(values),
}

REPRODUCED, NOT_REPRODUCED, NOT_MEASURED = "reproduced", "not reproduced", "not measured"


class ClaimsError(ValueError):
    """A claims file or result table that cannot be used; the message names it."""


@dataclass(frozen=True)
class Verdict:
    claim: dict
    measured: float | None
    verdict: str
    note: str = ""


def load_claims(path: Path) -> list[dict]:
    return load_claims_file(path)["claims"]


def load_checks(path: Path) -> dict[str, list[dict]]:
    """Check name → its claims, in the order the check lists them."""
    data = load_claims_file(path)
    by_id = {c["id"]: c for c in data["claims"]}
    checks = {}
    for name, ids in data.get("checks", {}).items():
        unknown = [i for i in ids if i not in by_id]
        if unknown:
            raise ClaimsError(f"{path}: check {name}: no claim {', '.join(unknown)}")
        checks[name] = [by_id[i] for i in ids]
    return checks


def load_claims_file(path: Path) -> dict:
    try:
        data = yaml.safe_load(Path(path).read_text())
    except (OSError, yaml.YAMLError) as error:
        raise ClaimsError(f"{path}: {error}") from None
    schema = yaml.safe_load(SCHEMA.read_text())
    errors = list(jsonschema.Draft202012Validator(schema).iter_errors(data))
    if errors:
        first = errors[0]
        where = "/".join(str(p) for p in first.absolute_path) or "(top level)"
        raise ClaimsError(f"{path}: {where}: {first.message}")
    ids = [c["id"] for c in data["claims"]]
    duplicates = sorted({i for i in ids if ids.count(i) > 1})
    if duplicates:
        raise ClaimsError(f"{path}: duplicate claim ids: {', '.join(duplicates)}")
    return data


def column_values(results: Path, measure: dict) -> list[float] | None:
    """The selected column's numeric values; None when the table does not exist yet."""
    table = results / measure["table"]
    if not table.is_file():
        return None
    where = {k: str(v) for k, v in measure.get("where", {}).items()}
    exclude = {k: str(v) for k, v in measure.get("exclude", {}).items()}
    last, first, within = measure.get("last"), measure.get("first"), measure.get("within")
    with open(table, newline="") as handle:
        reader = csv.DictReader(handle)
        needed = [measure["column"], *where, *exclude, *[c for c in (last, first) if c]]
        if within:
            needed += ["path", within]
        missing = [c for c in needed if c not in (reader.fieldnames or [])]
        if missing:
            raise ClaimsError(f"{table}: no column {', '.join(missing)}")
        rows = [
            r
            for r in reader
            if all(r[k] == v for k, v in where.items())
            and not any(r[k] == v for k, v in exclude.items())
            and (not within or r[within] in r["path"])
        ]
    for column, pick in ((last, max), (first, min)):
        if column and rows:
            chosen = pick(float(r[column]) for r in rows)
            rows = [r for r in rows if float(r[column]) == chosen]
    return [float(r[measure["column"]]) for r in rows if r[measure["column"]] != "NA"]


def measure_value(results: Path, measure: dict) -> float | None:
    values = column_values(results, measure)
    if not values:
        return None
    value = STATISTICS[measure.get("stat", "mean")](values)
    if "relative_to" in measure:
        base = measure_value(results, measure["relative_to"])
        return None if not base else value / base
    return value


def judge(measured: float, paper: float | None, rule: dict) -> bool:
    """Whether a measured value counts as reproducing the claim under `rule`."""
    if "greater_than" in rule:
        return measured > rule["greater_than"]
    if "less_than" in rule:
        return measured < rule["less_than"]
    if "between" in rule:
        low, high = rule["between"]
        return low <= measured <= high
    if paper is None:
        raise ClaimsError(f"rule {rule} compares with the paper's value, but the claim has none")
    if "ratio_band" in rule:
        low, high = rule["ratio_band"]
        return paper != 0 and low <= measured / paper <= high
    if "relative_tolerance" in rule:
        return abs(measured - paper) <= rule["relative_tolerance"] * abs(paper)
    if "absolute_tolerance" in rule:
        return abs(measured - paper) <= rule["absolute_tolerance"]
    raise ClaimsError(f"unknown reproduction rule {rule}")


def check(claims: list[dict], results: Path) -> list[Verdict]:
    verdicts = []
    for claim in claims:
        measured = measure_value(results, claim["measure"])
        if measured is None:
            verdicts.append(
                Verdict(claim, None, NOT_MEASURED, f"needs {claim['measure']['table']}")
            )
            continue
        ok = judge(measured, claim.get("paper_value"), claim["reproduced_if"])
        verdicts.append(Verdict(claim, measured, REPRODUCED if ok else NOT_REPRODUCED))
    return verdicts


def describe_rule(rule: dict) -> str:
    (kind, value), *_ = rule.items()
    names = {
        "greater_than": "> {}",
        "less_than": "< {}",
        "between": "in [{0[0]}, {0[1]}]",
        "ratio_band": "measured/paper in [{0[0]}, {0[1]}]",
        "relative_tolerance": "within ±{:.0%} of paper",
        "absolute_tolerance": "within ±{} of paper",
    }
    return names[kind].format(value)


def fmt(value: float | None) -> str:
    return "—" if value is None else f"{value:.4g}"


def markdown(verdicts: list[Verdict], title: str) -> str:
    counts = {v: sum(x.verdict == v for x in verdicts) for v in (REPRODUCED, NOT_REPRODUCED)}
    lines = [
        f"# Claims: {title}",
        "",
        f"{counts[REPRODUCED]} reproduced, {counts[NOT_REPRODUCED]} not reproduced, "
        f"{len(verdicts) - sum(counts.values())} not measured.",
        "",
        "| claim | source | figure | paper | measured | reproduced if | verdict |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for v in verdicts:
        c = v.claim
        lines.append(
            f"| {c['claim']} | {c['source']} | {c['figure']} | {fmt(c.get('paper_value'))} "
            f"| {fmt(v.measured)} | {describe_rule(c['reproduced_if'])} | {v.verdict} |"
        )
    return "\n".join(lines) + "\n"


def failures(verdicts: list[Verdict]) -> list[str]:
    """One line per verdict that is not `reproduced`, saying what was measured."""
    lines = []
    for v in verdicts:
        if v.verdict == REPRODUCED:
            continue
        rule = describe_rule(v.claim["reproduced_if"])
        seen = v.note if v.measured is None else f"measured {fmt(v.measured)}, needs {rule}"
        lines.append(f"{v.claim['id']}: {v.verdict} ({seen})")
    return lines


def selected_claims(path: Path, check_name: str | None) -> list[dict]:
    if check_name is None:
        return load_claims(path)
    checks = load_checks(path)
    if check_name not in checks:
        known = ", ".join(sorted(checks)) or "none"
        raise ClaimsError(f"{path}: no check {check_name!r} (checks: {known})")
    return checks[check_name]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Check the papers' claims against a run.")
    parser.add_argument("--claims", type=Path, default=REPO / "config" / "claims.yaml")
    parser.add_argument("--results", type=Path, required=True)
    parser.add_argument("--markdown", type=Path, required=True)
    parser.add_argument("--csv", type=Path, required=True)
    parser.add_argument("--check", help="only this check's claims; fail unless all hold")
    args = parser.parse_args(argv)
    try:
        verdicts = check(selected_claims(args.claims, args.check), args.results)
    except ClaimsError as error:
        print(f"claims: {error}", file=sys.stderr)
        return 1
    rows = [
        {
            "id": v.claim["id"],
            "figure": v.claim["figure"],
            "paper_value": "NA" if v.claim.get("paper_value") is None else v.claim["paper_value"],
            "measured": "NA" if v.measured is None else f"{v.measured:.6g}",
            "verdict": v.verdict,
        }
        for v in verdicts
    ]
    write_table(args.csv, ("id", "figure", "paper_value", "measured", "verdict"), rows)
    partial = args.markdown.with_name(args.markdown.name + ".partial")
    title = str(args.results) + (f", check {args.check}" if args.check else "")
    partial.write_text(markdown(verdicts, title))
    partial.replace(args.markdown)
    failed = failures(verdicts) if args.check else []
    if failed:
        lines = "\n  ".join(failed)
        print(f"claims: check {args.check} does not hold:\n  {lines}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
