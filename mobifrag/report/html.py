"""The report a reviewer opens first: one self-contained HTML page of a run.

    python -m mobifrag.report.html --claims-csv results/D/S/claims.csv \
        --claims config/claims.yaml --provenance results/D/S/provenance.json \
        --chart results/D/S/claims-chart.png --registry paper-figures/registry.yaml \
        --figures paper-figures/D/S [--benchmarks DIR ...] --out results/D/S/report.html

The page holds the claims summary (evidence claims by verdict, basis, paper and check),
each claim not reproduced with the reason the run and the claims file give
(mobifrag/report/reasons.py), the comparison with the reference run's verdicts
(docs/reference/, --reference) where one is committed, the claims chart per paper
(paper-figures/claims-chart.R), one row per claim linking to its figure and to the
tables it reads, every figure of the registry with its caption and the claims it
carries, and the run's provenance (commit, dirty flag, run date, run time, seed, device
profile, config, tool versions, kernel hashes). Images are embedded as data URIs and the
style is inline, so the file opens offline and can be mailed on its own. The tables the
claims read are embedded too, as downloads, up to EMBEDDED_TABLE_BYTES each; a larger
one is linked by its absolute path on the machine that wrote the page, which the page
says, since that link does not travel with a mailed copy.
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

from mobifrag.report import job_times, reasons, reference
from mobifrag.report.claims import load_checks, load_claims
from mobifrag.report.provenance import figure_stamp
from mobifrag.report.verdict import VERDICTS
from mobifrag.workflow.atomic import write_lines_atomic
from mobifrag.workflow.claim_tables import measure_tables
from mobifrag.workflow.figure_registry import read_registry

# A table the claims read is embedded in the page (a data URI to download) up to this
# size, and the tables together up to the second, so the page stays quick to open and to
# mail; a table of one row per file and day (AutoAge's) can run to megabytes.
EMBEDDED_TABLE_BYTES = 512 * 1024
EMBEDDED_TOTAL_BYTES = 8 * 1024 * 1024

CSS = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 72em; color: #222;
  padding: 0 1em; line-height: 1.4; }
h1 { font-size: 1.6em; } h2 { border-bottom: 1px solid #ccc; padding-bottom: .2em; }
table { border-collapse: collapse; margin: .5em 0 1em; font-size: .9em; }
th, td { border: 1px solid #ddd; padding: .2em .5em; text-align: left; vertical-align: top; }
th { background: #f3f3f3; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
.verdict { display: inline-block; padding: 0 .4em; border-radius: .3em; color: #fff;
  white-space: nowrap; }
.v-reproduced { background: #009E73; } .v-not-reproduced { background: #D55E00; }
.v-inconclusive { background: #E69F00; } .v-not-reached { background: #56B4E9; }
.v-beyond-the-platform { background: #000000; }
.v-calibrated { background: #CC79A7; } .v-not-judged { background: #0072B2; }
.v-not-measured { background: #999; }
figure { margin: 1.5em 0; padding: 1em; border: 1px solid #ddd; }
img { max-width: 100%; height: auto; }
figcaption { font-size: .9em; color: #333; }
.missing { color: #a00; font-style: italic; }
pre { background: #f7f7f7; padding: .5em; overflow-x: auto; font-size: .8em; }
nav a { margin-right: 1em; }
tr.differs td { background: #fff4e0; }
.reason { font-size: .85em; color: #333; }
:target { outline: 3px solid #E69F00; }
"""


def esc(value) -> str:
    return html.escape("" if value is None else str(value))


def slug(text: str) -> str:
    return "-".join(text.split())


def verdict_badge(verdict: str) -> str:
    return f'<span class="verdict v-{slug(verdict)}">{esc(verdict)}</span>'


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


def counts_table(table_id: str, title: str, groups: dict[str, Counter], verdicts) -> str:
    """One row per group (a basis, a paper, a check): its evidence claims per verdict."""
    head = "".join(f"<th>{verdict_badge(v)}</th>" for v in verdicts)
    rows = []
    for name, counts in groups.items():
        cells = "".join(f'<td class="num">{counts[v]}</td>' for v in verdicts)
        total = sum(counts.values())
        rows.append(f"<tr><th>{esc(name)}</th>{cells}<td class='num'>{total}</td></tr>")
    return (
        f'<table id="{table_id}"><tr><th>{esc(title)}</th>{head}<th>all</th></tr>\n'
        f"{''.join(rows)}</table>"
    )


def summary_section(all_rows: list[dict], checks: dict[str, list[dict]]) -> str:
    """Counts of the evidence claims only (a claims.csv without a kind column: all)."""
    rows = reasons.counted(all_rows)
    apart = Counter(row["kind"] for row in all_rows if row.get("kind", "evidence") != "evidence")
    not_counted = ", ".join(f"{n} {k}" for k, n in sorted(apart.items()))
    counts = Counter(row["verdict"] for row in rows)
    listed = ", ".join(f"{counts[v]} {v}" for v in VERDICTS if counts[v])
    by_check = reasons.by_check(all_rows, checks)
    seen = set(counts) | {v for group in by_check.values() for v in group}
    verdicts = [v for v in VERDICTS if v in seen] + sorted(seen - set(VERDICTS))
    head = "".join(f"<th>{verdict_badge(v)}</th>" for v in verdicts)
    by_verdict = "".join(f'<td class="num">{counts[v]}</td>' for v in verdicts)
    by_basis = {
        basis: Counter(row["verdict"] for row in rows if row["basis"] == basis)
        for basis in sorted({row["basis"] for row in rows})
    }
    check_table = ""
    if by_check:
        check_table = (
            "<h3>By check</h3>\n<p>The sets of claims <code>make check CHECK=&lt;name&gt;</code> "
            "requires to be reproduced (<code>checks:</code> in config/claims.yaml).</p>\n"
            + counts_table("by-check", "check", by_check, verdicts)
        )
    return f"""<section id="summary">
<h2>Summary</h2>
<p id="summary-line">{len(rows)} evidence claims: {esc(listed)}.{
        f" Not counted: {esc(not_counted)} (listed with the claims)." if not_counted else ""
    }</p>
<h3>By verdict</h3>
<table id="by-verdict"><tr>{head}<th>all</th></tr>
<tr>{by_verdict}<td class="num">{len(rows)}</td></tr></table>
<h3>By paper</h3>
{counts_table("by-paper", "paper", reasons.by_paper(all_rows), verdicts)}
<h3>By basis</h3>
{counts_table("by-basis", "basis", by_basis, verdicts)}
{check_table}
<p>Reproduced: the 95 % interval of the measured median lies inside the paper's band;
not reproduced: outside it; inconclusive: it overlaps an edge. docs/methods.md
(Verdicts) defines the others.</p>
</section>"""


def misses_section(rows: list[dict], claims: dict) -> str:
    """Every evidence claim not reproduced, with its reason."""
    items = []
    for row in reasons.counted(rows):
        why = reasons.reason(row, claims.get(row["id"]))
        if why:
            items.append(
                f'<li id="miss-{esc(row["id"])}"><a href="#claim-{esc(row["id"])}">'
                f"{esc(row['id'])}</a> {verdict_badge(row['verdict'])} "
                f'<span class="reason">{esc(why)}</span></li>'
            )
    body = f"<ul>{''.join(items)}</ul>" if items else "<p>Every evidence claim was reproduced.</p>"
    return f"""<section id="misses">
<h2>Not reproduced, and why</h2>
<p>Each evidence claim whose verdict is not reproduced: what the run measured against
the band (or why it could not judge), then the claim's last recorded change and its
reason (<code>history:</code> in config/claims.yaml). The claims have no field of their
own for a diagnosis; docs/measurements.md and docs/fidelity.md keep those of past runs.</p>
{body}
</section>"""


def reference_section(rows: list[dict], ref: reference.Table | None, path: Path | None) -> str:
    if ref is None:
        where = esc(path) if path else "docs/reference/&lt;device&gt;-&lt;scale&gt;.csv"
        return f"""<section id="reference">
<h2>Against the reference run</h2>
<p id="reference-line">No reference verdicts to compare with ({where} does not exist):
docs/reference/README.md says how a reference run is committed.</p>
</section>"""
    run = reference.Table(Path("this run"), {}, {row["id"]: row for row in rows})
    found = reference.differences(ref, run)
    kinds = Counter(d.kind for d in found)
    lines = "".join(
        f'<tr id="reference-{esc(d.claim)}"><td><a href="#claim-{esc(d.claim)}">{esc(d.claim)}'
        f"</a></td><td>{verdict_badge(d.reference)}</td><td>{esc(d.reference_value)}</td>"
        f"<td>{verdict_badge(d.run)}</td><td>{esc(d.run_value)}</td></tr>"
        for d in found
    )
    table = (
        f'<table id="reference-table"><tr><th>claim</th><th>reference</th><th>measured</th>'
        f"<th>this run</th><th>measured</th></tr>{lines}</table>"
        if found
        else ""
    )
    return f"""<section id="reference">
<h2>Against the reference run</h2>
<p id="reference-line">Reference {esc(reference.display(ref.path))}: {
        esc(reference.describe_reference(ref))
    }; {esc(reference.counts_text(reference.evidence_counts(ref)))}. Against it, this run has
{kinds["changed"]} verdicts that differ, {kinds["new"]} new claims and {kinds["missing"]}
missing (<code>make compare</code> lists the same).</p>
{table}
</section>"""


def chart_paper(chart: Path) -> str:
    """The paper a chart file draws: claims-chart-<prefix>.png → its paper's name."""
    prefix = chart.stem.removeprefix("claims-chart").lstrip("-")
    return reasons.PAPERS.get(prefix, prefix or "all claims")


def chart_section(charts: list[Path]) -> str:
    drawn = [chart for chart in charts if chart.exists()]
    if not drawn:
        return (
            '<section id="claims-chart"><h2>Claims chart</h2>'
            '<p class="missing">the claims chart was not drawn</p></section>'
        )
    images = "\n".join(
        f'<h3>{esc(chart_paper(chart))}</h3><img class="claims-chart-img" '
        f'id="claims-chart-{esc(slug(chart.stem))}" alt="claims chart, '
        f'{esc(chart_paper(chart))}" src="{data_uri(chart)}">'
        for chart in drawn
    )
    return f"""<section id="claims-chart">
<h2>Claims chart</h2>
<p>Every claim a row, one chart per paper: the grey bar is the band of measured values
that reproduces it, the point and its bar the measured median and its 95 % interval,
coloured by verdict. Each row is drawn over its own reference (the paper's value, else
the band's edge).</p>
{images}
</section>"""


def table_anchor(table: str) -> str:
    return f"table-{table}"


def claims_section(
    rows: list[dict], claims: dict, figures: set[str], results: Path, ref: reference.Table | None
):
    lines = []
    for row in rows:
        claim = claims.get(row["id"])
        figure = row.get("figure", "")
        figure_cell = esc(figure)
        if figure in figures:
            figure_cell = f'<a href="#figure-{esc(figure)}">{figure_cell}</a>'
        links = []
        for table in claim_tables(claim):
            state = "" if (results / table).exists() else ' <span class="missing">(missing)</span>'
            links.append(
                f'<a class="table-link" href="#{esc(table_anchor(table))}">{esc(table)}</a>{state}'
            )
        text = esc(claim["claim"]) if claim else ""
        source = esc(claim.get("source", "")) if claim else ""
        note = f"<br><small>{esc(row['note'])}</small>" if row.get("note") else ""
        reference_cell, marked = "", ""
        if ref is not None:
            before = ref.verdict(row["id"])
            marked = ' class="differs"' if before != row["verdict"] else ""
            reference_cell = f"<td>{verdict_badge(before)}</td>"
        lines.append(
            f'<tr id="claim-{esc(row["id"])}"{marked}>'
            f'<td><a href="#claim-{esc(row["id"])}">'
            f"{esc(row['id'])}</a></td><td>{text}<br><small>{source}</small></td>"
            f"<td>{figure_cell}</td><td>{esc(row['basis'])}</td>"
            f'<td class="num">{esc(shown(row.get("paper_value", "")))}</td>'
            f'<td class="num">{esc(band_text(row))}</td>'
            f'<td class="num">{esc(measured_text(row))}</td>'
            f"<td>{verdict_badge(row['verdict'])}{note}</td>{reference_cell}"
            f"<td>{'<br>'.join(links)}</td></tr>"
        )
    reference_head = "<th>reference verdict</th>" if ref is not None else ""
    return f"""<section id="claims">
<h2>Claims</h2>
<table id="claims-table"><tr><th>id</th><th>claim</th><th>figure</th><th>basis</th>
<th>paper</th><th>band</th><th>measured median [95 % interval] (n)</th><th>verdict</th>
{reference_head}<th>tables</th></tr>
{chr(10).join(lines)}
</table>
</section>"""


def tables_section(rows: list[dict], claims: dict, results: Path) -> str:
    """Every table the claims read: embedded as a download where it is small enough, else
    linked by its absolute path (which a mailed page cannot follow: said beside it)."""
    tables = list(dict.fromkeys(t for row in rows for t in claim_tables(claims.get(row["id"]))))
    items, budget = [], EMBEDDED_TOTAL_BYTES
    for table in tables:
        path = results / table
        anchor = esc(table_anchor(table))
        if not path.is_file():
            items.append(f'<li id="{anchor}">{esc(table)} <span class="missing">(missing)</span>')
            continue
        size = path.stat().st_size
        if size <= min(EMBEDDED_TABLE_BYTES, budget):
            budget -= size
            encoded = base64.b64encode(path.read_bytes()).decode("ascii")
            name = esc(table.replace("/", "_"))
            items.append(
                f'<li id="{anchor}"><a class="table-data" download="{name}" '
                f'href="data:text/csv;base64,{encoded}">{esc(table)}</a> ({size:,} bytes, '
                "embedded)</li>"
            )
        else:
            items.append(
                f'<li id="{anchor}"><a class="table-file" href="{esc(path.resolve().as_uri())}">'
                f"{esc(table)}</a> ({size:,} bytes: too large to embed, or past the page's "
                "budget; the link is the path on the machine that wrote this page)</li>"
            )
    return f"""<section id="tables">
<h2>Tables</h2>
<p>The result tables the claims read, under <code>{esc(results)}</code> of the run. Each
up to {EMBEDDED_TABLE_BYTES // 1024} KiB is embedded in this page (up to
{EMBEDDED_TOTAL_BYTES // 2**20} MiB in all) and downloads from it, also from a mailed
copy; a larger one is linked by its absolute path, which works only on the machine that
ran the study.</p>
<ul>{"".join(items)}</ul>
</section>"""


def figures_section(registry: dict, folder: Path, rows: list[dict]) -> str:
    carried: dict[str, list[dict]] = {}
    for row in rows:
        carried.setdefault(row.get("figure", ""), []).append(row)
    blocks = []
    for stem, entry in registry.items():
        png = folder / f"{stem}.png"
        image = (
            f'<img class="figure-img" alt="{esc(stem)}" src="{data_uri(png)}">'
            if png.exists()
            else f'<p class="missing">not rendered: {esc(png)}</p>'
        )
        claim_links = (
            ", ".join(
                f'<a href="#claim-{esc(r["id"])}">{esc(r["id"])}</a> {verdict_badge(r["verdict"])}'
                for r in carried.get(stem, [])
            )
            or "none"
        )
        tables = ", ".join(f"<code>{esc(t)}</code>" for t in entry.get("tables", []))
        blocks.append(
            f'<figure id="figure-{esc(stem)}"><h3>{esc(stem)}</h3>{image}'
            f"<figcaption>{esc(entry.get('caption', ''))}<br>Tables: {tables}"
            f'<br><span class="figure-claims">Claims: {claim_links}</span></figcaption></figure>'
        )
    return f'<section id="figures">\n<h2>Figures</h2>\n{chr(10).join(blocks)}\n</section>'


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


def kernel_lines(kernel: dict) -> str:
    return "<br>".join(f"{esc(k)}: <code>{esc(v)}</code>" for k, v in kernel_hashes(kernel).items())


def provenance_section(record: dict, path: Path, benchmarks: list[Path]) -> str:
    stamp = figure_stamp(record, path)
    kernel = record.get("kernel") or {}
    facts = [
        ("version", esc(record.get("version", "not recorded"))),
        ("commit", f"<code id='prov-commit'>{esc(record.get('commit', 'unknown'))}</code>"),
        ("dirty", esc(record.get("dirty", str(record.get("commit", "")).endswith("+modified")))),
        ("device", esc(stamp["device"])),
        ("scale", esc(stamp["scale"])),
        ("seed", esc(stamp["seed"])),
        ("run date", esc(record.get("recorded") or stamp["date"])),
        ("run time", esc(run_time(benchmarks))),
        ("host", esc(json.dumps(record.get("host", {})))),
        (
            "kernel",
            kernel_lines(kernel) or esc(kernel.get("note", "—")),
        ),
    ]
    tools = "".join(
        f"<tr><th>{esc(name)}</th><td>{esc(version)}</td></tr>"
        for name, version in (record.get("tools") or {}).items()
    )

    def block(title: str, value) -> str:
        text = json.dumps(value, indent=2, sort_keys=True)
        return f"<details><summary>{esc(title)}</summary><pre>{esc(text)}</pre></details>"

    return f"""<section id="provenance">
<h2>Provenance</h2>
<table id="provenance-table">
{"".join(f"<tr><th>{name}</th><td>{value}</td></tr>" for name, value in facts)}
</table>
<h3>Tool versions</h3>
<table id="tool-versions">{tools}</table>
{block("device profile", record.get("device"))}
{block("config", record.get("config"))}
{block("kernel", kernel)}
{block("package versions", record.get("versions"))}
{block("version differences from config/measured-versions.json", record.get("version_differences"))}
</section>"""


def load_reference(path: Path | None) -> reference.Table | None:
    return reference.read_table(path) if path is not None and path.is_file() else None


def render(
    claims_csv: Path,
    claims_file: Path,
    provenance: Path,
    charts: list[Path] | Path | None,
    registry_file: Path,
    figures: Path,
    out: Path,
    benchmarks: list[Path] = (),
    reference_file: Path | None = None,
) -> str:
    rows = read_claims_csv(claims_csv)
    claims = {claim["id"]: claim for claim in load_claims(claims_file)}
    checks = load_checks(claims_file)
    registry = read_registry(registry_file)
    record = json.loads(provenance.read_text())
    ref = load_reference(reference_file)
    if isinstance(charts, Path):
        charts = [charts]
    stamp = figure_stamp(record, provenance)
    title = f"mobifrag: {stamp['device']} / {stamp['scale']}"
    made = datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{esc(title)}</title><style>{CSS}</style></head>
<body>
<h1>{esc(title)}</h1>
<p>{esc(stamp["line"])}; report written {esc(made)}.</p>
<nav><a href="#summary">Summary</a><a href="#misses">Not reproduced</a>
<a href="#reference">Reference</a><a href="#claims-chart">Claims chart</a>
<a href="#claims">Claims</a><a href="#figures">Figures ({len(registry)})</a>
<a href="#tables">Tables</a><a href="#provenance">Provenance</a></nav>
{summary_section(rows, checks)}
{misses_section(rows, claims)}
{reference_section(rows, ref, reference_file)}
{chart_section(list(charts or []))}
{claims_section(rows, claims, set(registry), claims_csv.parent, ref)}
{figures_section(registry, figures, rows)}
{tables_section(rows, claims, claims_csv.parent)}
{provenance_section(record, provenance, list(benchmarks))}
</body></html>
"""


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
