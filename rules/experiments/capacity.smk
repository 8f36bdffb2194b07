# Capacity (TMC §4.4, Fig. 8): the apps installed on disks of several sizes, the
# last snapshot of each; repeated (config `repeated`): the apps' concurrent writers
# interleave differently in every run.

CAPACITY_APPS = config["capacity"]["apps"]
# The snapshot after the last app's scenario: the apps replay one after the other.
CAPACITY_LAST = f"{len(CAPACITY_APPS):02d}-{CAPACITY_APPS[-1]}"

# Label → the final snapshot of every app on each capacity in every repetition (TMC
# Fig. 8).
capacity_runs = lambda wildcards: {
    f"capacity_mib={mib},app={app},package={app_package(app)},rep={rep}": on_platform(
        f"capacity/{{fs}}/rep-{rep}/{mib}MiB/snapshots/{CAPACITY_LAST}", wildcards
    )
    for rep in repetitions(wildcards.scale, "capacity")
    for mib in scale_params(wildcards.scale)["capacity"]["disk_mib"]
    for app in CAPACITY_APPS
}


rule capacity_traces:
    input:
        models=expand(
            "{models}/{app}.yaml",
            models=config["autoage"]["models"],
            app=config["capacity"]["apps"],
        ),
    output:
        directory(workloads("capacity/traces")),
    log:
        workloads("logs/capacity-traces.log"),
    localrule: True
    params:
        python=PYTHON,
        seed=config["seed"],
        sessions=lambda w: scale_params(w.scale)["capacity"]["sessions"],
        size_scale=lambda w: app_size_scale(
            min(scale_params(w.scale)["capacity"]["disk_mib"])
        ),
    shell:
        "mkdir -p {output} && n=0 && for model in {input.models}; do"
        " n=$((n + 1)); app=$(basename $model .yaml);"
        " {params.python} -m mobifrag.workloads scenario --model $model --seed {params.seed}"
        " --sessions {params.sessions} --size-scale {params.size_scale}"
        " --out {output}/$(printf %02d $n)-$app.iotrace >> {log} 2>&1 || exit 1; done"


use rule guest_job as capacity_replay with:
    input:
        unpack(guest_inputs("jobs/replay-traces.sh")),
        traces=workloads("capacity/traces"),
    output:
        out=directory(platform_runs("capacity/{fs}/rep-{rep}/{mib}MiB")),
    log:
        platform_runs("logs/capacity-{fs}-rep-{rep}-{mib}MiB.console.log"),
    benchmark:
        platform_runs("benchmarks/capacity_replay-{fs}-rep-{rep}-{mib}MiB.tsv")
    wildcard_constraints:
        fs="ext4|f2fs",
        rep=r"\d+",
        mib=r"\d+",
    params:
        **guest_job_args(
            "{wildcards.fs} {mkfs} $(realpath {input.traces}) {seed}",
            mkfs=lambda w: mkfs_options(w.fs),
            seed=lambda w: repetition_seed(w.scale, w.rep),
        ),
        disk_mib=lambda w: int(w.mib),
        cpus=experiment_cpus("capacity"),


rule capacity_tables:
    input:
        lambda w: run_folders(capacity_runs(w)),
        code=python_sources("mobifrag.tables.fragments"),
    output:
        results("capacity/{fs}/dof.csv"),
    log:
        results("logs/capacity-{fs}-tables.log"),
    localrule: True
    params:
        python=PYTHON,
        runs=lambda w: run_labels(capacity_runs(w)),
    shell:
        "{params.python} -m mobifrag.tables.fragments {params.runs} --dof {output} 2> {log}"
