"""Check the papers' claims (config/claims.yaml) against one run's result tables.

    python -m mobifrag.report.claims --claims config/claims.yaml --results results/DEV/SCALE \
        --platform qemu --markdown claims.md --csv claims.csv [--check NAME]

A claim names a measure (a statistic of one column of a result table, rows filtered by
other columns and optionally to the last or first value of one, e.g. the last day,
optionally divided by a second measure), the paper's value, the band of measured values
that reproduces it and the basis of the measurement (layout, count, modeled time, ...).
A table with a `rep` column holds independent repetitions of its experiment: the
statistic is taken per repetition and judged by its median and bootstrap interval
(mobifrag/report/verdict.py). A claim whose table is missing is "not measured", never a failure
of the checker, so a partial run still gets a report.

A check (`checks:` in the claims file) names a set of claims that must all be
reproduced: with --check NAME only those are reported, and the exit status is 1 unless
every one of them is, the message naming each that is not.
"""

from __future__ import annotations

import argparse
import csv
import math
import statistics
import sys
from collections import defaultdict
from dataclasses import dataclass, replace
from pathlib import Path

from mobifrag import REPO
from mobifrag.report import reasons
from mobifrag.report.markdown import markdown_table
from mobifrag.report.on_hardware import TwinError, as_judged, check_twins
from mobifrag.report.verdict import (
    BEYOND_PLATFORM,
    CALIBRATED,
    INCONCLUSIVE,
    NOT_JUDGED,
    NOT_MEASURED,
    NOT_REACHED,
    NOT_REPRODUCED,
    REPRODUCED,
    VERDICTS,
    Band,
    BandError,
    Measurement,
    band,
    judge,
)
from mobifrag.workflow.atomic import write_table
from mobifrag.workflow.claim_tables import (
    EVIDENCE,
    ClaimsError,
    checks_of,
    kind,
    read_claims_file,
)

STATISTICS = {
    "mean": statistics.fmean,
    "median": statistics.median,
    "min": min,
    "max": max,
    "sum": sum,
    "count": len,
    "share_above_1": lambda values: sum(v > 1 for v in values) / len(values),
}

# Statistics that compare each value with the measure's `threshold`.
THRESHOLD_STATISTICS = {
    "share_above": lambda values, t: sum(v > t for v in values) / len(values),
    "share_at_least": lambda values, t: sum(v >= t for v in values) / len(values),
}

# Bases whose values a platform cannot vouch for: emulator wall time says nothing about a
# phone (a file-backed virtio disk behind the host's page cache), so on an emulator it is
# shown, never judged.
UNJUDGED_BASES = {"qemu": {"emulator_wall"}, "adb": set()}

# The column that numbers a table's independent repetitions of its experiment.
REPETITION = "rep"

__all__ = [
    "CALIBRATED",
    "INCONCLUSIVE",
    "NOT_JUDGED",
    "NOT_MEASURED",
    "NOT_REACHED",
    "NOT_REPRODUCED",
    "BEYOND_PLATFORM",
    "REPRODUCED",
    "ClaimsError",
    "Verdict",
    "check",
    "load_checks",
    "load_claims",
    "main",
]


@dataclass(frozen=True)
class Verdict:
    claim: dict
    measurement: Measurement | None
    verdict: str
    note: str = ""
    interval: tuple[float, float] | None = None
    undefined: str = ""  # the runs left out: their ratio divides by 0

    @property
    def measured(self) -> float | None:
        return None if self.measurement is None else self.measurement.point


@dataclass(frozen=True)
class Outcome:
    """A measure's value per repetition, or why there is none."""

    values: dict[str | None, float]
    missing: str = ""  # the table that does not exist yet
    unreached: str = ""  # why the regime the measure needs did not occur
    undefined: str = ""  # the runs whose ratio divides by 0, left out of values


def load_claims(path: Path) -> list[dict]:
    return load_claims_file(path)["claims"]


def load_checks(path: Path) -> dict[str, list[dict]]:
    """Check name → its claims (mobifrag/workflow/claim_tables.py, checks_of)."""
    return checks_of(load_claims_file(path), path)


def load_claims_file(path: Path) -> dict:
    """The claims file as planning reads it, each claim's kind, band and twins checked
    as judging needs them."""
    data = read_claims_file(path)
    for claim in data["claims"]:
        if kind(claim) != EVIDENCE and not claim.get("kind_reason", "").strip():
            raise ClaimsError(
                f"{path}: claim {claim['id']}: kind {kind(claim)} needs a kind_reason "
                "saying why it is not evidence"
            )
        try:
            band(claim["reproduced_if"], claim.get("paper_value"))
            check_twins(claim)
        except (BandError, TwinError) as error:
            raise ClaimsError(f"{path}: claim {claim['id']}: {error}") from None
    return data


def read_rows(table: Path, needed: list[str]) -> tuple[list[dict], bool]:
    """The table's rows and whether it numbers repetitions; ClaimsError naming the file
    and line for a table that cannot be read."""
    try:
        with open(table, newline="") as handle:
            reader = csv.DictReader(handle)
            columns = reader.fieldnames or []
            missing = [c for c in needed if c not in columns]
            if missing:
                raise ClaimsError(f"{table}: no column {', '.join(missing)}")
            rows = list(reader)
    except (OSError, UnicodeDecodeError, csv.Error) as error:
        raise ClaimsError(f"{table}: {error}") from None
    for line, row in enumerate(rows, start=2):
        if None in row or any(row[c] is None for c in needed):
            raise ClaimsError(f"{table}:{line}: row has {len(row)} fields, header has more")
    return rows, REPETITION in columns


def number(table: Path, line: int, column: str, text: str) -> float:
    """A cell's finite number; ClaimsError naming the file and line otherwise (a NaN or an
    infinity is a damaged measurement, not one outside the band)."""
    try:
        value = float(text)
    except ValueError:
        raise ClaimsError(f"{table}:{line}: {column} is {text!r}, not a number") from None
    if not math.isfinite(value):
        raise ClaimsError(f"{table}:{line}: {column} is {text!r}, not a finite number")
    return value


def column_values(results: Path, measure: dict) -> dict[str | None, list[float]] | None:
    """The selected column's numeric values per repetition (key None in a table without
    repetitions); None when the table does not exist yet."""
    table = results / measure["table"]
    if not table.is_file():
        return None
    where = {k: str(v) for k, v in measure.get("where", {}).items()}
    exclude = {k: str(v) for k, v in measure.get("exclude", {}).items()}
    last, first, within = measure.get("last"), measure.get("first"), measure.get("within")
    needed = [measure["column"], *where, *exclude, *[c for c in (last, first) if c]]
    if within:
        needed += ["path", within]
    rows, repeated = read_rows(table, needed)
    selected = [
        (line, r)
        for line, r in enumerate(rows, start=2)
        if all(r[k] == v for k, v in where.items())
        and not any(r[k] == v for k, v in exclude.items())
        and (not within or r[within] in r["path"])
    ]
    by_rep: dict[str | None, list[tuple[int, dict]]] = defaultdict(list)
    for line, row in selected:
        by_rep[row[REPETITION] if repeated else None].append((line, row))
    values = {}
    for rep, rep_rows in by_rep.items():
        for column, pick in ((last, max), (first, min)):
            if column and rep_rows:
                chosen = pick(number(table, n, column, r[column]) for n, r in rep_rows)
                rep_rows = [(n, r) for n, r in rep_rows if float(r[column]) == chosen]
        col = measure["column"]
        values[rep] = [number(table, n, col, r[col]) for n, r in rep_rows if r[col] != "NA"]
    return values


def statistic(measure: dict, values: list[float]) -> float:
    name = measure.get("stat", "mean")
    if name in THRESHOLD_STATISTICS:
        return THRESHOLD_STATISTICS[name](values, measure["threshold"])
    return STATISTICS[name](values)


def measure_outcome(results: Path, measure: dict) -> Outcome:
    """The measure's statistic per repetition; a ratio pairs repetitions by number, and
    a denominator from a table without repetitions divides every one."""
    per_rep = column_values(results, measure)
    if per_rep is None:
        return Outcome({}, missing=measure["table"])
    values = {rep: statistic(measure, v) for rep, v in per_rep.items() if v}
    if "relative_to" not in measure or not values:
        return Outcome(values)
    base = measure_outcome(results, measure["relative_to"])
    if base.missing or base.unreached:
        return base
    ratios, zero = {}, []
    for rep, value in values.items():
        denominator = base.values.get(rep, base.values.get(None))
        if denominator is None:
            continue
        if denominator == 0:
            zero.append(rep)
        else:
            ratios[rep] = value / denominator
    if not zero:
        return Outcome(ratios)
    divisor = f"{measure['relative_to']['column']} of {measure['relative_to']['table']}"
    if not ratios:
        return Outcome({}, unreached=f"{divisor} is 0")
    runs = "run" if len(zero) == 1 else "runs"
    return Outcome(ratios, undefined=f"{len(zero)} {runs} left out: {divisor} is 0 there")


def regime_unreached(results: Path, claim: dict, key: str = "regime") -> str:
    """Why the regime the claim needs did not occur (e.g. no GC ran), or ''; with key
    platform_limit, why the platform's block stream cannot show the effect."""
    regime = claim.get(key)
    if regime is None:
        return ""
    outcome = measure_outcome(results, regime["measure"])
    if outcome.missing or outcome.unreached or not outcome.values:
        return outcome.unreached or f"needs {regime['needs']}, not measured"
    seen = statistics.median(outcome.values.values())
    if band(regime["reached_if"], None).contains(seen):
        return ""
    return f"needs {regime['needs']}; measured {fmt(seen)}"


def judge_claim(claim: dict, results: Path, platform: str) -> Verdict:
    claim = as_judged(claim, platform)
    outcome = measure_outcome(results, claim["measure"])
    if outcome.missing:
        return Verdict(claim, None, NOT_MEASURED, f"needs {outcome.missing}")
    if outcome.unreached:
        return Verdict(claim, None, NOT_REACHED, outcome.unreached)
    if not outcome.values:
        return Verdict(claim, None, NOT_MEASURED, "no rows match the measure")
    measurement = Measurement(tuple(outcome.values[k] for k in sorted(outcome.values, key=str)))
    interval = measurement.interval(seed=claim["id"])
    verdict = judged(claim, results, platform, measurement, interval)
    return replace(verdict, undefined=outcome.undefined)


def judged(
    claim: dict,
    results: Path,
    platform: str,
    measurement: Measurement,
    interval: tuple[float, float],
) -> Verdict:
    """The verdict on a measured claim: beyond the platform, its regime not reached,
    calibrated, not judged on this platform, or judged against its band."""
    beyond = regime_unreached(results, claim, "platform_limit")
    if beyond:
        return Verdict(claim, measurement, BEYOND_PLATFORM, beyond, interval)
    unreached = regime_unreached(results, claim)
    if unreached:
        return Verdict(claim, measurement, NOT_REACHED, unreached, interval)
    if claim["basis"] == "calibrated":
        note = "a number the model was fitted to: reported, not counted"
        return Verdict(claim, measurement, CALIBRATED, note, interval)
    if claim["basis"] in UNJUDGED_BASES[platform]:
        note = f"{claim['basis']} on a {platform} platform: shown, not judged"
        return Verdict(claim, measurement, NOT_JUDGED, note, interval)
    accepted = band(claim["reproduced_if"], claim.get("paper_value"))
    return Verdict(claim, measurement, judge(accepted, interval), "", interval)


def check(claims: list[dict], results: Path, platform: str = "qemu") -> list[Verdict]:
    return [judge_claim(claim, results, platform) for claim in claims]


def fmt(value: float | None) -> str:
    return "—" if value is None else f"{value:.4g}"


def describe_band(accepted: Band) -> str:
    if accepted.low == -accepted.high == -float("inf"):
        return "any"
    if accepted.low == -float("inf"):
        return f"{'<' if accepted.high_open else '≤'} {fmt(accepted.high)}"
    if accepted.high == float("inf"):
        return f"{'>' if accepted.low_open else '≥'} {fmt(accepted.low)}"
    return f"[{fmt(accepted.low)}, {fmt(accepted.high)}]"


def claim_band(claim: dict) -> Band:
    return band(claim["reproduced_if"], claim.get("paper_value"))


def describe_measured(v: Verdict) -> str:
    if v.measurement is None:
        return "—"
    low, high = v.interval
    n = v.measurement.repetitions
    spread = "" if low == high else f" [{fmt(low)}, {fmt(high)}]"
    notes = "; ".join(filter(None, (reasons.spread_note(n), v.undefined)))
    return f"{fmt(v.measured)}{spread} ({notes})"


def evidence(verdicts: list[Verdict]) -> list[Verdict]:
    return [v for v in verdicts if kind(v.claim) == EVIDENCE]


def summary_line(verdicts: list[Verdict]) -> str:
    """The evidence claims' count per verdict, and how many of the others are apart."""
    counted = evidence(verdicts)
    counts = [(name, sum(v.verdict == name for v in counted)) for name in VERDICTS]
    listed = ", ".join(f"{n} {name}" for name, n in counts if n) or "none"
    line = f"{len(counted)} evidence claims: {listed}."
    others = [kind(v.claim) for v in verdicts if kind(v.claim) != EVIDENCE]
    if others:
        kinds = ", ".join(f"{others.count(k)} {k}" for k in sorted(set(others)))
        line += f" Not counted: {kinds} (listed apart)."
    return line


def basis_table(verdicts: list[Verdict]) -> list[str]:
    bases = sorted({v.claim["basis"] for v in verdicts})
    rows = []
    for basis in bases:
        of_basis = [v.verdict for v in verdicts if v.claim["basis"] == basis]
        rows.append((basis, *(of_basis.count(name) for name in VERDICTS)))
    return markdown_table(("basis", *VERDICTS), rows)


def count_table(title: str, groups: dict) -> list[str]:
    """Evidence claims' verdict counts per group (a paper, a check): one row each."""
    shown = [name for name in VERDICTS if any(g[name] for g in groups.values())]
    shown += sorted({k for g in groups.values() for k in g} - set(VERDICTS))
    rows = [
        (name, *(counts[v] for v in shown), sum(counts.values())) for name, counts in groups.items()
    ]
    return markdown_table((title, *shown, "all"), rows)


def misses(verdicts: list[Verdict]) -> list[str]:
    """Every evidence claim not reproduced, with what the run and the claims file say
    about it (mobifrag/report/reasons.py)."""
    shared = reasons.shared_changes(v.claim for v in verdicts)
    rows = [
        (v, row)
        for v, row in zip(verdicts, csv_rows(verdicts), strict=True)
        if reasons.reason(row, v.claim, shared)
    ]
    if not rows:
        return []
    lines = [
        "## Not reproduced, and why",
        "",
        "Each evidence claim whose verdict is not reproduced: what the run measured against",
        "the band, or why it could not judge, and the claim's last recorded change of its",
        "own (`history:` in config/claims.yaml), then how many changes recorded in other",
        "claims too (a device profile's, a patch's) followed.",
        "Under each claim not reproduced, its diagnosis (`diagnosis:` in the claims file):",
        f'the cause and the measurement behind it, or "{reasons.UNDIAGNOSED}".',
        "",
        *cause_counts(rows),
    ]
    for v, row in rows:
        why = reasons.reason(row, v.claim, shared)
        lines.append(f"- **{v.claim['id']}** ({v.verdict}): {why}")
        found = reasons.diagnosis(row, v.claim)
        if found:
            lines.append(f"  - {reasons.diagnosis_text(found)}")
    return lines


def cause_counts(rows: list[tuple[Verdict, dict]]) -> list[str]:
    """A table of the claims not reproduced by their diagnosis's cause (none if no claim
    was not reproduced)."""
    found = [reasons.diagnosis(row, v.claim) for v, row in rows]
    counts = reasons.by_cause([d for d in found if d])
    if not counts:
        return []
    return [*markdown_table(("cause", "not reproduced"), counts.items()), ""]


def verdict_text(v: Verdict) -> str:
    return v.verdict + (f": {v.note}" if v.note and v.verdict != REPRODUCED else "")


EVIDENCE_COLUMNS = ("id", "claim", "source", "figure", "basis", "paper", "band", "measured")


def evidence_row(v: Verdict) -> tuple[str, ...]:
    c = v.claim
    return (
        c["id"],
        c["claim"],
        c["source"],
        c["figure"],
        c["basis"],
        fmt(c.get("paper_value")),
        describe_band(claim_band(c)),
        describe_measured(v),
        verdict_text(v),
    )


def evidence_rows(verdicts: list[Verdict]) -> list[str]:
    return markdown_table((*EVIDENCE_COLUMNS, "verdict"), map(evidence_row, verdicts))


def apart_rows(verdicts: list[Verdict]) -> list[str]:
    lines = [
        "## Not counted: mechanism, input and calibrated claims",
        "",
        "Each checks something the study's own design or inputs decide, or a number the",
        "model was fitted to; shown for completeness, never counted as evidence.",
        "",
    ]
    return lines + markdown_table(
        ("id", "kind", "why not evidence", "band", "measured", "verdict"),
        map(apart_row, verdicts),
    )


def apart_row(v: Verdict) -> tuple[str, ...]:
    c = v.claim
    return (
        c["id"],
        kind(c),
        c.get("kind_reason", ""),
        describe_band(claim_band(c)),
        describe_measured(v),
        verdict_text(v),
    )


def scope_rows(scope: list[dict]) -> list[str]:
    lines = [
        "## Out of scope",
        "",
        "The papers' results the study does not judge, and why.",
        "",
    ]
    rows = [(s["source"], s["result"], s["reason"]) for s in scope]
    return lines + markdown_table(("source", "result", "why"), rows)


def markdown(
    verdicts: list[Verdict],
    title: str,
    scope: list[dict] = (),
    checks: dict[str, list[dict]] | None = None,
) -> str:
    counted = evidence(verdicts)
    apart = [v for v in verdicts if kind(v.claim) != EVIDENCE]
    rows = csv_rows(counted)
    lines = [
        f"# Claims: {title}",
        "",
        summary_line(verdicts),
        "",
        "Measured: the median over repetitions, its 95 % bootstrap interval, and n, the",
        "number of repetitions (one run has no interval; with two or three, the interval",
        "is their range). Reproduced: the interval lies inside the band; inconclusive:",
        "it overlaps an edge; not reproduced: it lies outside.",
        "",
        *basis_table(counted),
        "",
        *count_table("paper", reasons.by_paper(rows)),
        "",
    ]
    if checks:
        lines += [*count_table("check", reasons.by_check(rows, checks)), ""]
    lines += evidence_rows(counted)
    missed = misses(counted)
    if missed:
        lines += ["", *missed]
    if apart:
        lines += ["", *apart_rows(apart)]
    if scope:
        lines += ["", *scope_rows(scope)]
    return "\n".join(lines) + "\n"


def failures(verdicts: list[Verdict]) -> list[str]:
    """One line per verdict that is not `reproduced`, saying what was measured."""
    lines = []
    for v in verdicts:
        if v.verdict == REPRODUCED:
            continue
        needs = describe_band(claim_band(v.claim))
        seen = (
            v.note if v.measurement is None else f"measured {describe_measured(v)}, needs {needs}"
        )
        lines.append(f"{v.claim['id']}: {v.verdict} ({seen})")
    return lines


def csv_rows(verdicts: list[Verdict]) -> list[dict]:
    def na(value):
        return "NA" if value is None else f"{value:.6g}"

    rows = []
    for v in verdicts:
        accepted = claim_band(v.claim)
        low, high = v.interval or (None, None)
        rows.append(
            {
                "id": v.claim["id"],
                "figure": v.claim["figure"],
                "basis": v.claim["basis"],
                "paper_value": na(v.claim.get("paper_value")),
                "band_low": na(accepted.low),
                "band_high": na(accepted.high),
                "measured": na(v.measured),
                "ci_low": na(low),
                "ci_high": na(high),
                "repetitions": 0 if v.measurement is None else v.measurement.repetitions,
                "verdict": v.verdict,
                "kind": kind(v.claim),
                "note": "; ".join(filter(None, (v.note, v.undefined))),
            }
        )
    return rows


CSV_COLUMNS = (
    "id",
    "figure",
    "basis",
    "paper_value",
    "band_low",
    "band_high",
    "measured",
    "ci_low",
    "ci_high",
    "repetitions",
    "verdict",
    "kind",
    "note",
)


def selected_claims(path: Path, check_name: str | None) -> list[dict]:
    if check_name is None:
        return load_claims(path)
    checks = load_checks(path)
    if check_name not in checks:
        known = ", ".join(sorted(checks)) or "none"
        raise ClaimsError(f"{path}: no check {check_name!r} (checks: {known})")
    return checks[check_name]


def write_markdown(path: Path, text: str) -> None:
    partial = path.with_name(path.name + ".partial")
    partial.write_text(text)
    partial.replace(path)


def list_checks(path: Path) -> int:
    try:
        names = load_checks(path)
    except ClaimsError as error:
        print(f"claims: {error}", file=sys.stderr)
        return 1
    print("\n".join(names))
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Check the papers' claims against a run.")
    parser.add_argument("--claims", type=Path, default=REPO / "config" / "claims.yaml")
    parser.add_argument("--results", type=Path)
    parser.add_argument(
        "--platform",
        choices=sorted(UNJUDGED_BASES),
        default="qemu",
        help="the device profile's platform type: emulator wall time is not judged on qemu",
    )
    parser.add_argument("--markdown", type=Path)
    parser.add_argument("--csv", type=Path)
    parser.add_argument("--list-checks", action="store_true", help="print the checks' names")
    parser.add_argument("--check", help="only this check's claims; fail unless all hold")
    args = parser.parse_args(argv)
    if args.list_checks:
        return list_checks(args.claims)
    if not (args.results and args.markdown and args.csv):
        parser.error("--results, --markdown and --csv are needed to judge a run")
    try:
        verdicts = check(selected_claims(args.claims, args.check), args.results, args.platform)
    except ClaimsError as error:
        print(f"claims: {error}", file=sys.stderr)
        return 1
    write_table(args.csv, CSV_COLUMNS, csv_rows(verdicts))
    title = str(args.results) + (f", check {args.check}" if args.check else "")
    scope = [] if args.check else load_claims_file(args.claims).get("scope", [])
    checks = {} if args.check else load_checks(args.claims)
    write_markdown(args.markdown, markdown(verdicts, title, scope, checks))
    print(f"claims: {summary_line(verdicts)}", file=sys.stderr)
    failed = failures(verdicts) if args.check else []
    if failed:
        lines = "\n  ".join(failed)
        print(f"claims: check {args.check} does not hold:\n  {lines}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
