# janusd (TMC §6.2.2; janusd §3–4) on the e4defrag runs of rules/experiments/treat.smk: janusdL
# carries out e4defrag's relocation plan as FTL REMAP commands, janusdP copies the files
# whose DoF_P exceeds `janusd.dof_p_threshold`. Beside the platform's e4defrag runs
# (run/, blktrace/, blktrace-append/: rules/experiments/treat.smk), paths under
# results/{device}/{scale}/treat/e4defrag/{level}/threads-{n}/:
#   e4defrag.csv                 e4defrag's block trace as CSV (ftl-sim convert)
#   janusdl/                     plan.csv, janusdl.csv (the trace), after/ (the snapshot)
#   janusdp/                     selected.csv, janusd.csv (janusdL's trace + janusdP's copies)
#   ftl-{method}.json, .dop.csv  each method's trace through ftl-sim after the appends'
#                                trace (uncounted), map cache drained; DoF_P after it
#   ftl-append.dop.csv           DoF_P of the files as the appends left them
# janusd: the e4defrag runs' folders each method replays from.


rule janusd_e4defrag_csv:
    input:
        trace=lambda w: on_platform(f"{JANUSD_RUN}/blktrace", w),
        sim=FTL_SIM,
    output:
        results(f"{JANUSD_RUN}/e4defrag.csv"),
    log:
        results("logs/janusd-e4defrag-csv-{level}-{threads}.log"),
    benchmark:
        results("benchmarks/janusd_e4defrag_csv-{level}-{threads}.tsv")
    wildcard_constraints:
        **JANUSD_WILDCARDS,
    shell:
        "{input.sim} convert --format blktrace -o {output} {input.trace} 2> {log}"


rule janusd_logical:
    input:
        run=lambda w: on_platform(f"{JANUSD_RUN}/run", w),
        trace=results(f"{JANUSD_RUN}/e4defrag.csv"),
        code=python_sources("mobifrag.model.janusd_remap"),
    output:
        directory(results(f"{JANUSD_RUN}/janusdl")),
    log:
        results("logs/janusd-logical-{level}-{threads}.log"),
    wildcard_constraints:
        **JANUSD_WILDCARDS,
    params:
        python=PYTHON,
    shell:
        "{params.python} -m mobifrag.model.janusd_remap logical --before {input.run}/snapshot"
        " --after {input.run}/after --trace {input.trace} --out {output} 2> {log}"


rule janusd_physical:
    input:
        dop=results(f"{JANUSD_RUN}/ftl-append.dop.csv"),
        janusdl=results(f"{JANUSD_RUN}/janusdl"),
        code=python_sources("mobifrag.model.janusd_remap"),
    output:
        directory(results(f"{JANUSD_RUN}/janusdp")),
    log:
        results("logs/janusd-physical-{level}-{threads}.log"),
    wildcard_constraints:
        **JANUSD_WILDCARDS,
    params:
        python=PYTHON,
        threshold=config["janusd"]["dof_p_threshold"],
    shell:
        "{params.python} -m mobifrag.model.janusd_remap physical --dop {input.dop}"
        " --snapshot {input.janusdl}/after --threshold {params.threshold}"
        " --follow {input.janusdl}/janusdl.csv --out {output} 2> {log}"


rule janusd_replay:
    input:
        folders=janusd_replay_inputs,
        profile="devices/{device}.yaml",
        sim=FTL_SIM,
    output:
        summary=results(f"{JANUSD_RUN}/ftl-{{method}}.json"),
        dop=results(f"{JANUSD_RUN}/ftl-{{method}}.dop.csv"),
    log:
        results("logs/janusd-replay-{level}-{threads}-{method}.log"),
    benchmark:
        results("benchmarks/janusd_replay-{level}-{threads}-{method}.tsv")
    wildcard_constraints:
        **JANUSD_WILDCARDS,
        method="|".join(JANUSD_REPLAYS),
    params:
        format=lambda w: JANUSD_REPLAYS[w.method][0],
        paths=janusd_replay_paths,
    shell:
        "{input.sim} replay --device {input.profile} {params.paths[precondition]}"
        " --format {params.format} {params.paths[trace]} --drain-cache"
        " --extents {params.paths[extents]} --dop-out {output.dop}"
        " -o {output.summary} 2> {log}"


# Recurring defragmentation (janusd §2.5, Fig. 5): results/{device}/{scale}/janusd/recurring/
#   traces/                      AutoAge day traces of `janusd.recurring_apps`
#   every-{n}d/run/              the replay with e4defrag every n days (defrag/day-NN/,
#                                blktrace/day-NN/)
#   every-{n}d/defrags/day-NN/   e4defrag.csv, janusdl/, ftl-{e4defrag,janusdl}.json,
#                                launch-PACKAGE-{before,after}/ and .json: each app's
#                                launch reads over the layout before / after the defrag
#   copies.csv, launch.csv       bytes each method wrote per defragmentation; launches
#   dof.csv                      DoF of each app's files before / after each defrag
#                                (janusd Fig. 3), from the job's own snapshots
rule janusd_recurring_traces:
    output:
        directory(workloads(f"{RECURRING}/traces")),
    log:
        workloads("logs/janusd-recurring-traces.log"),
    priority: LONG_CHAIN
    params:
        python=PYTHON,
        models=config["autoage"]["models"],
        apps=",".join(config["janusd"]["recurring_apps"]),
        seed=config["seed"],
        days=lambda w: min(
            scale_params(w.scale)["autoage"]["days"],
            config["janusd"]["recurring_days"],
        ),
        disk_bytes=lambda w: scale_params(w.scale)["autoage"]["disk_mib"] * 1024 * 1024,
    shell:
        "{params.python} -m mobifrag.workloads autoage --models {params.models}"
        " --apps {params.apps} --days {params.days} --seed {params.seed}"
        " --disk-bytes {params.disk_bytes} --out {output} > {log} 2>&1"


use rule guest_job as janusd_recurring with:
    input:
        unpack(guest_inputs("jobs/janusd-recurring.sh")),
        traces=workloads(f"{RECURRING}/traces"),
    output:
        out=directory(platform_runs(f"{RECURRING}/every-{{interval}}d/run")),
    log:
        platform_runs("logs/janusd-recurring-every-{interval}d.console.log"),
    benchmark:
        platform_runs("benchmarks/janusd_recurring-every-{interval}d.tsv")
    wildcard_constraints:
        interval=r"\d+",
    priority: LONG_CHAIN
    params:
        **guest_job_args(
            "{fs} {mkfs} $(realpath {input.traces}) {seed} {wildcards.interval}",
            fs=TREAT_FS,
            mkfs=TREAT_MKFS,
            seed=config["seed"],
        ),
        disk_mib=lambda w: scale_params(w.scale)["autoage"]["disk_mib"],


rule janusd_recurring_replays:
    input:
        run=lambda w: on_platform(f"{RECURRING}/every-{{interval}}d/run", w),
        profile="devices/{device}.yaml",
        sim=FTL_SIM,
        code=python_sources("mobifrag.model.janusd_remap"),
    output:
        directory(results(f"{RECURRING}/every-{{interval}}d/defrags")),
    log:
        results("logs/janusd-recurring-every-{interval}d-replays.log"),
    benchmark:
        results("benchmarks/janusd_recurring_replays-every-{interval}d.tsv")
    wildcard_constraints:
        interval=r"\d+",
    params:
        python=PYTHON,
        packages=recurring_packages(),
    shell:
        "for before in {input.run}/defrag/*/before; do"
        " day=$(basename $(dirname $before)); out={output}/$day; mkdir -p $out"
        " && {input.sim} convert --format blktrace -o $out/e4defrag.csv"
        " {input.run}/blktrace/$day"
        " && {params.python} -m mobifrag.model.janusd_remap logical --before $before"
        " --after $(dirname $before)/after --trace $out/e4defrag.csv --out $out/janusdl"
        " && {input.sim} replay --device {input.profile} --format blktrace --drain-cache"
        " -o $out/ftl-e4defrag.json {input.run}/blktrace/$day"
        " && {input.sim} replay --device {input.profile} --format csv --drain-cache"
        " -o $out/ftl-janusdl.json $out/janusdl/janusdl.csv || exit 1;"
        " for pkg in {params.packages}; do for phase in before after; do"
        " launch=$out/launch-$pkg-$phase && {params.python} -m mobifrag.model.janusd_remap launch"
        " --snapshot $(dirname $before)/$phase --package $pkg --out $launch || exit 1;"
        " [ -f $launch/reads.csv ] || continue;"
        " {input.sim} replay --device {input.profile} --precondition-format csv"
        " --precondition-trace $launch/writes.csv --arrivals closed --format csv"
        " -o $launch.json $launch/reads.csv || exit 1; done; done; done > {log} 2>&1"


rule janusd_recurring_table:
    input:
        lambda w: recurring_runs(w).values(),
        code=python_sources("mobifrag.tables.janusd"),
    output:
        copies=results(f"{RECURRING}/copies.csv"),
        launch=results(f"{RECURRING}/launch.csv"),
    log:
        results("logs/janusd-recurring-table.log"),
    params:
        python=PYTHON,
        runs=lambda w: run_labels(recurring_runs(w)),
    shell:
        "{params.python} -m mobifrag.tables.janusd recurring {params.runs}"
        " --out {output.copies} --launch-out {output.launch} 2> {log}"


rule janusd_recurring_dof_table:
    input:
        lambda w: recurring_guest_runs(w).values(),
        code=python_sources("mobifrag.tables.janusd"),
    output:
        results(f"{RECURRING}/dof.csv"),
    log:
        results("logs/janusd-recurring-dof-table.log"),
    params:
        python=PYTHON,
        runs=lambda w: run_labels(recurring_guest_runs(w)),
        packages=recurring_packages(),
    shell:
        "{params.python} -m mobifrag.tables.janusd recurring-dof {params.runs}"
        " --packages {params.packages} --out {output} 2> {log}"


rule janusd_dof_lp_table:
    input:
        lambda w: [
            path
            for folders in dof_lp_runs(w).values()
            for path in (str(Path(folders[0]).parent), folders[1])
        ],
        code=python_sources("mobifrag.tables.janusd"),
    output:
        results("treat/janusd/dof-lp.csv"),
    log:
        results("logs/janusd-dof-lp-table.log"),
    params:
        python=PYTHON,
        runs=lambda w: " ".join(
            f"--run {label} {snapshot} {dop}"
            for label, (snapshot, dop) in dof_lp_runs(w).items()
        ),
    shell:
        "{params.python} -m mobifrag.tables.janusd dof-lp {params.runs} --out {output} 2> {log}"


rule janusd_throughput:
    input:
        profile="devices/{device}.yaml",
        sim=FTL_SIM,
        code=python_sources("mobifrag.model.janusd_throughput"),
    output:
        results("janusd/throughput.csv"),
    log:
        results("logs/janusd-throughput.log"),
    benchmark:
        results("benchmarks/janusd_throughput.tsv")
    params:
        python=PYTHON,
        file_kib=config["janusd"]["throughput"]["file_kib"],
        dof_l=" ".join(map(str, config["janusd"]["throughput"]["dof_l"])),
        planes=" ".join(map(str, config["janusd"]["throughput"]["planes_used"])),
    shell:
        "{params.python} -m mobifrag.model.janusd_throughput --ftl-sim {input.sim}"
        " --device {input.profile} --file-kib {params.file_kib} --dof-l {params.dof_l}"
        " --planes-used {params.planes} --out {output} 2> {log}"
