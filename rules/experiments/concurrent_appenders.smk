# Concurrent appenders (TMC §3.3, Fig. 6): writers appending to their files at once on a
# fresh file system, repeated (config `repeated`), each ending in a fragcheck snapshot.

# Label → run directory of every (file system, writers, repetition) run of TMC Fig. 6.
appender_runs = lambda wildcards: {
    f"fs={fs},writers={n},rep={r}": on_platform(
        f"concurrent-appenders/{fs}/writers-{n}/rep-{r}", wildcards
    )
    for fs in config["concurrent_appenders"]["filesystems"]
    for n in config["concurrent_appenders"]["writers"]
    for r in repetitions(wildcards.scale, "concurrent-appenders")
}


use rule guest_job as concurrent_appenders with:
    input:
        unpack(guest_inputs("jobs/concurrent-appenders.sh")),
    output:
        out=directory(
            platform_runs("concurrent-appenders/{fs}/writers-{writers}/rep-{rep}")
        ),
    log:
        platform_runs(
            "logs/concurrent-appenders-{fs}-writers-{writers}-rep-{rep}.console.log"
        ),
    benchmark:
        platform_runs(
            "benchmarks/concurrent_appenders-{fs}-writers-{writers}-rep-{rep}.tsv"
        )
    wildcard_constraints:
        fs="ext4|f2fs",
        writers=r"\d+",
        rep=r"\d+",
    # Its guests sleep in fsync round trips of a few small appends: half a host core
    # each, two to a core (docs/measurements.md, "One busy guest per core, the greedy job
    # selector, long chains first").
    resources:
        **guest_resources(busy_percent=50),
    params:
        **guest_job_args(
            "{wildcards.fs} {mkfs} {wildcards.writers} {record} {file}",
            mkfs=lambda w: mkfs_options(w.fs),
            record=config["concurrent_appenders"]["record_kib"] * 1024,
            file=lambda w: scale_params(w.scale)["concurrent_appenders"]["file_kib"]
            * 1024,
        ),
        disk_mib=lambda w: scale_params(w.scale)["disk_mib"],
        cpus=experiment_cpus("concurrent-appenders"),


rule concurrent_appenders_tables:
    input:
        lambda w: appender_runs(w).values(),
        code=python_sources("mobifrag.tables.fragments"),
    output:
        dof=results("concurrent-appenders/dof.csv"),
        layout=results("concurrent-appenders/layout.csv"),
    log:
        results("logs/concurrent-appenders-tables.log"),
    localrule: True
    params:
        python=PYTHON,
        runs=lambda w: " ".join(
            f"--run {k} {v}/snapshot" for k, v in appender_runs(w).items()
        ),
    shell:
        "{params.python} -m mobifrag.tables.fragments {params.runs}"
        " --dof {output.dof} --layout {output.layout} 2> {log}"
