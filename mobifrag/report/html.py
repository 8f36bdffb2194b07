"""The report a reviewer opens first: one self-contained HTML page of a run.

    python -m mobifrag.report.html --claims-csv results/D/S/claims.csv \
        --claims config/claims.yaml --provenance results/D/S/provenance.json \
        --chart results/D/S/claims-chart.png --registry paper-figures/registry.yaml \
        --figures paper-figures/D/S [--benchmarks DIR ...] --out results/D/S/report.html

The page holds the claims summary (evidence claims by verdict, basis, paper and check),
each claim not reproduced with the reason the run and the claims file give and its
diagnosis (mobifrag/report/reasons.py), the comparison with the reference run's verdicts
(docs/reference/, --reference) where one is committed, the claims chart per paper
(paper-figures/claims-chart.R), one row per claim linking to its figure and to the
tables it reads, every figure of the registry with its caption and the claims it
carries, and the run's provenance (commit, dirty flag, run date, run time, seed, device
profile, config, tool versions, kernel hashes). Images are embedded as data URIs and the
style is inline, so the file opens offline and can be mailed on its own. The tables the
claims read are embedded too, as downloads, up to EMBEDDED_TABLE_BYTES each; a larger
one is linked by its absolute path on the machine that wrote the page, which the page
says, since that link does not travel with a mailed copy.

The page is laid out by the Jinja2 templates of mobifrag/report/templates/ (report.html,
one template per section, macros.html for the verdict badge and the count tables,
report.css); this module gathers what each section shows.
"""

from __future__ import annotations

import argparse
import base64
import csv
import datetime
import html
import json
import sys
from collections import Counter
from pathlib import Path

from jinja2 import Environment
from markupsafe import Markup

from mobifrag.report import job_times, reasons, reference
from mobifrag.report.claims import load_checks, load_claims
from mobifrag.report.page_templates import template_environment
from mobifrag.report.provenance import figure_stamp
from mobifrag.report.verdict import VERDICTS
from mobifrag.workflow.atomic import write_lines_atomic
from mobifrag.workflow.claim_tables import measure_tables
from mobifrag.workflow.figure_registry import read_registry
from mobifrag.workflow.stages import REFERENCE, REFERENCES, as_prose

# A table the claims read is embedded in the page (a data URI to download) up to this
# size, and the tables together up to the second, so the page stays quick to open and to
# mail; a table of one row per file and day (AutoAge's) can run to megabytes.
EMBEDDED_TABLE_BYTES = 512 * 1024
EMBEDDED_TOTAL_BYTES = 8 * 1024 * 1024


def esc(value) -> Markup:
    """A value as the page's text: None as nothing, the rest escaped as html.escape does
    (quotes included, so a value is safe in an attribute too). The templates' finalize:
    Jinja2's own escaping would write a quote as &#39; where the page has written &#x27;."""
    if isinstance(value, Markup):
        return value
    return Markup(html.escape("" if value is None else str(value)))


def slug(text: str) -> str:
    return "-".join(text.split())


def environment() -> Environment:
    """The page's templates (mobifrag/report/templates/), every value escaped."""
    return template_environment("templates", {"slug": slug}, autoescape=True, finalize=esc)


PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


class ReportError(ValueError):
    """An input the page cannot show as it is; the message names the file."""


def data_uri(path: Path) -> str:
    """The PNG embedded; ReportError for an empty file or one that is not a PNG (a figure
    script that drew nothing), which the page would show as a blank image."""
    data = path.read_bytes()
    if not data.startswith(PNG_SIGNATURE):
        what = "is empty" if not data else "is not a PNG"
        raise ReportError(f"{path} {what}: its figure or chart was not drawn")
    return f"data:image/png;base64,{base64.b64encode(data).decode('ascii')}"


def read_claims_csv(path: Path) -> list[dict]:
    with open(path, newline="") as handle:
        rows = list(csv.DictReader(handle))
    needed = {"id", "figure", "basis", "band_low", "band_high", "measured", "verdict"}
    if rows and not needed <= rows[0].keys():
        raise ValueError(f"{path}: no column(s) {', '.join(sorted(needed - rows[0].keys()))}")
    return rows


def shown(value: str) -> str:
    return "—" if value in ("", "NA", None) else value


def band_text(row: dict) -> str:
    low, high = row.get("band_low", "NA"), row.get("band_high", "NA")
    if low in ("-inf", "NA") and high in ("inf", "NA"):
        return "any"
    if low in ("-inf", "NA"):
        return f"≤ {high}"
    if high in ("inf", "NA"):
        return f"≥ {low}"
    return f"[{low}, {high}]"


def measured_text(row: dict) -> str:
    if row.get("measured") in ("", "NA", None):
        return "—"
    low, high = row.get("ci_low"), row.get("ci_high")
    spread = "" if low == high or low in ("", "NA") else f" [{low}, {high}]"
    note = reasons.spread_note(reasons.repetitions(row)) or "n unknown"
    return f"{row['measured']}{spread} ({note})"


def claim_tables(claim: dict | None) -> list[str]:
    """The result tables a claim reads, its measure's and its denominator's."""
    measure = (claim or {}).get("measure")
    return list(dict.fromkeys(measure_tables(measure))) if measure else []


def summary(all_rows: list[dict], checks: dict[str, list[dict]]) -> dict:
    """Counts of the evidence claims only (a claims.csv without a kind column: all)."""
    rows = reasons.counted(all_rows)
    apart = Counter(row["kind"] for row in all_rows if row.get("kind", "evidence") != "evidence")
    counts = Counter(row["verdict"] for row in rows)
    by_check = reasons.by_check(all_rows, checks)
    seen = set(counts) | {v for group in by_check.values() for v in group}
    return {
        "total": len(rows),
        "listed": ", ".join(f"{counts[v]} {v}" for v in VERDICTS if counts[v]),
        "not_counted": ", ".join(f"{n} {k}" for k, n in sorted(apart.items())),
        "verdicts": [v for v in VERDICTS if v in seen] + sorted(seen - set(VERDICTS)),
        "counts": counts,
        "by_paper": reasons.by_paper(all_rows),
        "by_basis": {
            basis: Counter(row["verdict"] for row in rows if row["basis"] == basis)
            for basis in sorted({row["basis"] for row in rows})
        },
        "by_check": by_check,
    }


def misses(rows: list[dict], claims: dict) -> list[dict]:
    """Every evidence claim not reproduced, with its reason and, for the verdict not
    reproduced, its diagnosis (None otherwise)."""
    found = []
    shared = reasons.shared_changes(claims.values())
    for row in reasons.counted(rows):
        claim = claims.get(row["id"])
        why = reasons.reason(row, claim, shared)
        if why:
            found.append(
                {
                    "id": row["id"],
                    "verdict": row["verdict"],
                    "why": why,
                    "diagnosis": reasons.diagnosis(row, claim),
                }
            )
    return found


def misses_by_cause(found: list[dict]) -> dict[str, int]:
    return reasons.by_cause([m["diagnosis"] for m in found if m["diagnosis"]])


def against_reference(rows: list[dict], ref: reference.Table | None, path: Path | None) -> dict:
    if ref is None:
        where = path if path else f"{REFERENCES}/{as_prose(REFERENCE)}"
        return {"missing": True, "where": where}
    run = reference.Table(Path("this run"), {}, {row["id"]: row for row in rows})
    found = reference.differences(ref, run)
    return {
        "missing": False,
        "name": reference.display(ref.path),
        "described": reference.describe_reference(ref),
        "counts": reference.counts_text(reference.evidence_counts(ref)),
        "kinds": Counter(d.kind for d in found),
        "differences": found,
    }


def chart_paper(chart: Path) -> str:
    """The paper a chart file draws: claims-chart-<prefix>.png → its paper's name."""
    prefix = chart.stem.removeprefix("claims-chart").lstrip("-")
    return reasons.PAPERS.get(prefix, prefix or "all claims")


def drawn_charts(charts: list[Path]) -> list[dict]:
    return [
        {"paper": chart_paper(chart), "slug": slug(chart.stem), "src": data_uri(chart)}
        for chart in charts
        if chart.exists()
    ]


def table_anchor(table: str) -> str:
    return f"table-{table}"


def claim_row(
    row: dict, claim: dict | None, figures: set[str], results: Path, ref: reference.Table | None
) -> dict:
    before = ref.verdict(row["id"]) if ref is not None else None
    return {
        "id": row["id"],
        "text": claim["claim"] if claim else "",
        "source": claim.get("source", "") if claim else "",
        "figure": row.get("figure", ""),
        "figure_shown": row.get("figure", "") in figures,
        "basis": row["basis"],
        "paper": shown(row.get("paper_value", "")),
        "band": band_text(row),
        "measured": measured_text(row),
        "verdict": row["verdict"],
        "note": row.get("note"),
        "reference": before,
        "differs": ref is not None and before != row["verdict"],
        "tables": [
            {"table": t, "anchor": table_anchor(t), "missing": not (results / t).exists()}
            for t in claim_tables(claim)
        ],
    }


def figure_blocks(registry: dict, folder: Path, rows: list[dict]) -> list[dict]:
    carried: dict[str, list[dict]] = {}
    for row in rows:
        carried.setdefault(row.get("figure", ""), []).append(row)
    blocks = []
    for stem, entry in registry.items():
        png = folder / f"{stem}.png"
        blocks.append(
            {
                "stem": stem,
                "png": png,
                "src": data_uri(png) if png.exists() else None,
                "caption": entry.get("caption", ""),
                "tables": entry.get("tables", []),
                "claims": carried.get(stem, []),
            }
        )
    return blocks


def table_item(table: str, path: Path, budget: int) -> dict:
    """How the page offers one table: missing, embedded (under the budget) or linked."""
    item = {"table": table, "anchor": table_anchor(table)}
    if not path.is_file():
        return {**item, "kind": "missing"}
    size = path.stat().st_size
    item["size"] = f"{size:,}"
    if size <= min(EMBEDDED_TABLE_BYTES, budget):
        encoded = base64.b64encode(path.read_bytes()).decode("ascii")
        name = table.replace("/", "_")
        return {**item, "kind": "embedded", "bytes": size, "name": name, "encoded": encoded}
    return {**item, "kind": "linked", "uri": path.resolve().as_uri()}


def tables_offered(rows: list[dict], claims: dict, results: Path) -> dict:
    """Every table the claims read: embedded as a download where it is small enough, else
    linked by its absolute path (which a mailed page cannot follow: said beside it)."""
    tables = list(dict.fromkeys(t for row in rows for t in claim_tables(claims.get(row["id"]))))
    items, budget = [], EMBEDDED_TOTAL_BYTES
    for table in tables:
        item = table_item(table, results / table, budget)
        budget -= item.get("bytes", 0)
        items.append(item)
    return {
        "results": results,
        "table_kib": EMBEDDED_TABLE_BYTES // 1024,
        "total_mib": EMBEDDED_TOTAL_BYTES // 2**20,
        "items": items,
    }


def run_time(benchmarks: list[Path]) -> str:
    """The job-minutes of the run's benchmarked jobs (guest and model rules)."""
    folders = [folder for folder in benchmarks if folder.is_dir()]
    jobs = job_times.collect(folders) if folders else []
    if not jobs:
        return "no benchmark files (guest and model rules write them)"
    minutes = sum(job.seconds for job in jobs) / 60
    return (
        f"{minutes:.1f} job-minutes over {len(jobs)} benchmarked jobs "
        "(guest and model rules; python -m mobifrag.report.job_times breaks it down)"
    )


def kernel_hashes(kernel: dict) -> dict:
    keys = [k for k in kernel if "sha256" in k or "hash" in k or k == "kernel_release"]
    return {k: kernel[k] for k in keys}


def provenance(record: dict, path: Path, benchmarks: list[Path]) -> dict:
    stamp = figure_stamp(record, path)
    kernel = record.get("kernel") or {}
    blocks = {
        "device profile": record.get("device"),
        "config": record.get("config"),
        "kernel": kernel,
        "package versions": record.get("versions"),
        "version differences from config/measured-versions.json": record.get("version_differences"),
    }
    return {
        "version": record.get("version", "not recorded"),
        "commit": record.get("commit", "unknown"),
        "dirty": record.get("dirty", str(record.get("commit", "")).endswith("+modified")),
        "device": stamp["device"],
        "scale": stamp["scale"],
        "seed": stamp["seed"],
        "run_date": record.get("recorded") or stamp["date"],
        "run_time": run_time(benchmarks),
        "host": json.dumps(record.get("host", {})),
        "kernel_hashes": kernel_hashes(kernel),
        "kernel_note": kernel.get("note", "—"),
        "tools": record.get("tools") or {},
        "blocks": [
            (title, json.dumps(value, indent=2, sort_keys=True)) for title, value in blocks.items()
        ],
    }


def load_reference(path: Path | None) -> reference.Table | None:
    return reference.read_table(path) if path is not None and path.is_file() else None


def render(
    claims_csv: Path,
    claims_file: Path,
    provenance_file: Path,
    charts: list[Path] | Path | None,
    registry_file: Path,
    figures: Path,
    out: Path,
    benchmarks: list[Path] = (),
    reference_file: Path | None = None,
) -> str:
    rows = read_claims_csv(claims_csv)
    claims = {claim["id"]: claim for claim in load_claims(claims_file)}
    registry = read_registry(registry_file)
    record = json.loads(provenance_file.read_text())
    ref = load_reference(reference_file)
    if isinstance(charts, Path):
        charts = [charts]
    stamp = figure_stamp(record, provenance_file)
    results = claims_csv.parent
    missed = misses(rows, claims)
    return (
        environment()
        .get_template("report.html")
        .render(
            title=f"mobifrag: {stamp['device']} / {stamp['scale']}",
            stamp_line=stamp["line"],
            made=datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
            figures=registry,
            summary=summary(rows, load_checks(claims_file)),
            misses=missed,
            by_cause=misses_by_cause(missed),
            undiagnosed=reasons.UNDIAGNOSED,
            reference=against_reference(rows, ref, reference_file),
            charts=drawn_charts(list(charts or [])),
            with_reference=ref is not None,
            claim_rows=[
                claim_row(row, claims.get(row["id"]), set(registry), results, ref) for row in rows
            ],
            figure_blocks=figure_blocks(registry, figures, rows),
            tables=tables_offered(rows, claims, results),
            provenance=provenance(record, provenance_file, list(benchmarks)),
        )
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--claims-csv", type=Path, required=True)
    parser.add_argument("--claims", type=Path, required=True, help="config/claims.yaml")
    parser.add_argument("--provenance", type=Path, required=True)
    parser.add_argument(
        "--chart", type=Path, action="append", default=[], help="a claims chart PNG (per paper)"
    )
    parser.add_argument("--registry", type=Path, required=True)
    parser.add_argument("--figures", type=Path, required=True, help="folder of <stem>.png")
    parser.add_argument("--benchmarks", type=Path, action="append", default=[])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument(
        "--reference", type=Path, help="the reference run's verdicts (docs/reference/)"
    )
    args = parser.parse_args(argv)
    try:
        page = render(
            args.claims_csv,
            args.claims,
            args.provenance,
            args.chart,
            args.registry,
            args.figures,
            args.out,
            args.benchmarks,
            args.reference,
        )
    except ReportError as error:
        print(f"report: {error}", file=sys.stderr)
        return 1
    write_lines_atomic(args.out, page.rstrip("\n").split("\n"))
    args.out.chmod(0o644)
    return 0


if __name__ == "__main__":
    sys.exit(main())
