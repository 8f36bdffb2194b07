# ftl-sim: build the simulator and replay captured block traces through a
# device profile's FTL model (ftl-sim/README.md, "Snakemake rules").
#
# Path patterns (under results/{device}/{scale}/{experiment}/ but for the trace, which
# the platform's run of the experiment holds, results/platform/{platform}/{scale}/...):
#   blktrace/               input: blktrace's per-CPU files <dev>.blktrace.<cpu>
#                           (producers declare it as directory(...))
#   remap.csv               input: janusdL remap commands (time_ns,src_sector,dst_sector,sectors)
#   extents.tsv             input: fragcheck's file -> extent table
#   ftl{variant}.json       replay summary
#   ftl-remap{variant}.json replay of trace + remap.csv
#   ftl{variant}.dop.csv    per-file DoP / DoF_P after the replay (+ .dop.json summary)
#   model/{phase}/ftl{variant}.json  replay of one job phase's trace, blktrace/{phase}/
#   model/phases.json       every phase of the run, with the overlap its trace shows and
#                           at least its threads in flight
# {variant} is empty or a list of "_token"s: cache<N>k (map cache of N KiB),
# tpage | entry (cache mode), fill<P> (P % of the space written sequentially
# first), aged<P> (then P % of the logical pages overwritten at random, so GC
# is active), closed (closed-loop replay, queue depth 1), overlap (the trace's own
# overlap: a request waits for what the trace completed before issuing it), qd<N>
# (queue-depth limit), history (a phase only: the writes of the run's phases traced
# before it replayed first, mobifrag.model.phase_history).
# Example: results/emulator-emmc/quick/dispersed/ext4/rep-1/model/read-16/ftl_fill100_history_overlap_cache16k.json

import re
from pathlib import Path

FTL_TOKENS = {
    r"cache(\d+)k": lambda m: ["--cache-bytes", str(int(m.group(1)) * 1024)],
    r"(tpage|entry)": lambda m: ["--cache-mode", m.group(1)],
    r"fill(\d+)": lambda m: ["--precondition-fill", str(int(m.group(1)) / 100)],
    r"aged(\d+)": lambda m: [
        "--precondition-random-fraction",
        str(int(m.group(1)) / 100),
    ],
    r"closed": lambda m: ["--arrivals", "closed"],
    r"overlap": lambda m: ["--arrivals", "overlap"],
    r"qd(\d+)": lambda m: ["--queue-depth", m.group(1)],
}


# Command-line options of ftl-sim for the tokens of a {variant} file-name suffix; an
# unknown token becomes an option ftl-sim rejects, naming the token.
variant_options = lambda tokens: " ".join(
    arg
    for token in tokens
    for arg in next(
        (
            to_args(match)
            for match, to_args in (
                (re.fullmatch(pattern, token), to_args)
                for pattern, to_args in FTL_TOKENS.items()
            )
            if match
        ),
        [f"--unknown-ftl-variant-token={token}"],
    )
)


ftl_variant_args = lambda wildcards: variant_options(wildcards.variant.split("_")[1:])


# The shell word giving ftl-sim the run's earlier phases' traces for a variant with the
# history token (computed when the job runs: the run's phase order is its output).
phase_history_args = lambda wildcards, input: (
    f"$({PYTHON} -m mobifrag.model.phase_history {input.run} {wildcards.phase})"
    if "history" in wildcards.variant.split("_")[1:]
    else "''"
)


# A phase's variant options but for the history token (phase_history_args).
phase_variant_args = lambda wildcards: variant_options(
    token for token in wildcards.variant.split("_")[1:] if token != "history"
)


rule ftl_sim_build:
    input:
        "ftl-sim/Cargo.toml",
        "ftl-sim/Cargo.lock",
        Path("ftl-sim/src").rglob("*.rs"),
    output:
        FTL_SIM,
    log:
        "build/ftl-sim/build.log",
    shell:
        "cargo build --release --locked --manifest-path ftl-sim/Cargo.toml > {log} 2>&1"


# A phase's trace is a folder of the run's blktrace/, not the run's whole trace.
ruleorder: ftl_replay_phase > ftl_replay


# The run folder is the input (a guest job's output is the whole folder).
rule ftl_replay_phase:
    input:
        run=lambda w: on_platform("{experiment}", w),
        profile="devices/{device}.yaml",
        sim=FTL_SIM,
        code=python_sources("mobifrag.model.phase_history"),
    output:
        results("{experiment}/model/{phase}/ftl{variant}.json"),
    log:
        results("logs/{experiment}/model/{phase}/ftl{variant}.log"),
    benchmark:
        results("benchmarks/ftl_replay_phase-{experiment}-{phase}{variant}.tsv")
    wildcard_constraints:
        phase=r"[a-z0-9-]+",
        variant=r"(_[a-z0-9]+)*",
    # One phase's replay takes a second or less; a cluster run packs them
    # (profiles/slurm: group-components).
    group:
        "model"
    params:
        extra=phase_variant_args,
        history=phase_history_args,
    shell:
        "history={params.history} && {input.sim} replay --device {input.profile}"
        " --format blktrace {params.extra} $history"
        " -o {output} {input.run}/blktrace/{wildcards.phase} 2> {log}"


# Runs whose phases replay with the overlap their traces show and never fewer requests in
# flight than the threads that issued them, which only the run's own reports tell
# (mobifrag.model.run_phases; RUN_PHASE_DEPTHS).
rule ftl_replay_run:
    input:
        run=lambda w: on_platform("{experiment}", w),
        profile="devices/{device}.yaml",
        sim=FTL_SIM,
        code=python_sources("mobifrag.model.run_phases"),
    output:
        results(f"{{experiment}}/{RUN_MODELS}"),
    log:
        results("logs/{experiment}/model/phases.log"),
    benchmark:
        results("benchmarks/ftl_replay_run-{experiment}.tsv")
    wildcard_constraints:
        # <folder>/<run>, or <folder>/<run>/rep-<n> for a repeated job
        experiment="("
        + "|".join(map(re.escape, RUN_PHASE_DEPTHS))
        + r")/[a-z0-9-]+(/rep-\d+)?",
    group:
        "model"
    params:
        python=PYTHON,
        depths=run_phase_depths,
    shell:
        "{params.python} -m mobifrag.model.run_phases {input.run} --device {input.profile}"
        " --ftl-sim {input.sim} {params.depths} -o {output} 2> {log}"


rule ftl_replay:
    input:
        trace=lambda w: on_platform("{experiment}/blktrace", w),
        profile="devices/{device}.yaml",
        sim=FTL_SIM,
    output:
        results("{experiment}/ftl{variant}.json"),
    log:
        results("logs/{experiment}/ftl{variant}.log"),
    benchmark:
        results("benchmarks/ftl_replay-{experiment}{variant}.tsv")
    wildcard_constraints:
        variant=r"(_[a-z0-9]+)*",
    params:
        extra=ftl_variant_args,
    shell:
        "{input.sim} replay --device {input.profile} --format blktrace {params.extra}"
        " -o {output} {input.trace} 2> {log}"


rule ftl_replay_remap:
    input:
        trace=lambda w: on_platform("{experiment}/blktrace", w),
        remap=results("{experiment}/remap.csv"),
        profile="devices/{device}.yaml",
        sim=FTL_SIM,
    output:
        results("{experiment}/ftl-remap{variant}.json"),
    log:
        results("logs/{experiment}/ftl-remap{variant}.log"),
    benchmark:
        results("benchmarks/ftl_replay_remap-{experiment}{variant}.tsv")
    wildcard_constraints:
        variant=r"(_[a-z0-9]+)*",
    params:
        extra=ftl_variant_args,
    shell:
        "{input.sim} replay --device {input.profile} --format blktrace {params.extra}"
        " --remap {input.remap} -o {output} {input.trace} 2> {log}"


rule ftl_dop:
    input:
        trace=lambda w: on_platform("{experiment}/blktrace", w),
        extents=results("{experiment}/extents.tsv"),
        profile="devices/{device}.yaml",
        sim=FTL_SIM,
    output:
        table=results("{experiment}/ftl{variant}.dop.csv"),
        summary=results("{experiment}/ftl{variant}.dop.json"),
    log:
        results("logs/{experiment}/ftl{variant}.dop.log"),
    benchmark:
        results("benchmarks/ftl_dop-{experiment}{variant}.tsv")
    wildcard_constraints:
        variant=r"(_[a-z0-9]+)*",
    params:
        extra=ftl_variant_args,
    shell:
        "{input.sim} replay --device {input.profile} --format blktrace {params.extra}"
        " --extents {input.extents} --dop-out {output.table} -o {output.summary}"
        " {input.trace} 2> {log}"
