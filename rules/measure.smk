# Measure stage: performance of fragmented files (TMC §5, janusd §3). Guest jobs capture
# block traces with blktrace; ftl-sim replays them under the device profile's FTL, and
# every time is reported as modeled time and as emulator wall time (DESIGN.md).


rule scan_traces:
    output:
        directory(workloads("scan/traces")),
    log:
        workloads("logs/scan-traces.log"),
    params:
        python=PYTHON,
        seed=config["seed"],
        disk_bytes=lambda w: scale_params(w.scale)["scan"]["disk_mib"] * 1024 * 1024,
        # A quarter more hole space than the file: the file's extent tree and the
        # allocator's per-CPU reservations need room too (measured: 10 % was not always
        # enough with 1 MiB holes on 2 vCPUs).
        holes_bytes=lambda w: scale_params(w.scale)["scan"]["file_mib"]
        * 1024
        * 1024
        * 5
        // 4,
        hole_kib=lambda w: " ".join(map(str, scale_params(w.scale)["scan"]["hole_kib"])),
    shell:
        "mkdir -p {output} && for kib in {params.hole_kib}; do"
        " {params.python} -m mobifrag.workloads holes --disk-bytes {params.disk_bytes}"
        " --fullness 100 --small-bytes ${{kib}}K --small-total {params.holes_bytes}"
        " --seed {params.seed} --out {output}/holes-$(printf %06d $kib)k.iotrace"
        " >> {log} 2>&1 || exit 1; done &&"
        " {params.python} -m mobifrag.workloads filldelete --disk-bytes {params.disk_bytes}"
        " --target 0 --seed {params.seed} --out {output}/pristine.iotrace >> {log} 2>&1"


rule scan_run:
    input:
        kernel=lambda w: device_kernel(job_device(w)),
        agent=lambda w: device_agent(job_device(w)),
        job="jobs/scan-fragmented.sh",
        traces=workloads("scan/traces"),
    output:
        out=directory(platform_runs("scan/{fs}/run")),
    log:
        platform_runs("logs/scan-{fs}.console.log"),
    benchmark:
        platform_runs("benchmarks/scan_run-{fs}.tsv")
    wildcard_constraints:
        fs="ext4|f2fs",
    threads: guest_cpus
    resources:
        mem_mb=guest_mem_mb,
        runtime=guest_runtime_min,
    params:
        python=PYTHON,
        device=job_device,
        disk_mib=lambda w: scale_params(w.scale)["scan"]["disk_mib"],
        file_bytes=lambda w: scale_params(w.scale)["scan"]["file_mib"] * 1024 * 1024,
        mkfs=lambda w: mkfs_options(w.fs),
        seed=config["seed"],
    shell:
        "{params.python} -m mobifrag.platform.run --device {params.device}"
        " --kernel {input.kernel} --agent {input.agent} --script {input.job}"
        " --disk-mib {params.disk_mib} --out {output.out} --console {log}"
        " -- {wildcards.fs} {params.mkfs} $(realpath {input.traces})"
        " {params.file_bytes} {params.seed}"


rule scan_tables:
    input:
        run=lambda w: on_platform("scan/{fs}/run", w),
        profile="devices/{device}.yaml",
        sim=FTL_SIM,
    output:
        table=results("scan/{fs}/scan.csv"),
        fit=results("scan/{fs}/fit.csv"),
    log:
        results("logs/scan-{fs}-tables.log"),
    benchmark:
        results("benchmarks/scan_tables-{fs}.tsv")
    params:
        python=PYTHON,
    shell:
        "{params.python} -m mobifrag.tables.scan --run {input.run} --device {input.profile}"
        " --ftl-sim {input.sim} --table {output.table} --fit {output.fit} 2> {log}"


rule dispersed_run:
    input:
        kernel=lambda w: device_kernel(job_device(w)),
        agent=lambda w: device_agent(job_device(w)),
        job="jobs/dispersed-io.sh",
    output:
        out=directory(platform_runs("dispersed/{fs}/run")),
    log:
        platform_runs("logs/dispersed-{fs}.console.log"),
    benchmark:
        platform_runs("benchmarks/dispersed_run-{fs}.tsv")
    wildcard_constraints:
        fs="ext4|f2fs",
    threads: guest_cpus
    resources:
        mem_mb=guest_mem_mb,
        runtime=guest_runtime_min,
    params:
        python=PYTHON,
        device=job_device,
        file_mib=lambda w: max(scale_params(w.scale)["dispersed"]["region_mib"]),
        # The file, its metadata and the file system's own: a fifth more than the file.
        disk_mib=lambda w: max(scale_params(w.scale)["dispersed"]["region_mib"])
        * 6
        // 5
        + 64,
        ios=lambda w: scale_params(w.scale)["dispersed"]["ios"],
        regions=lambda w: " ".join(
            map(str, scale_params(w.scale)["dispersed"]["region_mib"])
        ),
        mkfs=lambda w: mkfs_options(w.fs),
        seed=config["seed"],
    shell:
        "{params.python} -m mobifrag.platform.run --device {params.device}"
        " --kernel {input.kernel} --agent {input.agent} --script {input.job}"
        " --disk-mib {params.disk_mib} --out {output.out} --console {log}"
        " -- {wildcards.fs} {params.mkfs} {params.file_mib}M {params.ios}"
        " {params.regions:q} {params.seed}"


rule dispersed_tables:
    input:
        run=lambda w: on_platform("dispersed/{fs}/run", w),
        profile="devices/{device}.yaml",
        sim=FTL_SIM,
    output:
        results("dispersed/{fs}/dispersed.csv"),
    log:
        results("logs/dispersed-{fs}-tables.log"),
    benchmark:
        results("benchmarks/dispersed_tables-{fs}.tsv")
    params:
        python=PYTHON,
        aged=config["dispersed"]["gc_overwritten_share"],
    shell:
        "{params.python} -m mobifrag.tables.dispersed --run {input.run} --device {input.profile}"
        " --ftl-sim {input.sim} --aged {params.aged} --table {output} 2> {log}"
