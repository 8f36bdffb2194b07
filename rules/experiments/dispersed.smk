# Dispersed I/O (TMC §5.3.2–5.3.3, Fig. 13): writes and reads spread over regions of
# the disk, traced in the guest and replayed through ftl-sim's map-cache variants.


use rule guest_job as dispersed_run with:
    input:
        unpack(guest_inputs("jobs/dispersed.sh")),
    output:
        out=directory(platform_runs("dispersed/{fs}/run")),
    log:
        platform_runs("logs/dispersed-{fs}.console.log"),
    benchmark:
        platform_runs("benchmarks/dispersed_run-{fs}.tsv")
    wildcard_constraints:
        fs="ext4|f2fs",
    params:
        # The file, its metadata and the file system's own: a fifth more than the file.
        disk_mib=lambda w: max(scale_params(w.scale)["dispersed"]["region_mib"])
        * 6
        // 5
        + 64,
        job_args=guest_args(
            "{wildcards.fs} {mkfs} {file_mib}M {ios} {regions} {seed}",
            mkfs=lambda w: mkfs_options(w.fs),
            file_mib=lambda w: max(scale_params(w.scale)["dispersed"]["region_mib"]),
            ios=lambda w: scale_params(w.scale)["dispersed"]["ios"],
            regions=lambda w: shlex.quote(
                " ".join(map(str, scale_params(w.scale)["dispersed"]["region_mib"]))
            ),
            seed=config["seed"],
        ),


# Every (phase, model) replay is its own job (rule ftl_replay_phase); the table reads
# their summaries and fio's wall time from the run.
rule dispersed_tables:
    input:
        run=lambda w: on_platform("dispersed/{fs}/run", w),
        models=lambda w: dispersed_models(w).values(),
    output:
        results("dispersed/{fs}/dispersed.csv"),
    log:
        results("logs/dispersed-{fs}-tables.log"),
    params:
        python=PYTHON,
        models=lambda w: " ".join(
            f"--model {op} {region} {model} {path}"
            for (op, region, model), path in dispersed_models(w).items()
        ),
    shell:
        "{params.python} -m mobifrag.tables.dispersed --run {input.run} {params.models}"
        " --table {output} 2> {log}"
