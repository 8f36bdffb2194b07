# FlashSim cross-check (TMC §5.3.3 replayed its block traces through FlashSim):
# FlashSim built from its pinned upstream source (model/flashsim: fetch.sh verifies the
# tarball, the Makefile links mobifrag's driver replay.cpp against FlashSim's objects),
# and a sample of the study's captured block traces replayed through FlashSim's DFTL
# and ftl-sim at one matched configuration (model/flashsim/diff.conf;
# mobifrag/model/flashsim_diff.py says what is compared and the tolerance).
#
#   build/flashsim/flashsim-replay           FlashSim + the driver (log: build.log there)
#   results/{device}/{scale}/flashsim/diff.csv   one row per sampled trace
#   results/{device}/{scale}/flashsim/runs/      both simulators' JSON summaries per trace
#
# The sample: the scan of the file fragmented into 4 KiB pieces (2,048 small reads,
# rules/experiments/scan.smk) and the dispersed 4 KiB synchronous writes and direct reads in the
# largest region of the scale (TMC §5.3.2), all on ext4, from the first repetition.

FLASHSIM = "build/flashsim/flashsim-replay"
FLASHSIM_CONF = "model/flashsim/diff.conf"


rule flashsim_build:
    input:
        "model/flashsim/Makefile",
        "model/flashsim/upstream.env",
        "model/flashsim/fetch.sh",
        "scripts/fetch-pinned.sh",
        "model/flashsim/replay.cpp",
    output:
        FLASHSIM,
    log:
        "build/flashsim/build.log",
    shell:
        "make -C model/flashsim > {log} 2>&1"


# `--trace=NAME=FOLDER` for each sampled blktrace folder (a lambda: the workflow lint
# wants functions in rules/common/paths.smk).
flashsim_sample = lambda wildcards, input: " ".join(
    shlex.quote(f"--trace={name}={run}/blktrace/{folder}")
    for name, run, folder in (
        ("scan-holes-4k", input.scan, "holes-000004k"),
        *(
            (f"dispersed-{op}-{region}m", input.dispersed, f"{op}-{region}")
            for region in [
                max(scale_params(wildcards.scale)["dispersed"]["region_mib"])
            ]
            for op in ("write", "read")
        ),
    )
)


rule flashsim_diff:
    input:
        scan=lambda w: on_platform("scan/ext4/rep-1", w),
        dispersed=lambda w: on_platform("dispersed/ext4/rep-1", w),
        conf=FLASHSIM_CONF,
        sim=FTL_SIM,
        flashsim=FLASHSIM,
        code=python_sources("mobifrag.model.flashsim_diff"),
    output:
        table=results("flashsim/diff.csv"),
        runs=directory(results("flashsim/runs")),
    log:
        results("logs/flashsim-diff.log"),
    benchmark:
        results("benchmarks/flashsim_diff.tsv")
    params:
        python=PYTHON,
        traces=flashsim_sample,
    shell:
        "{params.python} -m mobifrag.model.flashsim_diff --ftl-sim {input.sim}"
        " --flashsim {input.flashsim} --conf {input.conf} {params.traces}"
        " --table {output.table} --runs {output.runs} 2> {log}"
