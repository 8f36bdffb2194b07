# Which runs each experiment's tables read, and each experiment's own parameters: one
# section per experiment (rules/experiments/<experiment>.smk).
import json
import math
import re

from mobifrag.workloads.ext4tune import FILEBENCH_MIXES, IOZONE_TESTS

# Every phase replays on a device written once with the requests in flight its trace
# shows: each waits only for those the trace completed before issuing it, so readahead's
# batch stays in flight together (the ftl_replay_phase jobs; variant tokens of
# rules/infra/model.smk).
PHASE_REPLAY = "_fill100_overlap"


def phase_summary(w, run, phase, variant=""):
    """The summary an ftl_replay_phase job keeps for one phase of a run (`run`: the run's
    folder below the device's results, wildcards filled in)."""
    return results(f"{run}/model/{phase}/ftl{PHASE_REPLAY}{variant}.json").format(**w)


# Every traced phase of a whole run, each with at least the threads its reports give in
# flight (the ftl_replay_run jobs): where the reports of each experiment's runs are and
# which phase each names (mobifrag.model.run_phases), by the folder that holds the runs.
RUN_MODELS = "model/phases.json"
RUN_PHASE_DEPTHS = {
    "ars/eval/fragbench": "--fio '{report}'",
    "ars/eval/sqlite": "--replay 'sqlite-{report}'",
    "ars/eval/apps": "--replay '{report}'",
    # IOzone's four tests run one process each; filebench's (FFSB's four tests) the
    # config's threads
    "ext4tune/runs": "".join(f" --depth iozone-{test} 1" for test in IOZONE_TESTS)
    + "".join(
        f" --depth filebench-{mix} {config['ext4tune']['ffsb_threads']}"
        for mix in FILEBENCH_MIXES
    ),
}


def run_phase_depths(w):
    """ftl_replay_run's options for one run: how its reports name its phases (a
    repetition's run, <run>/rep-<n>, as its run's)."""
    run = Path(w.experiment)
    folder = str(
        run.parent.parent if re.fullmatch(r"rep-\d+", run.name) else run.parent
    )
    if folder not in RUN_PHASE_DEPTHS:
        raise WorkflowError(
            f"{w.experiment}: no phase models for runs under {folder}"
            f" (known: {', '.join(RUN_PHASE_DEPTHS)})"
        )
    return RUN_PHASE_DEPTHS[folder]


def run_models(w, runs):
    """The kept phase models of runs given by their folder below the platform's runs."""
    return [results(f"{run}/{RUN_MODELS}").format(**w) for run in runs]


# --- concurrent_appenders -----------------------------------------------------------
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


# --- autoage ------------------------------------------------------------------------
def day_runs(run_dir, days):
    """--run arguments of the daily snapshots (day 0 is the fill) of a replay."""
    return " ".join(
        f"--run day={d} {run_dir}/snapshots/day-{d:02d}" for d in range(days + 1)
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


# --- filldelete ---------------------------------------------------------------------
def filldelete_mkfs(fs, scale):
    """mkfs options of the fill/delete disks: the fill makes about as many files at
    every scale (mobifrag/workloads/filldelete.py), more than mke2fs gives a 1 GiB disk.
    """
    inodes = scale_params(scale)["filldelete"].get("ext4_inodes")
    return mkfs_options(fs, *([f"-N {inodes}"] if fs == "ext4" and inodes else []))


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


def filldelete_aged_runs(wildcards):
    """(level, app, run folder) of every level's replay: its 00-aging trace ages the disk."""
    run = on_platform("", wildcards).rstrip("/")
    return [
        (level, app, f"{run}/filldelete/{wildcards.fs}/{level}-{app}")
        for level in scale_params(wildcards.scale)["filldelete"]["levels"]
        for app in config["filldelete"]["apps"]
    ]


# --- capacity -----------------------------------------------------------------------
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


# --- janusd -------------------------------------------------------------------------
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


# janusd's recurring defragmentation.
RECURRING = "janusd/recurring"


def recurring_runs(w):
    """Label → the replayed defragmentations of each interval."""
    run = results(RECURRING).format(device=w.device, scale=w.scale)
    return {
        f"interval_days={n}": f"{run}/every-{n}d/defrags"
        for n in config["janusd"]["recurring_intervals"]
    }


def recurring_guest_runs(w):
    """Label → the guest job's folder of each interval (its snapshots around each
    e4defrag run, defrag/day-NN/{before,after}/)."""
    return {
        f"interval_days={n}": on_platform(f"{RECURRING}/every-{n}d/run", w)
        for n in config["janusd"]["recurring_intervals"]
    }


def recurring_packages():
    """The packages of `janusd.recurring_apps`, whose launches and files the tables follow."""
    return " ".join(app_package(a) for a in config["janusd"]["recurring_apps"])


# --- ars ----------------------------------------------------------------------------
def ars_run_folders(w):
    """Run label → the folder (below the device's platform runs) of every scheme's job
    of one kind and every repetition (config `repeated_on_hardware`: Fig. 1's jobs
    repeat on a phone)."""
    reps = repetitions(w.scale, f"ars-{w.kind}", w.device)
    return {
        f"scheme={s},rep={r}": f"ars/{w.kind}/{s}/rep-{r}"
        for s in config["ars"]["schemes"]
        for r in reps
    }


def ars_runs(w):
    return {label: on_platform(run, w) for label, run in ars_run_folders(w).items()}


ars_params = lambda scale: scale_params(scale)["ars"]
ARS_SCHEMES = "|".join(config["ars"]["schemes"])


def ars_cases(kind, scale):
    """The files a job of one kind reads (jobs/ars-motivation.sh, jobs/ars-blocksize.sh)."""
    if kind == "motivation":
        return ["continuous", "fragmented"]
    return [kib * 1024 for kib in ars_params(scale)["block_kib"]]


def ars_models(w):
    """(run folder, phase) → the replay summary of each cold read of every scheme's job of
    one kind (phases read-<case>-<run>, jobs/ars-lib.sh cold_reads)."""
    models = {}
    for label, folder in ars_run_folders(w).items():
        run = on_platform(folder, w)
        for case in ars_cases(w.kind, w.scale):
            for number in range(1, config["ars"]["reads"] + 1):
                phase = f"read-{case}-{number}"
                models[(run, phase)] = phase_summary(w, folder, phase)
    return models


# --- ars_selection ------------------------------------------------------------------
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


# --- ars_eval -----------------------------------------------------------------------
ARS_EVAL = "ars/eval"


def ars_eval(scale):
    return scale_params(scale)["ars_eval"]


# Fig. 7's app traces (config ars_eval.apps_traces): Mobibench's real traces, imported,
# with their written-many files reserved (`mobibench`) or with the ARS selection's
# decision-tree list (`selection`, learned from the same traces). Both folders hold
# <app>/reserved.txt (the selection's under the platform's runs); the traces are
# <app>/traces/*.iotrace of the Mobibench folder.
ARS_EVAL_MOBIBENCH = f"{ARS_EVAL}/mobibench"


def mobibench_folder(app):
    """The folder of the data root the converted Mobibench trace of app writes in."""
    return f"mobigen_temp/{app}"


def ars_eval_apps_source(w):
    """(folder of each app's reserved.txt, folder of each app's traces/) for one run."""
    traces = workloads(ARS_EVAL_MOBIBENCH).format(scale=w.scale)
    if config["ars_eval"]["apps_traces"] == "mobibench":
        return traces, traces
    return platform_runs(ARS_SELECTION).format(**w), traces


def ars_eval_apps_inputs(w):
    """The reserved lists and trace folders the apps job replays."""
    selection, traces = ars_eval_apps_source(w)
    apps = config["ars_selection"]["apps"]
    return [f"{selection}/{app}/reserved.txt" for app in apps] + [
        f"{traces}/{app}/traces" for app in apps
    ]


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


def ars_eval_run_folders(w):
    """Run label → job folder (below the platform's runs) of every scheme and repetition
    for the jobs a table reads (config `repeated` and `repeated_on_hardware`)."""
    jobs = ARS_EVAL_JOBS[w.kind]
    job_label = lambda job: f",job={job}" if len(jobs) > 1 else ""
    folders = {}
    for job in jobs:
        reps = repetitions(w.scale, f"ars-eval-{job}", w.device)
        for s, r in ((s, r) for s in config["ars"]["schemes"] for r in reps):
            # every row names its repetition, so ratios pair runs of one repetition
            label = f"scheme={s}{job_label(job)},rep={r}"
            folders[label] = f"{ARS_EVAL}/{job}/{s}/rep-{r}"
    return folders


def ars_eval_runs(w):
    """Run label → job folder of every scheme for the jobs a table reads."""
    return {
        label: on_platform(run, w) for label, run in ars_eval_run_folders(w).items()
    }


# --- dispersed ----------------------------------------------------------------------
# Config `dispersed.models` adds each device model's own variant tokens.


def dispersed_run(w, rep):
    """One repetition's dispersed run, below the platform's runs."""
    return f"dispersed/{w.fs}/rep-{rep}"


def dispersed_runs(w):
    """Repetition → the folder of that repetition's dispersed run."""
    return {
        rep: on_platform(dispersed_run(w, rep), w)
        for rep in repetitions(w.scale, "dispersed")
    }


def dispersed_models(w):
    """(repetition, operation, region MiB, model) → the replay summary of that phase
    under that model (phases are <op>-<MiB>, jobs/dispersed.sh)."""
    return {
        (rep, op, region, model): phase_summary(
            w, dispersed_run(w, rep), f"{op}-{region}", variant
        )
        for rep in repetitions(w.scale, "dispersed")
        for op, models in config["dispersed"]["models"].items()
        for region in scale_params(w.scale)["dispersed"]["region_mib"]
        for model, variant in models.items()
    }


# --- scan ---------------------------------------------------------------------------
def scan_run(w, rep):
    """One repetition's scan run, below the platform's runs."""
    return f"scan/{w.fs}/rep-{rep}"


def scan_runs(w):
    """Repetition → the folder of that repetition's scan run."""
    return {
        rep: on_platform(scan_run(w, rep), w) for rep in repetitions(w.scale, "scan")
    }


def scan_models(w):
    """(repetition, phase) → the replay summary of one cold read of the scanned file: one
    phase per hole size (holes-<KiB>k, rule scan_traces) and the pristine file."""
    holes = [f"holes-{kib:06d}k" for kib in scale_params(w.scale)["scan"]["hole_kib"]]
    return {
        (rep, phase): phase_summary(w, scan_run(w, rep), phase)
        for rep in repetitions(w.scale, "scan")
        for phase in [*holes, "pristine"]
    }


# --- user_latency -------------------------------------------------------------------
def user_latency_run_folders(w):
    """(state, rep) → the run's folder below the platform's runs: each aged state's
    runs, repeated on a phone only (config `repeated_on_hardware`)."""
    states = scale_params(w.scale)["user_latency"]["states"]
    reps = repetitions(w.scale, "user-latency", w.device)
    return {
        (state, str(rep)): f"user-latency/{state}/rep-{rep}/run"
        for state in states
        for rep in reps
    }


def user_latency_runs(w):
    return {
        key: on_platform(run, w) for key, run in user_latency_run_folders(w).items()
    }


def user_latency_models(w):
    """(state, rep, phase) → the replay summary of that phase of the state's run
    (jobs/user-latency.sh: install-<app>, launch-<app>, sqlite)."""
    apps = config["user_latency"]["apps"]
    phases = [f"{step}-{app}" for step in ("install", "launch") for app in apps]
    return {
        (state, rep, phase): phase_summary(w, run, phase)
        for (state, rep), run in user_latency_run_folders(w).items()
        for phase in [*phases, "sqlite"]
    }
