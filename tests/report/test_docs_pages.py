"""README and the generated pages of docs/ agree with the claims file and the registry."""

import re

import pytest

from conftest import REPO, squeezed
from mobifrag.report import ae_appendix, docs_pages, job_times
from mobifrag.report.claims import load_claims

CLAIMS = REPO / "config" / "claims.yaml"
REGISTRY = REPO / "paper-figures" / "registry.yaml"
DOCS = REPO / "docs"
README = REPO / "README.md"


@pytest.mark.parametrize("name", docs_pages.PAGES)
def test_generated_page_is_up_to_date(tmp_path, name):
    docs_pages.write_pages(CLAIMS, REGISTRY, tmp_path)
    committed = DOCS / name
    assert committed.is_file(), f"docs/{name} is missing: run `make docs`"
    assert committed.read_text() == (tmp_path / name).read_text(), (
        f"docs/{name} differs from config/claims.yaml and paper-figures/registry.yaml:"
        " run `make docs`"
    )


def test_every_claim_has_its_section_in_the_appendix():
    text = (DOCS / "appendix.md").read_text()
    missing = [c["id"] for c in load_claims(CLAIMS) if f"\n### {c['id']}\n" not in text]
    assert not missing, f"claims missing from docs/appendix.md: {missing}"


def headings(text: str) -> set[str]:
    return {line.lstrip("#").strip() for line in text.splitlines() if line.startswith("#")}


@pytest.mark.parametrize("name", docs_pages.PAGES)
def test_generated_links_reach_a_heading(name):
    text = (DOCS / name).read_text()
    for page, anchor in re.findall(r"\]\(([a-z]*\.md)?#([a-z0-9-]+)\)", text):
        target = (DOCS / page).read_text() if page else text
        assert anchor in headings(target), f"docs/{name}: link to {page}#{anchor}"


def test_readme_is_short_and_starts_with_the_two_commands():
    lines = README.read_text().splitlines()
    assert len(lines) <= 250, f"README.md has {len(lines)} lines"
    head = "\n".join(lines[:30])
    assert "make reproduce" in head and "make test" in head


def test_readme_links_to_docs_exist():
    text = README.read_text()
    linked = set(re.findall(r"\]\((docs/[^)#\s]+)", text)) | set(
        re.findall(r"`(docs/[\w./-]+\.md)`", text)
    )
    assert linked, "README links no docs page"
    missing = sorted(p for p in linked if not (REPO / p).is_file())
    assert not missing, f"README links missing files: {missing}"


def test_docs_pages_link_existing_pages():
    for page in DOCS.glob("*.md"):
        for target in re.findall(r"\]\(([\w.-]+\.md)(?:#[^)]*)?\)", page.read_text()):
            assert (DOCS / target).is_file(), f"{page.name} links {target}"


def claim(**measure):
    return {"id": "x", "measure": {"table": "t.csv", "column": "c", **measure}}


JOB_TIMES = (
    "# commit: 0123456789abcdef\n"
    "rule\tjobs\tjob_min\tlongest_min\tmax_rss_mb\n"
    "scan_run\t6\t3.8\t0.8\t370\nars_eval_sqlite\t4\t1.4\t0.6\t481\n"
)


def test_a_claims_time_is_its_experiments_job_minutes_in_the_reference(tmp_path):
    (tmp_path / "t.tsv").write_text(JOB_TIMES)
    times = job_times.read_table(tmp_path / "t.tsv")
    assert docs_pages.times(claim(table="scan/scan.csv"), times) == "E5 Scan 3.8 job-min"
    shared = claim(table="ars/eval/create.csv", where={"job": "sqlite"})
    assert docs_pages.times(shared, times) == "E12 ARS evaluation 1.4 job-min"


def test_no_time_is_made_up_for_an_untimed_table(tmp_path):
    (tmp_path / "t.tsv").write_text(JOB_TIMES)
    times = job_times.read_table(tmp_path / "t.tsv")
    assert docs_pages.times(claim(table="ars/selection/table1.csv"), times) == ""
    assert docs_pages.times(claim(table="treat/e4defrag/dof.csv"), times) == ""
    assert docs_pages.times(claim(table="scan/scan.csv"), None) == ""


def test_a_checks_time_counts_each_experiment_its_claims_read_once(tmp_path):
    (tmp_path / "t.tsv").write_text(JOB_TIMES)
    times = job_times.read_table(tmp_path / "t.tsv")
    scan = claim(table="scan/scan.csv")
    ars = claim(table="ars/eval/create.csv", where={"job": "sqlite"})
    rows = docs_pages.check_rows({"performance": [scan, scan, ars]}, times)
    assert rows[0][3] == "5.2 job-min"
    assert docs_pages.check_rows({"performance": [scan]}, None)[0][3] == "not timed"


def test_a_claim_reads_its_denominator_and_regime_tables():
    c = claim(table="a.csv", relative_to={"table": "b.csv", "column": "c"})
    c["regime"] = {"needs": "GC", "measure": {"table": "c.csv", "column": "c"}}
    assert docs_pages.tables(c) == ["a.csv", "b.csv", "c.csv"]


def test_an_unknown_paper_prefix_is_listed_under_other():
    assert docs_pages.paper_title(docs_pages.paper_of("new-fig01-x")) == docs_pages.OTHER


# --- README's counts from the reference runs ------------------------------------------


def test_readme_counts_are_those_of_the_committed_references():
    block = docs_pages.reference_block(docs_pages.reference_tables())
    text = README.read_text()
    assert docs_pages.readme_with_block(text, block) == text, (
        "README's reference counts differ from docs/reference/: run `make docs`"
    )


def reference_fixture(folder, name, rows, commit="abcdef0123456789"):
    folder.mkdir(exist_ok=True)
    device, scale = name.rsplit("-", 1)
    lines = [f"# device: {device}", f"# scale: {scale}", f"# commit: {commit}",
             "# run_date: 2026-12-02T10:00:00+00:00", "id,verdict,kind"]  # fmt: skip
    lines += [f"{claim},{verdict},{kind}" for claim, verdict, kind in rows]
    (folder / f"{name}.csv").write_text("\n".join(lines) + "\n")


def test_readme_block_counts_each_references_evidence_claims(tmp_path):
    folder = tmp_path / "reference"
    rows = [
        ("tmc-a", "reproduced", "evidence"),
        ("tmc-b", "not reproduced", "evidence"),
        ("ars-c", "reproduced", "evidence"),
        ("ars-m", "not reproduced", "mechanism"),
    ]
    reference_fixture(folder, "emulator-emmc-quick", rows)
    reference_fixture(folder, "emulator-ufs-quick", rows[:1] + [("x", "inconclusive", "evidence")])
    readme = tmp_path / "README.md"
    readme.write_text(f"# x\n\nbefore\n{docs_pages.README_START}\nold counts\n"
                      f"{docs_pages.README_END}\nafter\n")  # fmt: skip
    docs_pages.write_readme(readme, folder)
    text = squeezed(readme.read_text())
    assert "old counts" not in text and text.endswith("\nafter\n") and "\nbefore\n" in text
    assert "| evidence claims | reproduced | not reproduced | inconclusive |" in text
    assert (
        "| emulator-emmc | quick | [abcdef0, 2026-12-02](docs/reference/emulator-emmc-quick.csv)"
        " | 3 | 2 | 1 | 0 |" in text
    )
    assert "| emulator-ufs | quick | [abcdef0, 2026-12-02]" in text and "| 2 | 1 | 0 | 1 |" in text


def test_readme_without_the_markers_is_refused(tmp_path):
    readme = tmp_path / "README.md"
    readme.write_text("# x\n")
    with pytest.raises(docs_pages.ClaimsError, match="README.md: needs one"):
        docs_pages.write_readme(readme, tmp_path)


# --- the artifact appendix -------------------------------------------------------------


def test_the_artifact_appendix_has_the_usual_sections():
    text = (DOCS / "artifact-appendix.md").read_text()
    for heading in (
        "Abstract",
        "Artifact check-list (meta-information)",
        "Hardware dependencies",
        "Software dependencies",
        "Data sets and outside inputs",
        "Installation and basic test",
        "Experiment workflow",
        "Major claims",
        "Experiments",
        "Evaluation and expected results",
        "Customization",
        "Notes",
    ):
        assert heading in headings(text), heading
    assert "[claims catalogue](appendix.md)" in text


def test_every_claim_has_one_major_claim_and_its_tables_an_experiment():
    claims = load_claims(CLAIMS)
    for claim in claims:
        majors = [m.key for m in ae_appendix.MAJOR_CLAIMS if ae_appendix.selected(claim, m)]
        assert len(majors) == 1, (claim["id"], majors)
        for table in ae_appendix.claim_tables(claim):
            assert ae_appendix.experiment_of(table), (claim["id"], table)


def test_the_appendix_counts_the_reference_verdicts_per_major_claim(tmp_path):
    folder = tmp_path / "reference"
    rows = [
        ("tmc-fig06-ext4-five-writers-fragment", "reproduced", "evidence"),
        ("tmc-fig14a-no-prealloc-fragments", "not reproduced", "evidence"),
        ("ars-fig04-x", "inconclusive", "evidence"),
    ]
    reference_fixture(folder, "emulator-emmc-quick", rows)
    text = squeezed(docs_pages.pages(CLAIMS, REGISTRY, folder)["artifact-appendix.md"])
    assert "### Reference emulator-emmc / quick" in text
    assert "| C1 | 1 | 1 reproduced |" in text and "| C3 | 1 | 1 not reproduced |" in text
    assert "| C6 | 0 | none |" in text
    assert "No reference run is committed yet" not in text


def test_every_experiments_rules_are_rules_of_the_workflow():
    defined = re.compile(r"^(?:rule (\w+):|use rule \w+ as (\w+) with:)", re.M)
    rules = {
        name
        for path in (REPO / "rules").rglob("*.smk")
        for match in defined.finditer(path.read_text())
        for name in match.groups()
        if name
    }
    for experiment in ae_appendix.EXPERIMENTS:
        assert set(experiment.rules) <= rules, (experiment.key, set(experiment.rules) - rules)


def test_the_appendix_times_each_experiment_from_the_reference_job_times(tmp_path):
    path = tmp_path / "emulator-emmc-quick-job-times.tsv"
    path.write_text(
        "# commit: 0123456789abcdef\n# run_date: 2026-12-04T10:00:00+00:00\n"
        "rule\tjobs\tjob_min\tlongest_min\tmax_rss_mb\n"
        "scan_run\t6\t3.8\t0.8\t370\nftl_replay_phase\t400\t2.9\t0.1\t86\n"
    )
    times = job_times.read_table(path)
    scan = next(e for e in ae_appendix.EXPERIMENTS if e.rules == ("scan_run",))
    assert ae_appendix.rules_text(scan, times) == "3.8 (scan_run 3.8)"
    assert ae_appendix.minutes_text([scan], times) == "3.8 job-min"
    autoage = next(e for e in ae_appendix.EXPERIMENTS if "autoage_replay" in e.rules)
    assert ae_appendix.rules_text(autoage, times) == "—"
    assert "commit 0123456, run 2026-12-04" in ae_appendix.timed_run(times)
    assert ae_appendix.other_rules_text(times).startswith("2.9 job-min (ftl_replay_phase 2.9")
