# Aging stage: workloads that fragment a fresh file system in the guest, each ending in
# a fragcheck snapshot; then tidy per-file tables derived from the snapshots.


rule concurrent_appenders:
    input:
        kernel=lambda w: kernel_image(w.device),
        agent=AGENT,
        job="jobs/concurrent-appenders.sh",
    output:
        out=directory(results("concurrent-appenders/{fs}/writers-{writers}")),
    log:
        results("logs/concurrent-appenders-{fs}-writers-{writers}.console.log"),
    wildcard_constraints:
        fs="ext4|f2fs",
        writers=r"\d+",
    params:
        python=PYTHON,
        disk_mib=lambda w: scale_params(w.scale)["disk_mib"],
        mkfs=lambda w: config["filesystems"][f"{w.fs}_mkfs"],
        record=config["concurrent_appenders"]["record_kib"] * 1024,
        file=lambda w: scale_params(w.scale)["concurrent_appenders"]["file_kib"] * 1024,
    shell:
        "{params.python} -m mobifrag.emulator --device {wildcards.device}"
        " --kernel {input.kernel} --agent {input.agent} --script {input.job}"
        " --disk-mib {params.disk_mib} --out {output.out} --console {log}"
        " -- {wildcards.fs} {params.mkfs:q} {wildcards.writers} {params.record} {params.file}"


rule concurrent_appenders_tables:
    input:
        lambda w: appender_runs(w).values(),
    output:
        dof=results("concurrent-appenders/dof.csv"),
        layout=results("concurrent-appenders/layout.csv"),
    log:
        results("logs/concurrent-appenders-tables.log"),
    params:
        python=PYTHON,
        runs=lambda w: " ".join(
            f"--run {k} {v}/snapshot" for k, v in appender_runs(w).items()
        ),
    shell:
        "{params.python} -m mobifrag.fragment_tables {params.runs}"
        " --dof {output.dof} --layout {output.layout} 2> {log}"
