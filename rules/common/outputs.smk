# What a run produces: the figures of the registry, the tables the claims read, the
# study's outputs for one device and scale.
from mobifrag.report.claims import load_checks, load_claims
from mobifrag.workflow.stages import reference_file

FIGURE_REGISTRY = yaml.safe_load(
    Path(workflow.basedir, "paper-figures/registry.yaml").read_text()
)


def figure_tables(wildcards):
    run = RESULTS.format(device=wildcards.device, scale=wildcards.scale)
    return [f"{run}/{table}" for table in FIGURE_REGISTRY[wildcards.stem]["tables"]]


def study_figures(device, scale):
    folder = FIGURES.format(device=device, scale=scale)
    return [
        f"{folder}/{stem}.{ext}" for stem in FIGURE_REGISTRY for ext in ("pdf", "png")
    ]


CLAIMS = load_claims(Path(workflow.basedir, "config/claims.yaml"))
CHECKS = load_checks(Path(workflow.basedir, "config/claims.yaml"))


def measure_tables(measure):
    yield measure["table"]
    if "relative_to" in measure:
        yield from measure_tables(measure["relative_to"])


def tables_of(claims, wildcards):
    """The result tables the claims read, so a report runs after their experiments."""
    run = RESULTS.format(device=wildcards.device, scale=wildcards.scale)
    tables = {t for claim in claims for t in measure_tables(claim["measure"])}
    return [f"{run}/{table}" for table in sorted(tables)]


def claim_tables(wildcards):
    return tables_of(CLAIMS, wildcards)


def figure_claim_tables(wildcards):
    """The tables of the claims a figure shows, whose values it sets beside the paper's,
    less those it is drawn from."""
    claims = [c for c in CLAIMS if c["figure"] == wildcards.stem]
    drawn = set(figure_tables(wildcards))
    return [table for table in tables_of(claims, wildcards) if table not in drawn]


def check_tables(wildcards):
    return tables_of(CHECKS[wildcards.check], wildcards)


def study_outputs(device, scale):
    """What `snakemake all` produces for one device and scale."""
    run = RESULTS.format(device=device, scale=scale)
    extras = [f"{run}/claims.md", f"{run}/provenance.json", f"{run}/report.html"]
    return study_figures(device, scale) + extras


def reference_verdicts(wildcards):
    """The committed reference run of the device and scale, where there is one."""
    path = reference_file(wildcards.device, wildcards.scale)
    return [path] if Path(workflow.basedir, path).is_file() else []
