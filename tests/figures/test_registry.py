"""The figure registry, the R scripts and the claims refer to one another consistently."""

from conftest import REPO
from mobifrag.report.claims import load_claims
from mobifrag.workflow.figure_registry import read_registry

REGISTRY = read_registry()


def test_every_registered_figure_has_a_script_tables_and_a_caption():
    for stem, entry in REGISTRY.items():
        assert (REPO / "paper-figures" / f"{stem}.R").is_file(), stem
        assert entry["tables"] and entry["caption"].strip(), stem


def test_every_script_is_registered():
    # theme.R is shared; claims-chart.R draws the report's claims chart (rule claims_chart),
    # which is not a paper figure
    scripts = {p.stem for p in (REPO / "paper-figures").glob("*.R")} - {"theme", "claims-chart"}
    assert scripts == set(REGISTRY)


def test_every_claim_names_a_registered_figure():
    for claim in load_claims(REPO / "config" / "claims.yaml"):
        assert claim["figure"] in REGISTRY, claim["id"]


def test_figure_stems_name_paper_and_number():
    for stem in REGISTRY:
        assert stem.split("-")[0] in {"tmc", "janusd", "ars", "ext4tune"}, stem
        assert stem.split("-")[1][:3] in {"fig", "tab"}, stem
