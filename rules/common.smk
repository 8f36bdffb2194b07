# Config, device profiles and path patterns shared by every stage.
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


FIGURE_REGISTRY = yaml.safe_load(
    Path(workflow.basedir, "paper-figures/registry.yaml").read_text()
)


def figure_tables(wildcards):
    run = RESULTS.format(device=wildcards.device, scale=wildcards.scale)
    return [f"{run}/{table}" for table in FIGURE_REGISTRY[wildcards.stem]]


def study_figures(device, scale):
    folder = FIGURES.format(device=device, scale=scale)
    return [
        f"{folder}/{stem}.{ext}" for stem in FIGURE_REGISTRY for ext in ("pdf", "png")
    ]


# Checked now, so a bad profile or scale stops the run before any work.
device_profile(config["device"])
scale_params(config["scale"])
