# Config, device profiles and path patterns shared by every stage.
import json
import math
import os
import shlex
from pathlib import Path

import yaml

from mobifrag.report.claims import load_checks, load_claims
from mobifrag.platform.kernel import KernelInputError, kernel_dir
from mobifrag.workflow.profiles import ProfileError, load_device
from mobifrag.workflow.stages import (
    FIGURES,
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


def shipped_devices():
    return sorted(
        p.stem
        for p in Path(workflow.basedir, "devices").glob("*.yaml")
        if p.name != "schema.yaml"
    )


def platform_key(device):
    """The platform a device's jobs run on (mobifrag/workflow/stages.py): a change of guest
    memory, vCPUs or kernel gives a new key, and so reruns the experiments."""
    kernel = device_kernel(device)
    if kernel.startswith("build/kernel/"):
        kernel = Path(kernel).parent.name  # its folder name carries the build's hash
    return stage_platform_key(device_profile(device)["platform"], kernel)


def platform_device(key):
    """The device profile a platform's jobs name: the first of devices/ (by name) on the
    platform `key`, whichever device the run is for, so a job's parameters do not change
    with a device swap and its finished runs stay valid. A profile that does not load is
    passed over here; it fails where it is the run's device."""
    for device in shipped_devices():
        try:
            if platform_key(device) == key:
                return device
        except WorkflowError:
            continue
    raise WorkflowError(f"no device profile in devices/ runs on platform {key}")


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


def filldelete_mkfs(fs, scale):
    """mkfs options of the fill/delete disks: the fill makes about as many files at
    every scale (mobifrag/workloads/filldelete.py), more than mke2fs gives a 1 GiB disk.
    """
    inodes = scale_params(scale)["filldelete"].get("ext4_inodes")
    return mkfs_options(fs, *([f"-N {inodes}"] if fs == "ext4" and inodes else []))


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


def repetitions(scale, experiment):
    """Independent runs of an experiment: the scale's count for an experiment whose
    statistic varies between runs (config `repeated`), else one."""
    if experiment not in config["repeated"]:
        return [1]
    return list(range(1, scale_params(scale)["repetitions"] + 1))


def appender_runs(wildcards):
    """Label → run directory of every (file system, writers, repetition) run of TMC
    Fig. 6."""
    run = on_platform("concurrent-appenders", wildcards)
    return {
        f"fs={fs},writers={n},rep={r}": f"{run}/{fs}/writers-{n}/rep-{r}"
        for fs in config["concurrent_appenders"]["filesystems"]
        for n in config["concurrent_appenders"]["writers"]
        for r in repetitions(wildcards.scale, "concurrent-appenders")
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


def filldelete_filled_disk(wildcards):
    """The filled disk a level's replay starts from; none for a level of 0 % (Low,
    pristine: the replay makes a fresh file system)."""
    if config["filldelete"]["levels"][wildcards.level] == 0:
        return []
    return platform_runs("filldelete/{fs}/filled").format(**wildcards)


def filldelete_runs(wildcards):
    """Label → snapshot of the app's files after aging to each level (TMC Fig. 7)."""
    run = on_platform("", wildcards).rstrip("/")
    return {
        f"level={level},app={app},package={app_package(app)}": (
            f"{run}/filldelete/{wildcards.fs}/{level}-{app}/snapshots/01-{app}"
        )
        for level in scale_params(wildcards.scale)["filldelete"]["levels"]
        for app in config["filldelete"]["apps"]
    }


def capacity_runs(wildcards):
    """Label → the final snapshot of every app on each capacity (TMC Fig. 8)."""
    run = on_platform("", wildcards).rstrip("/")
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


def check_tables(wildcards):
    return tables_of(CHECKS[wildcards.check], wildcards)


def study_outputs(device, scale):
    """What `snakemake all` produces for one device and scale."""
    run = RESULTS.format(device=device, scale=scale)
    extras = [f"{run}/claims.md", f"{run}/provenance.json"]
    return study_figures(device, scale) + extras


# Devices: which kernel and agent a device's jobs use (rules/device.smk builds the
# arm64 ones).
ARM64_CROSS = "aarch64-linux-gnu-"
AGENT_ARM64 = "agent/build/aarch64/mobifrag-agent"
BUSYBOX_ARM64 = "build/device/busybox-arm64/busybox"


def arm64_boards():
    """Kernel target → the board's device tree, from every arm64 profile naming both."""
    boards = {}
    for path in sorted(Path(workflow.basedir, "devices").glob("*.yaml")):
        if path.name == "schema.yaml":
            continue
        platform = device_profile(path.stem)["platform"]
        if platform["arch"] == "arm64" and "kernel" in platform and "dtb" in platform:
            boards[platform["kernel"]] = platform["dtb"]
    return boards


ARM64_BOARDS = arm64_boards()


def arm64_kernel(device, name):
    """A file (Image, board.dtb) of the arm64 kernel build the device's profile names."""
    target = device_profile(device)["platform"]["kernel"]
    try:
        folder = kernel_dir(
            Path(config["kernel"]["source"]), Path(config["kernel"]["series"]), target
        )
    except KernelInputError as error:
        raise WorkflowError(str(error)) from None
    return str(folder.relative_to(workflow.basedir) / name)


def device_agent(device):
    """The agent binary a device's jobs run: the host's for qemu, aarch64 on arm64."""
    arch = device_profile(device)["platform"]["arch"]
    return AGENT_ARM64 if arch == "arm64" else AGENT


def device_kernel(device):
    """What a job on the device waits for: the emulator's kernel image, the stamp of
    the flashed kernel on a board, or (a phone keeping its kernel) its profile."""
    platform = device_profile(device)["platform"]
    if platform["type"] == "qemu":
        return kernel_image(device)
    if platform["flash_kernel"]:
        return f"build/device/{device}/flash.done"
    return f"devices/{device}.yaml"


def guest_cpus(wildcards):
    """Cores a guest job holds: the emulator's vCPUs. Under TCG, guests whose vCPUs
    outnumber the host's cores run several times slower (README, Determinism)."""
    return device_profile(job_device(wildcards))["platform"]["cpus"]


def guest_mem_mb(wildcards):
    """Host memory of a guest job: the guest's RAM plus QEMU's own (TCG translation
    cache, device models; a 1 GiB guest peaked at 1.2 GiB resident) and the runner."""
    return device_profile(job_device(wildcards))["platform"]["memory_mib"] + 1024


def runtime_min(timeout_s):
    """Minutes a guest job may take: its timeout, after which the runner kills the guest
    and fails the rule with its console log, plus room to do so."""
    return timeout_s // 60 + 10


def guest_runtime_min(wildcards):
    return runtime_min(
        device_profile(job_device(wildcards))["platform"]["job_timeout_s"]
    )


# AutoAge is the one replay measured past the profile's hour (30 days on 8 GiB at the
# paper scale), so its scale may give it a longer timeout; every other guest keeps the
# profile's.
def autoage_timeout_s(wildcards):
    """The AutoAge replay's guest timeout: the profile's, or the scale's if longer."""
    profile = device_profile(job_device(wildcards))["platform"]["job_timeout_s"]
    return max(
        profile, scale_params(wildcards.scale)["autoage"].get("job_timeout_s", 0)
    )


def autoage_runtime_min(wildcards):
    return runtime_min(autoage_timeout_s(wildcards))


def boot_ramdisk(wildcards):
    """The board's Android ramdisk: MOBIFRAG_RAMDISK, else platform.boot.ramdisk."""
    boot = device_profile(wildcards.device)["platform"].get("boot", {})
    ramdisk = os.environ.get("MOBIFRAG_RAMDISK") or boot.get("ramdisk")
    if not ramdisk:
        raise WorkflowError(
            f"device {wildcards.device}: the boot image needs the board's Android "
            "ramdisk.img: set MOBIFRAG_RAMDISK or platform.boot.ramdisk (docs/hikey960.md)"
        )
    return ramdisk


def mkbootimg_args(wildcards):
    boot = device_profile(wildcards.device)["platform"]["boot"]
    args = ["--cmdline", boot["cmdline"]]
    for key in ("base", "kernel_offset", "ramdisk_offset", "tags_offset"):
        args += [f"--{key}", boot[key]]
    return " ".join(shlex.quote(arg) for arg in args)


# Checked now, so a bad profile or scale stops the run before any work.
device_profile(config["device"])
scale_params(config["scale"])


# ARS reserved-file selection (rules/ars_selection.smk).
ARS_SELECTION = "ars/selection"


def ars_selection_scale(scale):
    return scale_params(scale)["ars_selection"]


def ars_selection_params():
    """The config's ars_selection block as JSON for the command line."""
    return json.dumps(config["ars_selection"])


def ars_selection_lists(device, scale):
    """The reserved-file list and decision table of every app the config names."""
    run = PLATFORM_RUNS.format(platform=platform_key(device), scale=scale)
    return [
        f"{run}/{ARS_SELECTION}/{app}/{name}"
        for app in config["ars_selection"]["apps"]
        for name in ("reserved.txt", "decisions.csv")
    ]


# janusd (rules/janusd.smk): the e4defrag runs' folders each method replays from.
JANUSD_RUN = "treat/e4defrag/{level}/threads-{threads}"
JANUSD_WILDCARDS = {"level": "low|moderate|high|full", "threads": r"\d+"}

# Per replayed method: its trace (format, path below the run folder), the layout whose
# DoF_P is measured after it, and whether the appends' trace is replayed first (uncounted).
JANUSD_REPLAYS = {
    "append": ("blktrace", "blktrace-append", "run/snapshot", False),
    "e4defrag": ("blktrace", "blktrace", "run/after", True),
    "janusdl": ("csv", "janusdl/janusdl.csv", "janusdl/after", True),
    "janusd": ("csv", "janusdp/janusd.csv", "janusdl/after", True),
}


# What the e4defrag guest job wrote (the rest of a replay's paths are janusd's own).
JANUSD_PLATFORM_PARTS = {"run", "blktrace", "blktrace-append"}


def janusd_path(w, relative):
    """A path below one e4defrag run's folder: the platform's run for what its guest
    job wrote, the device's results for janusd's outputs."""
    if Path(relative).parts[0] in JANUSD_PLATFORM_PARTS:
        return f"{on_platform(JANUSD_RUN, w)}/{relative}"
    return f"{results(JANUSD_RUN).format(**w)}/{relative}"


def janusd_replay_paths(w):
    """Trace, layout and preconditioning trace of one method's replay."""
    _, trace, layout, after_appends = JANUSD_REPLAYS[w.method]
    appends = janusd_path(w, "blktrace-append")
    return {
        "trace": janusd_path(w, trace),
        "extents": janusd_path(w, f"{layout}/extents.tsv"),
        "precondition": f"--precondition-trace {appends}" if after_appends else "",
    }


def janusd_replay_inputs(w):
    """The folders the replay reads: outputs of other rules, which are folders."""
    _, trace, layout, _ = JANUSD_REPLAYS[w.method]
    tops = {Path(trace).parts[0], Path(layout).parts[0], "blktrace-append"}
    return sorted(janusd_path(w, top) for top in tops)


def dof_lp_runs(w):
    """Label → the e4defrag run's snapshot and the DoF_P of its files (janusd Fig. 6)."""
    p = scale_params(w.scale)["treat"]
    runs = {}
    for level in p["levels"]:
        for n in p["defrag_threads"]:
            folder = dict(w.items(), level=level, threads=n)
            runs[f"level={level},threads={n}"] = (
                janusd_path(folder, "run/snapshot"),
                janusd_path(folder, "ftl-append.dop.csv"),
            )
    return runs


# janusd's recurring defragmentation (rules/janusd.smk).
RECURRING = "janusd/recurring"


def recurring_runs(w):
    """Label → the replayed defragmentations of each interval."""
    run = results(RECURRING).format(device=w.device, scale=w.scale)
    return {
        f"interval_days={n}": f"{run}/every-{n}d/defrags"
        for n in config["janusd"]["recurring_intervals"]
    }


# ARS kernel patch experiments (rules/ars.smk).
def ars_runs(wildcards):
    """Run label → output folder of every scheme's job of one kind."""
    folder = on_platform(f"ars/{wildcards.kind}", wildcards)
    return {f"scheme={s}": f"{folder}/{s}" for s in config["ars_kernel"]["schemes"]}


# ARS evaluation (rules/ars_eval.smk): the jobs each table reads.
ARS_EVAL = "ars/eval"


def ars_eval(scale):
    return scale_params(scale)["ars_eval"]


ARS_EVAL_JOBS = {
    "throughput": ["fragbench"],
    "extents": ["fragbench"],
    "freespace": ["fragbench"],
    "gc": ["fragbench"],
    "fragbench": ["fragbench", "sqlite", "apps"],
    "sqlite": ["sqlite"],
    "apps": ["apps"],
    "create": ["fragbench", "sqlite", "apps"],
}


def fragbench_args():
    """START and MIN bytes of the fragmentation benchmark (ARS §V.A): the first file size is
    2^-size_shift of the power of two nearest the reference data partition."""
    block = config["ars_eval"]
    partition = config["reference_disk_gib"] * 2**30
    start = 2 ** (round(math.log2(partition)) - block["size_shift"])
    return start, block["min_kib"] * 1024


def ars_eval_runs(w):
    """Run label → job folder of every scheme for the jobs a table reads."""
    run = on_platform(ARS_EVAL, w)
    jobs = ARS_EVAL_JOBS[w.kind]
    return {
        f"scheme={s}" + (f",job={job}" if len(jobs) > 1 else ""): f"{run}/{job}/{s}"
        for job in jobs
        for s in config["ars_kernel"]["schemes"]
    }
