# Paths and parameters shared by every stage: the venv, the stages' path patterns,
# device profiles and their platform keys, scale presets, mkfs options.
import functools
import os
import shlex
from pathlib import Path

import yaml

from mobifrag.platform.run import PlatformError, runner_of
from mobifrag.workflow.profiles import ProfileError, load_device
from mobifrag.workflow.sources import module_sources
from mobifrag.workflow.yaml_file import read_mapping
from mobifrag.workflow.stages import (
    FIGURES,
    GUEST_JOB_BASE,
    PLATFORM_KEY_PATTERN,
    PLATFORM_RUNS,
    RESULTS,
    WORKLOADS,
    platform_key as stage_platform_key,
)

# The repo's venv by a path relative to the workflow (Snakemake runs there), so
# `snakemake`, `python -m snakemake` and pytest agree on this parameter and a moved
# checkout reruns nothing.
VENV_PYTHON = ".venv/bin/python"
PYTHON = VENV_PYTHON if Path(workflow.basedir, VENV_PYTHON).exists() else sys.executable
AGENT = "agent/build/mobifrag-agent"
# The device model (rules/infra/model.smk builds it; experiments replay through it).
FTL_SIM = "ftl-sim/target/release/ftl-sim"
# The largest seed every workload takes, as the config schema bounds `seed`; a
# repetition's seed (repetition_seed) is held to it too.
MAX_SEED = yaml.safe_load(Path(workflow.basedir, "config/schema.yaml").read_text())[
    "properties"
]["seed"]["maximum"]


def python_sources(module):
    """The files `python -m <module>` runs (mobifrag.workflow.sources): a rule's input,
    so editing a table, model or report module reruns what it made."""
    return list(module_sources(module))


def report_templates():
    """The HTML report's Jinja2 templates (mobifrag/report/templates/): a rule's input,
    as its Python sources are, so editing one redraws the page."""
    folder = "mobifrag/report/templates"
    return sorted(os.path.join(folder, name) for name in os.listdir(folder))


def results(path):
    """A path pattern under one run's results folder."""
    return f"{RESULTS}/{path}"


def workloads(path):
    """A path pattern under a scale's generated workloads."""
    return f"{WORKLOADS}/{path}"


def platform_runs(path):
    """A path pattern under one platform's runs (wildcard {platform}, see
    platform_key)."""
    return f"{PLATFORM_RUNS}/{path}"


def figures(path):
    """A path pattern under one run's figures folder."""
    return f"{FIGURES}/{path}"


def device_profile(name):
    try:
        return load_device(name)
    except ProfileError as error:
        raise WorkflowError(str(error)) from None


def device_runner(device):
    """What the runner of a device's platform does (mobifrag/platform/run.py, RUNNERS):
    the rules ask it rather than test the platform's type."""
    try:
        return runner_of(device_profile(device))
    except PlatformError as error:
        raise WorkflowError(str(error)) from None


def wall_series(device):
    """What a figure calls its wall-time series: the time measured where the runs ran."""
    return device_runner(device).wall_series_label


def shipped_devices():
    return sorted(
        p.stem
        for p in Path(workflow.basedir, "devices").glob("*.yaml")
        if p.name != "schema.yaml"
    )


# Once a planning: the key hashes the kernel's patches, and every job asks.
@functools.cache
def platform_key(device):
    """The platform a device's jobs run on (mobifrag/workflow/stages.py): a change of guest
    memory, vCPUs or kernel gives a new key, and so reruns the experiments."""
    kernel = device_kernel(device)
    if kernel.startswith("build/kernel/"):
        kernel = Path(kernel).parent.name  # its folder name carries the build's hash
    return stage_platform_key(device_profile(device)["platform"], kernel)


@functools.cache
def platform_devices():
    """Platform key → the first device profile of devices/ (by name) on it, found once a
    planning. A profile that does not load is passed over here; it fails where it is the
    run's device."""
    devices = {}
    for device in shipped_devices():
        try:
            devices.setdefault(platform_key(device), device)
        except WorkflowError:
            continue
    return devices


def platform_device(key):
    """The device profile a platform's jobs name: the first of devices/ on the platform
    `key`, whichever device the run is for, so a job's parameters do not change with a
    device swap and its finished runs stay valid."""
    if key not in platform_devices():
        raise WorkflowError(f"no device profile in devices/ runs on platform {key}")
    return platform_devices()[key]


# A device, a scale and a platform key are single path components, so the stages'
# patterns (results/<device>/..., results/platform/<key>/..., results/workloads/...)
# never match each other's files.
wildcard_constraints:
    device="|".join(shipped_devices()),
    scale="|".join(config["scales"]),
    platform=PLATFORM_KEY_PATTERN,


def job_device(wildcards):
    """The device profile a job's wildcards stand for (platform runs name a platform)."""
    if "platform" in wildcards.keys():
        return platform_device(wildcards.platform)
    return wildcards.device


def on_platform(path, wildcards, **extra):
    """A platform-run path of the device the wildcards name, other wildcards filled in."""
    values = {**dict(wildcards.items()), **extra}
    values["platform"] = platform_key(values.pop("device"))
    return platform_runs(path).format(**values)


def scale_params(scale):
    if scale not in config["scales"]:
        known = ", ".join(config["scales"])
        raise WorkflowError(f"config: scale {scale!r} is not one of: {known}")
    return config["scales"][scale]


def mkfs_options(fs, *extra):
    """The guest mkfs options of a file system, with extra ones, as one shell word
    (Snakemake's `:q` would drop an empty string, and with it the job script's
    argument)."""
    return shlex.quote(" ".join([config["filesystems"][f"{fs}_mkfs"], *extra]).strip())


def repetitions(scale, experiment, device=None):
    """Independent runs of an experiment: the scale's count for an experiment whose
    statistic varies between runs (config `repeated`, and `repeated_on_hardware` when
    the device is real hardware; `repetitions_of` names the experiments with a count of
    their own), else one."""
    on_hardware = device is not None and device_runner(device).on_hardware
    repeated = config["repeated"] + (
        config["repeated_on_hardware"] if on_hardware else []
    )
    if experiment not in repeated:
        return [1]
    params = scale_params(scale)
    count = params.get("repetitions_of", {}).get(experiment, params["repetitions"])
    return list(range(1, count + 1))


def repetition_seed(scale, rep):
    """A repetition's guest seed: the study's for the first (a study without
    repetitions draws what it always drew), another for each other repetition; a
    scale's `repetition_seed_offset` moves them all (make stability)."""
    offset = scale_params(scale).get("repetition_seed_offset", 0)
    seed = config["seed"] + offset + int(rep) - 1
    if seed > MAX_SEED:
        raise ValueError(
            f"config seed {config['seed']} + repetition_seed_offset {offset} + repetition"
            f" {rep} - 1 = {seed} is above {MAX_SEED}, the largest seed every workload"
            " takes (config/schema.yaml, seed): choose a smaller seed"
        )
    return seed


@functools.cache
def app_package(app):
    """The Android package of an app model (traces/scenarios/<app>.yaml), read once per
    app: the models are large, and the plan asks for each about ten times (reading them
    every time was two thirds of a dry run's 24 s)."""
    model = Path(workflow.basedir, config["autoage"]["models"], f"{app}.yaml")
    if not model.is_file():
        raise WorkflowError(f"config: no scenario model {model} for app {app!r}")
    return read_mapping(model, WorkflowError)["package"]


def app_size_scale(disk_mib):
    """Sizes of app files on a disk of disk_mib (see reference_disk_gib in the config)."""
    return disk_mib / (config["reference_disk_gib"] * 1024)


def run_labels(runs):
    return " ".join(f"--run {label} {path}" for label, path in runs.items())


def run_folders(runs):
    """The replay folders (three levels up from the snapshots) the runs need."""
    return sorted({str(Path(path).parent.parent) for path in runs.values()})


# Checked now, so a bad profile or scale stops the run before any work.
device_profile(config["device"])
scale_params(config["scale"])
