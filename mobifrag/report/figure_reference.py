"""The paper's values for one figure's claims, beside this run's, as a table its R script draws.

    python -m mobifrag.report.figure_reference --figure STEM --claims config/claims.yaml \
        --results results/DEV/SCALE --platform qemu --out STEM.paper.csv

Every claim of config/claims.yaml names the figure that shows it. The figure rule
(rules/infra/figures.smk) writes this table for each figure and hands it to the figure's
script (MOBIFRAG_FIGURE_REFERENCE), whose shared theme (paper-figures/theme.R) draws the
paper's value and band of each claim beside the value measured here. The paper's numbers
come only from the claims file and the measured ones from the same checker as claims.csv
(mobifrag.report.claims), so a figure cannot disagree with the report. A figure without
claims gets a table of its header alone.
"""

from __future__ import annotations

import argparse
import math
import re
import sys
from pathlib import Path

from mobifrag.report.claims import (
    CSV_COLUMNS,
    UNJUDGED_BASES,
    ClaimsError,
    check,
    claim_band,
    csv_rows,
    fmt,
    load_claims,
)
from mobifrag.report.verdict import Band
from mobifrag.workflow.atomic import write_table

COLUMNS = (*CSV_COLUMNS, "label", "paper_text", "measured_text")

# The part of a claim id that repeats its paper and figure or section (tmc-fig06-,
# janusd-s1-, ars-tab1-, ars-): the rest names the claim.
ID_PREFIX = re.compile(r"^(tmc|janusd|ars|ext4tune)-((fig|tab)\d+[a-z]?|s\d+)?-?")

# Words of claim ids as the papers write them.
WORDS = {
    "adaboost": "AdaBoost",
    "ars": "ARS",
    "dof": "DoF",
    "dofl": "DoF_L",
    "dofp": "DoF_P",
    "e4defrag": "e4defrag",
    "ext4": "Ext4",
    "f2fs": "F2FS",
    "ffsb": "FFSB",
    "flexbg": "flex_bg",
    "gc": "GC",
    "io": "I/O",
    "ios": "I/Os",
    "inode128": "128-byte inodes",
    "iozone": "IOzone",
    "ipu": "IPU",
    "janusd": "janusd",
    "janusdl": "janusdL",
    "knn": "KNN",
    "level1": "level 1",
    "noatime": "noatime",
    "postmark": "Postmark",
    "s3": "S3",
    "sqlite": "SQLite",
    "wal": "WAL",
}


# Phrases of claim ids that are one word or a size in the papers.
PHRASES = {
    "ARS IPU": "ARS+IPU",
    "non SQLite": "non-SQLite",
    "noauto da alloc": "noauto_da_alloc",
}
SIZE = re.compile(r"\b(\d+)(k|mb)\b")
SIZE_UNITS = {"k": "KiB", "mb": "MB"}


def claim_label(claim_id: str) -> str:
    """A claim's id as words: tmc-fig14a-prealloc-128k-reduces-dof → "Prealloc 128 KiB
    reduces DoF"."""
    words = ID_PREFIX.sub("", claim_id).split("-")
    words = [WORDS.get(w, w.upper() if re.fullmatch(r"l\d", w) else w) for w in words]
    text = " ".join(words)
    for phrase, written in PHRASES.items():
        text = text.replace(phrase, written)
    text = SIZE.sub(lambda m: f"{m[1]} {SIZE_UNITS[m[2]]}", text)
    return text[:1].upper() + text[1:]


def number_text(value: float) -> str:
    """Four significant digits; whole numbers of five digits or more with thousands
    separators (the paper's 276,480 bytes, not 2.765e+05)."""
    if abs(value) >= 1e4 and value == round(value):
        return f"{value:,.0f}"
    return fmt(value)


def band_text(accepted: Band) -> str:
    """The band in ASCII and Latin-1 only, which R's PDF device draws in every font."""
    low, high = accepted.low, accepted.high
    if math.isinf(low) and math.isinf(high):
        return "any"
    if math.isinf(low):
        return f"{'<' if accepted.high_open else '<='} {number_text(high)}"
    if math.isinf(high):
        return f"{'>' if accepted.low_open else '>='} {number_text(low)}"
    return f"[{number_text(low)}, {number_text(high)}]"


def paper_text(claim: dict) -> str:
    """The paper's value and the band that reproduces it, or the band alone where the
    paper gives only a bound or a direction."""
    accepted = band_text(claim_band(claim))
    value = claim.get("paper_value")
    if value is None:
        return f"paper: {accepted}"
    return f"paper {number_text(value)}, band {accepted}"


def measured_text(row: dict) -> str:
    """This run's median and interval, saying so where one run is all there is."""
    if row["measured"] == "NA":
        return f"here: {row['verdict']}"
    n = int(row["repetitions"])
    measured = number_text(float(row["measured"]))
    low, high = number_text(float(row["ci_low"])), number_text(float(row["ci_high"]))
    spread = "" if low == high else f" [{low}, {high}]"
    runs = "single run" if n == 1 else f"n = {n}"
    return f"here {measured}{spread} ({runs}): {row['verdict']}"


def figure_claims(claims: list[dict], figure: str) -> list[dict]:
    return [c for c in claims if c["figure"] == figure]


def reference_rows(claims: list[dict], results: Path, platform: str) -> list[dict]:
    """One row per claim: claims.csv's columns, a label and the texts the figure prints."""
    rows = []
    for claim, row in zip(claims, csv_rows(check(claims, results, platform)), strict=True):
        row.update(
            label=claim_label(claim["id"]),
            paper_text=paper_text(claim),
            measured_text=measured_text(row),
        )
        rows.append(row)
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--figure", required=True, help="the figure's stem (registry.yaml)")
    parser.add_argument("--claims", type=Path, required=True)
    parser.add_argument("--results", type=Path, required=True)
    parser.add_argument("--platform", choices=sorted(UNJUDGED_BASES), default="qemu")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    try:
        claims = figure_claims(load_claims(args.claims), args.figure)
        rows = reference_rows(claims, args.results, args.platform)
    except ClaimsError as error:
        print(f"figure_reference: {error}", file=sys.stderr)
        return 1
    write_table(args.out, COLUMNS, rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
