# AutoAge (TMC §4.1.1): days of app installs, updates and sessions replayed on a file
# system filled to 70 %, a fragcheck snapshot each day; repeated (config `repeated`):
# its concurrent writers interleave differently in every run.

# Repetition → run directory of every AutoAge replay on a file system.
autoage_runs = lambda wildcards: {
    r: on_platform(f"autoage/{wildcards.fs}/rep-{r}/run", wildcards)
    for r in repetitions(wildcards.scale, "autoage")
}

# --run arguments of the daily snapshots (day 0 is the fill) of every repetition.
day_runs = lambda runs, days: " ".join(
    f"--run day={d},rep={r} {run_dir}/snapshots/day-{d:02d}"
    for r, run_dir in runs.items()
    for d in range(days + 1)
)

# AutoAge is the one replay measured past the profile's hour (30 days on 8 GiB at the
# paper scale), so its scale may give it a longer timeout: the replay's guest timeout is
# the profile's or the scale's, whichever is longer; every other guest keeps the profile's.
autoage_timeout_s = lambda wildcards: max(
    device_profile(job_device(wildcards))["platform"]["job_timeout_s"],
    scale_params(wildcards.scale)["autoage"].get("job_timeout_s", 0),
)
autoage_runtime_min = lambda wildcards: runtime_min(autoage_timeout_s(wildcards))


rule autoage_traces:
    input:
        models=sorted(str(p) for p in Path(config["autoage"]["models"]).glob("*.yaml")),
    output:
        directory(workloads("autoage/traces")),
    log:
        workloads("logs/autoage-traces.log"),
    priority: LONG_CHAIN
    localrule: True
    params:
        python=PYTHON,
        seed=config["seed"],
        days=lambda w: scale_params(w.scale)["autoage"]["days"],
        disk_bytes=lambda w: scale_params(w.scale)["autoage"]["disk_mib"] * 1024 * 1024,
    shell:
        "{params.python} -m mobifrag.workloads autoage --models $(dirname {input.models[0]})"
        " --days {params.days} --seed {params.seed} --disk-bytes {params.disk_bytes}"
        " --out {output} > {log} 2>&1"


use rule guest_job as autoage_replay with:
    input:
        unpack(guest_inputs("jobs/replay-traces.sh")),
        traces=workloads("autoage/traces"),
    output:
        out=directory(platform_runs("autoage/{fs}/rep-{rep}/run")),
    log:
        platform_runs("logs/autoage-{fs}-rep-{rep}.console.log"),
    benchmark:
        platform_runs("benchmarks/autoage_replay-{fs}-rep-{rep}.tsv")
    wildcard_constraints:
        fs="ext4|f2fs",
        rep=r"\d+",
    priority: LONG_CHAIN
    resources:
        **guest_resources(runtime=autoage_runtime_min),
    params:
        **guest_job_args(
            "{wildcards.fs} {mkfs} $(realpath {input.traces}) {seed}",
            mkfs=lambda w: mkfs_options(w.fs),
            seed=lambda w: repetition_seed(w.scale, w.rep),
        ),
        disk_mib=lambda w: scale_params(w.scale)["autoage"]["disk_mib"],
        cpus=experiment_cpus("autoage"),
        runner=guest_args(
            "--timeout {timeout}",
            timeout=autoage_timeout_s,
        ),


rule autoage_tables:
    input:
        runs=lambda w: autoage_runs(w).values(),
        code=python_sources("mobifrag.tables.fragments"),
    output:
        dof=results("autoage/{fs}/dof.csv"),
        levels=results("autoage/{fs}/levels.csv"),
    log:
        results("logs/autoage-{fs}-tables.log"),
    localrule: True
    params:
        python=PYTHON,
        runs=lambda w: day_runs(
            autoage_runs(w), scale_params(w.scale)["autoage"]["days"]
        ),
    shell:
        "{params.python} -m mobifrag.tables.fragments {params.runs}"
        " --dof {output.dof} --levels {output.levels} 2> {log}"
