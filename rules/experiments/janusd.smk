# janusd (TMC §6.2.2; janusd §3–4) on the e4defrag runs of rules/experiments/treat.smk: janusdL
# carries out e4defrag's relocation plan as FTL REMAP commands, janusdP copies the files
# whose DoF_P exceeds `janusd.dof_p_threshold`. Beside the platform's e4defrag runs
# (run/, blktrace/, blktrace-append/: rules/experiments/treat.smk), paths under
# results/{device}/{scale}/treat/e4defrag/{level}/threads-{n}/:
#   e4defrag.csv                 e4defrag's block trace as CSV (ftl-sim convert)
#   janusdl/                     plan.csv, janusdl.csv (the trace), after/ (the snapshot)
#   janusdp/                     selected.csv, janusd.csv (janusdL's trace + janusdP's copies)
#   ftl-{method}.json, .dop.csv  each method's trace through ftl-sim after the appends'
#                                trace (uncounted), map cache drained; DoF_P after it
#   ftl-append.dop.csv           DoF_P of the files as the appends left them
from collections import namedtuple

from mobifrag.workflow import free_space_targets

# janusd: the e4defrag runs' folders each method replays from.
JANUSD_RUN = "treat/e4defrag/{level}/threads-{threads}"
JANUSD_WILDCARDS = {"level": "low|moderate|high|full", "threads": r"\d+"}
# janusd's own guest job runs on the treatments' file system, as their e4defrag runs do.
JANUSD_FS = config["treat"]["filesystem"]

# Per replayed method: its trace (format, path below the run folder), the layout whose
# DoF_P is measured after it, and whether the appends' trace is replayed first (uncounted).
JanusdReplay = namedtuple("JanusdReplay", "format trace layout after_appends")
JANUSD_REPLAYS = {
    "append": JanusdReplay("blktrace", "blktrace-append", "run/snapshot", False),
    "e4defrag": JanusdReplay("blktrace", "blktrace", "run/after", True),
    "janusdl": JanusdReplay("csv", "janusdl/janusdl.csv", "janusdl/after", True),
    "janusd": JanusdReplay("csv", "janusdp/janusd.csv", "janusdl/after", True),
}

# What the e4defrag guest job wrote (the rest of a replay's paths are janusd's own).
JANUSD_PLATFORM_PARTS = {"run", "blktrace", "blktrace-append"}

# A path below one e4defrag run's folder: the platform's run for what its guest job
# wrote, the device's results for janusd's outputs.
janusd_path = lambda w, relative: (
    f"{on_platform(JANUSD_RUN, w)}/{relative}"
    if Path(relative).parts[0] in JANUSD_PLATFORM_PARTS
    else f"{results(JANUSD_RUN).format(**w)}/{relative}"
)

# Trace, layout and preconditioning trace of one method's replay.
janusd_replay_paths = lambda w: {
    "trace": janusd_path(w, JANUSD_REPLAYS[w.method].trace),
    "extents": janusd_path(w, f"{JANUSD_REPLAYS[w.method].layout}/extents.tsv"),
    "precondition": (
        f"--precondition-trace {janusd_path(w, 'blktrace-append')}"
        if JANUSD_REPLAYS[w.method].after_appends
        else ""
    ),
}

# The folders the replay reads: outputs of other rules, which are folders.
janusd_replay_inputs = lambda w: sorted(
    janusd_path(w, top)
    for top in {
        Path(JANUSD_REPLAYS[w.method].trace).parts[0],
        Path(JANUSD_REPLAYS[w.method].layout).parts[0],
        "blktrace-append",
    }
)

# The wildcards of one e4defrag run (level, threads) beside the table's.
e4defrag_run = lambda w, level, threads: dict(w.items(), level=level, threads=threads)

# Label → the e4defrag run's snapshot and the DoF_P of its files (janusd Fig. 6).
dof_lp_runs = lambda w: {
    f"level={level},threads={n}": (
        janusd_path(e4defrag_run(w, level, n), "run/snapshot"),
        janusd_path(e4defrag_run(w, level, n), "ftl-append.dop.csv"),
    )
    for level in scale_params(w.scale)["treat"]["levels"]
    for n in scale_params(w.scale)["treat"]["defrag_threads"]
}

# janusd's recurring defragmentation, one run per aged state (`janusd.recurring_states`:
# a utilization, its intervals) and interval.
RECURRING = "janusd/recurring"
RECURRING_RUN = f"{RECURRING}/util-{{utilization}}/every-{{interval}}d"
RECURRING_WILDCARDS = {"utilization": r"\d+", "interval": r"\d+"}

# Utilization → its state in the config (level, intervals).
recurring_states = lambda: {
    state["utilization_percent"]: state
    for state in config["janusd"]["recurring_states"]
}

# (label, wildcards) of every recurring run: each state's utilization and intervals.
recurring_labels = lambda: [
    (
        f"utilization_percent={u},interval_days={n}",
        {"utilization": u, "interval": n},
    )
    for u, state in recurring_states().items()
    for n in state["intervals"]
]

# Label → the replayed defragmentations of each run.
recurring_runs = lambda w: {
    label: results(f"{RECURRING_RUN}/defrags").format(
        device=w.device, scale=w.scale, **run
    )
    for label, run in recurring_labels()
}

# Label → the guest job's folder of each run (its snapshots around each e4defrag run,
# defrag/day-NN/{before,after}/).
recurring_guest_runs = lambda w: {
    label: on_platform(f"{RECURRING_RUN}/run", w, **run)
    for label, run in recurring_labels()
}

# The packages of `janusd.recurring_apps`, whose launches and files the tables follow.
recurring_packages = lambda: " ".join(
    app_package(a) for a in config["janusd"]["recurring_apps"]
)

# The recurring runs' disk (the scale's AutoAge disk), MiB.
recurring_disk_mib = lambda w: scale_params(w.scale)["autoage"]["disk_mib"]


rule janusd_e4defrag_csv:
    input:
        trace=lambda w: on_platform(f"{JANUSD_RUN}/blktrace", w),
        sim=FTL_SIM,
    output:
        results(f"{JANUSD_RUN}/e4defrag.csv"),
    log:
        results("logs/janusd-e4defrag-csv-{level}-{threads}.log"),
    benchmark:
        results("benchmarks/janusd_e4defrag_csv-{level}-{threads}.tsv")
    wildcard_constraints:
        **JANUSD_WILDCARDS,
    shell:
        "{input.sim} convert --format blktrace -o {output} {input.trace} 2> {log}"


rule janusd_logical:
    input:
        run=lambda w: on_platform(f"{JANUSD_RUN}/run", w),
        trace=results(f"{JANUSD_RUN}/e4defrag.csv"),
        code=python_sources("mobifrag.model.janusd_remap"),
    output:
        directory(results(f"{JANUSD_RUN}/janusdl")),
    log:
        results("logs/janusd-logical-{level}-{threads}.log"),
    wildcard_constraints:
        **JANUSD_WILDCARDS,
    localrule: True
    params:
        python=PYTHON,
    shell:
        "{params.python} -m mobifrag.model.janusd_remap logical --before {input.run}/snapshot"
        " --after {input.run}/after --trace {input.trace} --out {output} 2> {log}"


rule janusd_physical:
    input:
        dop=results(f"{JANUSD_RUN}/ftl-append.dop.csv"),
        janusdl=results(f"{JANUSD_RUN}/janusdl"),
        code=python_sources("mobifrag.model.janusd_remap"),
    output:
        directory(results(f"{JANUSD_RUN}/janusdp")),
    log:
        results("logs/janusd-physical-{level}-{threads}.log"),
    wildcard_constraints:
        **JANUSD_WILDCARDS,
    localrule: True
    params:
        python=PYTHON,
        threshold=config["janusd"]["dof_p_threshold"],
    shell:
        "{params.python} -m mobifrag.model.janusd_remap physical --dop {input.dop}"
        " --snapshot {input.janusdl}/after --threshold {params.threshold}"
        " --follow {input.janusdl}/janusdl.csv --out {output} 2> {log}"


rule janusd_replay:
    input:
        folders=janusd_replay_inputs,
        profile="devices/{device}.yaml",
        sim=FTL_SIM,
    output:
        summary=results(f"{JANUSD_RUN}/ftl-{{method}}.json"),
        dop=results(f"{JANUSD_RUN}/ftl-{{method}}.dop.csv"),
    log:
        results("logs/janusd-replay-{level}-{threads}-{method}.log"),
    benchmark:
        results("benchmarks/janusd_replay-{level}-{threads}-{method}.tsv")
    wildcard_constraints:
        **JANUSD_WILDCARDS,
        method="|".join(JANUSD_REPLAYS),
    params:
        format=lambda w: JANUSD_REPLAYS[w.method][0],
        paths=janusd_replay_paths,
    shell:
        "{input.sim} replay --device {input.profile} {params.paths[precondition]}"
        " --format {params.format} {params.paths[trace]} --drain-cache"
        " --extents {params.paths[extents]} --dop-out {output.dop}"
        " -o {output.summary} 2> {log}"


# Recurring defragmentation (janusd §2.3-2.5, Figs. 3-5): results/{device}/{scale}/
# janusd/recurring/ (and the platform's runs under janusd/recurring/)
#   traces/                      AutoAge day traces of `janusd.recurring_apps` from day 1
#                                (no day-00 fill: the disk is aged before)
#   aging/util-{u}.iotrace, aged/util-{u}/disk.img
#                                fill/delete aging to u % (holes only) and its image
#   aged/free-space.csv          the aged images' free space, checked (copied to the
#                                results' janusd/recurring/free-space.csv)
#   util-{u}/every-{n}d/run/     the replay on a copy of the aged image with e4defrag every
#                                n days (defrag/day-NN/, blktrace/day-NN/)
#   util-{u}/every-{n}d/defrags/day-NN/
#                                e4defrag.csv, janusdl/, ftl-{e4defrag,janusdl}.json,
#                                launch-PACKAGE-{before,after}/ and .json: each app's
#                                launch reads over the layout before / after the defrag
#   copies.csv, launch.csv       bytes each method wrote per defragmentation; launches
#   dof.csv                      DoF of each app's files before / after each defrag
#                                (janusd Fig. 3), from the job's own snapshots
rule janusd_recurring_traces:
    output:
        directory(workloads(f"{RECURRING}/traces")),
    log:
        workloads("logs/janusd-recurring-traces.log"),
    priority: LONG_CHAIN
    localrule: True
    params:
        python=PYTHON,
        models=config["autoage"]["models"],
        apps=",".join(config["janusd"]["recurring_apps"]),
        update_every=" ".join(
            f"--update-every {app}={days}"
            for app, days in config["janusd"]["recurring_update_every_days"].items()
        ),
        seed=config["seed"],
        days=lambda w: min(
            scale_params(w.scale)["autoage"]["days"],
            config["janusd"]["recurring_days"],
        ),
        disk_bytes=lambda w: recurring_disk_mib(w) * 1024 * 1024,
    shell:
        "{params.python} -m mobifrag.workloads autoage --models {params.models}"
        " --apps {params.apps} {params.update_every} --aged --days {params.days}"
        " --seed {params.seed} --disk-bytes {params.disk_bytes} --out {output}"
        " > {log} 2>&1"


# The aged image of one state: fill/delete (TMC §4.3) down to its utilization with
# TMC's file sizes, as the treatments' Low/High (rules/experiments/treat.smk).
rule janusd_recurring_aging_trace:
    output:
        workloads(f"{RECURRING}/aging/util-{{utilization}}.iotrace"),
    log:
        workloads("logs/janusd-recurring-aging-{utilization}.log"),
    wildcard_constraints:
        utilization=r"\d+",
    priority: LONG_CHAIN
    localrule: True
    params:
        python=PYTHON,
        seed=config["seed"],
        disk_bytes=lambda w: recurring_disk_mib(w) * 1024 * 1024,
        hole_limit=free_space_targets.hole_limit(config["filldelete"], 1.0),
    shell:
        "{params.python} -m mobifrag.workloads filldelete --disk-bytes {params.disk_bytes}"
        " --target {wildcards.utilization} --hole-limit {params.hole_limit}"
        " --seed {params.seed} --out {output} > {log} 2>&1"


use rule guest_job as janusd_recurring_age with:
    input:
        unpack(guest_inputs("jobs/age-image.sh")),
        trace=workloads(f"{RECURRING}/aging/util-{{utilization}}.iotrace"),
    output:
        out=directory(platform_runs(f"{RECURRING}/aged/util-{{utilization}}")),
    log:
        platform_runs("logs/janusd-recurring-aged-{utilization}.console.log"),
    benchmark:
        platform_runs("benchmarks/janusd_recurring_age-{utilization}.tsv")
    wildcard_constraints:
        utilization=r"\d+",
    priority: LONG_CHAIN
    params:
        **guest_job_args(
            "{fs} {mkfs} $(realpath {input.trace}) {seed}",
            fs=JANUSD_FS,
            mkfs=mkfs_options(JANUSD_FS),
            seed=config["seed"],
        ),
        disk_mib=recurring_disk_mib,
        runner="--keep-disk",


# The aged states' free space, checked before any recurring run starts from them.
rule janusd_recurring_free_space:
    input:
        aged=lambda w: [
            platform_runs(f"{RECURRING}/aged/util-{{utilization}}").format(
                platform=w.platform, scale=w.scale, utilization=u
            )
            for u in recurring_states()
        ],
        code=python_sources("mobifrag.tables.free_space"),
    output:
        platform_runs(f"{RECURRING}/aged/free-space.csv"),
    log:
        platform_runs("logs/janusd-recurring-free-space.log"),
    localrule: True
    params:
        python=PYTHON,
        states=lambda w, input: " ".join(
            free_space_targets.utilization_state(
                f"util-{u}",
                f"{aged}/freespace.txt",
                f"{aged}/df.txt",
                state["level"],
                u,
                config["filldelete"],
            )
            for (u, state), aged in zip(recurring_states().items(), input.aged)
        ),
    shell:
        "{params.python} -m mobifrag.tables.free_space {params.states} --out {output}"
        " 2> {log}"


use rule guest_job as janusd_recurring with:
    input:
        unpack(guest_inputs("jobs/janusd-recurring.sh")),
        traces=workloads(f"{RECURRING}/traces"),
        aged=platform_runs(f"{RECURRING}/aged/util-{{utilization}}"),
        free_space=platform_runs(f"{RECURRING}/aged/free-space.csv"),
    output:
        out=directory(platform_runs(f"{RECURRING_RUN}/run")),
    log:
        platform_runs(
            "logs/janusd-recurring-{utilization}-every-{interval}d.console.log"
        ),
    benchmark:
        platform_runs("benchmarks/janusd_recurring-{utilization}-every-{interval}d.tsv")
    wildcard_constraints:
        **RECURRING_WILDCARDS,
    priority: LONG_CHAIN
    params:
        **guest_job_args(
            "{fs} aged $(realpath {input.traces}) {seed} {wildcards.interval}",
            fs=JANUSD_FS,
            seed=config["seed"],
        ),
        disk_mib=recurring_disk_mib,
        runner=guest_args("--disk-from {input.aged}/disk.img"),


rule janusd_recurring_replays:
    input:
        run=lambda w: on_platform(f"{RECURRING_RUN}/run", w),
        profile="devices/{device}.yaml",
        sim=FTL_SIM,
        code=python_sources("mobifrag.model.janusd_remap"),
    output:
        directory(results(f"{RECURRING_RUN}/defrags")),
    log:
        results("logs/janusd-recurring-{utilization}-every-{interval}d-replays.log"),
    benchmark:
        results(
            "benchmarks/janusd_recurring_replays-{utilization}-every-{interval}d.tsv"
        )
    wildcard_constraints:
        **RECURRING_WILDCARDS,
    params:
        python=PYTHON,
        packages=recurring_packages(),
    shell:
        "for before in {input.run}/defrag/*/before; do"
        " day=$(basename $(dirname $before)); out={output}/$day; mkdir -p $out"
        " && {input.sim} convert --format blktrace -o $out/e4defrag.csv"
        " {input.run}/blktrace/$day"
        " && {params.python} -m mobifrag.model.janusd_remap logical --before $before"
        " --after $(dirname $before)/after --trace $out/e4defrag.csv --out $out/janusdl"
        " && {input.sim} replay --device {input.profile} --format blktrace --drain-cache"
        " -o $out/ftl-e4defrag.json {input.run}/blktrace/$day"
        " && {input.sim} replay --device {input.profile} --format csv --drain-cache"
        " -o $out/ftl-janusdl.json $out/janusdl/janusdl.csv || exit 1;"
        " for pkg in {params.packages}; do for phase in before after; do"
        " launch=$out/launch-$pkg-$phase && {params.python} -m mobifrag.model.janusd_remap launch"
        " --snapshot $(dirname $before)/$phase --package $pkg --out $launch || exit 1;"
        " [ -f $launch/reads.csv ] || continue;"
        " {input.sim} replay --device {input.profile} --precondition-format csv"
        " --precondition-trace $launch/writes.csv --arrivals closed --format csv"
        " -o $launch.json $launch/reads.csv || exit 1; done; done; done > {log} 2>&1"


rule janusd_recurring_table:
    input:
        lambda w: recurring_runs(w).values(),
        code=python_sources("mobifrag.tables.janusd"),
    output:
        copies=results(f"{RECURRING}/copies.csv"),
        launch=results(f"{RECURRING}/launch.csv"),
    log:
        results("logs/janusd-recurring-table.log"),
    localrule: True
    params:
        python=PYTHON,
        runs=lambda w: run_labels(recurring_runs(w)),
    shell:
        "{params.python} -m mobifrag.tables.janusd recurring {params.runs}"
        " --out {output.copies} --launch-out {output.launch} 2> {log}"


rule janusd_recurring_dof_table:
    input:
        lambda w: recurring_guest_runs(w).values(),
        free_space=lambda w: on_platform(f"{RECURRING}/aged/free-space.csv", w),
        code=python_sources("mobifrag.tables.janusd"),
    output:
        table=results(f"{RECURRING}/dof.csv"),
        free_space=results(f"{RECURRING}/free-space.csv"),
    log:
        results("logs/janusd-recurring-dof-table.log"),
    localrule: True
    params:
        python=PYTHON,
        runs=lambda w: run_labels(recurring_guest_runs(w)),
        packages=recurring_packages(),
    shell:
        "{params.python} -m mobifrag.tables.janusd recurring-dof {params.runs}"
        " --packages {params.packages} --out {output.table} 2> {log}"
        " && cp {input.free_space} {output.free_space}"


rule janusd_dof_lp_table:
    input:
        lambda w: [
            path
            for folders in dof_lp_runs(w).values()
            for path in (str(Path(folders[0]).parent), folders[1])
        ],
        code=python_sources("mobifrag.tables.janusd"),
    output:
        results("treat/janusd/dof-lp.csv"),
    log:
        results("logs/janusd-dof-lp-table.log"),
    localrule: True
    params:
        python=PYTHON,
        runs=lambda w: " ".join(
            f"--run {label} {snapshot} {dop}"
            for label, (snapshot, dop) in dof_lp_runs(w).items()
        ),
    shell:
        "{params.python} -m mobifrag.tables.janusd dof-lp {params.runs} --out {output} 2> {log}"


rule janusd_throughput:
    input:
        profile="devices/{device}.yaml",
        sim=FTL_SIM,
        code=python_sources("mobifrag.model.janusd_throughput"),
    output:
        results("janusd/throughput.csv"),
    log:
        results("logs/janusd-throughput.log"),
    benchmark:
        results("benchmarks/janusd_throughput.tsv")
    params:
        python=PYTHON,
        file_kib=config["janusd"]["throughput"]["file_kib"],
        dof_l=" ".join(map(str, config["janusd"]["throughput"]["dof_l"])),
        planes=" ".join(map(str, config["janusd"]["throughput"]["planes_used"])),
    shell:
        "{params.python} -m mobifrag.model.janusd_throughput --ftl-sim {input.sim}"
        " --device {input.profile} --file-kib {params.file_kib} --dof-l {params.dof_l}"
        " --planes-used {params.planes} --out {output} 2> {log}"
