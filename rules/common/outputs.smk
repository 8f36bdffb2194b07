# What a run produces: the figures of the registry, the tables the claims read, the
# study's outputs for one device and scale.
from mobifrag.workflow.claim_tables import (
    ClaimsError,
    checks_of,
    claims_files,
    read_claims_file,
    tables_read,
)
from mobifrag.workflow.figure_registry import (
    RegistryError,
    figures_files,
    read_registry,
)
from mobifrag.workflow.stages import reference_file

# An experiment's own claims and figures (config/experiments/<experiment>.claims.yaml,
# .figures.yaml) join config/claims.yaml and paper-figures/registry.yaml; the rules that
# read those take them as inputs too, so a change reruns them.
EXPERIMENTS_DIR = Path(workflow.basedir, "config/experiments")
EXPERIMENT_FIGURES = [
    str(p.relative_to(workflow.basedir)) for p in figures_files(EXPERIMENTS_DIR)
]
EXPERIMENT_CLAIMS = [
    str(p.relative_to(workflow.basedir))
    for p in claims_files(Path(workflow.basedir, "config/claims.yaml"))[1:]
]

try:
    FIGURE_REGISTRY = read_registry(
        Path(workflow.basedir, "paper-figures/registry.yaml"), EXPERIMENTS_DIR
    )
except RegistryError as error:
    raise WorkflowError(str(error)) from None


def figure_tables(wildcards):
    run = RESULTS.format(device=wildcards.device, scale=wildcards.scale)
    return [f"{run}/{table}" for table in FIGURE_REGISTRY[wildcards.stem]["tables"]]


def study_figures(device, scale):
    folder = FIGURES.format(device=device, scale=scale)
    return [
        f"{folder}/{stem}.{ext}" for stem in FIGURE_REGISTRY for ext in ("pdf", "png")
    ]


def claims_file(path):
    try:
        data = read_claims_file(path)
        return data["claims"], checks_of(data, path)
    except ClaimsError as error:
        raise WorkflowError(str(error)) from None


CLAIMS, CHECKS = claims_file(Path(workflow.basedir, "config/claims.yaml"))


def tables_of(claims, wildcards):
    """The result tables the claims read, so a report runs after their experiments."""
    run = RESULTS.format(device=wildcards.device, scale=wildcards.scale)
    return [f"{run}/{table}" for table in tables_read(claims)]


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
