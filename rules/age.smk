# Aging stage: workloads that fragment a fresh file system in the guest, each ending in
# a fragcheck snapshot; then tidy per-file tables derived from the snapshots.


rule concurrent_appenders:
    input:
        kernel=lambda w: device_kernel(job_device(w)),
        agent=lambda w: device_agent(job_device(w)),
        job="jobs/concurrent-appenders.sh",
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
    threads: guest_cpus
    resources:
        mem_mb=guest_mem_mb,
        runtime=guest_runtime_min,
    params:
        python=PYTHON,
        device=job_device,
        disk_mib=lambda w: scale_params(w.scale)["disk_mib"],
        mkfs=lambda w: mkfs_options(w.fs),
        record=config["concurrent_appenders"]["record_kib"] * 1024,
        file=lambda w: scale_params(w.scale)["concurrent_appenders"]["file_kib"] * 1024,
    shell:
        "{params.python} -m mobifrag.platform.run --device {params.device}"
        " --kernel {input.kernel} --agent {input.agent} --script {input.job}"
        " --disk-mib {params.disk_mib} --out {output.out} --console {log}"
        " -- {wildcards.fs} {params.mkfs} {wildcards.writers} {params.record} {params.file}"


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
        "{params.python} -m mobifrag.tables.fragments {params.runs}"
        " --dof {output.dof} --layout {output.layout} 2> {log}"


rule autoage_traces:
    input:
        models=sorted(str(p) for p in Path(config["autoage"]["models"]).glob("*.yaml")),
    output:
        directory(workloads("autoage/traces")),
    log:
        workloads("logs/autoage-traces.log"),
    params:
        python=PYTHON,
        seed=config["seed"],
        days=lambda w: scale_params(w.scale)["autoage"]["days"],
        disk_bytes=lambda w: scale_params(w.scale)["autoage"]["disk_mib"] * 1024 * 1024,
    shell:
        "{params.python} -m mobifrag.workloads autoage --models $(dirname {input.models[0]})"
        " --days {params.days} --seed {params.seed} --disk-bytes {params.disk_bytes}"
        " --out {output} > {log} 2>&1"


rule autoage_replay:
    input:
        kernel=lambda w: device_kernel(job_device(w)),
        agent=lambda w: device_agent(job_device(w)),
        job="jobs/replay-traces.sh",
        traces=workloads("autoage/traces"),
    output:
        out=directory(platform_runs("autoage/{fs}/run")),
    log:
        platform_runs("logs/autoage-{fs}.console.log"),
    benchmark:
        platform_runs("benchmarks/autoage_replay-{fs}.tsv")
    wildcard_constraints:
        fs="ext4|f2fs",
    threads: guest_cpus
    resources:
        mem_mb=guest_mem_mb,
        runtime=autoage_runtime_min,
    params:
        python=PYTHON,
        device=job_device,
        disk_mib=lambda w: scale_params(w.scale)["autoage"]["disk_mib"],
        mkfs=lambda w: mkfs_options(w.fs),
        seed=config["seed"],
        timeout=autoage_timeout_s,
    shell:
        "{params.python} -m mobifrag.platform.run --device {params.device}"
        " --kernel {input.kernel} --agent {input.agent} --script {input.job}"
        " --disk-mib {params.disk_mib} --out {output.out} --console {log}"
        " --timeout {params.timeout}"
        " -- {wildcards.fs} {params.mkfs} $(realpath {input.traces}) {params.seed}"


rule autoage_tables:
    input:
        lambda w: on_platform("autoage/{fs}/run", w),
    output:
        dof=results("autoage/{fs}/dof.csv"),
        levels=results("autoage/{fs}/levels.csv"),
    log:
        results("logs/autoage-{fs}-tables.log"),
    params:
        python=PYTHON,
        runs=lambda w, input: day_runs(
            input[0], scale_params(w.scale)["autoage"]["days"]
        ),
    shell:
        "{params.python} -m mobifrag.tables.fragments {params.runs}"
        " --dof {output.dof} --levels {output.levels} 2> {log}"


rule filldelete_fill_trace:
    output:
        workloads("filldelete/traces/fill.iotrace"),
    log:
        workloads("logs/filldelete-fill-trace.log"),
    params:
        python=PYTHON,
        seed=config["seed"],
        disk_bytes=lambda w: scale_params(w.scale)["filldelete"]["disk_mib"]
        * 1024
        * 1024,
        size_scale=lambda w: app_size_scale(
            scale_params(w.scale)["filldelete"]["disk_mib"]
        ),
    shell:
        "{params.python} -m mobifrag.workloads filldelete --part fill --target 0"
        " --disk-bytes {params.disk_bytes} --seed {params.seed}"
        " --size-scale {params.size_scale} --out {output} > {log} 2>&1"


# The fill does not depend on the level: one filled disk per file system, copied by
# every level's replay (TMC §4.3 fills once, then deletes down to each utilization).
rule filldelete_fill:
    input:
        kernel=lambda w: device_kernel(job_device(w)),
        agent=lambda w: device_agent(job_device(w)),
        job="jobs/age-image.sh",
        trace=workloads("filldelete/traces/fill.iotrace"),
    output:
        out=directory(platform_runs("filldelete/{fs}/filled")),
    log:
        platform_runs("logs/filldelete-{fs}-filled.console.log"),
    benchmark:
        platform_runs("benchmarks/filldelete_fill-{fs}.tsv")
    wildcard_constraints:
        fs="ext4|f2fs",
    threads: guest_cpus
    resources:
        mem_mb=guest_mem_mb,
        runtime=guest_runtime_min,
    params:
        python=PYTHON,
        device=job_device,
        disk_mib=lambda w: scale_params(w.scale)["filldelete"]["disk_mib"],
        mkfs=lambda w: filldelete_mkfs(w.fs, w.scale),
        seed=config["seed"],
    shell:
        "{params.python} -m mobifrag.platform.run --device {params.device}"
        " --kernel {input.kernel} --agent {input.agent} --script {input.job}"
        " --disk-mib {params.disk_mib} --out {output.out} --console {log} --keep-disk"
        " -- {wildcards.fs} {params.mkfs} $(realpath {input.trace}) {params.seed}"


rule filldelete_traces:
    input:
        model=Path(config["autoage"]["models"], "{app}.yaml"),
    output:
        directory(workloads("filldelete/traces/{level}-{app}")),
    log:
        workloads("logs/filldelete-traces-{level}-{app}.log"),
    params:
        python=PYTHON,
        seed=config["seed"],
        target=lambda w: config["filldelete"]["levels"][w.level],
        disk_bytes=lambda w: scale_params(w.scale)["filldelete"]["disk_mib"]
        * 1024
        * 1024,
        sessions=lambda w: scale_params(w.scale)["filldelete"]["sessions"],
        size_scale=lambda w: app_size_scale(
            scale_params(w.scale)["filldelete"]["disk_mib"]
        ),
    shell:
        "mkdir -p {output} && {params.python} -m mobifrag.workloads filldelete"
        " --part reclaim --disk-bytes {params.disk_bytes} --target {params.target}"
        " --seed {params.seed} --out {output}/00-aging.iotrace > {log} 2>&1 &&"
        " {params.python} -m mobifrag.workloads scenario --model {input.model}"
        " --seed {params.seed} --sessions {params.sessions} --size-scale {params.size_scale}"
        " --out {output}/01-{wildcards.app}.iotrace >> {log} 2>&1"


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


rule replay_filldelete:
    input:
        kernel=lambda w: device_kernel(job_device(w)),
        agent=lambda w: device_agent(job_device(w)),
        job="jobs/replay-traces.sh",
        traces=workloads("filldelete/traces/{level}-{app}"),
        filled=filldelete_filled_disk,
    output:
        out=directory(platform_runs("filldelete/{fs}/{level}-{app}")),
    log:
        platform_runs("logs/filldelete-{fs}-{level}-{app}.console.log"),
    benchmark:
        platform_runs("benchmarks/replay_filldelete-{fs}-{level}-{app}.tsv")
    wildcard_constraints:
        fs="ext4|f2fs",
        level="low|moderate|high|full",
        app="[a-z]+",
    threads: guest_cpus
    resources:
        mem_mb=guest_mem_mb,
        runtime=guest_runtime_min,
    params:
        python=PYTHON,
        device=job_device,
        disk_mib=lambda w: scale_params(w.scale)["filldelete"]["disk_mib"],
        disk=lambda w, input: (
            f"--disk-from {input.filled}/disk.img" if input.filled else ""
        ),
        mkfs=lambda w, input: (
            "aged" if input.filled else filldelete_mkfs(w.fs, w.scale)
        ),
        seed=config["seed"],
    shell:
        "{params.python} -m mobifrag.platform.run --device {params.device}"
        " --kernel {input.kernel} --agent {input.agent} --script {input.job}"
        " --disk-mib {params.disk_mib} {params.disk} --out {output.out} --console {log}"
        " -- {wildcards.fs} {params.mkfs} $(realpath {input.traces}) {params.seed}"


rule replay_capacity:
    input:
        kernel=lambda w: device_kernel(job_device(w)),
        agent=lambda w: device_agent(job_device(w)),
        job="jobs/replay-traces.sh",
        traces=workloads("capacity/traces"),
    output:
        out=directory(platform_runs("capacity/{fs}/{mib}MiB")),
    log:
        platform_runs("logs/capacity-{fs}-{mib}MiB.console.log"),
    benchmark:
        platform_runs("benchmarks/replay_capacity-{fs}-{mib}MiB.tsv")
    wildcard_constraints:
        fs="ext4|f2fs",
        mib=r"\d+",
    threads: guest_cpus
    resources:
        mem_mb=guest_mem_mb,
        runtime=guest_runtime_min,
    params:
        python=PYTHON,
        device=job_device,
        mkfs=lambda w: mkfs_options(w.fs),
        seed=config["seed"],
    shell:
        "{params.python} -m mobifrag.platform.run --device {params.device}"
        " --kernel {input.kernel} --agent {input.agent} --script {input.job}"
        " --disk-mib {wildcards.mib} --out {output.out} --console {log}"
        " -- {wildcards.fs} {params.mkfs} $(realpath {input.traces}) {params.seed}"


rule filldelete_tables:
    input:
        lambda w: run_folders(filldelete_runs(w)),
    output:
        results("filldelete/{fs}/dof.csv"),
    log:
        results("logs/filldelete-{fs}-tables.log"),
    params:
        python=PYTHON,
        runs=lambda w: run_labels(filldelete_runs(w)),
    shell:
        "{params.python} -m mobifrag.tables.fragments {params.runs} --dof {output} 2> {log}"


rule capacity_tables:
    input:
        lambda w: run_folders(capacity_runs(w)),
    output:
        results("capacity/{fs}/dof.csv"),
    log:
        results("logs/capacity-{fs}-tables.log"),
    params:
        python=PYTHON,
        runs=lambda w: run_labels(capacity_runs(w)),
    shell:
        "{params.python} -m mobifrag.tables.fragments {params.runs} --dof {output} 2> {log}"
