# Config, device profiles and path patterns shared by every stage.
import json
from pathlib import Path

import yaml

from mobifrag.kernel import KernelInputError, kernel_dir
from mobifrag.profiles import ProfileError, load_device

PYTHON = sys.executable
RESULTS = "results/{device}/{scale}"
FIGURES = "paper-figures/{device}/{scale}"


def results(path):
    """A path pattern under one run's results folder."""
    return f"{RESULTS}/{path}"


def figures(path):
    """A path pattern under one run's figures folder."""
    return f"{FIGURES}/{path}"


def device_profile(name):
    try:
        return load_device(name)
    except ProfileError as error:
        raise WorkflowError(str(error)) from None


def scale_params(scale):
    if scale not in config["scales"]:
        known = ", ".join(config["scales"])
        raise WorkflowError(f"config: scale {scale!r} is not one of: {known}")
    return config["scales"][scale]


def kernel_image(device):
    """The kernel image the device's platform boots, built by rules/kernel.smk."""
    target = device_profile(device)["platform"]["kernel"]
    try:
        folder = kernel_dir(
            Path(config["kernel"]["source"]), Path(config["kernel"]["series"]), target
        )
    except KernelInputError as error:
        raise WorkflowError(str(error)) from None
    return str(folder.relative_to(workflow.basedir) / "bzImage")


def appender_runs(wildcards):
    """Label → run directory of every (file system, writers) run of TMC Fig. 6."""
    run = RESULTS.format(device=wildcards.device, scale=wildcards.scale)
    return {
        f"fs={fs},writers={n}": f"{run}/concurrent-appenders/{fs}/writers-{n}"
        for fs in config["concurrent_appenders"]["filesystems"]
        for n in config["concurrent_appenders"]["writers"]
    }


def day_runs(run_dir, days):
    """--run arguments of the daily snapshots (day 0 is the fill) of a replay."""
    return " ".join(
        f"--run day={d} {run_dir}/snapshots/day-{d:02d}" for d in range(days + 1)
    )


def app_package(app):
    """The Android package of an app model (traces/scenarios/<app>.yaml)."""
    model = Path(workflow.basedir, config["autoage"]["models"], f"{app}.yaml")
    if not model.is_file():
        raise WorkflowError(f"config: no scenario model {model} for app {app!r}")
    return yaml.safe_load(model.read_text())["package"]


def app_size_scale(disk_mib):
    """Sizes of app files on a disk of disk_mib (see reference_disk_gib in the config)."""
    return disk_mib / (config["reference_disk_gib"] * 1024)


def filldelete_runs(wildcards):
    """Label → snapshot of the app's files after aging to each level (TMC Fig. 7)."""
    run = RESULTS.format(device=wildcards.device, scale=wildcards.scale)
    return {
        f"level={level},app={app},package={app_package(app)}": (
            f"{run}/filldelete/{wildcards.fs}/{level}-{app}/snapshots/01-{app}"
        )
        for level in scale_params(wildcards.scale)["filldelete"]["levels"]
        for app in config["filldelete"]["apps"]
    }


def capacity_runs(wildcards):
    """Label → the final snapshot of every app on each capacity (TMC Fig. 8)."""
    run = RESULTS.format(device=wildcards.device, scale=wildcards.scale)
    apps = config["capacity"]["apps"]
    last = f"{len(apps):02d}-{apps[-1]}"
    return {
        f"capacity_mib={mib},app={app},package={app_package(app)}": (
            f"{run}/capacity/{wildcards.fs}/{mib}MiB/snapshots/{last}"
        )
        for mib in scale_params(wildcards.scale)["capacity"]["disk_mib"]
        for app in apps
    }


def run_labels(runs):
    return " ".join(f"--run {label} {path}" for label, path in runs.items())


def run_folders(runs):
    """The replay folders (three levels up from the snapshots) the runs need."""
    return sorted({str(Path(path).parent.parent) for path in runs.values()})


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


CLAIMS = yaml.safe_load(Path(workflow.basedir, "config/claims.yaml").read_text())[
    "claims"
]


def measure_tables(measure):
    yield measure["table"]
    if "relative_to" in measure:
        yield from measure_tables(measure["relative_to"])


def claim_tables(wildcards):
    """Every result table a claim reads, so `claims` runs after the experiments."""
    run = RESULTS.format(device=wildcards.device, scale=wildcards.scale)
    tables = {t for claim in CLAIMS for t in measure_tables(claim["measure"])}
    return [f"{run}/{table}" for table in sorted(tables)]


def study_outputs(device, scale):
    """What `snakemake all` produces for one device and scale."""
    run = RESULTS.format(device=device, scale=scale)
    extras = [f"{run}/claims.md", f"{run}/provenance.json"]
    return study_figures(device, scale) + extras


# Checked now, so a bad profile or scale stops the run before any work.
device_profile(config["device"])
scale_params(config["scale"])
