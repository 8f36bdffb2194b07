"""The generated pages of docs/: the claims catalogue, the figures page and the artifact
appendix (mobifrag/report/ae_appendix.py).

    python -m mobifrag.report.docs_pages --claims config/claims.yaml \
        --registry paper-figures/registry.yaml --out docs/

docs/appendix.md, the claims catalogue, lists every claim of config/claims.yaml, grouped
by paper: its figure, the commands that produce its tables and its figure, its basis,
the band of measured values that reproduces it (with the `band:` text saying how the
band derives from the paper's number), the regime it needs, its source in the paper and,
where one was measured, the time its experiment took on 2 cores. docs/figures.md lists
every figure of paper-figures/registry.yaml with its caption, its tables and the claims
judged on it. Both are written from those two files, the claims' and the checks' times
from the reference run's job times (docs/reference/);
docs/artifact-appendix.md also reads the reference runs' verdicts and the repository's
setup files, and README's verdict counts come from
the reference runs (`make docs`). tests/report/test_docs_pages.py fails when the committed pages
differ from what this writes.

Each page's prose and layout are a Jinja2 template of mobifrag/report/templates/docs/
(appendix.md.j2, figures.md.j2, artifact-appendix.md.j2, readme-verdicts.md.j2 for
README's block, header.md.j2 for the line that says a page is generated), rendered by
mobifrag/report/page_templates.py; this module gathers what they show.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import yaml

from mobifrag.report import ae_appendix, job_times, reference
from mobifrag.report.claims import ClaimsError, describe_band, load_checks, load_claims
from mobifrag.report.job_times import JobTimes
from mobifrag.report.page_templates import cell, links, render
from mobifrag.report.verdict import VERDICTS, band
from mobifrag.workflow.figure_registry import read_registry
from mobifrag.workflow.stages import FIGURES, REFERENCE, REFERENCES, RESULTS, as_prose

DEVICE = "emulator-emmc"
SCALE = "quick"
PAGES = ("appendix.md", "figures.md", "artifact-appendix.md")
DEFAULT_RESULTS = RESULTS.format(device=DEVICE, scale=SCALE)
DEFAULT_FIGURES = FIGURES.format(device=DEVICE, scale=SCALE)

# The papers, in the order the pages list them, by claim-id and figure-stem prefix.
PAPERS = {
    "tmc": (
        "TMC: File Fragmentation in Mobile Devices",
        "C. Ji, L.-P. Chang, S. S. Hahn, S. Lee, R. Pan, L. Shi, J. Kim and C. J. Xue, "
        '"File Fragmentation in Mobile Devices: Measurement, Evaluation, and Treatment", '
        "IEEE Transactions on Mobile Computing, 2019, doi:10.1109/TMC.2018.2869737",
    ),
    "janusd": (
        "janusd: a decoupled defragmenter",
        "S. S. Hahn, S. Lee, C. Ji, L.-P. Chang, I. Yee, L. Shi, C. J. Xue and J. Kim, "
        '"Improving File System Performance of Mobile Storage Systems Using a Decoupled '
        'Defragmenter", USENIX ATC 2017, pp. 759-771',
    ),
    "ars": (
        "ARS: adaptive reserved space for F2FS",
        "L. Yang, F. Wang, Z. Tan, D. Feng, J. Qian and S. Tu, "
        '"ARS: Reducing F2FS Fragmentation for Smartphones using Decision Trees", '
        "DATE 2020, doi:10.23919/DATE48585.2020.9116318",
    ),
    "ext4tune": (
        "Ext4 tuning for Android",
        'H.-J. Kim and J.-S. Kim, "Tuning the Ext4 Filesystem Performance for '
        'Android-Based Smartphones", Frontiers in Computer Education, AISC 133, Springer, '
        "2012, doi:10.1007/978-3-642-27552-4_98",
    ),
}
OTHER = ("Other claims", "")


def paper_of(name: str) -> str:
    prefix = name.split("-", 1)[0]
    return prefix if prefix in PAPERS else ""


def paper_title(key: str) -> tuple[str, str]:
    return PAPERS.get(key, OTHER)


def measures(claim: dict) -> list[dict]:
    """Every measure a claim reads: its own and what it divides by, then its regime's."""
    found = []
    roots = [claim["measure"]] + ([claim["regime"]["measure"]] if "regime" in claim else [])
    for measure in roots:
        while measure is not None:
            found.append(measure)
            measure = measure.get("relative_to")
    return found


def tables(claim: dict) -> list[str]:
    seen: list[str] = []
    for measure in measures(claim):
        if measure["table"] not in seen:
            seen.append(measure["table"])
    return seen


def time_of(measure: dict, job_times_: JobTimes | None) -> str:
    """The job-minutes of the experiment that makes the measure's table, or ""."""
    e = ae_appendix.experiment_of(measure["table"])
    minutes = ae_appendix.experiment_minutes(e, job_times_) if e else None
    return "" if minutes is None else f"{e.key} {e.name} {minutes:.1f}"


def times(claim: dict, job_times_: JobTimes | None) -> str:
    found: list[str] = []
    for measure in measures(claim):
        text = time_of(measure, job_times_)
        if text and text not in found:
            found.append(text)
    return "; ".join(f"{t} job-min" for t in found)


def flow(mapping: dict) -> str:
    return yaml.safe_dump(mapping, default_flow_style=True, width=1000).strip()


def describe(claim: dict) -> str:
    """The band a claim's rule accepts, with the rule and the paper's value."""
    accepted = describe_band(band(claim["reproduced_if"], claim.get("paper_value")))
    paper = claim.get("paper_value")
    paper_text = "" if paper is None else f"; paper {paper:g}"
    return f"{accepted} (`{flow(claim['reproduced_if'])}`{paper_text})"


def table_commands(names: list[str]) -> list[tuple[str, str]]:
    """Each result table with the command that makes it for the default device and scale."""
    return [(name, f"snakemake {DEFAULT_RESULTS}/{name}") for name in names]


def figure_command(stem: str) -> str:
    return f"snakemake {DEFAULT_FIGURES}/{stem}.pdf"


def grouped(items, name):
    """Items grouped by paper, in PAPERS order, 'other' last."""
    order = [*PAPERS, ""]
    groups: dict[str, list] = {key: [] for key in order}
    for item in items:
        groups[paper_of(name(item))].append(item)
    return [(key, groups[key]) for key in order if groups[key]]


def check_rows(checks: dict[str, list[dict]], job_times_: JobTimes | None) -> list[tuple[str, ...]]:
    """Each check with its claims, its command and the job-minutes of the experiments
    its claims read (each experiment once)."""
    return [
        (
            f"`{name}`",
            links(c["id"] for c in members),
            f"`make check CHECK={name}`",
            ae_appendix.minutes_text(ae_appendix.experiments_of(members), job_times_),
        )
        for name, members in checks.items()
    ]


def claim_row(c: dict, job_times_: JobTimes | None) -> tuple[str, ...]:
    return (
        links([c["id"]]),
        links([c["figure"]], "figures.md"),
        c["basis"],
        cell(describe(c)),
        cell(times(c, job_times_)),
    )


def claim_entry(c: dict, job_times_: JobTimes | None) -> dict:
    """A claim and what the catalogue shows of it beyond its own fields."""
    return {
        "claim": c,
        "figure_command": figure_command(c["figure"]),
        "tables": table_commands(tables(c)),
        "band": describe(c),
        "time": times(c, job_times_),
    }


def catalogue_part(key: str, members: list[dict], job_times_: JobTimes | None) -> dict:
    """One paper's part of the catalogue: its title and reference, its claims."""
    title, reference = paper_title(key)
    return {
        "title": title,
        "reference": reference,
        "rows": [claim_row(c, job_times_) for c in members],
        "entries": [claim_entry(c, job_times_) for c in members],
    }


def appendix(
    claims: list[dict],
    checks: dict[str, list[dict]],
    sources: str,
    job_times_: JobTimes | None = None,
) -> str:
    groups = grouped(claims, lambda c: c["id"])
    papers = [catalogue_part(key, members, job_times_) for key, members in groups]
    return render(
        "appendix.md.j2",
        sources=sources,
        count=len(claims),
        device=DEVICE,
        scale=SCALE,
        results=DEFAULT_RESULTS,
        timed_run=ae_appendix.timed_run(job_times_),
        checks=check_rows(checks, job_times_),
        papers=papers,
    )


def figure_entry(stem: str, entry: dict, judged: list[str]) -> dict:
    return {
        "stem": stem,
        "caption": entry.get("caption", ""),
        "command": figure_command(stem),
        "tables": table_commands(entry.get("tables", [])),
        "claims": judged,
    }


def figures_page(registry: dict, claims: list[dict], sources: str) -> str:
    by_figure: dict[str, list[str]] = {}
    for c in claims:
        by_figure.setdefault(c["figure"], []).append(c["id"])
    papers = [
        {
            "title": paper_title(key)[0],
            "figures": [figure_entry(s, registry[s], by_figure.get(s, [])) for s in stems],
        }
        for key, stems in grouped(sorted(registry), lambda s: s)
    ]
    return render(
        "figures.md.j2",
        sources=sources,
        count=len(registry),
        results=as_prose(RESULTS),
        figures=as_prose(FIGURES),
        device=DEVICE,
        scale=SCALE,
        papers=papers,
    )


def pages(
    claims_path: Path, registry_path: Path, references: Path = reference.REFERENCES
) -> dict[str, str]:
    """Page name → its text."""
    claims = load_claims(claims_path)
    checks = load_checks(claims_path)
    registry = read_registry(Path(registry_path))
    sources = "`config/claims.yaml` and `paper-figures/registry.yaml`"
    try:
        tables = reference_tables(references)
        times = reference_job_times(tables)
    except (reference.ReferenceError, job_times.BenchmarkError) as error:
        raise ClaimsError(str(error)) from None
    ae_sources = (
        f"{sources}, `docs/reference/`, `devices/`, `config/config.yaml`, `config/experiments/`, "
        "`bootstrap/debian-packages.txt`, `requirements.lock` and `mobifrag/release.py`"
    )
    return {
        "appendix.md": appendix(claims, checks, sources, times),
        "figures.md": figures_page(registry, claims, sources),
        "artifact-appendix.md": ae_appendix.page(
            claims, checks, registry, tables, ae_sources, times
        ),
    }


def write_pages(
    claims_path: Path, registry_path: Path, out: Path, references: Path = reference.REFERENCES
) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for name, text in pages(claims_path, registry_path, references).items():
        path = out / name
        partial = path.with_name(path.name + ".partial")
        partial.write_text(text)
        partial.replace(path)
        written.append(path)
    return written


# --- README's counts, from the committed reference verdicts ------------------------

README_START = (
    "<!-- reference-verdicts: written by `make docs` from docs/reference/*.csv; "
    "edit those, not this block -->"
)
README_END = "<!-- /reference-verdicts -->"
README_MARK = "<!-- reference-verdicts:"


def reference_tables(folder: Path = reference.REFERENCES) -> list[reference.Table]:
    """Every committed reference (docs/reference/<device>-<scale>.csv), by name."""
    return [reference.read_table(path) for path in sorted(Path(folder).glob("*.csv"))]


def reference_job_times(tables: list[reference.Table]) -> job_times.JobTimes | None:
    """The job times beside the default device's quick reference, where it has them."""
    device = ae_appendix.repo_facts()["default_device"]
    for table in tables:
        if table.meta.get("device") == device and table.meta.get("scale") == "quick":
            path = reference.job_times_path(table.path, table.meta)
            return job_times.read_table(path) if path.is_file() else None
    return None


def reference_row(ref: reference.Table, count: dict[str, int], shown: list[str]) -> tuple:
    meta = ref.meta
    run = f"{meta.get('commit', '?')[:7]}, {meta.get('run_date', '?')[:10]}"
    return (
        meta.get("device", "?"),
        meta.get("scale", "?"),
        f"[{run}]({REFERENCES}/{ref.path.name})",
        sum(count.values()),
        *(count[v] for v in shown),
    )


def reference_block(tables: list[reference.Table]) -> list[str]:
    """README's lines between its markers: one row per reference, its run and its
    evidence claims' count per verdict (the verdicts no reference has left out)."""
    counts = [reference.evidence_counts(table) for table in tables]
    shown = [v for v in VERDICTS if any(c[v] for c in counts)]
    text = render(
        "readme-verdicts.md.j2",
        start=README_START,
        end=README_END,
        rows=[reference_row(t, c, shown) for t, c in zip(tables, counts, strict=True)],
        verdicts=shown,
        references=REFERENCES,
        reference=as_prose(REFERENCE),
    )
    return text.splitlines()


def readme_with_block(text: str, block: list[str], name: str = "README.md") -> str:
    """README's text with the lines between the markers replaced by `block`."""
    lines = text.split("\n")
    starts = [i for i, line in enumerate(lines) if line.startswith(README_MARK)]
    ends = [i for i, line in enumerate(lines) if line == README_END]
    if len(starts) != 1 or len(ends) != 1 or ends[0] < starts[0]:
        raise ClaimsError(
            f"{name}: needs one '{README_MARK} ...' line and one '{README_END}' after it"
        )
    return "\n".join(lines[: starts[0]] + block + lines[ends[0] + 1 :])


def write_readme(readme: Path, folder: Path = reference.REFERENCES) -> Path:
    text = readme.read_text()
    try:
        tables = reference_tables(folder)
    except reference.ReferenceError as error:
        raise ClaimsError(str(error)) from None
    updated = readme_with_block(text, reference_block(tables), str(readme))
    if updated != text:
        partial = readme.with_name(readme.name + ".partial")
        partial.write_text(updated)
        partial.replace(readme)
    return readme


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Write docs/appendix.md and docs/figures.md.")
    parser.add_argument("--claims", type=Path, default=Path("config/claims.yaml"))
    parser.add_argument("--registry", type=Path, default=Path("paper-figures/registry.yaml"))
    parser.add_argument("--out", type=Path, default=Path("docs"))
    parser.add_argument("--readme", type=Path, help="also write README's reference counts")
    parser.add_argument("--references", type=Path, default=reference.REFERENCES)
    args = parser.parse_args(argv)
    try:
        written = write_pages(args.claims, args.registry, args.out, args.references)
        if args.readme:
            written.append(write_readme(args.readme, args.references))
    except (ClaimsError, OSError, yaml.YAMLError) as error:
        print(f"docs_pages: {error}", file=sys.stderr)
        return 1
    for path in written:
        print(f"docs_pages: wrote {path}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
