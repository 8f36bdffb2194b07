# Ext4 tuning for Android-based smartphones (seed 004, §4): every configuration of
# `ext4tune.configurations` is a fresh ext4 aged by one create/delete trace and
# benchmarked in the guest (jobs/ext4tune-bench.sh); the tables normalize to `default`.
# Parameters: `ext4tune` and each scale's `ext4tune` in config/experiments/ext4tune.yaml.
# Paths under ext4tune/ of the workloads (aging.iotrace), of the platform's runs (runs/)
# and of results/{device}/{scale}/ (the tables):
#   aging.iotrace               256 KB files created and deleted to half full (§4.1)
#   runs/{config}/              one configuration's aged file system and benchmarks
#                               (each run traced: blktrace/iozone-<test>/ for IOzone's
#                               four tests, blktrace/postmark/, blktrace/filebench-<mix>/
#                               for FFSB's four filebench tests)
#   bench.csv, configs.csv      mobifrag/tables/ext4tune.py (runs modeled on the profile)

from mobifrag.workloads.ext4tune import FILEBENCH_MIXES, IOZONE_TESTS
from mobifrag.workloads import ext4tune

EXT4TUNE = config["ext4tune"]
ext4tune_params = lambda scale: scale_params(scale)["ext4tune"]


ext4tune_mkfs = lambda w: shlex.quote(
    ext4tune.mkfs_options(
        config["filesystems"]["ext4_mkfs"],
        ext4tune_params(w.scale)["disk_mib"],
        EXT4TUNE["block_groups"],
        EXT4TUNE["configurations"][w.config]["mkfs"],
    )
)
# (configuration, repetition) → its run's folder below the platform's runs
ext4tune_run_folders = lambda w: {
    (name, rep): f"ext4tune/runs/{name}/rep-{rep}"
    for name in EXT4TUNE["configurations"]
    for rep in repetitions(w.scale, "ext4tune")
}
ext4tune_runs = lambda w: {
    key: on_platform(run, w) for key, run in ext4tune_run_folders(w).items()
}

# How the reports of the benchmark runs name their phases (ftl_replay_run's options):
# IOzone's four tests run one process each; filebench's (FFSB's four tests) the config's
# threads.
RUN_PHASE_DEPTHS["ext4tune/runs"] = "".join(
    f" --depth iozone-{test} 1" for test in IOZONE_TESTS
) + "".join(
    f" --depth filebench-{mix} {EXT4TUNE['ffsb_threads']}" for mix in FILEBENCH_MIXES
)

# Checked now, so a disk that cannot hold the block groups stops the run before any work.
try:
    ext4tune.blocks_per_group(
        ext4tune_params(config["scale"])["disk_mib"], EXT4TUNE["block_groups"]
    )
except ext4tune.TuningError as error:
    raise WorkflowError(f"config: scales.{config['scale']}.ext4tune: {error}") from None


rule ext4tune_aging_trace:
    output:
        workloads("ext4tune/aging.iotrace"),
    log:
        workloads("logs/ext4tune-aging-trace.log"),
    localrule: True
    params:
        python=PYTHON,
        seed=config["seed"],
        disk_bytes=lambda w: ext4tune_params(w.scale)["disk_mib"] * 1024 * 1024,
        target=EXT4TUNE["aging_percent"],
        file_bytes=EXT4TUNE["aging_file_kib"] * 1024,
        create_share=EXT4TUNE["aging_create_share"],
    shell:
        "{params.python} -m mobifrag.workloads createdelete --disk-bytes {params.disk_bytes}"
        " --target {params.target} --file-bytes {params.file_bytes}"
        " --create-share {params.create_share} --seed {params.seed} --out {output}"
        " > {log} 2>&1"


use rule guest_job as ext4tune_bench with:
    input:
        unpack(guest_inputs("jobs/ext4tune-bench.sh")),
        iozone=IOZONE,
        filebench_workloads=[
            f"benchmarks/filebench/ffsb-{m}.f" for m in FILEBENCH_MIXES
        ],
        filebench=FILEBENCH,
        trace=workloads("ext4tune/aging.iotrace"),
    output:
        out=directory(platform_runs("ext4tune/runs/{config}/rep-{rep}")),
    log:
        platform_runs("logs/ext4tune-{config}-rep-{rep}.console.log"),
    benchmark:
        platform_runs("benchmarks/ext4tune_bench-{config}-rep-{rep}.tsv")
    wildcard_constraints:
        config="|".join(EXT4TUNE["configurations"]),
        rep=r"\d+",
    # Its guests idle in IOzone's and filebench's fixed sleeps (QEMU's CPU: 58 % of a host
    # core): three at once on two cores finish the most runs per minute, a fifth more than
    # two (docs/measurements.md, "Where a guest's time goes, and three guests on two cores").
    resources:
        **guest_resources(busy_percent=66),
    params:
        **guest_job_args(
            "{mkfs} {mount} $(realpath {input.trace}) {seed} {sizes}"
            " $(realpath {input.iozone}) $(realpath {input.filebench}) {mixes}",
            mixes=shlex.quote(" ".join(FILEBENCH_MIXES)),
            mkfs=ext4tune_mkfs,
            mount=lambda w: shlex.quote(EXT4TUNE["configurations"][w.config]["mount"]),
            seed=lambda w: repetition_seed(w.scale, w.rep),
            sizes=lambda w: " ".join(
                str(value)
                for value in (
                    ext4tune_params(w.scale)["iozone_mib"],
                    EXT4TUNE["ffsb_threads"],
                    ext4tune_params(w.scale)["ffsb_large_mib"],
                    ext4tune_params(w.scale)["ffsb_small_files"],
                    ext4tune_params(w.scale)["postmark_files"],
                    ext4tune_params(w.scale)["postmark_transactions"],
                )
            ),
        ),
        disk_mib=lambda w: ext4tune_params(w.scale)["disk_mib"],


# The tables read every benchmark run's phase models (ftl_replay_run: its block traces
# replayed through ftl-sim on the device profile): the modeled columns of bench.csv are
# the judged ones, wall time the secondary series.
rule ext4tune_tables:
    input:
        runs=lambda w: ext4tune_runs(w).values(),
        models=lambda w: run_models(w, ext4tune_run_folders(w).values()),
        code=python_sources("mobifrag.tables.ext4tune"),
    output:
        bench=results("ext4tune/bench.csv"),
        configs=results("ext4tune/configs.csv"),
        auto_da_alloc=results("ext4tune/auto-da-alloc.csv"),
    log:
        results("logs/ext4tune-tables.log"),
    benchmark:
        results("benchmarks/ext4tune_tables.tsv")
    localrule: True
    params:
        python=PYTHON,
        runs=lambda w: " ".join(
            f"--run {name} {rep} {run}"
            for (name, rep), run in ext4tune_runs(w).items()
        ),
        models=lambda w, input: " ".join(f"--model {index}" for index in input.models),
    shell:
        "{params.python} -m mobifrag.tables.ext4tune {params.runs}"
        " {params.models} --table {output.bench} --configs {output.configs}"
        " --auto-da-alloc {output.auto_da_alloc} 2> {log}"
