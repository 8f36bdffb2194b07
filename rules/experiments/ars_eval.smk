# ARS evaluation (ARS §V, Figs. 4–7 and the creation-time overhead of §V.D): the schemes
# of `ars_kernel` on fresh F2FS file systems in the emulator, sizes from each scale's
# `ars_eval` and the study's `ars_eval` block. Paths under ars/eval/ of the workloads
# (sqlite-traces/), of the platform's runs (the jobs) and of results/{device}/{scale}/
# (the tables):
#   fragbench/{scheme}/rep-{rep}/  Figs. 4–5: reserved files measured at Low and High
#                        (ars-fragbench.sh), repeated (config `repeated`)
#   sqlite-traces/       Fig. 6: the insert, update and delete traces and their reserved files
#   sqlite/{scheme}/rep-{rep}/  Fig. 6: SQLite transactions at Moderate (ars-sqlite.sh)
#   apps/{scheme}/rep-{rep}/    Fig. 7: the app traces at Low and Moderate (ars-apps.sh);
#                        both repeated (config `repeated`)
#   <kind>.csv           the tables (mobifrag/tables/ars_eval.py); every measured phase
#                        is traced (blktrace/<phase>/) and modeled on the device profile
import math

ARS_EVAL = "ars/eval"
ars_eval = lambda scale: scale_params(scale)["ars_eval"]

# Fig. 7's app traces (config ars_eval.apps_traces): Mobibench's real traces, imported,
# with their written-many files reserved (`mobibench`) or with the ARS selection's
# decision-tree list (`selection`, learned from the same traces). Both folders hold
# <app>/reserved.txt (the selection's under the platform's runs); the traces are
# <app>/traces/*.iotrace of the Mobibench folder.
ARS_EVAL_MOBIBENCH = f"{ARS_EVAL}/mobibench"
# The folder of the data root the converted Mobibench trace of app writes in.
mobibench_folder = lambda app: f"mobigen_temp/{app}"
ars_eval_traces = lambda w: workloads(ARS_EVAL_MOBIBENCH).format(scale=w.scale)
ars_eval_reserved = lambda w: (
    ars_eval_traces(w)
    if config["ars_eval"]["apps_traces"] == "mobibench"
    else platform_runs(ARS_SELECTION).format(**w)
)
# (folder of each app's reserved.txt, folder of each app's traces/) for one run.
ars_eval_apps_source = lambda w: (ars_eval_reserved(w), ars_eval_traces(w))
# The reserved lists and trace folders the apps job replays.
ars_eval_apps_inputs = lambda w: [
    f"{ars_eval_reserved(w)}/{app}/reserved.txt"
    for app in config["ars_selection"]["apps"]
] + [f"{ars_eval_traces(w)}/{app}/traces" for app in config["ars_selection"]["apps"]]

# ARS evaluation: the jobs each table reads.
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

# How the reports of each job's runs name their phases (ftl_replay_run's options).
RUN_PHASE_DEPTHS.update(
    {
        f"{ARS_EVAL}/fragbench": "--fio '{report}'",
        f"{ARS_EVAL}/sqlite": "--replay 'sqlite-{report}'",
        f"{ARS_EVAL}/apps": "--replay '{report}'",
    }
)

# START and MIN bytes of the fragmentation benchmark (ARS §V.A): the first file size is
# 2^-size_shift of the power of two nearest the reference data partition.
fragbench_args = lambda: (
    2
    ** (
        round(math.log2(config["reference_disk_gib"] * 2**30))
        - config["ars_eval"]["size_shift"]
    ),
    config["ars_eval"]["min_kib"] * 1024,
)

# A table reading several jobs names each row's job; every row names its repetition, so
# ratios pair runs of one repetition.
ars_eval_job_label = lambda kind, job: (
    f",job={job}" if len(ARS_EVAL_JOBS[kind]) > 1 else ""
)

# Run label → job folder (below the platform's runs) of every scheme and repetition for
# the jobs a table reads (config `repeated` and `repeated_on_hardware`).
ars_eval_run_folders = lambda w: {
    f"scheme={s}{ars_eval_job_label(w.kind, job)},rep={r}": (
        f"{ARS_EVAL}/{job}/{s}/rep-{r}"
    )
    for job in ARS_EVAL_JOBS[w.kind]
    for s in config["ars"]["schemes"]
    for r in repetitions(w.scale, f"ars-eval-{job}", w.device)
}

# Run label → job folder of every scheme for the jobs a table reads.
ars_eval_runs = lambda w: {
    label: on_platform(run, w) for label, run in ars_eval_run_folders(w).items()
}


use rule guest_job as ars_eval_fragbench with:
    input:
        unpack(guest_inputs("jobs/ars-fragbench.sh")),
        lib="jobs/ars-lib.sh",
        guest="jobs/ars-guest.py",
    output:
        out=directory(platform_runs(f"{ARS_EVAL}/fragbench/{{scheme}}/rep-{{rep}}")),
    log:
        platform_runs("logs/ars-eval-fragbench-{scheme}-rep-{rep}.console.log"),
    benchmark:
        platform_runs("benchmarks/ars_eval_fragbench-{scheme}-rep-{rep}.tsv")
    wildcard_constraints:
        scheme=ARS_SCHEMES,
        rep=r"\d+",
    params:
        **guest_job_args(
            "{wildcards.scheme} {file} {writers} {files} {fill} {sizes} {seq_bs} {rand_bs}"
            " {gc_sleep_ms}",
            file=lambda w: ars_eval(w.scale)["file_kib"] * 1024,
            writers=config["ars"]["writers"],
            files=config["ars_eval"]["reserved_files"],
            fill=config["ars_eval"]["fill_percent"],
            sizes=" ".join(str(n) for n in fragbench_args()),
            seq_bs=config["ars_eval"]["seq_block_kib"] * 1024,
            rand_bs=config["ars_eval"]["rand_block_kib"] * 1024,
            gc_sleep_ms=config["ars_eval"]["high_gc_urgent_sleep_ms"],
        ),
        disk_mib=lambda w: ars_eval(w.scale)["disk_mib"],


rule ars_eval_sqlite_traces:
    output:
        directory(workloads(f"{ARS_EVAL}/sqlite-traces")),
    log:
        workloads("logs/ars-eval-sqlite-traces.log"),
    localrule: True
    params:
        python=PYTHON,
        threads=config["ars_eval"]["sqlite"]["threads"],
        journal=config["ars_eval"]["sqlite"]["journal"],
        kinds=config["ars_eval"]["sqlite"]["kinds"],
        row_bytes=config["ars_eval"]["sqlite"]["row_bytes"],
        per_thread=lambda w: max(
            1,
            ars_eval(w.scale)["sqlite_records"]
            // config["ars_eval"]["sqlite"]["threads"],
        ),
    shell:
        "mkdir -p {output} && i=0 && for kind in {params.kinds}; do i=$((i + 1)) &&"
        " {params.python} -m mobifrag.workloads.insert_benchmark --threads {params.threads}"
        " --journal {params.journal} --inserts {params.per_thread}"
        " --row-bytes {params.row_bytes} --kind $kind --out {output}/$i-$kind.iotrace"
        " --reserved {output}/reserved.txt || exit 1; done > {log} 2>&1"


use rule guest_job as ars_eval_sqlite with:
    input:
        unpack(guest_inputs("jobs/ars-sqlite.sh")),
        lib="jobs/ars-lib.sh",
        guest="jobs/ars-guest.py",
        traces=workloads(f"{ARS_EVAL}/sqlite-traces"),
    output:
        out=directory(platform_runs(f"{ARS_EVAL}/sqlite/{{scheme}}/rep-{{rep}}")),
    log:
        platform_runs("logs/ars-eval-sqlite-{scheme}-rep-{rep}.console.log"),
    benchmark:
        platform_runs("benchmarks/ars_eval_sqlite-{scheme}-rep-{rep}.tsv")
    wildcard_constraints:
        scheme=ARS_SCHEMES,
        rep=r"\d+",
    # Its guests keep four fifths of a host core busy (QEMU's CPU): three at once on two
    # cores finish the most runs per minute, a fifth more than two (docs/measurements.md,
    # "Where a guest's time goes, and three guests on two cores").
    resources:
        **guest_resources(busy_percent=66),
    params:
        **guest_job_args(
            "{wildcards.scheme} {fill} {sizes} $(realpath {input.traces}) {seed}",
            fill=config["ars_eval"]["moderate_fill_percent"],
            sizes=" ".join(str(n) for n in fragbench_args()),
            seed=lambda w: repetition_seed(w.scale, w.rep),
        ),
        disk_mib=lambda w: ars_eval(w.scale)["disk_mib"],


# Fig. 7's real app traces (config ars_eval.apps_traces: mobibench): Mobibench's
# traces at the pinned commit (traces/mobibench/upstream.env, checksum verified), each
# converted to an .iotrace with its written-many files as the reserved list, and the
# paper's trace statistics (ARS §IV) counted from them.
rule ars_eval_mobibench_fetch:
    input:
        "traces/mobibench/fetch.sh",
        "traces/mobibench/upstream.env",
    output:
        workloads(f"{ARS_EVAL_MOBIBENCH}/upstream/mobigen.out.{{app}}"),
    log:
        workloads("logs/ars-eval-mobibench-fetch-{app}.log"),
    wildcard_constraints:
        app="[a-z]+",
    localrule: True
    shell:
        "traces/mobibench/fetch.sh {wildcards.app} {output} 2> {log}"


rule ars_eval_mobibench_trace:
    input:
        workloads(f"{ARS_EVAL_MOBIBENCH}/upstream/mobigen.out.{{app}}"),
    output:
        traces=directory(workloads(f"{ARS_EVAL_MOBIBENCH}/{{app}}/traces")),
        reserved=workloads(f"{ARS_EVAL_MOBIBENCH}/{{app}}/reserved.txt"),
    log:
        workloads("logs/ars-eval-mobibench-trace-{app}.log"),
    wildcard_constraints:
        app="[a-z]+",
    localrule: True
    params:
        python=PYTHON,
        more_than=config["ars_selection"]["written_many_more_than"],
        folder=lambda w: mobibench_folder(w.app),
    shell:
        "mkdir -p {output.traces} && {params.python} -m mobifrag.workloads mobibench"
        " --in {input} --out {output.traces}/01-{wildcards.app}.iotrace"
        " --dir {params.folder} --reserved {output.reserved}"
        " --written-many-more-than {params.more_than} > {log} 2>&1"


rule ars_eval_trace_stats:
    input:
        expand(
            workloads(f"{ARS_EVAL_MOBIBENCH}/upstream/mobigen.out.{{app}}"),
            app=config["ars_selection"]["apps"],
            allow_missing=True,
        ),
    output:
        results(f"{ARS_EVAL}/trace-stats.csv"),
    log:
        results("logs/ars-eval-trace-stats.log"),
    localrule: True
    params:
        python=PYTHON,
        more_than=config["ars_selection"]["written_many_more_than"],
        traces=lambda w, input: " ".join(
            f"--trace {app}={path}"
            for app, path in zip(config["ars_selection"]["apps"], input, strict=True)
        ),
    shell:
        "{params.python} -m mobifrag.workloads mobibench-stats {params.traces}"
        " --written-many-more-than {params.more_than} --out {output} > {log} 2>&1"


use rule guest_job as ars_eval_apps with:
    input:
        unpack(guest_inputs("jobs/ars-apps.sh")),
        lib="jobs/ars-lib.sh",
        guest="jobs/ars-guest.py",
        apps=ars_eval_apps_inputs,
    output:
        out=directory(platform_runs(f"{ARS_EVAL}/apps/{{scheme}}/rep-{{rep}}")),
    log:
        platform_runs("logs/ars-eval-apps-{scheme}-rep-{rep}.console.log"),
    benchmark:
        platform_runs("benchmarks/ars_eval_apps-{scheme}-rep-{rep}.tsv")
    wildcard_constraints:
        scheme=ARS_SCHEMES,
        rep=r"\d+",
    params:
        **guest_job_args(
            "{wildcards.scheme} {fill} {sizes}"
            " $(realpath {selection}) $(realpath {traces})"
            " '{apps}' {seed}",
            fill=config["ars_eval"]["moderate_fill_percent"],
            sizes=" ".join(str(n) for n in fragbench_args()),
            selection=lambda w: ars_eval_apps_source(w)[0],
            traces=lambda w: ars_eval_apps_source(w)[1],
            apps=" ".join(config["ars_selection"]["apps"]),
            seed=lambda w: repetition_seed(w.scale, w.rep),
        ),
        disk_mib=lambda w: ars_eval(w.scale)["disk_mib"],


# The tables of speed (throughput, sqlite, apps, create) read each run's phase models
# (ftl_replay_run: every measured phase's block trace replayed through ftl-sim on the
# device profile): their modeled columns are the judged ones, the emulator's wall time
# (wall_*) a secondary series. The layout and counter tables read no model.
ARS_EVAL_MODELED = ("throughput", "sqlite", "apps", "create")
ars_eval_model = lambda w, runs: (
    run_models(w, runs) if w.kind in ARS_EVAL_MODELED else []
)


rule ars_eval_table:
    input:
        runs=lambda w: ars_eval_runs(w).values(),
        models=lambda w: ars_eval_model(w, ars_eval_run_folders(w).values()),
        code=python_sources("mobifrag.tables.ars_eval"),
    output:
        results(f"{ARS_EVAL}/{{kind}}.csv"),
    log:
        results("logs/ars-eval-{kind}-table.log"),
    benchmark:
        results("benchmarks/ars_eval_table-{kind}.tsv")
    wildcard_constraints:
        kind="|".join(ARS_EVAL_JOBS),
    localrule: True
    params:
        python=PYTHON,
        runs=lambda w: run_labels(ars_eval_runs(w)),
        bounds=" ".join(str(k) for k in config["ars_eval"]["free_space_kib"]),
        models=lambda w, input: " ".join(f"--model {index}" for index in input.models),
    shell:
        "{params.python} -m mobifrag.tables.ars_eval {wildcards.kind} {params.runs}"
        " --bounds-kib {params.bounds} {params.models} --out {output} 2> {log}"
