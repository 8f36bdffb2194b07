# ARS reserved-file selection (ARS §IV.A, Tables I–II): each app's Mobibench trace (the
# paper's, converted by rule ars_eval_mobibench_trace) is replayed on a fresh file system
# in the guest and snapshotted; per-descriptor features come from the trace, the label
# from the DoF measured after the replay; five classifiers are compared over seeded
# stratified splits; the decision tree writes the reserved-file list from the first
# repetition. Repeated (config `repeated`): the replay's writers interleave differently
# in every run, and with them the labels. The apps' traces are those
# rules/experiments/ars_eval.smk imports (ARS_EVAL_MOBIBENCH; the Snakefile includes the
# experiments by name, ars_eval first).
import json

ARS_SELECTION = "ars/selection"
ars_selection_scale = lambda scale: scale_params(scale)["ars_selection"]
# The config's ars_selection block as JSON for the command line.
ars_selection_params = lambda: json.dumps(config["ars_selection"])
# (app, repetition) of every data set the comparison reads.
ars_selection_sources = lambda w: [
    (app, rep)
    for app in config["ars_selection"]["apps"]
    for rep in repetitions(w.scale, "ars-selection", w.device)
]

# The reserved-file list and decision table of every app the config names (rule all).
ars_selection_lists = lambda device, scale: [
    platform_runs(f"{ARS_SELECTION}/{app}/{name}").format(
        platform=platform_key(device), scale=scale
    )
    for app in config["ars_selection"]["apps"]
    for name in ("reserved.txt", "decisions.csv")
]


use rule guest_job as ars_selection_replay with:
    input:
        unpack(guest_inputs("jobs/replay-traces.sh")),
        traces=workloads(f"{ARS_EVAL_MOBIBENCH}/{{app}}/traces"),
    output:
        out=directory(platform_runs(f"{ARS_SELECTION}/{{app}}/rep-{{rep}}/replay")),
    log:
        platform_runs("logs/ars-selection-replay-{app}-rep-{rep}.console.log"),
    benchmark:
        platform_runs("benchmarks/ars_selection_replay-{app}-rep-{rep}.tsv")
    wildcard_constraints:
        app="[a-z]+",
        rep=r"\d+",
    params:
        **guest_job_args(
            "{fs} {mkfs} $(realpath {input.traces}) {seed} {pace}",
            fs=config["ars_selection"]["filesystem"],
            mkfs=mkfs_options(config["ars_selection"]["filesystem"]),
            seed=lambda w: repetition_seed(w.scale, w.rep),
            pace="pace" if config["ars_selection"]["paced"] else "fast",
        ),
        disk_mib=lambda w: ars_selection_scale(w.scale)["disk_mib"],
        # quoted here: Snakemake's :q drops an empty string (F2FS's default options)


rule ars_selection_dof:
    input:
        run=platform_runs(f"{ARS_SELECTION}/{{app}}/rep-{{rep}}/replay"),
        code=python_sources("mobifrag.tables.fragments"),
    output:
        platform_runs(f"{ARS_SELECTION}/{{app}}/rep-{{rep}}/dof.csv"),
    log:
        platform_runs("logs/ars-selection-dof-{app}-rep-{rep}.log"),
    wildcard_constraints:
        app="[a-z]+",
        rep=r"\d+",
    localrule: True
    params:
        python=PYTHON,
    shell:
        "{params.python} -m mobifrag.tables.fragments"
        " --run app={wildcards.app} {input.run}/snapshots/01-{wildcards.app}"
        " --dof {output} 2> {log}"


rule ars_selection_dataset:
    input:
        calls=workloads(f"{ARS_EVAL_MOBIBENCH}/upstream/mobigen.out.{{app}}"),
        dof=platform_runs(f"{ARS_SELECTION}/{{app}}/rep-{{rep}}/dof.csv"),
    output:
        dataset=platform_runs(f"{ARS_SELECTION}/{{app}}/rep-{{rep}}/dataset.csv"),
        files=platform_runs(f"{ARS_SELECTION}/{{app}}/rep-{{rep}}/files.csv"),
    log:
        platform_runs("logs/ars-selection-dataset-{app}-rep-{rep}.log"),
    wildcard_constraints:
        app="[a-z]+",
        rep=r"\d+",
    localrule: True
    params:
        python=PYTHON,
        selection=ars_selection_params(),
        folder=lambda w: mobibench_folder(w.app),
    shell:
        "{params.python} -m mobifrag.workloads.ars_selection dataset --app {wildcards.app}"
        " --mobibench {input.calls} --dir {params.folder} --dof {input.dof}"
        " --params {params.selection:q} --out {output.dataset} --files {output.files}"
        " 2> {log}"


rule ars_selection_compare:
    input:
        lambda w: [
            on_platform(f"{ARS_SELECTION}/{app}/rep-{rep}/dataset.csv", w)
            for app, rep in ars_selection_sources(w)
        ],
    output:
        splits=results(f"{ARS_SELECTION}/splits.csv"),
        table1=results(f"{ARS_SELECTION}/table1.csv"),
        table2=results(f"{ARS_SELECTION}/table2.csv"),
    log:
        results("logs/ars-selection-compare.log"),
    localrule: True
    params:
        python=PYTHON,
        selection=ars_selection_params(),
        seed=config["seed"],
        datasets=lambda w, input: " ".join(
            f"--dataset {app}:{rep}={path}"
            for (app, rep), path in zip(ars_selection_sources(w), input, strict=True)
        ),
    shell:
        "{params.python} -m mobifrag.workloads.ars_selection compare {params.datasets}"
        " --params {params.selection:q} --seed {params.seed} --splits {output.splits}"
        " --table1 {output.table1} --table2 {output.table2} 2> {log}"


rule ars_selection_select:
    input:
        dataset=platform_runs(f"{ARS_SELECTION}/{{app}}/rep-1/dataset.csv"),
        files=platform_runs(f"{ARS_SELECTION}/{{app}}/rep-1/files.csv"),
    output:
        decisions=platform_runs(f"{ARS_SELECTION}/{{app}}/decisions.csv"),
        reserved=platform_runs(f"{ARS_SELECTION}/{{app}}/reserved.txt"),
    log:
        platform_runs("logs/ars-selection-select-{app}.log"),
    wildcard_constraints:
        app="[a-z]+",
    localrule: True
    params:
        python=PYTHON,
        selection=ars_selection_params(),
        seed=config["seed"],
    shell:
        "{params.python} -m mobifrag.workloads.ars_selection select --app {wildcards.app}"
        " --dataset {input.dataset} --files {input.files} --params {params.selection:q}"
        " --seed {params.seed}"
        " --decisions {output.decisions} --reserved {output.reserved} 2> {log}"
