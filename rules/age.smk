# Aging stage: workloads that fragment a fresh file system in the guest, each ending in
# a fragcheck snapshot; then tidy per-file tables derived from the snapshots.


def appender_runs(wildcards):
    """Label → run directory of every (file system, writers) run of TMC Fig. 6."""
    run = RESULTS.format(device=wildcards.device, scale=wildcards.scale)
    return {
        f"fs={fs},writers={n}": f"{run}/concurrent-appenders/{fs}/writers-{n}"
        for fs in config["concurrent_appenders"]["filesystems"]
        for n in config["concurrent_appenders"]["writers"]
    }


rule concurrent_appenders:
    input:
        kernel=lambda w: kernel_image(w.device),
        agent=AGENT,
        job="jobs/concurrent-appenders.sh",
    output:
        out=directory(RESULTS + "/concurrent-appenders/{fs}/writers-{writers}"),
    log:
        RESULTS + "/logs/concurrent-appenders-{fs}-writers-{writers}.console.log",
    wildcard_constraints:
        fs="ext4|f2fs",
        writers=r"\d+",
    params:
        disk_mib=lambda w: scale_params(w.scale)["disk_mib"],
        mkfs=lambda w: config["filesystems"][f"{w.fs}_mkfs"],
        record=config["concurrent_appenders"]["record_kib"] * 1024,
        file=lambda w: scale_params(w.scale)["concurrent_appenders"]["file_kib"] * 1024,
    shell:
        RUN_GUEST_JOB + " --disk-mib {params.disk_mib}"
        " -- {wildcards.fs} {params.mkfs:q} {wildcards.writers} {params.record} {params.file}"


rule concurrent_appenders_tables:
    input:
        lambda w: appender_runs(w).values(),
    output:
        dof=RESULTS + "/concurrent-appenders/dof.csv",
        layout=RESULTS + "/concurrent-appenders/layout.csv",
    log:
        RESULTS + "/logs/concurrent-appenders-tables.log",
    params:
        runs=lambda w: " ".join(
            f"--run {k} {v}/snapshot" for k, v in appender_runs(w).items()
        ),
    shell:
        "{PYTHON} -m mobifrag.fragment_tables {params.runs}"
        " --dof {output.dof} --layout {output.layout} 2> {log}"
