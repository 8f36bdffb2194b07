# ARS kernel stage (ARS §III, §V.A;
# kernel-patches/6.1/0001-f2fs-adaptive-reserved-space.patch): the four schemes of `ars`
# in config/experiments/ars.yaml, each on fresh F2FS file systems in the emulator. Paths under ars/ of the platform's runs
# (results/platform/{platform}/{scale}/) and, for the tables, of results/{device}/{scale}/:
#   motivation/{scheme}/rep-{rep}/  Fig. 1: a continuous and a fragmented file
#                         (ars-motivation.sh; each cold read traced,
#                         blktrace/read-<file>-<run>/); repeated (config `repeated`):
#                         the eight writers interleave differently in every run
#   blocksize/{scheme}/rep-1/  Fig. 2: a file written at random per block size
#                         (ars-blocksize.sh; blktrace/read-<bytes>-<run>/)
#   motivation.csv, blocksize.csv  their tables (mobifrag/tables/ars.py), the reads
#                         modeled on the device profile (ftl-sim) and their wall time
#   checks/               the patch's checks (ars-checks.sh, tests/emulator/test_ars_kernel.py)

ARS_SCHEMES = "|".join(config["ars"]["schemes"])
ars_params = lambda scale: scale_params(scale)["ars"]

# Run label → the folder (below the device's platform runs) of every scheme's job of one
# kind and every repetition (config `repeated`: Fig. 1's jobs repeat).
ars_run_folders = lambda w: {
    f"scheme={s},rep={r}": f"ars/{w.kind}/{s}/rep-{r}"
    for s in config["ars"]["schemes"]
    for r in repetitions(w.scale, f"ars-{w.kind}", w.device)
}
ars_runs = lambda w: {
    label: on_platform(run, w) for label, run in ars_run_folders(w).items()
}

# The files a job of one kind reads (jobs/ars-motivation.sh, jobs/ars-blocksize.sh).
ars_cases = lambda kind, scale: (
    ["continuous", "fragmented"]
    if kind == "motivation"
    else [kib * 1024 for kib in ars_params(scale)["block_kib"]]
)

# (run folder, phase) → the replay summary of each cold read of every scheme's job of one
# kind (phases read-<case>-<run>, jobs/ars-lib.sh cold_reads).
ars_models = lambda w: {
    (on_platform(folder, w), phase): phase_summary(w, folder, phase)
    for folder in ars_run_folders(w).values()
    for phase in (
        f"read-{case}-{number}"
        for case in ars_cases(w.kind, w.scale)
        for number in range(1, config["ars"]["reads"] + 1)
    )
}


use rule guest_job as ars_motivation with:
    input:
        unpack(guest_inputs("jobs/ars-motivation.sh")),
        lib="jobs/ars-lib.sh",
    output:
        out=directory(platform_runs("ars/motivation/{scheme}/rep-{rep}")),
    log:
        platform_runs("logs/ars-motivation-{scheme}-rep-{rep}.console.log"),
    benchmark:
        platform_runs("benchmarks/ars_motivation-{scheme}-rep-{rep}.tsv")
    wildcard_constraints:
        scheme=ARS_SCHEMES,
        rep=r"\d+",
    params:
        **guest_job_args(
            "{wildcards.scheme} {file} {writers} {reads}",
            file=lambda w: ars_params(w.scale)["file_mib"] * 1024 * 1024,
            writers=config["ars"]["writers"],
            reads=config["ars"]["reads"],
        ),
        disk_mib=lambda w: ars_params(w.scale)["disk_mib"],


use rule guest_job as ars_blocksize with:
    input:
        unpack(guest_inputs("jobs/ars-blocksize.sh")),
        lib="jobs/ars-lib.sh",
    output:
        out=directory(platform_runs("ars/blocksize/{scheme}/rep-{rep}")),
    log:
        platform_runs("logs/ars-blocksize-{scheme}-rep-{rep}.console.log"),
    benchmark:
        platform_runs("benchmarks/ars_blocksize-{scheme}-rep-{rep}.tsv")
    wildcard_constraints:
        scheme=ARS_SCHEMES,
        rep=r"\d+",
    params:
        **guest_job_args(
            "{wildcards.scheme} {file} '{sizes}' {reads}",
            file=lambda w: ars_params(w.scale)["file_mib"] * 1024 * 1024,
            sizes=lambda w: " ".join(
                str(k * 1024) for k in ars_params(w.scale)["block_kib"]
            ),
            reads=config["ars"]["reads"],
        ),
        disk_mib=lambda w: ars_params(w.scale)["disk_mib"],


# Every cold read's block trace is replayed by its own job (rule ftl_replay_phase): the
# modeled columns are the judged ones, wall time is the secondary series.
rule ars_table:
    input:
        runs=lambda w: ars_runs(w).values(),
        models=lambda w: ars_models(w).values(),
        code=python_sources("mobifrag.tables.ars"),
    output:
        results("ars/{kind}.csv"),
    log:
        results("logs/ars-{kind}-table.log"),
    benchmark:
        results("benchmarks/ars_table-{kind}.tsv")
    wildcard_constraints:
        kind="motivation|blocksize",
    localrule: True
    params:
        python=PYTHON,
        case=lambda w: {"motivation": "file", "blocksize": "block_size"}[w.kind],
        runs=lambda w: run_labels(ars_runs(w)),
        models=lambda w: " ".join(
            f"--model {run} {phase} {path}"
            for (run, phase), path in ars_models(w).items()
        ),
    shell:
        "{params.python} -m mobifrag.tables.ars --case {params.case} {params.runs}"
        " {params.models} --out {output} 2> {log}"


use rule guest_job as ars_checks with:
    input:
        unpack(guest_inputs("jobs/ars-checks.sh")),
        lib="jobs/ars-lib.sh",
    output:
        out=directory(platform_runs("ars/checks")),
    log:
        platform_runs("logs/ars-checks.console.log"),
    benchmark:
        platform_runs("benchmarks/ars_checks.tsv")
    params:
        **guest_job_args(
            "{file} {writers}",
            file=lambda w: ars_params(w.scale)["file_mib"] * 1024 * 1024,
            writers=config["ars"]["writers"],
        ),
        disk_mib=lambda w: ars_params(w.scale)["disk_mib"],
