# Scan time vs DoF (TMC §5.1, Fig. 9; §5.3.1): files fragmented to several DoF read
# cold in the guest, each read traced with blktrace and replayed through ftl-sim;
# repeated (config `repeated`), each repetition on a fresh guest with its own seed.
from mobifrag.workflow.free_space_targets import ext4_reserved_bytes

# One repetition's scan run, below the platform's runs.
scan_run = lambda w, rep: f"scan/{w.fs}/rep-{rep}"

# Repetition → the folder of that repetition's scan run.
scan_runs = lambda w: {
    rep: on_platform(scan_run(w, rep), w) for rep in repetitions(w.scale, "scan")
}

# The cold reads of the scanned file: one phase per hole size (holes-<KiB>k, rule
# scan_traces) and the pristine file.
scan_phases = lambda scale: [
    *(f"holes-{kib:06d}k" for kib in scale_params(scale)["scan"]["hole_kib"]),
    "pristine",
]

# (repetition, phase) → the replay summary of one cold read of the scanned file.
scan_models = lambda w: {
    (rep, phase): phase_summary(w, scan_run(w, rep), phase)
    for rep in repetitions(w.scale, "scan")
    for phase in scan_phases(w.scale)
}


rule scan_traces:
    output:
        directory(workloads("scan/traces")),
    log:
        workloads("logs/scan-traces.log"),
    localrule: True
    params:
        python=PYTHON,
        seed=config["seed"],
        disk_bytes=lambda w: scale_params(w.scale)["scan"]["disk_mib"] * 1024 * 1024,
        # A quarter more hole space than the file: the file's extent tree and the
        # allocator's per-CPU reservations need room too (measured: 10 % was not always
        # enough with 1 MiB holes on 2 vCPUs). The filler takes every other block, so
        # the holes are the only free space, and ext4 keeps its reserve out of them.
        holes_bytes=lambda w: scale_params(w.scale)["scan"]["file_mib"]
        * 1024
        * 1024
        * 5
        // 4
        + ext4_reserved_bytes(scale_params(w.scale)["scan"]["disk_mib"] * 1024 * 1024),
        hole_kib=lambda w: " ".join(map(str, scale_params(w.scale)["scan"]["hole_kib"])),
    shell:
        "mkdir -p {output} && for kib in {params.hole_kib}; do"
        " {params.python} -m mobifrag.workloads holes --disk-bytes {params.disk_bytes}"
        " --fullness 100 --small-bytes ${{kib}}K --small-total {params.holes_bytes}"
        " --seed {params.seed} --out {output}/holes-$(printf %06d $kib)k.iotrace"
        " >> {log} 2>&1 || exit 1; done &&"
        " {params.python} -m mobifrag.workloads filldelete --disk-bytes {params.disk_bytes}"
        " --target 0 --seed {params.seed} --out {output}/pristine.iotrace >> {log} 2>&1"


use rule guest_job as scan_run with:
    input:
        unpack(guest_inputs("jobs/scan.sh")),
        traces=workloads("scan/traces"),
    output:
        out=directory(platform_runs("scan/{fs}/rep-{rep}")),
    log:
        platform_runs("logs/scan-{fs}-rep-{rep}.console.log"),
    benchmark:
        platform_runs("benchmarks/scan_run-{fs}-rep-{rep}.tsv")
    wildcard_constraints:
        fs="ext4|f2fs",
        rep=r"\d+",
    params:
        **guest_job_args(
            "{wildcards.fs} {mkfs} $(realpath {input.traces}) {file_bytes} {seed}",
            file_bytes=lambda w: scale_params(w.scale)["scan"]["file_mib"]
            * 1024
            * 1024,
            mkfs=lambda w: mkfs_options(w.fs),
            seed=lambda w: repetition_seed(w.scale, w.rep),
        ),
        disk_mib=lambda w: scale_params(w.scale)["scan"]["disk_mib"],


# Every file's cold read is replayed by its own job (rule ftl_replay_phase); the tables
# read their summaries, the DoF from the runs' snapshots and the wall time from scan.tsv.
rule scan_tables:
    input:
        runs=lambda w: scan_runs(w).values(),
        models=lambda w: scan_models(w).values(),
        code=python_sources("mobifrag.tables.scan"),
    output:
        table=results("scan/{fs}/scan.csv"),
        fit=results("scan/{fs}/fit.csv"),
    log:
        results("logs/scan-{fs}-tables.log"),
    localrule: True
    params:
        python=PYTHON,
        runs=lambda w: run_labels(scan_runs(w)),
        models=lambda w: " ".join(
            f"--model {rep} {phase} {path}"
            for (rep, phase), path in scan_models(w).items()
        ),
    shell:
        "{params.python} -m mobifrag.tables.scan {params.runs} {params.models}"
        " --table {output.table} --fit {output.fit} 2> {log}"
