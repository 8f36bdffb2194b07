# janusd (TMC §6.2.2; janusd §3–4) on the e4defrag runs of rules/treat.smk: janusdL
# carries out e4defrag's relocation plan as FTL REMAP commands, janusdP copies the files
# whose DoF_P exceeds `janusd.dof_p_threshold`. Paths under
# results/{device}/{scale}/treat/e4defrag/{level}/threads-{n}/:
#   e4defrag.csv                 e4defrag's block trace as CSV (ftl-sim convert)
#   janusdl/                     plan.csv, janusdl.csv (the trace), after/ (the snapshot)
#   janusdp/                     selected.csv, janusd.csv (janusdL's trace + janusdP's copies)
#   ftl-{method}.json, .dop.csv  each method's trace through ftl-sim after the appends'
#                                trace (uncounted), map cache drained; DoF_P after it
#   ftl-append.dop.csv           DoF_P of the files as the appends left them
# and results/{device}/{scale}/treat/janusd/dof-p.csv, every file's DoF_P per method.

JANUSD_RUN = "treat/e4defrag/{level}/threads-{threads}"
JANUSD_WILDCARDS = {"level": "low|moderate|high|full", "threads": r"\d+"}

# Per replayed method: its trace (format, path below the run folder), the layout whose
# DoF_P is measured after it, and whether the appends' trace is replayed first (uncounted).
JANUSD_REPLAYS = {
    "append": ("blktrace", "blktrace-append", "run/snapshot", False),
    "e4defrag": ("blktrace", "blktrace", "run/after", True),
    "janusdl": ("csv", "janusdl/janusdl.csv", "janusdl/after", True),
    "janusd": ("csv", "janusdp/janusd.csv", "janusdl/after", True),
}


def janusd_replay_paths(w):
    """Trace, layout and preconditioning trace of one method's replay."""
    run = results(JANUSD_RUN).format(**w)
    fmt, trace, layout, after_appends = JANUSD_REPLAYS[w.method]
    return {
        "trace": f"{run}/{trace}",
        "extents": f"{run}/{layout}/extents.tsv",
        "precondition": f"--precondition-trace {run}/blktrace-append" if after_appends else "",
    }


def janusd_replay_inputs(w):
    """The folders the replay reads (rule outputs: files inside them are not)."""
    run = results(JANUSD_RUN).format(**w)
    _, trace, layout, _ = JANUSD_REPLAYS[w.method]
    folders = {f"{run}/{trace.split('/')[0]}", f"{run}/{layout.split('/')[0]}"}
    return sorted(folders | {f"{run}/blktrace-append"})


rule janusd_e4defrag_csv:
    input:
        trace=results(f"{JANUSD_RUN}/blktrace"),
        sim=FTL_SIM,
    output:
        results(f"{JANUSD_RUN}/e4defrag.csv"),
    log:
        results("logs/janusd-e4defrag-csv-{level}-{threads}.log"),
    wildcard_constraints:
        **JANUSD_WILDCARDS,
    shell:
        "{input.sim} convert --format blktrace -o {output} {input.trace} 2> {log}"


rule janusd_logical:
    input:
        run=results(f"{JANUSD_RUN}/run"),
        trace=results(f"{JANUSD_RUN}/e4defrag.csv"),
    output:
        directory(results(f"{JANUSD_RUN}/janusdl")),
    log:
        results("logs/janusd-logical-{level}-{threads}.log"),
    wildcard_constraints:
        **JANUSD_WILDCARDS,
    params:
        python=PYTHON,
    shell:
        "{params.python} -m mobifrag.janusd logical --before {input.run}/snapshot"
        " --after {input.run}/after --trace {input.trace} --out {output} 2> {log}"


rule janusd_physical:
    input:
        dop=results(f"{JANUSD_RUN}/ftl-append.dop.csv"),
        janusdl=results(f"{JANUSD_RUN}/janusdl"),
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
        "{params.python} -m mobifrag.janusd physical --dop {input.dop}"
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
    wildcard_constraints:
        method="|".join(JANUSD_REPLAYS),
        **JANUSD_WILDCARDS,
    params:
        format=lambda w: JANUSD_REPLAYS[w.method][0],
        paths=janusd_replay_paths,
    shell:
        "{input.sim} replay --device {input.profile} {params.paths[precondition]}"
        " --format {params.format} {params.paths[trace]} --drain-cache"
        " --extents {params.paths[extents]} --dop-out {output.dop}"
        " -o {output.summary} 2> {log}"
