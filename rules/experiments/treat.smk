# Treatments stage (TMC §6.1–6.2.1): space preallocation (Figs. 14, 16), persistent
# journal (Fig. 15) and e4defrag (Fig. 17a, and its flash writes through ftl-sim).
# Parameters: `treat` and each scale's `treat` in config/experiments/treat.yaml. Paths
# under the treat/ folder of the scale's workloads (aging/, the traces), of the
# platform's runs (aged/, prealloc/, e4defrag/*/{run,blktrace,blktrace-append},
# journal/, sqlite-prealloc/) and of the device's results (janusd's outputs, the tables):
#   aging/{level}.iotrace, aged/{level}/disk.img      the Low / High file systems
#   aged/free-space.csv                                their free space, checked (copied
#                                                      to the results' treat/)
#   prealloc/{level}/threads-{n}/unit-{kib}/           appenders with preallocation
#   e4defrag/{level}/threads-{n}/{run,blktrace}/       appenders, then e4defrag
#   e4defrag/{level}/threads-{n}/blktrace-append/      the appends (janusdP's DoF_P)
#   e4defrag/{level}/threads-{n}/janusdl/, janusdp/    janusd (rules/experiments/janusd.smk)
#   journal/{mode}/rep-{rep}/, sqlite-prealloc/{app}/  replays on pristine disks

from mobifrag.workflow import free_space_targets

TREAT_FS = config["treat"]["filesystem"]
TREAT_MKFS = mkfs_options(TREAT_FS)
treat_params = lambda scale: scale_params(scale)["treat"]
treat_dir = lambda w: results("treat").format(device=w.device, scale=w.scale)
treat_runs = lambda w: on_platform("treat", w)

# Which runs the treatment tables need: label → result path. Each takes the treat/
# folder of the platform's runs (treat_runs), of what the workflow derives from them
# (treat_dir: janusd's replays, ftl-sim summaries) or both, and the scale's `treat`
# preset; the labels become the tables' leading columns (`python -m mobifrag.tables.treat`).

# Every (level, threads, unit) appender run of TMC Fig. 14 → its snapshot.
treat_prealloc_runs = lambda treat, p: {
    f"level={level},threads={n},unit_kib={kib}": (
        f"{treat}/prealloc/{level}/threads-{n}/unit-{kib}/snapshot"
    )
    for level in p["levels"]
    for n in p["threads"]
    for kib in p["prealloc_kib"]
}

# Every (level, threads, method) defragmentation → its snapshots before and after
# (Fig. 17a). Both methods start from the same run: e4defrag's `after` is the real file
# system's, janusdL's is e4defrag's plan applied by remapping (rules/experiments/janusd.smk).
treat_defrag_runs = lambda treat, derived, p: {
    f"level={level},threads={n},method={method},phase={phase}": path
    for level in p["levels"]
    for n in p["defrag_threads"]
    for method, after in (
        ("e4defrag", f"{treat}/e4defrag/{level}/threads-{n}/run/after"),
        ("janusdL", f"{derived}/e4defrag/{level}/threads-{n}/janusdl/after"),
    )
    for phase, path in (
        ("before_defrag", f"{treat}/e4defrag/{level}/threads-{n}/run/snapshot"),
        ("after_defrag", after),
    )
}

# Every (level, threads, method) defragmentation → ftl-sim's summary of its trace, each
# replayed after the appends' trace with the map cache drained at the end (Fig. 17b,
# rules/experiments/janusd.smk).
TREAT_FTL_SUMMARIES = {"e4defrag": "ftl-e4defrag.json", "janusdL": "ftl-janusdl.json"}
treat_defrag_ftl_runs = lambda treat, p: {
    f"level={level},threads={n},method={method}": (
        f"{treat}/e4defrag/{level}/threads-{n}/{summary}"
    )
    for level in p["levels"]
    for n in p["defrag_threads"]
    for method, summary in TREAT_FTL_SUMMARIES.items()
}

# Every (journal mode, threads, repetition) insert benchmark → its snapshot (Fig. 15);
# repeated (config `repeated`): its concurrent writers interleave differently each run.
treat_journal_runs = lambda treat, p, reps: {
    f"mode={mode},threads={n},rep={r}": (
        f"{treat}/journal/{mode}/rep-{r}/snapshots/threads-{n}/unit-0"
    )
    for mode in p["journal_modes"]
    for r in reps
    for n in p["journal_threads"]
}
journal_repetitions = lambda w: repetitions(w.scale, "treat-journal", w.device)

# Every (app, SQLite preallocation unit) scenario replay → its snapshot (Fig. 16).
treat_sqlite_prealloc_runs = lambda treat, p, package: {
    f"app={app},package={package(app)},unit_kib={kib}": (
        f"{treat}/sqlite-prealloc/{app}/snapshots/{app}/unit-{kib * 1024}"
    )
    for app in p["sqlite_apps"]
    for kib in p["sqlite_prealloc_kib"]
}

# The rule outputs (folders levels_up above each labelled path) the runs need.
treat_run_outputs = lambda runs, levels_up: sorted(
    {str(Path(path).parents[levels_up - 1]) for path in runs.values()}
)


rule treat_aging_trace:
    output:
        workloads("treat/aging/{level}.iotrace"),
    log:
        workloads("logs/treat-aging-{level}.log"),
    wildcard_constraints:
        level="low|moderate|high|full",
    localrule: True
    params:
        python=PYTHON,
        seed=config["seed"],
        target=lambda w: config["filldelete"]["levels"][w.level],
        disk_bytes=lambda w: treat_params(w.scale)["disk_mib"] * 1024 * 1024,
        # The aging files keep TMC §4.3's sizes here (size scale 1).
        hole_limit=free_space_targets.hole_limit(config["filldelete"], 1.0),
    shell:
        "{params.python} -m mobifrag.workloads filldelete --disk-bytes {params.disk_bytes}"
        " --target {params.target} --hole-limit {params.hole_limit} --seed {params.seed}"
        " --out {output} > {log} 2>&1"


use rule guest_job as treat_age with:
    input:
        unpack(guest_inputs("jobs/age-image.sh")),
        trace=workloads("treat/aging/{level}.iotrace"),
    output:
        out=directory(platform_runs("treat/aged/{level}")),
    log:
        platform_runs("logs/treat-aged-{level}.console.log"),
    benchmark:
        platform_runs("benchmarks/treat_age-{level}.tsv")
    wildcard_constraints:
        level="low|moderate|high|full",
    params:
        **guest_job_args(
            "{fs} {mkfs} $(realpath {input.trace}) {seed}",
            fs=TREAT_FS,
            mkfs=TREAT_MKFS,
            seed=config["seed"],
        ),
        disk_mib=lambda w: treat_params(w.scale)["disk_mib"],
        runner="--keep-disk",


# The aged levels' free space, checked before any run starts from them (config
# filldelete.hole_limit_kib: no free extent of the largest preallocation unit).
rule treat_free_space:
    input:
        aged=lambda w: [
            platform_runs("treat/aged/{level}").format(
                platform=w.platform, scale=w.scale, level=level
            )
            for level in treat_params(w.scale)["levels"]
        ],
        code=python_sources("mobifrag.tables.free_space"),
    output:
        platform_runs("treat/aged/free-space.csv"),
    log:
        platform_runs("logs/treat-free-space.log"),
    localrule: True
    params:
        python=PYTHON,
        states=lambda w, input: " ".join(
            free_space_targets.level_state(
                level,
                f"{aged}/freespace.txt",
                f"{aged}/df.txt",
                level,
                config["filldelete"],
                1.0,
            )
            for level, aged in zip(treat_params(w.scale)["levels"], input.aged)
        ),
    shell:
        "{params.python} -m mobifrag.tables.free_space {params.states} --out {output}"
        " 2> {log}"


use rule guest_job as treat_prealloc with:
    input:
        unpack(guest_inputs("jobs/treat-appenders.sh")),
        aged=platform_runs("treat/aged/{level}"),
        free_space=platform_runs("treat/aged/free-space.csv"),
    output:
        out=directory(
            platform_runs("treat/prealloc/{level}/threads-{threads}/unit-{kib}")
        ),
    log:
        platform_runs(
            "logs/treat-prealloc-{level}-threads-{threads}-unit-{kib}.console.log"
        ),
    benchmark:
        platform_runs(
            "benchmarks/treat_prealloc-{level}-threads-{threads}-unit-{kib}.tsv"
        )
    wildcard_constraints:
        level="low|moderate|high|full",
        threads=r"\d+",
        kib=r"\d+",
    # Its guests sleep in fsync round trips of a few small appends: half a host core
    # each, two to a core (docs/measurements.md, "One busy guest per core, the greedy job
    # selector, long chains first").
    resources:
        **guest_resources(busy_percent=50),
    params:
        **guest_job_args(
            "{fs} {wildcards.threads} {record} {file} {unit}",
            fs=TREAT_FS,
            record=config["treat"]["record_kib"] * 1024,
            file=lambda w: treat_params(w.scale)["file_kib"] * 1024,
            unit=lambda w: int(w.kib) * 1024,
        ),
        disk_mib=lambda w: treat_params(w.scale)["disk_mib"],
        cpus=experiment_cpus("treat"),
        runner=guest_args("--disk-from {input.aged}/disk.img"),


use rule guest_job as treat_e4defrag with:
    input:
        unpack(guest_inputs("jobs/treat-appenders.sh")),
        aged=platform_runs("treat/aged/{level}"),
        free_space=platform_runs("treat/aged/free-space.csv"),
    output:
        out=directory(platform_runs("treat/e4defrag/{level}/threads-{threads}/run")),
        blktrace=directory(
            platform_runs("treat/e4defrag/{level}/threads-{threads}/blktrace")
        ),
        appends=directory(
            platform_runs("treat/e4defrag/{level}/threads-{threads}/blktrace-append")
        ),
    log:
        platform_runs("logs/treat-e4defrag-{level}-threads-{threads}.console.log"),
    benchmark:
        platform_runs("benchmarks/treat_e4defrag-{level}-threads-{threads}.tsv")
    wildcard_constraints:
        level="low|moderate|high|full",
        threads=r"\d+",
    # Its guests sleep in fsync round trips of a few small appends: half a host core
    # each, two to a core (docs/measurements.md, "One busy guest per core, the greedy job
    # selector, long chains first").
    resources:
        **guest_resources(busy_percent=50),
    params:
        **guest_job_args(
            "{fs} {wildcards.threads} {record} {file} 0 defrag",
            fs=TREAT_FS,
            record=config["treat"]["record_kib"] * 1024,
            file=lambda w: treat_params(w.scale)["file_kib"] * 1024,
        ),
        # The two block traces move out of the run, to the outputs the model stage reads.
        disk_mib=lambda w: treat_params(w.scale)["disk_mib"],
        cpus=experiment_cpus("treat"),
        runner=guest_args("--disk-from {input.aged}/disk.img"),
        then=guest_args(
            "&& rm -rf {output.blktrace} {output.appends}"
            " && mv {output.out}/blktrace/e4defrag {output.blktrace}"
            " && mv {output.out}/blktrace/append {output.appends}"
        ),


rule treat_journal_traces:
    output:
        directory(workloads("treat/journal/traces/{mode}")),
    log:
        workloads("logs/treat-journal-traces-{mode}.log"),
    wildcard_constraints:
        mode="delete|truncate|persist|wal",
    localrule: True
    params:
        python=PYTHON,
        threads=lambda w: " ".join(map(str, treat_params(w.scale)["journal_threads"])),
        inserts=lambda w: treat_params(w.scale)["inserts"],
        row=config["treat"]["insert_row_bytes"],
    shell:
        "mkdir -p {output} && for n in {params.threads}; do"
        " {params.python} -m mobifrag.workloads.insert_benchmark --threads $n"
        " --journal {wildcards.mode} --inserts {params.inserts} --row-bytes {params.row}"
        " --out {output}/threads-$n.iotrace >> {log} 2>&1 || exit 1; done"


use rule guest_job as treat_journal with:
    input:
        unpack(guest_inputs("jobs/treat-replays.sh")),
        traces=workloads("treat/journal/traces/{mode}"),
    output:
        out=directory(platform_runs("treat/journal/{mode}/rep-{rep}")),
    log:
        platform_runs("logs/treat-journal-{mode}-rep-{rep}.console.log"),
    benchmark:
        platform_runs("benchmarks/treat_journal-{mode}-rep-{rep}.tsv")
    wildcard_constraints:
        mode="delete|truncate|persist|wal",
        rep=r"\d+",
    params:
        **guest_job_args(
            "{fs} {mkfs} $(realpath {input.traces}) {seed} 0",
            fs=TREAT_FS,
            mkfs=TREAT_MKFS,
            seed=lambda w: repetition_seed(w.scale, w.rep),
        ),
        disk_mib=lambda w: treat_params(w.scale)["disk_mib"],
        cpus=experiment_cpus("treat"),


rule treat_sqlite_prealloc_trace:
    input:
        model=Path(config["autoage"]["models"], "{app}.yaml"),
    output:
        directory(workloads("treat/sqlite-prealloc/traces/{app}")),
    log:
        workloads("logs/treat-sqlite-prealloc-trace-{app}.log"),
    wildcard_constraints:
        app="[a-z]+",
    localrule: True
    params:
        python=PYTHON,
        seed=config["seed"],
        minutes=lambda w: treat_params(w.scale)["replay_minutes"],
        size_scale=lambda w: app_size_scale(treat_params(w.scale)["disk_mib"]),
    shell:
        "mkdir -p {output} && {params.python} -m mobifrag.workloads scenario"
        " --model {input.model} --seed {params.seed} --minutes {params.minutes}"
        " --size-scale {params.size_scale} --out {output}/{wildcards.app}.iotrace"
        " > {log} 2>&1"


use rule guest_job as treat_sqlite_prealloc with:
    input:
        unpack(guest_inputs("jobs/treat-replays.sh")),
        traces=workloads("treat/sqlite-prealloc/traces/{app}"),
    output:
        out=directory(platform_runs("treat/sqlite-prealloc/{app}")),
    log:
        platform_runs("logs/treat-sqlite-prealloc-{app}.console.log"),
    benchmark:
        platform_runs("benchmarks/treat_sqlite_prealloc-{app}.tsv")
    wildcard_constraints:
        app="[a-z]+",
    params:
        **guest_job_args(
            "{fs} {mkfs} $(realpath {input.traces}) {seed} {units}",
            fs=TREAT_FS,
            mkfs=TREAT_MKFS,
            seed=config["seed"],
            units=lambda w: " ".join(
                str(kib * 1024) for kib in treat_params(w.scale)["sqlite_prealloc_kib"]
            ),
        ),
        disk_mib=lambda w: treat_params(w.scale)["disk_mib"],
        cpus=experiment_cpus("treat"),


rule treat_prealloc_table:
    input:
        lambda w: treat_run_outputs(
            treat_prealloc_runs(treat_runs(w), treat_params(w.scale)), 1
        ),
        free_space=lambda w: f"{treat_runs(w)}/aged/free-space.csv",
        code=python_sources("mobifrag.tables.treat"),
    output:
        table=results("treat/prealloc/dof.csv"),
        free_space=results("treat/free-space.csv"),
    log:
        results("logs/treat-prealloc-table.log"),
    localrule: True
    params:
        python=PYTHON,
        runs=lambda w: run_labels(
            treat_prealloc_runs(treat_runs(w), treat_params(w.scale))
        ),
    shell:
        "{params.python} -m mobifrag.tables.treat dof {params.runs}"
        " --out {output.table} 2> {log} && cp {input.free_space} {output.free_space}"


rule treat_e4defrag_table:
    input:
        lambda w: treat_run_outputs(
            treat_defrag_runs(treat_runs(w), treat_dir(w), treat_params(w.scale)),
            1,
        ),
        code=python_sources("mobifrag.tables.treat"),
    output:
        results("treat/e4defrag/dof.csv"),
    log:
        results("logs/treat-e4defrag-table.log"),
    localrule: True
    params:
        python=PYTHON,
        runs=lambda w: run_labels(
            treat_defrag_runs(treat_runs(w), treat_dir(w), treat_params(w.scale))
        ),
    shell:
        "{params.python} -m mobifrag.tables.treat dof {params.runs}"
        " --out {output} 2> {log}"


rule treat_e4defrag_flash_table:
    input:
        lambda w: treat_defrag_ftl_runs(treat_dir(w), treat_params(w.scale)).values(),
        code=python_sources("mobifrag.tables.treat"),
    output:
        results("treat/e4defrag/flash-writes.csv"),
    log:
        results("logs/treat-e4defrag-flash-table.log"),
    localrule: True
    params:
        python=PYTHON,
        runs=lambda w: run_labels(
            treat_defrag_ftl_runs(treat_dir(w), treat_params(w.scale))
        ),
    shell:
        "{params.python} -m mobifrag.tables.treat flash {params.runs}"
        " --out {output} 2> {log}"


rule treat_journal_table:
    input:
        lambda w: treat_run_outputs(
            treat_journal_runs(
                treat_runs(w), treat_params(w.scale), journal_repetitions(w)
            ),
            3,
        ),
        code=python_sources("mobifrag.tables.treat"),
    output:
        results("treat/journal/dof.csv"),
    log:
        results("logs/treat-journal-table.log"),
    localrule: True
    params:
        python=PYTHON,
        runs=lambda w: run_labels(
            treat_journal_runs(
                treat_runs(w), treat_params(w.scale), journal_repetitions(w)
            )
        ),
    shell:
        "{params.python} -m mobifrag.tables.treat dof {params.runs}"
        " --out {output} 2> {log}"


rule treat_sqlite_prealloc_tables:
    input:
        lambda w: treat_run_outputs(
            treat_sqlite_prealloc_runs(
                treat_runs(w), treat_params(w.scale), app_package
            ),
            3,
        ),
        code=python_sources("mobifrag.tables.treat"),
    output:
        dof=results("treat/sqlite-prealloc/dof.csv"),
        summary=results("treat/sqlite-prealloc/summary.csv"),
    log:
        results("logs/treat-sqlite-prealloc-tables.log"),
    localrule: True
    params:
        python=PYTHON,
        runs=lambda w: run_labels(
            treat_sqlite_prealloc_runs(
                treat_runs(w), treat_params(w.scale), app_package
            )
        ),
    shell:
        "{params.python} -m mobifrag.tables.treat dof {params.runs}"
        " --out {output.dof} 2> {log} && {params.python} -m mobifrag.tables.treat"
        " prealloc-summary --dof {output.dof} --out {output.summary} 2>> {log}"
