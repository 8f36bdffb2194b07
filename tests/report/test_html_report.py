"""The run's HTML report (mobifrag/report/html.py, rule report_html) and the provenance
every figure carries (paper-figures/theme.R, rule figure).

A small fake run in tmp_path (a real claims.csv, provenance.json, fixture tables and
PNGs) goes through the same commands as the rules: the provenance stamp, the R scripts
and the report module. The report is then opened in headless Chromium, which must decode
the claims chart and every figure."""

from __future__ import annotations

import json
import os
import re
import shutil
import struct
import subprocess
import sys
import zlib
from html.parser import HTMLParser
from pathlib import Path

import pytest
import yaml

from mobifrag import REPO
from mobifrag.report import html as report_html
from mobifrag.report.claims import CSV_COLUMNS
from mobifrag.report.provenance import figure_stamp

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
needs_r = pytest.mark.skipif(shutil.which("Rscript") is None, reason="needs R (make bootstrap)")
needs_chromium = pytest.mark.skipif(
    CHROMIUM is None, reason="needs Debian's chromium (bootstrap/debian-packages.txt)"
)

COMMIT = "0123456789abcdef0123456789abcdef01234567+modified"
FIGURES = ("tmc-fig06-layout", "tmc-fig09-dof-latency")
# Real claim ids of config/claims.yaml, one per kind of row the chart draws.
CLAIM_ROWS = [
    ("tmc-fig06-ext4-five-writers-fragment", "tmc-fig06-layout", "layout", "5", "3", "7",
     "17.9", "17.8", "18", "2", "not reproduced", "evidence", ""),
    ("tmc-fig09-scan-time-linear-in-dof", "tmc-fig09-dof-latency", "modeled_time", "NA",
     "0.9", "inf", "0.9998", "0.9998", "0.9998", "1", "reproduced", "evidence", ""),
    ("tmc-s531-fragmented-file-needs-more-requests", "tmc-fig09-dof-latency", "count",
     "58.6", "29.8", "87.4", "31.5", "30", "33", "3", "inconclusive", "evidence", ""),
    ("tmc-fig05a-sqlite-fragmented-from-day-one", "tmc-fig05a-dof-by-class", "layout",
     "3", "1.5", "6", "NA", "NA", "NA", "0", "not measured", "evidence",
     "needs autoage/ext4/dof.csv"),
]  # fmt: skip


def png_bytes(width: int = 4, height: int = 3) -> bytes:
    """A small valid RGB PNG (grey)."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    raw = b"".join(b"\x00" + b"\x80\x80\x80" * width for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(raw))
        + chunk(b"IEND", b"")
    )


def provenance_record(commit: str = COMMIT) -> dict:
    return {
        "commit": commit,
        "dirty": commit.endswith("+modified"),
        "recorded": "2026-11-25T09:30:00+00:00",
        "seed": 7,
        "config": {"device": "emulator-emmc", "scale": "test", "seed": 7},
        "device": {"name": "emulator-emmc", "storage": {"ftl": {"map_cache_mib": 1}}},
        "kernel": {"kernel_release": "6.1.0", "config_sha256": "c0ffee", "source_sha256": "5eed"},
        "tools": {"R": "R version 4.2.2", "fio": "fio-3.33"},
        "host": {"machine": "x86_64"},
    }


@pytest.fixture
def fake_run(tmp_path):
    """results/<device>/<scale>/ and paper-figures/<device>/<scale>/ of a small run."""
    run = tmp_path / "results" / "emulator-emmc" / "test"
    figures = tmp_path / "paper-figures" / "emulator-emmc" / "test"
    run.mkdir(parents=True)
    figures.mkdir(parents=True)
    lines = [",".join(CSV_COLUMNS)] + [",".join(row) for row in CLAIM_ROWS]
    (run / "claims.csv").write_text("\n".join(lines) + "\n")
    (run / "provenance.json").write_text(json.dumps(provenance_record()))
    (run / "concurrent-appenders").mkdir()
    (run / "concurrent-appenders" / "dof.csv").write_text("fs,dof\next4,2\n")
    registry = {stem: {"tables": ["x.csv"], "caption": f"Caption of {stem}."} for stem in FIGURES}
    (tmp_path / "registry.yaml").write_text(yaml.safe_dump(registry))
    for stem in FIGURES:
        (figures / f"{stem}.png").write_bytes(png_bytes())
    return tmp_path, run, figures


def python(*args: str, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, *args], cwd=REPO, capture_output=True, text=True, check=True, **kwargs
    )


def stamp_env(provenance: Path) -> dict:
    """The environment the figure rule gives an R script."""
    stamp = python("-m", "mobifrag.report.provenance", "--figure-stamp", str(provenance)).stdout
    return {**os.environ, "MOBIFRAG_FIGURE_STAMP": stamp}


def rscript(script: str, pdf: Path, png: Path, tables: list[Path], env: dict, *extra: str) -> None:
    run = subprocess.run(
        [
            "Rscript",
            str(REPO / "paper-figures" / script),
            str(pdf),
            str(png),
            *map(str, tables),
            *extra,
        ],  # fmt: skip
        capture_output=True,
        text=True,
        env=env,
    )
    assert run.returncode == 0, run.stderr


def pdf_title(path: Path) -> str:
    """The Title of a PDF's Info dictionary (R's pdf device writes it uncompressed)."""
    match = re.search(rb"/Title \((.*?)(?<!\\)\)", path.read_bytes(), re.S)
    assert match, f"{path}: no /Title"
    return match.group(1).decode("latin-1")


def make_report(
    root: Path, run: Path, figures: Path, charts: list[Path], reference: Path | None = None
) -> Path:
    out = run / "report.html"
    args = [
        "-m", "mobifrag.report.html", "--claims-csv", str(run / "claims.csv"),
        "--claims", "config/claims.yaml", "--provenance", str(run / "provenance.json"),
        "--registry", str(root / "registry.yaml"), "--figures", str(figures),
        "--benchmarks", str(run / "benchmarks"), "--out", str(out),
    ]  # fmt: skip
    for chart in charts:
        args += ["--chart", str(chart)]
    if reference is not None:
        args += ["--reference", str(reference)]
    python(*args)
    return out


def reference_file(root: Path) -> Path:
    """A reference run's verdicts (docs/reference/'s format): two claims differ."""
    rows = [list(row) for row in CLAIM_ROWS]
    rows[0][10] = "reproduced"  # tmc-fig06-ext4-five-writers-fragment
    rows[2][10] = "not reproduced"  # tmc-s531-fragmented-file-needs-more-requests
    lines = ["# device: emulator-emmc", "# scale: test", "# commit: feedface0123",
             "# run_date: 2026-12-01T08:00:00+00:00", ",".join(CSV_COLUMNS)]  # fmt: skip
    path = root / "emulator-emmc-test.csv"
    path.write_text("\n".join(lines + [",".join(row) for row in rows]) + "\n")
    return path


class Elements(HTMLParser):
    """Every element's tag and attributes, in document order."""

    def __init__(self):
        super().__init__()
        self.elements: list[tuple[str, dict]] = []

    def handle_starttag(self, tag, attrs):
        self.elements.append((tag, dict(attrs)))

    def by_id(self) -> dict[str, tuple[str, dict]]:
        return {a["id"]: (t, a) for t, a in self.elements if a.get("id")}


def parse(text: str) -> Elements:
    parser = Elements()
    parser.feed(text)
    return parser


# A script appended to a copy of the report: the browser writes each image's decoded
# width into the DOM, so --dump-dom shows whether it decoded the data URI.
DECODED = """<script>
window.addEventListener("load", () => {
  for (const img of document.images) img.setAttribute("data-decoded-width", img.naturalWidth);
});
</script>"""


def chromium(*args: str) -> subprocess.CompletedProcess:
    sandbox = ["--no-sandbox"] if os.geteuid() == 0 else []
    return subprocess.run(
        [CHROMIUM, "--headless", "--disable-gpu", *sandbox, *args],
        capture_output=True,
        text=True,
        timeout=180,
    )


# --- the report in a browser ---------------------------------------------------------


@needs_r
@needs_chromium
def test_report_opens_in_headless_chromium_with_chart_and_every_figure(fake_run, tmp_path):
    root, run, figures = fake_run
    env = stamp_env(run / "provenance.json")
    # one chart per paper: the fixture's claims are all TMC's
    chart = run / "claims-chart-tmc.png"
    rscript("claims-chart.R", run / "claims-chart-tmc.pdf", chart, [run / "claims.csv"], env,
            "tmc")  # fmt: skip
    report = make_report(root, run, figures, [chart], reference_file(root))
    text = report.read_text()
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", text), "a network resource"

    probe = report.with_name("probe.html")
    probe.write_text(text.replace("</body>", DECODED + "</body>"))
    dom = chromium("--virtual-time-budget=5000", "--dump-dom", probe.as_uri())
    assert dom.returncode == 0, dom.stderr[-2000:]
    ids = parse(dom.stdout).by_id()

    tag, chart_img = ids["claims-chart-claims-chart-tmc"]
    assert tag == "img" and chart_img["src"].startswith("data:image/png;base64,")
    assert int(chart_img["data-decoded-width"]) > 100  # the browser decoded the chart
    images = [a for t, a in parse(dom.stdout).elements if t == "img"]
    assert len(images) == 1 + len(FIGURES)
    assert all(a["src"].startswith("data:image/png;base64,") for a in images)
    assert all(int(a["data-decoded-width"]) > 0 for a in images)
    for stem in FIGURES:
        assert ids[f"figure-{stem}"][0] == "figure"
    for row in CLAIM_ROWS:
        assert ids[f"claim-{row[0]}"][0] == "tr"
    # what the browser shows: counts per paper, the reason beside a miss, the reference
    shown = dom.stdout
    assert "<th>TMC</th>" in shown and ids["by-paper"][0] == "table"
    assert ids["miss-tmc-fig06-ext4-five-writers-fragment"][0] == "li"
    assert "above the band's top 7" in shown
    assert ids["reference-tmc-fig06-ext4-five-writers-fragment"][0] == "tr"
    assert "2 verdicts that differ" in shown
    # every in-page link lands on an element of the page; a claim's table is embedded
    anchors = [a["href"] for t, a in parse(dom.stdout).elements if t == "a" and "href" in a]
    local = {href[1:] for href in anchors if href.startswith("#")}
    assert {f"figure-{stem}" for stem in FIGURES} <= local
    assert local <= set(ids)
    assert "table-concurrent-appenders/dof.csv" in local
    assert not [h for h in anchors if not h.startswith(("#", "data:"))], "a link leaves the page"
    assert COMMIT in dom.stdout

    shot = tmp_path / "shot.png"
    taken = chromium("--hide-scrollbars", "--window-size=1000,1400", f"--screenshot={shot}",
                     report.as_uri())  # fmt: skip
    assert taken.returncode == 0, taken.stderr[-2000:]
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_report_lists_verdicts_provenance_and_what_is_missing(fake_run):
    root, run, figures = fake_run
    (figures / f"{FIGURES[1]}.png").unlink()
    page = report_html.render(
        run / "claims.csv",
        REPO / "config" / "claims.yaml",
        run / "provenance.json",
        None,
        root / "registry.yaml",
        figures,
        run / "report.html",
    )
    assert (
        "4 evidence claims: 1 reproduced, 1 not reproduced, 1 inconclusive, 1 not measured." in page
    )
    ids = parse(page).by_id()
    assert {"by-verdict", "by-basis", "claims-table", "provenance-table", "tool-versions"} <= set(
        ids
    )
    assert "the claims chart was not drawn" in page
    assert f"not rendered: {figures / FIGURES[1]}.png" in page
    assert "≥ 0.9" in page  # a band open above
    assert "17.9 [17.8, 18] (n=2: the interval is their range)" in page
    assert "0.9998 (single run)" in page
    assert "No reference verdicts to compare with" in page
    assert "config_sha256: <code>c0ffee</code>" in page
    assert "2026-11-25T09:30:00+00:00" in page  # run date
    assert "no benchmark files" in page  # run time, where no job wrote one


def test_report_counts_by_paper_and_check_explains_misses_and_compares(fake_run, monkeypatch):
    root, run, figures = fake_run
    page = report_html.render(
        run / "claims.csv", REPO / "config" / "claims.yaml", run / "provenance.json", [],
        root / "registry.yaml", figures, run / "report.html", (), reference_file(root),
    )  # fmt: skip
    ids = parse(page).by_id()
    assert {"by-paper", "by-check", "misses", "reference-table", "tables"} <= set(ids)
    paper = page[page.index('id="by-paper"') : page.index("</table>", page.index('id="by-paper"'))]
    assert "<th>TMC</th>" in paper and "<td class='num'>4</td>" in paper
    checks = page[page.index('id="by-check"') :]
    for name in ("aging", "treatments", "performance"):
        assert f"<th>{name}</th>" in checks
    # the miss: where the interval lies, then the claim's last history entry
    miss = page[page.index('id="miss-tmc-fig06-ext4-five-writers-fragment"') :]
    miss = miss[: miss.index("</li>")]
    assert "measured 17.9 [17.8, 18], above the band&#x27;s top 7" in miss
    assert "last change (" in miss and "why:" in miss
    assert 'id="miss-tmc-fig05a-sqlite-fragmented-from-day-one"' in page  # not measured
    assert "needs autoage/ext4/dof.csv" in page
    assert 'id="miss-tmc-fig09-scan-time-linear-in-dof"' not in page  # reproduced
    # against the reference: the two claims that differ, marked in the claims table too
    assert "emulator-emmc-test.csv: commit feedface0123, run 2026-12-01" in page
    assert "2 verdicts that differ, 0 new claims and 0" in page
    assert 'id="reference-tmc-s531-fragmented-file-needs-more-requests"' in page
    assert 'id="reference-tmc-fig09-scan-time-linear-in-dof"' not in page
    assert '<tr id="claim-tmc-fig06-ext4-five-writers-fragment" class="differs">' in page
    # the claim's table is embedded; one over the limit is linked by its absolute path
    assert 'download="concurrent-appenders_dof.csv" href="data:text/csv;base64,' in page
    monkeypatch.setattr(report_html, "EMBEDDED_TABLE_BYTES", 4)
    page = report_html.render(
        run / "claims.csv", REPO / "config" / "claims.yaml", run / "provenance.json", [],
        root / "registry.yaml", figures, run / "report.html",
    )  # fmt: skip
    table = run / "concurrent-appenders" / "dof.csv"
    assert f'href="{table.resolve().as_uri()}"' in page and "too large to embed" in page


def test_report_shows_a_miss_diagnosis_beside_it_and_counts_causes(fake_run, tmp_path):
    root, run, figures = fake_run
    data = yaml.safe_load((REPO / "config" / "claims.yaml").read_text())
    for claim in data["claims"]:
        claim.pop("diagnosis", None)
        if claim["id"] == CLAIM_ROWS[0][0]:
            claim["diagnosis"] = {"cause": "platform", "measured": "one host thread's <4> vCPUs"}
    claims_file = tmp_path / "claims.yaml"
    claims_file.write_text(yaml.safe_dump(data, allow_unicode=True))
    page = report_html.render(
        run / "claims.csv", claims_file, run / "provenance.json", [],
        root / "registry.yaml", figures, run / "report.html",
    )  # fmt: skip
    miss = page[page.index(f'id="miss-{CLAIM_ROWS[0][0]}"') :]
    miss = miss[: miss.index("</li>")]
    assert "<b>diagnosis (platform):</b> one host thread&#x27;s &lt;4&gt; vCPUs" in miss
    causes = page[page.index('id="misses-by-cause"') :]
    causes = causes[: causes.index("</table>")]
    assert '<tr><th>platform</th><td class="num">1</td></tr>' in causes
    assert page.count('class="diagnosis') == 1  # inconclusive, not measured: none needed
    # not reproduced without a diagnosis is flagged, not refused
    data["claims"] = [{k: v for k, v in c.items() if k != "diagnosis"} for c in data["claims"]]
    claims_file.write_text(yaml.safe_dump(data, allow_unicode=True))
    page = report_html.render(
        run / "claims.csv", claims_file, run / "provenance.json", [],
        root / "registry.yaml", figures, run / "report.html",
    )  # fmt: skip
    assert '<div class="diagnosis undiagnosed">no diagnosis yet</div>' in page
    assert '<tr><th>no diagnosis yet</th><td class="num">1</td></tr>' in page


@pytest.mark.parametrize(("content", "what"), [(b"", "is empty"), (b"%PDF-1.4", "is not a PNG")])
def test_a_figure_that_was_not_drawn_stops_the_report_naming_it(fake_run, content, what, capsys):
    root, run, figures = fake_run
    blank = figures / f"{FIGURES[1]}.png"
    blank.write_bytes(content)
    args = ["--claims-csv", str(run / "claims.csv"), "--claims", "config/claims.yaml"]
    args += [
        "--provenance",
        str(run / "provenance.json"),
        "--registry",
        str(root / "registry.yaml"),
    ]
    args += ["--figures", str(figures), "--out", str(run / "report.html")]
    assert report_html.main(args) == 1
    assert f"report: {blank} {what}" in capsys.readouterr().err
    assert not (run / "report.html").exists()


def test_the_templates_escape_every_value_as_the_page_always_has():
    template = report_html.environment().from_string('<p title="{{ a }}">{{ b }}{{ c }}</p>')
    page = template.render(a='"x"', b="<b>it's</b>", c=None)
    assert page == '<p title="&quot;x&quot;">&lt;b&gt;it&#x27;s&lt;/b&gt;</p>'


def test_claim_tables_follow_the_denominator():
    claim = {"measure": {"table": "a.csv", "relative_to": {"table": "b.csv"}}}
    assert report_html.claim_tables(claim) == ["a.csv", "b.csv"]
    assert report_html.claim_tables(None) == []


# --- provenance on every figure -------------------------------------------------------


def test_figure_stamp_names_commit_device_scale_seed_and_date():
    stamp = figure_stamp(provenance_record())
    assert stamp["commit"] == COMMIT
    assert (stamp["device"], stamp["scale"], stamp["seed"], stamp["date"]) == (
        "emulator-emmc",
        "test",
        "7",
        "2026-11-25",
    )
    assert (
        stamp["line"]
        == "mobifrag 0123456789ab+modified | emulator-emmc | test | seed 7 | run 2026-11-25"
    )


@needs_r
def test_a_redrawn_figure_carries_the_current_provenance(tmp_path):
    table = tmp_path / "dof.csv"
    table.write_text("day,dof\n1,1\n1,2\n2,1\n2,3\n2,5\n")
    provenance = tmp_path / "provenance.json"
    pdf, png = tmp_path / "fig.pdf", tmp_path / "fig.png"

    provenance.write_text(json.dumps(provenance_record()))
    rscript("tmc-fig02a-dof-cdf.R", pdf, png, [table], stamp_env(provenance))
    title = pdf_title(pdf)
    assert title.startswith("fig; mobifrag commit " + COMMIT)
    assert "device emulator-emmc; scale test; seed 7; run 2026-11-25" in title

    later = "fedcba9876543210fedcba9876543210fedcba98"
    provenance.write_text(json.dumps(provenance_record(later)))
    rscript("tmc-fig02a-dof-cdf.R", pdf, png, [table], stamp_env(provenance))
    assert f"commit {later};" in pdf_title(pdf)
    assert COMMIT not in pdf_title(pdf)


@needs_r
def test_a_figure_drawn_outside_the_workflow_has_no_stamp(tmp_path):
    table = tmp_path / "dof.csv"
    table.write_text("day,dof\n1,1\n1,2\n")
    env = {k: v for k, v in os.environ.items() if k != "MOBIFRAG_FIGURE_STAMP"}
    rscript("tmc-fig02a-dof-cdf.R", tmp_path / "f.pdf", tmp_path / "f.png", [table], env)
    assert pdf_title(tmp_path / "f.pdf") == "f"
