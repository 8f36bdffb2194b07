"""The report a reviewer opens first: one self-contained HTML page of a run.

    python -m mobifrag.report.html --claims-csv results/D/S/claims.csv \
        --claims config/claims.yaml --provenance results/D/S/provenance.json \
        --chart results/D/S/claims-chart.png --registry paper-figures/registry.yaml \
        --figures paper-figures/D/S [--benchmarks DIR ...] --out results/D/S/report.html

The page holds the claims summary (by verdict and by basis), the claims chart
(paper-figures/claims-chart.R), one row per claim linking to its figure and to the
tables it reads, every figure of the registry with its caption and the claims it
carries, and the run's provenance (commit, dirty flag, run date, run time, seed, device
profile, config, tool versions, kernel hashes). Images are embedded as data URIs and the
style is inline, so the file opens offline and can be mailed on its own; the only links
leaving it are relative ones to the run's tables.
"""

from __future__ import annotations

import argparse
import base64
import csv
import datetime
import html
import json
import os
import sys
from collections import Counter
from pathlib import Path

import yaml

from mobifrag.report import job_times
from mobifrag.report.claims import load_claims
from mobifrag.report.provenance import figure_stamp
from mobifrag.report.verdict import VERDICTS
from mobifrag.workflow.atomic import write_lines_atomic

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
:target { outline: 3px solid #E69F00; }
"""


def esc(value) -> str:
    return html.escape("" if value is None else str(value))


def slug(text: str) -> str:
    return "-".join(text.split())


def verdict_badge(verdict: str) -> str:
    return f'<span class="verdict v-{slug(verdict)}">{esc(verdict)}</span>'


def data_uri(path: Path) -> str:
    encoded = base64.b64encode(path.read_bytes()).decode("ascii")
    return f"data:image/png;base64,{encoded}"


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
    return f"{row['measured']}{spread} (n={row.get('repetitions', '?')})"


def claim_tables(claim: dict | None) -> list[str]:
    """The result tables a claim reads, its measure's and its denominator's."""
    tables: list[str] = []
    measure = (claim or {}).get("measure")
    while measure:
        tables.append(measure["table"])
        measure = measure.get("relative_to")
    return list(dict.fromkeys(tables))


def summary_section(all_rows: list[dict]) -> str:
    """Counts of the evidence claims only (a claims.csv without a kind column: all)."""
    rows = [row for row in all_rows if row.get("kind", "evidence") == "evidence"]
    apart = Counter(row["kind"] for row in all_rows if row.get("kind", "evidence") != "evidence")
    not_counted = ", ".join(f"{n} {k}" for k, n in sorted(apart.items()))
    counts = Counter(row["verdict"] for row in rows)
    listed = ", ".join(f"{counts[v]} {v}" for v in VERDICTS if counts[v])
    verdicts = [v for v in VERDICTS if counts[v]] + sorted(set(counts) - set(VERDICTS))
    head = "".join(f"<th>{verdict_badge(v)}</th>" for v in verdicts)
    by_verdict = "".join(f'<td class="num">{counts[v]}</td>' for v in verdicts)
    basis_rows = []
    for basis in sorted({row["basis"] for row in rows}):
        of_basis = Counter(row["verdict"] for row in rows if row["basis"] == basis)
        cells = "".join(f'<td class="num">{of_basis[v]}</td>' for v in verdicts)
        total = sum(of_basis.values())
        basis_rows.append(f"<tr><th>{esc(basis)}</th>{cells}<td class='num'>{total}</td></tr>")
    return f"""<section id="summary">
<h2>Summary</h2>
<p id="summary-line">{len(rows)} evidence claims: {esc(listed)}.{
        f" Not counted: {esc(not_counted)} (listed with the claims)." if not_counted else ""
    }</p>
<h3>By verdict</h3>
<table id="by-verdict"><tr>{head}<th>all</th></tr>
<tr>{by_verdict}<td class="num">{len(rows)}</td></tr></table>
<h3>By basis</h3>
<table id="by-basis"><tr><th>basis</th>{head}<th>all</th></tr>
{"".join(basis_rows)}</table>
<p>Reproduced: the 95 % interval of the measured median lies inside the paper's band;
not reproduced: outside it; inconclusive: it overlaps an edge. docs/methods.md
(Verdicts) defines the others.</p>
</section>"""


def chart_section(chart: Path | None) -> str:
    if chart is None or not chart.exists():
        return (
            '<section id="claims-chart"><h2>Claims chart</h2>'
            '<p class="missing">the claims chart was not drawn</p></section>'
        )
    return f"""<section id="claims-chart">
<h2>Claims chart</h2>
<p>Every claim a row: the grey bar is the band of measured values that reproduces it,
the point and its bar the measured median and its 95 % interval, coloured by verdict.
Each row is drawn over its own reference (the paper's value, else the band's edge).</p>
<img id="claims-chart-img" alt="claims chart" src="{data_uri(chart)}">
</section>"""


def claims_section(rows: list[dict], claims: dict, figures: set[str], out: Path, results: Path):
    lines = []
    for row in rows:
        claim = claims.get(row["id"])
        figure = row.get("figure", "")
        figure_cell = esc(figure)
        if figure in figures:
            figure_cell = f'<a href="#figure-{esc(figure)}">{figure_cell}</a>'
        links = []
        for table in claim_tables(claim):
            target = results / table
            href = os.path.relpath(target, out.parent)
            state = "" if target.exists() else ' <span class="missing">(missing)</span>'
            links.append(f'<a class="table-link" href="{esc(href)}">{esc(table)}</a>{state}')
        text = esc(claim["claim"]) if claim else ""
        source = esc(claim.get("source", "")) if claim else ""
        note = f"<br><small>{esc(row['note'])}</small>" if row.get("note") else ""
        lines.append(
            f'<tr id="claim-{esc(row["id"])}"><td><a href="#claim-{esc(row["id"])}">'
            f"{esc(row['id'])}</a></td><td>{text}<br><small>{source}</small></td>"
            f"<td>{figure_cell}</td><td>{esc(row['basis'])}</td>"
            f'<td class="num">{esc(shown(row.get("paper_value", "")))}</td>'
            f'<td class="num">{esc(band_text(row))}</td>'
            f'<td class="num">{esc(measured_text(row))}</td>'
            f"<td>{verdict_badge(row['verdict'])}{note}</td><td>{'<br>'.join(links)}</td></tr>"
        )
    return f"""<section id="claims">
<h2>Claims</h2>
<table id="claims-table"><tr><th>id</th><th>claim</th><th>figure</th><th>basis</th>
<th>paper</th><th>band</th><th>measured median [95 % interval] (n)</th><th>verdict</th>
<th>tables</th></tr>
{chr(10).join(lines)}
</table>
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


def render(
    claims_csv: Path,
    claims_file: Path,
    provenance: Path,
    chart: Path | None,
    registry_file: Path,
    figures: Path,
    out: Path,
    benchmarks: list[Path] = (),
) -> str:
    rows = read_claims_csv(claims_csv)
    claims = {claim["id"]: claim for claim in load_claims(claims_file)}
    registry = yaml.safe_load(registry_file.read_text()) or {}
    record = json.loads(provenance.read_text())
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
<nav><a href="#summary">Summary</a><a href="#claims-chart">Claims chart</a>
<a href="#claims">Claims</a><a href="#figures">Figures ({len(registry)})</a>
<a href="#provenance">Provenance</a></nav>
{summary_section(rows)}
{chart_section(chart)}
{claims_section(rows, claims, set(registry), out, claims_csv.parent)}
{figures_section(registry, figures, rows)}
{provenance_section(record, provenance, list(benchmarks))}
</body></html>
"""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--claims-csv", type=Path, required=True)
    parser.add_argument("--claims", type=Path, required=True, help="config/claims.yaml")
    parser.add_argument("--provenance", type=Path, required=True)
    parser.add_argument("--chart", type=Path, help="the claims chart PNG")
    parser.add_argument("--registry", type=Path, required=True)
    parser.add_argument("--figures", type=Path, required=True, help="folder of <stem>.png")
    parser.add_argument("--benchmarks", type=Path, action="append", default=[])
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    page = render(
        args.claims_csv,
        args.claims,
        args.provenance,
        args.chart,
        args.registry,
        args.figures,
        args.out,
        args.benchmarks,
    )
    write_lines_atomic(args.out, page.rstrip("\n").split("\n"))
    args.out.chmod(0o644)
    return 0


if __name__ == "__main__":
    sys.exit(main())
