"""The paper's figures as a reader sees them: each shows the paper's values for its
claims beside this run's (mobifrag/report/figure_reference.py, paper-figures/theme.R),
its stamp whole, its series visible and its labels in words. Figures are rendered by
their real R scripts from small fixture tables, through the same commands as rule
figure; what they drew is read back from the PDF's text and colours and the PNG's pixels."""

from __future__ import annotations

import contextlib
import csv
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import zlib
from pathlib import Path

import pytest
import yaml

from conftest import REPO, local_env, planned_jobs, repo_copy, snakemake, snakemake_command
from mobifrag.report import figure_reference, provenance
from mobifrag.report.claims import load_claims
from mobifrag.workflow.atomic import write_table
from mobifrag.workflow.figure_registry import read_registry

needs_r = pytest.mark.skipif(shutil.which("Rscript") is None, reason="needs R (make bootstrap)")

REGISTRY = read_registry()
CLAIMS = load_claims(REPO / "config" / "claims.yaml")
# A stamp as long as a real one gets: a modified checkout, the longest device name.
STAMP_RECORD = {
    "commit": "0123456789abcdef0123456789abcdef01234567+modified",
    "dirty": True,
    "recorded": "2026-11-25T09:30:00+00:00",
    "seed": 20170712,
    "config": {"device": "emulator-emmc", "scale": "quick", "seed": 20170712},
}


# --- fixture tables, one per figure the tests draw ---------------------------------------


def write_csv(path: Path, header: str, rows: list[str]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join([header, *rows]) + "\n")
    return path


def autoage_dof(run: Path) -> Path:
    """Two days of two repetitions of AutoAge on ext4: every class, fragmented and whole
    files."""
    header = "day,path,class,package,size_bytes,allocated_bytes,fragments,extents,dof," + ",".join(
        f"L{i}" for i in range(1, 8)
    )
    rows = []
    for rep in (1, 2):
        for day in (1, 2):
            for i, cls in enumerate(("sqlite", "executable", "multimedia", "other") * 3):
                dof = 1 + (i + day + rep) % 4
                levels = [dof if level == i % 7 else 0 for level in range(7)]
                rows.append(
                    f"{day},/data/f{i},{cls},com.x,{4096 * (i + 1)},{4096 * (i + 1)},{dof},{dof},"
                    f"{dof},{','.join(map(str, levels))},{rep}"
                )
    return write_csv(run / "autoage/ext4/dof.csv", f"{header},rep", rows)


# Three runs' factors on a DoF: their median (2) is not their mean (13 / 3).
RUN_FACTORS = {1: 1, 2: 2, 3: 10}


def filldelete_dof(run: Path) -> Path:
    """Facebook's and Google Earth's files at each utilization in three runs: SQLite DoF
    in the thousands, non-SQLite near 1, as the quick study measured them."""
    rows = []
    for rep, factor in RUN_FACTORS.items():
        for level, step in (("low", 1), ("moderate", 2), ("high", 3), ("full", 4)):
            for app, package in (
                ("facebook", "com.facebook.katana"),
                ("earth", "com.google.earth"),
            ):
                for i, cls in enumerate(("sqlite", "sqlite", "other", "other")):
                    dof = 700 * step * factor if cls == "sqlite" else 1 + i % 2
                    path = f"/data/data/{package}/f{i}"
                    rows.append(
                        f"{rep},{level},{app},{package},{path},{cls},4096,4096,{dof},{dof},{dof}"
                    )
    header = "rep,level,app,package,path,class,size_bytes,allocated_bytes,fragments,extents,dof"
    return write_csv(run / "filldelete/ext4/dof.csv", header, rows)


def capacity_dof(run: Path) -> Path:
    """Two apps' SQLite files (120 KiB) on two capacities in three runs: 3, 6 and 30
    fragments, so pieces of 40, 20 and 4 KiB (median 20, mean 21.3)."""
    rows = []
    for rep, factor in RUN_FACTORS.items():
        for mib in (512, 1024):
            for app, package in (
                ("facebook", "com.facebook.katana"),
                ("earth", "com.google.earth"),
            ):
                for i, cls in enumerate(("sqlite", "other")):
                    dof = 3 * factor if cls == "sqlite" else 1
                    path = f"/data/data/{package}/f{i}"
                    rows.append(
                        f"{mib},{app},{package},{rep},{path},{cls},122880,122880,{dof},{dof},{dof}"
                    )
    header = (
        "capacity_mib,app,package,rep,path,class,size_bytes,allocated_bytes,fragments,extents,dof"
    )
    return write_csv(run / "capacity/ext4/dof.csv", header, rows)


def janusd_throughput(run: Path) -> Path:
    """The model's grid, DoF_P 0 and 0.5 at the same throughput (four planes already
    outrun the host link)."""
    rows = []
    for planes, dof_p in ((8, 0), (4, 0.5), (2, 0.75)):
        for dof_l in (1, 2, 4, 8):
            mb_s = (100 if planes >= 4 else 60) / (1 + 0.1 * (dof_l - 1))
            rows.append(f"{dof_l},{planes},{dof_p},{dof_l},524288,{512 / mb_s:.3f},{mb_s:.3f}")
    header = "dof_l,planes_used,dof_p,read_requests,read_bytes,modeled_ms,throughput_mb_s"
    return write_csv(run / "janusd/throughput.csv", header, rows)


def e4defrag_dof(run: Path) -> Path:
    rows = []
    for level in ("low", "high"):
        for threads in (1, 10):
            for method in ("e4defrag", "janusdL"):
                for phase in ("before_defrag", "after_defrag"):
                    dof = 2 * threads if phase == "before_defrag" else 1
                    rows.append(f"1,{level},{threads},{method},{phase},f0,{dof}")
    return write_csv(
        run / "treat/e4defrag/dof.csv", "rep,level,threads,method,phase,path,dof", rows
    )


def janusd_launch(run: Path) -> Path:
    rows = [
        f"{u},7,{day},{package},{phase},100,1000000,{200 + day + (50 if phase[0] == 'b' else 0)}"
        for u in (70, 90)
        for day in (1, 2, 3)
        for package in ("com.android.chrome", "com.twitter.android")
        for phase in ("before_defrag", "after_defrag")
    ]
    header = "utilization_percent,interval_days,day,package,phase,read_requests,read_bytes"
    return write_csv(run / "janusd/recurring/launch.csv", header + ",modeled_ms", rows)


def janusd_dof(run: Path) -> Path:
    """Two weekly defragmentations on each aged image: the apps' files fragment again
    between them, more at 90 %."""
    rows = [
        f"{u},7,{day},{phase},{package},10,{pieces},{pieces / 10}"
        for u in (70, 90)
        for day in (7, 14)
        for package in ("com.android.chrome", "com.twitter.android")
        for phase, pieces in (("before_defrag", 12 + day + u - 70), ("after_defrag", 10))
    ]
    header = "utilization_percent,interval_days,day,phase,package,files,fragments,dof"
    return write_csv(run / "janusd/recurring/dof.csv", header, rows)


def janusd_copies(run: Path) -> Path:
    """A daily and a weekly run at 90 %, a weekly one at 70 %."""
    rows = [
        f"{u},{n},{day},{method},3,{mib << 20},{256 << 20},{mib << 20},{mib << 20}"
        for u, n in ((70, 7), (90, 1), (90, 7))
        for day in range(n, 15, n)
        for method, mib in (("e4defrag", n + u // 10), ("janusdL", 1))
    ]
    header = "utilization_percent,interval_days,day,method,files_moved,moved_bytes,fs_bytes"
    return write_csv(
        run / "janusd/recurring/copies.csv",
        header + ",host_write_bytes,flash_bytes_written",
        rows,
    )


def appenders(run: Path) -> list[Path]:
    layout, dof = [], []
    for fs in ("ext4", "f2fs"):
        for writers in (1, 5):
            for w in range(writers):
                for fragment in range(3):
                    start = fragment * 40 + w * 5
                    layout.append(f"{fs},{writers},1,writer{w}.db,{fragment},0,{start},4")
                dof.append(f"{fs},{writers},1,writer{w}.db,sqlite,{3 if writers > 1 else 1}")
    return [
        write_csv(
            run / "concurrent-appenders/layout.csv",
            "fs,writers,rep,path,fragment,logical_bytes,start_block,length_blocks",
            layout,
        ),
        write_csv(run / "concurrent-appenders/dof.csv", "fs,writers,rep,path,class,dof", dof),
    ]


def autoage_levels(run: Path) -> Path:
    """Two days of two repetitions of AutoAge's fragment counts per size level."""
    rows = [
        f"{day},{cls},L{level},{level * day + rep},{rep}"
        for rep in (1, 2)
        for day in (1, 2)
        for cls in ("sqlite", "other")
        for level in range(1, 8)
    ]
    return write_csv(run / "autoage/ext4/levels.csv", "day,class,level,fragments,rep", rows)


def autoage_level_shares(run: Path) -> Path:
    """One fragmented file per repetition on the last day: L1 is half its fragments in
    the first run and three quarters in the second (all the runs' fragments together,
    two thirds)."""
    header = "day,path,class,package,size_bytes,allocated_bytes,fragments,extents,dof,"
    header += ",".join(f"L{i}" for i in range(1, 8)) + ",rep"
    rows = [
        f"1,/data/a,other,com.x,81920,81920,{n},{n},{n},{l1},10,0,0,0,0,0,{rep}"
        for rep, n, l1 in ((1, 20, 10), (2, 40, 30))
    ]
    return write_csv(run / "autoage/ext4/dof.csv", header, rows)


def journal_dof(run: Path) -> Path:
    """Three runs of the insert benchmark in PERSIST mode: one database (DoF 2.25, 7.75
    and 3.25) and one journal (DoF 1) per run at 5 threads."""
    header = "mode,threads,rep,path,class,kind,dof"
    rows = []
    for rep, dof in ((1, 2.25), (2, 7.75), (3, 3.25)):
        rows.append(f"persist,5,{rep},mobibench/db-0.db,sqlite,database,{dof}")
        rows.append(f"persist,5,{rep},mobibench/db-0.db-journal,sqlite,journal,1")
    return write_csv(run / "treat/journal/dof.csv", header, rows)


MODELS = ("knn", "logistic_regression", "decision_tree", "adaboost", "random_forest")


def ars_table2(run: Path) -> Path:
    """Three repetitions of ARS Table II on one app: the tree's fit time 1, 2 and 9 ms."""
    header = "rep,app,model,fit_seconds,sd,splits,relative_to_fastest"
    rows = []
    for rep, tree_ms in ((1, 1.0), (2, 2.0), (3, 9.0)):
        for model in MODELS:
            ms = tree_ms if model == "decision_tree" else 20.0
            rows.append(f"{rep},facebook,{model},{ms / 1000:.6f},0,10,{ms / tree_ms:.4f}")
    return write_csv(run / "ars/selection/table2.csv", header, rows)


def ars_table1(run: Path, reps: tuple[int, ...] = (1, 2)) -> Path:
    """Repetitions of ARS Table I on one app."""
    header = "rep,app,model,metric,mean,sd,splits,test_files"
    metrics = ("precision", "recall", "accuracy", "balanced_accuracy")
    rows = [
        f"{rep},facebook,{model},{metric},{0.8 + 0.05 * rep:.2f},0.02,10,23"
        for rep in reps
        for model in MODELS
        for metric in metrics
    ]
    return write_csv(run / "ars/selection/table1.csv", header, rows)


def ars_sqlite(run: Path) -> Path:
    """Three repetitions of ARS Fig. 6's SQLite runs: ARS's insert at 100, 300 and 900
    transactions per second."""
    header = "scheme,rep,kind,modeled_tps,modeled_relative,wall_tps,wall_relative"
    rows = []
    for rep, ars_tps in ((1, 100), (2, 300), (3, 900)):
        for scheme in ("f2fs", "ipu", "ars", "ars-ipu"):
            for kind in ("insert", "update", "delete"):
                tps = ars_tps if (scheme, kind) == ("ars", "insert") else 200
                rows.append(f"{scheme},{rep},{kind},{tps},1,{tps},1")
    return write_csv(run / "ars/eval/sqlite.csv", header, rows)


FIXTURES = {
    "tmc-fig15-persistent-journal": lambda run: [journal_dof(run)],
    "tmc-fig03-sqlite-share": lambda run: [autoage_dof(run)],
    "tmc-fig02b-fragment-levels": lambda run: [autoage_level_shares(run)],
    "tmc-fig05b-fragment-levels": lambda run: [autoage_levels(run)],
    "tmc-fig02a-dof-cdf": lambda run: [autoage_dof(run)],
    "tmc-fig05a-dof-by-class": lambda run: [autoage_dof(run)],
    "tmc-fig07-utilization": lambda run: [filldelete_dof(run)],
    "tmc-fig08-capacity": lambda run: [capacity_dof(run)],
    "janusd-fig07-throughput": lambda run: [janusd_throughput(run)],
    "tmc-fig17a-e4defrag-dof": lambda run: [e4defrag_dof(run)],
    "janusd-fig04-launch-time": lambda run: [janusd_launch(run)],
    "janusd-fig03-dof": lambda run: [janusd_dof(run)],
    "janusd-fig05-defrag-copies": lambda run: [janusd_copies(run)],
    "tmc-fig06-layout": appenders,
    "ars-table1-classifiers": lambda run: [ars_table1(run)],
    "ars-table2-training-time": lambda run: [ars_table2(run)],
    "ars-fig06-sqlite": lambda run: [ars_sqlite(run)],
}


# --- drawing a figure as rule figure does, and reading it back ----------------------------


def render(stem: str, tmp_path: Path, reference: bool = True) -> tuple[Path, Path]:
    """The figure's PDF and PNG from its fixture tables, with the stamp and (unless
    `reference` is false) the reference table rule figure hands over."""
    run = tmp_path / "results"
    tables = FIXTURES[stem](run)
    env = {k: v for k, v in os.environ.items() if not k.startswith("MOBIFRAG_")}
    env["MOBIFRAG_FIGURE_STAMP"] = provenance.stamp_text(provenance.figure_stamp(STAMP_RECORD))
    if reference:
        # what `python -m mobifrag.report.figure_reference` writes (the CLI test runs it)
        table = tmp_path / f"{stem}-paper.csv"
        claims = figure_reference.figure_claims(CLAIMS, stem)
        rows = figure_reference.reference_rows(claims, run, "qemu")
        write_table(table, figure_reference.COLUMNS, rows)
        env["MOBIFRAG_FIGURE_REFERENCE"] = str(table)
    pdf, png = tmp_path / f"{stem}.pdf", tmp_path / f"{stem}.png"
    script = REPO / "paper-figures" / f"{stem}.R"
    drawn = subprocess.run(
        ["Rscript", str(script), str(pdf), str(png), *map(str, tables)],
        cwd=tmp_path, capture_output=True, text=True, env=env,
    )  # fmt: skip
    assert drawn.returncode == 0, drawn.stderr
    return pdf, png


def pdf_streams(path: Path) -> list[str]:
    """The content streams of a PDF R's pdf device wrote (Flate-compressed or not)."""
    streams = []
    for raw in re.findall(rb"stream\r?\n(.*?)endstream", path.read_bytes(), re.S):
        with contextlib.suppress(zlib.error):  # an uncompressed stream
            raw = zlib.decompress(raw)
        streams.append(raw.decode("latin-1"))
    return streams


def unescape(text: str) -> str:
    text = re.sub(r"\\([0-7]{3})", lambda m: chr(int(m[1], 8)), text)
    return re.sub(r"\\(.)", r"\1", text)


def pdf_texts(path: Path) -> list[str]:
    """Every string the PDF draws (Tj, or a kerned TJ array joined), one per line of text."""
    texts = []
    for stream in pdf_streams(path):
        for array, single in re.findall(r"\[(.*?)\]\s*TJ|\(((?:\\.|[^\\)])*)\)\s*Tj", stream):
            if single or not array:
                texts.append(unescape(single))
            else:
                texts.append(
                    "".join(unescape(p) for p in re.findall(r"\(((?:\\.|[^\\)])*)\)", array))
                )
    return texts


def pdf_fill_colours(path: Path) -> set[tuple[float, float, float]]:
    return {
        tuple(float(v) for v in m)
        for stream in pdf_streams(path)
        for m in re.findall(r"([\d.]+) ([\d.]+) ([\d.]+) scn", stream)
    }


def rgb(hex_colour: str) -> tuple[float, float, float]:
    """A colour as the PDF writes it (three decimals)."""
    return tuple(round(int(hex_colour[i : i + 2], 16) / 255, 3) for i in (1, 3, 5))


def png_rows(path: Path) -> list[bytes]:
    """The RGB rows of an 8-bit RGB or RGBA PNG, unfiltered (RFC 2083)."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, header = 8, b"", None
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        kind, body = data[pos + 4 : pos + 8], data[pos + 8 : pos + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    width, height, depth, colour, _, _, interlace = header
    assert depth == 8 and colour in (2, 6) and not interlace, header
    channels = 3 if colour == 2 else 4
    raw, stride, rows, prior = (
        zlib.decompress(idat),
        width * channels,
        [],
        bytearray(width * channels),
    )
    for y in range(height):
        kind, line = (
            raw[y * (stride + 1)],
            bytearray(raw[y * (stride + 1) + 1 : (y + 1) * (stride + 1)]),
        )
        for x in range(stride):
            left = line[x - channels] if x >= channels else 0
            up, corner = prior[x], prior[x - channels] if x >= channels else 0
            if kind == 1:
                line[x] = (line[x] + left) & 255
            elif kind == 2:
                line[x] = (line[x] + up) & 255
            elif kind == 3:
                line[x] = (line[x] + (left + up) // 2) & 255
            elif kind == 4:
                p = left + up - corner
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
                best = left if pa <= pb and pa <= pc else up if pb <= pc else corner
                line[x] = (line[x] + best) & 255
        rows.append(bytes(b for x, b in enumerate(line) if x % channels < 3))
        prior = line
    return rows


# --- the paper's values on every figure that shows a claim ------------------------------


def test_every_figure_with_a_claim_gets_each_claims_paper_value_and_band(tmp_path):
    for stem in REGISTRY:
        claims = figure_reference.figure_claims(CLAIMS, stem)
        rows = figure_reference.reference_rows(claims, tmp_path, "qemu")
        assert [r["id"] for r in rows] == [c["id"] for c in claims], stem
        for claim, row in zip(claims, rows, strict=True):
            paper = claim.get("paper_value")
            assert row["paper_value"] == ("NA" if paper is None else f"{paper:.6g}"), claim["id"]
            assert row["paper_text"].startswith("paper"), claim["id"]
            assert row["measured_text"] == "here: not measured"  # no tables in tmp_path
            assert row["label"] and not re.search(r"\b(fig|tab)\d|tmc-|janusd-", row["label"])


def test_reference_table_cli_writes_one_row_per_claim(tmp_path):
    out = tmp_path / "ref.csv"
    stem = "tmc-fig07-utilization"
    run = subprocess.run(
        [sys.executable, "-m", "mobifrag.report.figure_reference", "--figure", stem,
         "--claims", "config/claims.yaml", "--results", str(tmp_path), "--out", str(out)],
        cwd=REPO, capture_output=True, text=True,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    with open(out, newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert len(rows) == len(figure_reference.figure_claims(CLAIMS, stem)) == 6
    assert tuple(rows[0]) == figure_reference.COLUMNS


def test_claim_labels_are_words():
    assert figure_reference.claim_label("tmc-fig14a-prealloc-128k-reduces-dof") == (
        "Prealloc 128 KiB reduces DoF"
    )
    assert figure_reference.claim_label("tmc-fig07-non-sqlite-unfragmented-at-low") == (
        "Non-SQLite unfragmented at low"
    )
    assert figure_reference.number_text(276480) == "276,480"


def test_every_figure_saves_through_the_shared_theme():
    # save_figure (theme.R) draws the claims panel and the stamp; a script that saved its
    # plot itself would draw neither.
    for stem in REGISTRY:
        script = (REPO / "paper-figures" / f"{stem}.R").read_text()
        assert len(re.findall(r"\bsave_figure\(", script)) == 1, stem
        assert not re.search(r"\b(ggsave|pdf|png|dev\.off)\(", script), stem


@needs_r
def test_every_figure_with_a_claim_draws_the_paper_beside_this_run(tmp_path):
    # For every registered figure with a claim: its reference table (no tables measured
    # here), and the panel theme.R draws from it, built; one band per claim, one paper
    # diamond per claim with a paper value, the "paper" mark on the axis.
    tables = []
    for stem in REGISTRY:
        claims = figure_reference.figure_claims(CLAIMS, stem)
        if claims:
            table = tmp_path / f"{stem}.csv"
            rows = figure_reference.reference_rows(claims, tmp_path, "qemu")
            write_table(table, figure_reference.COLUMNS, rows)
            with_paper = sum(c.get("paper_value") is not None for c in claims)
            tables.append((stem, table, len(claims), with_paper))
    assert len(tables) >= 35
    script = """
    source("paper-figures/theme.R")
    for (path in commandArgs(TRUE)) {
      built <- ggplot_build(reference_panel(figure_reference(path)))
      layers <- vapply(built$plot$layers, function(l) class(l$geom)[[1]], "")
      bands <- nrow(built$data[[which(layers == "GeomSegment")]])
      diamonds <- sum(vapply(which(layers == "GeomPoint"), function(i) {
        sum(built$data[[i]]$shape == 18)
      }, numeric(1)))
      axis <- built$layout$panel_params[[1]]$x.sec$get_labels()
      cat(basename(path), bands, diamonds, paste(axis, collapse = "/"), "\\n")
    }
    """
    run = subprocess.run(
        ["Rscript", "-e", script, *(str(t[1]) for t in tables)],
        cwd=REPO, capture_output=True, text=True,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    drawn = {line.split()[0]: line.split()[1:] for line in run.stdout.splitlines()}
    for stem, table, claims, with_paper in tables:
        assert drawn[table.name] == [str(claims), str(with_paper), "paper"], stem


@needs_r
@pytest.mark.parametrize("stem", ["tmc-fig02a-dof-cdf", "tmc-fig03-sqlite-share",
    "tmc-fig05a-dof-by-class", "tmc-fig05b-fragment-levels"])  # fmt: skip
def test_autoage_figures_draw_repeated_runs(tmp_path, stem):
    pdf, png = render(stem, tmp_path)
    assert pdf.stat().st_size > 0 and png.stat().st_size > 0


@needs_r
def test_autoage_level_shares_are_the_median_of_the_runs_shares(tmp_path):
    pdf, _ = render("tmc-fig02b-fragment-levels", tmp_path)
    texts = pdf_texts(pdf)
    assert "62 %" in texts or "63 %" in texts  # the median of 50 % and 75 %
    assert "67 %" not in texts  # not the share of the runs' fragments together


@needs_r
def test_journal_figure_draws_the_median_of_the_runs_means(tmp_path):
    pdf, _ = render("tmc-fig15-persistent-journal", tmp_path)
    texts = pdf_texts(pdf)
    assert "3.25" in texts  # the databases' median run
    assert "4.42" not in texts  # not the mean over the runs


@needs_r
def test_ars_training_times_are_the_median_of_the_repetitions(tmp_path):
    pdf, _ = render("ars-table2-training-time", tmp_path)
    texts = pdf_texts(pdf)
    assert "2 ms" in texts  # the tree's median run
    assert "4 ms" not in texts  # not the mean over the runs


@needs_r
def test_ars_sqlite_bars_are_the_median_of_the_repetitions(tmp_path):
    pdf, _ = render("ars-fig06-sqlite", tmp_path)
    texts = pdf_texts(pdf)
    assert "300" in texts  # ARS's median insert run
    assert "900" not in texts and "433" not in texts  # neither the last run nor the mean


@needs_r
def test_ars_table1_draws_one_bar_per_model_and_metric_however_many_runs(tmp_path, monkeypatch):
    """Two repetitions draw as many rectangles (bars, keys, bands) as one: the bars are
    the runs' median, not one bar per run side by side."""
    rectangles = {}
    for reps in ((1,), (1, 2)):
        table = lambda run, reps=reps: [ars_table1(run, reps)]  # noqa: E731
        monkeypatch.setitem(FIXTURES, "ars-table1-classifiers", table)
        folder = tmp_path / f"runs-{len(reps)}"
        folder.mkdir()
        pdf, _ = render("ars-table1-classifiers", folder)
        rectangles[len(reps)] = sum(s.count(" re\n") for s in pdf_streams(pdf))
    assert rectangles[1] > 20 and rectangles[1] == rectangles[2]


@needs_r
def test_a_figure_shows_the_papers_numbers_and_this_runs(tmp_path):
    pdf, _ = render("tmc-fig03-sqlite-share", tmp_path)
    texts = pdf_texts(pdf)
    # the claims panel: each claim's label, the paper's value and band, this run's value
    assert "Fragmented SQLite files small" in texts
    assert "paper 276,480, band [138,240, 414,720]" in texts  # config/claims.yaml's numbers
    assert "paper 0.45, band [0.225, 0.675]" in texts
    assert any(t.startswith("here ") and "(n = 2): " in t for t in texts)  # two runs
    # the paper's share marked on the figure's own SQLite bar, and the axis of the panel
    assert texts.count("paper") >= 2

    bare, _ = render("tmc-fig03-sqlite-share", tmp_path / "bare", reference=False)
    assert not [t for t in pdf_texts(bare) if t.startswith("paper")]


# --- the stamp fits the narrowest figure -------------------------------------------------


def figure_widths() -> dict[str, float]:
    """Each registered figure's width in inches, as its script saves it (7 by default)."""
    widths = {}
    for stem in REGISTRY:
        call = re.search(
            r"save_figure\((.*?)\)\s*$", (REPO / "paper-figures" / f"{stem}.R").read_text(), re.S
        )
        width = re.search(r"width = ([\d.]+)", call[1])
        widths[stem] = float(width[1]) if width else 7.0
    return widths


@needs_r
@pytest.mark.parametrize("reference", [False, True], ids=["alone", "with-claims-panel"])
def test_the_stamp_fits_the_narrowest_figure(tmp_path, reference):
    widths = figure_widths()
    narrowest = min(widths, key=widths.get)
    assert narrowest in FIXTURES, f"{narrowest} is the narrowest figure: give it a fixture"
    pdf, png = render(narrowest, tmp_path, reference)
    rows = png_rows(png)
    # Text cut off at the figure's edge leaves ink there; every figure has a white margin
    # (theme_bw's 5.5 pt, 11 px at 150 dpi) on all four sides.
    margin = 6
    white = b"\xff" * 3
    edges = (
        [row[: 3 * margin] + row[-3 * margin :] for row in rows] + rows[:margin] + rows[-margin:]
    )
    inked = [i for i, edge in enumerate(edges) if edge != white * (len(edge) // 3)]
    assert not inked, f"{narrowest}: ink at the edge (stamp or caption cut off)"
    # and the whole stamp is drawn, broken at its bars where one line does not fit
    starts = ("mobifrag ", "emulator-emmc", "quick", "seed ", "run ")
    stamp = " | ".join(t for t in pdf_texts(pdf) if t.startswith(starts))
    fields = ("mobifrag 0123456789ab+modified", "emulator-emmc", "quick", "seed 20170712")
    assert all(field in stamp for field in (*fields, "run 2026-11-25")), stamp


# --- series, axes, colours and labels ---------------------------------------------------


@needs_r
def test_janusd_fig07_has_the_papers_two_panels_and_no_hidden_series(tmp_path):
    pdf, _ = render("janusd-fig07-throughput", tmp_path)
    texts = pdf_texts(pdf)
    assert "(a) low DoF_P (below 0.5)" in texts and "(b) high DoF_P (0.5 and above)" in texts
    # DoF_P 0 and 0.5 run at the same throughput: in panels of their own, each in its
    # colour; the paper's 75 % cut at DoF_L 8 (claims.yaml's 0.25) marked in panel (a)
    colours = pdf_fill_colours(pdf)
    assert {rgb("#E69F00"), rgb("#56B4E9"), rgb("#009E73")} <= colours
    assert "paper" in texts


@needs_r
def test_janusd_fig03_marks_the_papers_twitter_dof_on_the_weekly_runs(tmp_path):
    texts = pdf_texts(render("janusd-fig03-dof", tmp_path)[0])
    # config/claims.yaml's numbers: 1.86 at 70 %, 3.04 at 90 %
    assert "paper 1.86, band [1.43, 2.29]" in texts
    assert "paper 3.04, band [2.02, 4.06]" in texts
    # the paper's DoF on Twitter's weekly panel of each aged image, and the claims
    # panel's axis mark
    assert texts.count("paper") == 3
    assert {"70 %, defrag every 7 d", "90 %, defrag every 7 d"} <= set(texts)
    assert "mean DoF of the app's files" in texts


@needs_r
def test_janusd_fig05_groups_the_bars_by_aged_image_and_period(tmp_path):
    texts = pdf_texts(render("janusd-fig05-defrag-copies", tmp_path)[0])
    assert {"70 %, every 7 d", "90 %, every 1 d", "90 %, every 7 d"} <= set(texts)


@needs_r
def test_tmc_fig07_draws_dof_on_a_log_axis(tmp_path):
    pdf, _ = render("tmc-fig07-utilization", tmp_path)
    texts = pdf_texts(pdf)
    # DoF 1 to 2,800 on one axis: decades, not a linear scale from 0
    assert {"1", "10", "100", "1000"} <= set(texts)
    assert "0" not in texts
    assert "mean DoF (log scale)" in texts
    assert {"Facebook", "Google Earth"} <= set(texts)


@needs_r
def test_tmc_fig07_bars_are_the_median_of_the_runs_means(tmp_path):
    pdf, _ = render("tmc-fig07-utilization", tmp_path)
    texts = pdf_texts(pdf)
    assert "1400" in texts  # Low's SQLite files: runs of 700, 1,400 and 7,000
    assert "3030" not in texts  # not their mean


@needs_r
def test_tmc_fig08_labels_the_median_runs_fragment_size(tmp_path):
    pdf, _ = render("tmc-fig08-capacity", tmp_path)
    texts = pdf_texts(pdf)
    assert "20" in texts  # KiB per piece in the median run (40, 20, 4)
    assert "21" not in texts  # not the mean over the runs


@needs_r
def test_tmc_fig05a_draws_sqlite_in_a_strong_colour_and_no_yellow(tmp_path):
    pdf, _ = render("tmc-fig05a-dof-by-class", tmp_path)
    colours = pdf_fill_colours(pdf)
    assert rgb("#D55E00") in colours  # SQLite, vermillion
    assert rgb("#F0E442") not in colours  # the palette's yellow, hard to see on white
    assert "SQLite" in pdf_texts(pdf) and "sqlite" not in pdf_texts(pdf)


@needs_r
@pytest.mark.parametrize(
    ("stem", "words", "identifiers"),
    [
        ("tmc-fig17a-e4defrag-dof", ["before defragmentation", "after e4defrag"],
         ["before_defrag"]),
        ("janusd-fig04-launch-time", ["Chrome", "Twitter", "after defragmentation"],
         ["android.chrome", "twitter.android", "after_defrag"]),
        ("janusd-fig03-dof", ["Chrome", "Twitter", "before defragmentation",
                              "70 %, defrag every 7 d"],
         ["android.chrome", "twitter.android", "before_defrag"]),
        ("tmc-fig06-layout", ["thread 1", "thread 5", "file written by"], ["writer0.db"]),
    ],
)  # fmt: skip
def test_figures_label_in_words_not_identifiers(tmp_path, stem, words, identifiers):
    texts = pdf_texts(render(stem, tmp_path, reference=False)[0])
    assert set(words) <= set(texts), stem
    assert not set(identifiers) & set(texts), stem


@needs_r
def test_app_names_cover_every_scenario_and_package():
    script = (
        'source("paper-figures/theme.R"); cat(names(app_names), sep = "\\n"); cat("--\\n");'
        ' cat(paste(names(app_packages), app_packages), sep = "\\n")'
    )
    run = subprocess.run(["Rscript", "-e", script], cwd=REPO, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    names, packages = run.stdout.split("--\n")
    scenarios = [yaml.safe_load(p.read_text()) for p in (REPO / "traces/scenarios").glob("*.yaml")]
    apps = [s for s in scenarios if s and s.get("kind") == "app"]
    game = yaml.safe_load((REPO / "traces/launch/game.yaml").read_text())
    assert set(names.split()) == {a["app"] for a in apps} | {game["app"]}
    assert set(packages.strip().splitlines()) == {f"{a['package']} {a['app']}" for a in apps}


# --- a figure waits only for what it draws ------------------------------------------------


def test_stamp_record_names_the_run_without_its_kernel(tmp_path):
    config = tmp_path / "config.json"
    config.write_text(json.dumps({"device": "emulator-emmc", "scale": "test", "seed": 7}))
    out = tmp_path / "figure-stamp.json"
    assert provenance.main(["--stamp-record", str(config), "--out", str(out)]) == 0
    record = json.loads(out.read_text())
    assert "kernel" not in record
    stamp = provenance.figure_stamp(record)
    assert (stamp["device"], stamp["scale"], stamp["seed"]) == ("emulator-emmc", "test", "7")
    assert stamp["commit"] == provenance.git_commit()


def test_a_model_only_figure_needs_no_kernel():
    # janusd Fig. 7 is drawn from ftl-sim alone: planned from nothing, it must not wait
    # for the emulator kernel (nor provenance.json, which records it).
    figure = "paper-figures/emulator-emmc/test/janusd-fig07-throughput.png"
    plan = snakemake("-n", "--forceall", figure, "--config", "scale=test")
    jobs = planned_jobs(plan.stdout)
    assert {"janusd_throughput", "figure_stamp", "figure"} <= set(jobs)
    assert not {"kernel_emulator", "provenance"} & set(jobs), jobs


@needs_r
def test_a_script_that_draws_nothing_fails_its_figure_job_naming_the_file(tmp_path):
    # in a copy of the repository, whose figure script leaves both files empty
    copy = repo_copy(tmp_path / "repo")
    stem = "tmc-fig13-flashsim-diff"
    script = "args <- commandArgs(TRUE)\ninvisible(file.create(args[1:2]))\n"
    (copy / "paper-figures" / f"{stem}.R").write_text(script)
    run = copy / "results" / "emulator-emmc" / "test"
    write_csv(run / "flashsim" / "diff.csv", "trace,requests", ["scan,1"])
    (run / "figure-stamp.json").write_text(json.dumps(STAMP_RECORD))
    target = f"paper-figures/emulator-emmc/test/{stem}.pdf"
    command = snakemake_command("--allowed-rules", "figure", "--config", "scale=test", "--", target)
    drawn = subprocess.run(command, cwd=copy, env=local_env(), capture_output=True, text=True)
    output = drawn.stdout + drawn.stderr
    assert drawn.returncode != 0
    assert f"figure {stem}: {target} is empty: its script drew nothing" in output
    assert not (copy / target).exists()
