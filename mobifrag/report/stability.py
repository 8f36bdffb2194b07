"""Whether the claims' verdicts survive a second, independent run of the study.

    python -m mobifrag.report.stability prepare --scale quick --out build/stability.yaml
    python -m mobifrag.report.stability compare FIRST/claims.csv SECOND/claims.csv

`prepare` writes a config file that adds the scale `<scale>-again`, a copy of the preset:
run under that name, every workload, platform run and table is made anew in folders of
its own, with the repetitions of each repeated experiment on fresh guests and with seeds
that follow the first study's (`repetition_seed_offset`). `compare`
lists every claim whose verdict differs between the two runs' claims.csv and fails when
one is reproduced in one run and not reproduced in the other: such a flip means a band
judged a value its interval could not decide, which the inconclusive verdict exists for.
"""

from __future__ import annotations

import argparse
import csv
import sys
from pathlib import Path

import yaml

from mobifrag.report.markdown import markdown_table
from mobifrag.report.verdict import NOT_REPRODUCED, REPRODUCED
from mobifrag.workflow.study_config import CONFIG, ConfigError, load_config

DECIDED = {REPRODUCED, NOT_REPRODUCED}


class StabilityError(ValueError):
    """An input that cannot be compared; the message names it."""


def again(scale: str) -> str:
    return f"{scale}-again"


def prepare(config: Path, scale: str, out: Path) -> None:
    data = load_config(config)
    if scale not in data["scales"]:
        raise StabilityError(f"{config}: no scale {scale!r}")
    out.parent.mkdir(parents=True, exist_ok=True)
    preset = dict(data["scales"][scale])
    # The second study's repetitions draw seeds of their own: after the first's.
    preset["repetition_seed_offset"] = preset.get("repetition_seed_offset", 0) + max(
        [preset["repetitions"], *preset.get("repetitions_of", {}).values()]
    )
    out.write_text(yaml.safe_dump({"scales": {again(scale): preset}}))


def verdicts(table: Path) -> dict[str, tuple[str, str]]:
    """Claim id → (verdict, measured) of one run's claims.csv."""
    try:
        with open(table, newline="") as handle:
            rows = list(csv.DictReader(handle))
    except (OSError, csv.Error, UnicodeDecodeError) as error:
        raise StabilityError(f"{table}: {error}") from None
    for line, row in enumerate(rows, start=2):
        if not row.get("id") or not row.get("verdict"):
            raise StabilityError(f"{table}:{line}: no id or verdict")
    return {r["id"]: (r["verdict"], value_text(r)) for r in rows}


def value_text(row: dict) -> str:
    """A claim's measured value as claims.csv gives it: with its interval and the number
    of repetitions where the table has them, so a flip shows how much data it rests on."""
    text = row.get("measured") or "NA"
    low, high = row.get("ci_low"), row.get("ci_high")
    single = row.get("repetitions") in ("0", "1")  # an interval of one point says nothing
    if not single and text != "NA" and {low, high}.isdisjoint({None, "", "NA"}):
        text += f" [{low}, {high}]"
    if row.get("repetitions"):
        text += f" n={row['repetitions']}"
    return text


def differences(first: dict, second: dict) -> list[tuple[str, str, str, str, str]]:
    """(id, first verdict, first value, second verdict, second value) per claim whose
    verdict differs, a claim missing from one run counting as a difference."""
    rows = []
    for claim in sorted(set(first) | set(second)):
        a = first.get(claim, ("absent", "NA"))
        b = second.get(claim, ("absent", "NA"))
        if a[0] != b[0]:
            rows.append((claim, a[0], a[1], b[0], b[1]))
    return rows


def flips(rows) -> list[tuple]:
    """Differences between reproduced and not reproduced: what must not happen."""
    return [r for r in rows if r[1] in DECIDED and r[3] in DECIDED]


def report(rows, first: Path, second: Path, claims: int) -> str:
    lines = [
        f"# Stability: {first} vs {second}",
        "",
        f"{claims} claims; {len(rows)} verdicts differ, {len(flips(rows))} of them between "
        "reproduced and not reproduced.",
        "",
    ]
    if rows:
        lines += markdown_table(("claim", "first", "measured", "second", "measured"), rows)
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    prep = commands.add_parser("prepare", help="a config adding the scale <scale>-again")
    prep.add_argument("--config", type=Path, default=CONFIG)
    prep.add_argument("--scale", required=True)
    prep.add_argument("--out", type=Path, required=True)
    comp = commands.add_parser("compare", help="verdicts that differ between two runs")
    comp.add_argument("first", type=Path)
    comp.add_argument("second", type=Path)
    comp.add_argument("--markdown", type=Path, help="also write the report here")
    args = parser.parse_args(argv)
    try:
        if args.command == "prepare":
            prepare(args.config, args.scale, args.out)
            return 0
        first, second = verdicts(args.first), verdicts(args.second)
    except (StabilityError, ConfigError) as error:
        print(f"stability: {error}", file=sys.stderr)
        return 1
    rows = differences(first, second)
    text = report(rows, args.first, args.second, len(set(first) | set(second)))
    print(text, end="")
    if args.markdown:
        args.markdown.write_text(text)
    return 1 if flips(rows) else 0


if __name__ == "__main__":
    sys.exit(main())
