# ARS reserved-file selection (ARS §IV.A, Tables I–II): each app's scenario trace is
# replayed on a fresh file system in the guest and snapshotted; per-file features come
# from the trace, labels from the trace and the measured DoF; five classifiers are
# compared over seeded random splits; the decision tree writes the reserved-file list.
# ARS reserved-file selection.


rule ars_selection_trace:
    input:
        model=Path(config["autoage"]["models"], "{app}.yaml"),
    output:
        directory(workloads(f"{ARS_SELECTION}/{{app}}/traces")),
    log:
        workloads("logs/ars-selection-trace-{app}.log"),
    wildcard_constraints:
        app="[a-z]+",
    params:
        python=PYTHON,
        seed=config["seed"],
        sessions=lambda w: ars_selection_scale(w.scale)["sessions"],
        size_scale=lambda w: app_size_scale(ars_selection_scale(w.scale)["disk_mib"]),
    shell:
        "mkdir -p {output} && {params.python} -m mobifrag.workloads scenario"
        " --model {input.model} --seed {params.seed} --sessions {params.sessions}"
        " --size-scale {params.size_scale} --out {output}/01-{wildcards.app}.iotrace"
        " > {log} 2>&1"


use rule guest_job as ars_selection_replay with:
    input:
        unpack(guest_inputs("jobs/replay-traces.sh")),
        traces=workloads(f"{ARS_SELECTION}/{{app}}/traces"),
    output:
        out=directory(platform_runs(f"{ARS_SELECTION}/{{app}}/replay")),
    log:
        platform_runs("logs/ars-selection-replay-{app}.console.log"),
    benchmark:
        platform_runs("benchmarks/ars_selection_replay-{app}.tsv")
    wildcard_constraints:
        app="[a-z]+",
    params:
        **guest_job_args(
            "{fs} {mkfs} $(realpath {input.traces}) {seed}",
            fs=config["ars_selection"]["filesystem"],
            mkfs=mkfs_options(config["ars_selection"]["filesystem"]),
            seed=config["seed"],
        ),
        disk_mib=lambda w: ars_selection_scale(w.scale)["disk_mib"],
        # quoted here: Snakemake's :q drops an empty string (F2FS's default options)


rule ars_selection_dof:
    input:
        run=platform_runs(f"{ARS_SELECTION}/{{app}}/replay"),
        code=python_sources("mobifrag.tables.fragments"),
    output:
        platform_runs(f"{ARS_SELECTION}/{{app}}/dof.csv"),
    log:
        platform_runs("logs/ars-selection-dof-{app}.log"),
    wildcard_constraints:
        app="[a-z]+",
    params:
        python=PYTHON,
    shell:
        "{params.python} -m mobifrag.tables.fragments"
        " --run app={wildcards.app} {input.run}/snapshots/01-{wildcards.app}"
        " --dof {output} 2> {log}"


rule ars_selection_dataset:
    input:
        traces=workloads(f"{ARS_SELECTION}/{{app}}/traces"),
        dof=platform_runs(f"{ARS_SELECTION}/{{app}}/dof.csv"),
    output:
        platform_runs(f"{ARS_SELECTION}/{{app}}/dataset.csv"),
    log:
        platform_runs("logs/ars-selection-dataset-{app}.log"),
    wildcard_constraints:
        app="[a-z]+",
    params:
        python=PYTHON,
        selection=ars_selection_params(),
    shell:
        "{params.python} -m mobifrag.workloads.ars_selection dataset --app {wildcards.app}"
        " --trace {input.traces}/01-{wildcards.app}.iotrace --dof {input.dof}"
        " --params {params.selection:q} --out {output} 2> {log}"


rule ars_selection_compare:
    input:
        lambda w: [
            on_platform(f"{ARS_SELECTION}/{app}/dataset.csv", w)
            for app in config["ars_selection"]["apps"]
        ],
    output:
        splits=results(f"{ARS_SELECTION}/splits.csv"),
        table1=results(f"{ARS_SELECTION}/table1.csv"),
        table2=results(f"{ARS_SELECTION}/table2.csv"),
    log:
        results("logs/ars-selection-compare.log"),
    params:
        python=PYTHON,
        selection=ars_selection_params(),
        seed=config["seed"],
        datasets=lambda w, input: " ".join(
            f"--dataset {app}={path}"
            for app, path in zip(config["ars_selection"]["apps"], input, strict=True)
        ),
    shell:
        "{params.python} -m mobifrag.workloads.ars_selection compare {params.datasets}"
        " --params {params.selection:q} --seed {params.seed} --splits {output.splits}"
        " --table1 {output.table1} --table2 {output.table2} 2> {log}"


rule ars_selection_select:
    input:
        platform_runs(f"{ARS_SELECTION}/{{app}}/dataset.csv"),
    output:
        decisions=platform_runs(f"{ARS_SELECTION}/{{app}}/decisions.csv"),
        reserved=platform_runs(f"{ARS_SELECTION}/{{app}}/reserved.txt"),
    log:
        platform_runs("logs/ars-selection-select-{app}.log"),
    wildcard_constraints:
        app="[a-z]+",
    params:
        python=PYTHON,
        selection=ars_selection_params(),
        seed=config["seed"],
    shell:
        "{params.python} -m mobifrag.workloads.ars_selection select --app {wildcards.app}"
        " --dataset {input} --params {params.selection:q} --seed {params.seed}"
        " --decisions {output.decisions} --reserved {output.reserved} 2> {log}"
