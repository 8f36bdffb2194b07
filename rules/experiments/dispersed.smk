# Dispersed I/O (TMC §5.3.2–5.3.3, Fig. 13): writes and reads spread over regions of
# the disk, traced in the guest and replayed through ftl-sim's map-cache variants;
# repeated (config `repeated`), each repetition on a fresh guest with its own seed.
# Config `dispersed.models` adds each device model's own variant tokens.

# One repetition's dispersed run, below the platform's runs.
dispersed_run = lambda w, rep: f"dispersed/{w.fs}/rep-{rep}"

# Repetition → the folder of that repetition's dispersed run.
dispersed_runs = lambda w: {
    rep: on_platform(dispersed_run(w, rep), w)
    for rep in repetitions(w.scale, "dispersed")
}

# (repetition, operation, region MiB, model) → the replay summary of that phase under
# that model (phases are <op>-<MiB>, jobs/dispersed.sh).
dispersed_models = lambda w: {
    (rep, op, region, model): phase_summary(
        w, dispersed_run(w, rep), f"{op}-{region}", variant
    )
    for rep in repetitions(w.scale, "dispersed")
    for op, models in config["dispersed"]["models"].items()
    for region in scale_params(w.scale)["dispersed"]["region_mib"]
    for model, variant in models.items()
}


use rule guest_job as dispersed_run with:
    input:
        unpack(guest_inputs("jobs/dispersed.sh")),
    output:
        out=directory(platform_runs("dispersed/{fs}/rep-{rep}")),
    log:
        platform_runs("logs/dispersed-{fs}-rep-{rep}.console.log"),
    benchmark:
        platform_runs("benchmarks/dispersed_run-{fs}-rep-{rep}.tsv")
    wildcard_constraints:
        fs="ext4|f2fs",
        rep=r"\d+",
    params:
        **guest_job_args(
            "{wildcards.fs} {mkfs} {file_mib}M {ios} {regions} {seed}",
            mkfs=lambda w: mkfs_options(w.fs),
            file_mib=lambda w: max(scale_params(w.scale)["dispersed"]["region_mib"]),
            ios=lambda w: scale_params(w.scale)["dispersed"]["ios"],
            regions=lambda w: shlex.quote(
                " ".join(map(str, scale_params(w.scale)["dispersed"]["region_mib"]))
            ),
            seed=lambda w: repetition_seed(w.scale, w.rep),
        ),
        # The file, its metadata and the file system's own: a fifth more than the file.
        disk_mib=lambda w: max(scale_params(w.scale)["dispersed"]["region_mib"])
        * 6
        // 5
        + 64,


# Every (phase, model) replay is its own job (rule ftl_replay_phase); the table reads
# their summaries and fio's wall time from the runs.
rule dispersed_tables:
    input:
        runs=lambda w: dispersed_runs(w).values(),
        models=lambda w: dispersed_models(w).values(),
        code=python_sources("mobifrag.tables.dispersed"),
    output:
        results("dispersed/{fs}/dispersed.csv"),
    log:
        results("logs/dispersed-{fs}-tables.log"),
    localrule: True
    params:
        python=PYTHON,
        runs=lambda w: run_labels(dispersed_runs(w)),
        models=lambda w: " ".join(
            f"--model {rep} {op} {region} {model} {path}"
            for (rep, op, region, model), path in dispersed_models(w).items()
        ),
    shell:
        "{params.python} -m mobifrag.tables.dispersed {params.runs} {params.models}"
        " --table {output} 2> {log}"
