# Fill/delete aging (TMC §4.3, Fig. 7): a disk filled and aged to each level, then
# each app installed and snapshotted. Every level's free space is checked against its
# target (free-space.csv beside the table, config filldelete.hole_limit_kib). Repeated
# (config `repeated`): each repetition ages its own copy of the filled disk and runs
# the apps' concurrent writers with its seed, which interleave differently every run.
from mobifrag.workflow import free_space_targets

# The ext4 inodes of the fill/delete disks: the fill makes about as many files at every
# scale (mobifrag/workloads/filldelete.py), more than mke2fs gives a 1 GiB disk.
filldelete_inodes = lambda scale: scale_params(scale)["filldelete"].get("ext4_inodes")
filldelete_mkfs = lambda fs, scale: mkfs_options(
    fs,
    *(
        [f"-N {filldelete_inodes(scale)}"]
        if fs == "ext4" and filldelete_inodes(scale)
        else []
    ),
)

# The filled disk a level's replay starts from; none for a level of 0 % (Low, pristine:
# the replay makes a fresh file system).
filldelete_filled_disk = lambda wildcards: (
    []
    if config["filldelete"]["levels"][wildcards.level] == 0
    else platform_runs("filldelete/{fs}/filled").format(**wildcards)
)

# One repetition's replay of one app on one level, below the platform's runs.
FILLDELETE_RUN = "filldelete/{fs}/rep-{rep}/{level}-{app}"

# (rep, level, app, run folder) of every replay: its 00-aging trace ages the disk.
filldelete_aged_runs = lambda wildcards: [
    (
        rep,
        level,
        app,
        on_platform(FILLDELETE_RUN, wildcards, rep=rep, level=level, app=app),
    )
    for rep in repetitions(wildcards.scale, "filldelete")
    for level in scale_params(wildcards.scale)["filldelete"]["levels"]
    for app in config["filldelete"]["apps"]
]

# Label → snapshot of the app's files after aging to each level (TMC Fig. 7).
filldelete_runs = lambda wildcards: {
    f"level={level},app={app},package={app_package(app)},rep={rep}": f"{run}/snapshots/01-{app}"
    for rep, level, app, run in filldelete_aged_runs(wildcards)
}


rule filldelete_fill_trace:
    output:
        workloads("filldelete/traces/fill.iotrace"),
    log:
        workloads("logs/filldelete-fill-trace.log"),
    priority: LONG_CHAIN
    localrule: True
    params:
        python=PYTHON,
        seed=config["seed"],
        disk_bytes=lambda w: scale_params(w.scale)["filldelete"]["disk_mib"]
        * 1024
        * 1024,
        size_scale=lambda w: app_size_scale(
            scale_params(w.scale)["filldelete"]["disk_mib"]
        ),
    shell:
        "{params.python} -m mobifrag.workloads filldelete --part fill --target 0"
        " --disk-bytes {params.disk_bytes} --seed {params.seed}"
        " --size-scale {params.size_scale} --out {output} > {log} 2>&1"


# The fill does not depend on the level: one filled disk per file system, copied by
# every level's replay (TMC §4.3 fills once, then deletes down to each utilization).
use rule guest_job as filldelete_fill with:
    input:
        unpack(guest_inputs("jobs/age-image.sh")),
        trace=workloads("filldelete/traces/fill.iotrace"),
    output:
        out=directory(platform_runs("filldelete/{fs}/filled")),
    log:
        platform_runs("logs/filldelete-{fs}-filled.console.log"),
    benchmark:
        platform_runs("benchmarks/filldelete_fill-{fs}.tsv")
    wildcard_constraints:
        fs="ext4|f2fs",
    priority: LONG_CHAIN
    params:
        **guest_job_args(
            "{wildcards.fs} {mkfs} $(realpath {input.trace}) {seed}",
            mkfs=lambda w: filldelete_mkfs(w.fs, w.scale),
            seed=config["seed"],
        ),
        disk_mib=lambda w: scale_params(w.scale)["filldelete"]["disk_mib"],
        runner="--keep-disk",


rule filldelete_traces:
    input:
        model=Path(config["autoage"]["models"], "{app}.yaml"),
    output:
        directory(workloads("filldelete/traces/{level}-{app}")),
    log:
        workloads("logs/filldelete-traces-{level}-{app}.log"),
    priority: LONG_CHAIN
    localrule: True
    params:
        python=PYTHON,
        seed=config["seed"],
        target=lambda w: config["filldelete"]["levels"][w.level],
        disk_bytes=lambda w: scale_params(w.scale)["filldelete"]["disk_mib"]
        * 1024
        * 1024,
        sessions=lambda w: scale_params(w.scale)["filldelete"]["sessions"],
        size_scale=lambda w: app_size_scale(
            scale_params(w.scale)["filldelete"]["disk_mib"]
        ),
        hole_limit=lambda w: free_space_targets.hole_limit(
            config["filldelete"],
            app_size_scale(scale_params(w.scale)["filldelete"]["disk_mib"]),
        ),
    shell:
        "mkdir -p {output} && {params.python} -m mobifrag.workloads filldelete"
        " --part reclaim --disk-bytes {params.disk_bytes} --target {params.target}"
        " --hole-limit {params.hole_limit} --seed {params.seed}"
        " --out {output}/00-aging.iotrace > {log} 2>&1 &&"
        " {params.python} -m mobifrag.workloads scenario --model {input.model}"
        " --seed {params.seed} --sessions {params.sessions} --size-scale {params.size_scale}"
        " --out {output}/01-{wildcards.app}.iotrace >> {log} 2>&1"


use rule guest_job as filldelete_replay with:
    input:
        unpack(guest_inputs("jobs/replay-traces.sh")),
        traces=workloads("filldelete/traces/{level}-{app}"),
        filled=filldelete_filled_disk,
    output:
        out=directory(platform_runs(FILLDELETE_RUN)),
    log:
        platform_runs("logs/filldelete-{fs}-rep-{rep}-{level}-{app}.console.log"),
    benchmark:
        platform_runs("benchmarks/filldelete_replay-{fs}-rep-{rep}-{level}-{app}.tsv")
    wildcard_constraints:
        fs="ext4|f2fs",
        rep=r"\d+",
        level="low|moderate|high|full",
        app="[a-z]+",
    priority: LONG_CHAIN
    params:
        **guest_job_args(
            "{wildcards.fs} {mkfs} $(realpath {input.traces}) {seed}",
            mkfs=lambda w, input: (
                "aged" if input.filled else filldelete_mkfs(w.fs, w.scale)
            ),
            seed=lambda w: repetition_seed(w.scale, w.rep),
        ),
        disk_mib=lambda w: scale_params(w.scale)["filldelete"]["disk_mib"],
        cpus=experiment_cpus("filldelete"),
        runner=guest_args(
            "{disk}",
            disk=lambda w, input: (
                f"--disk-from {input.filled}/disk.img" if input.filled else ""
            ),
        ),


# Each level's free space after its aging (the 00-aging trace of every level-app run of
# every repetition).
rule filldelete_free_space:
    input:
        lambda w: run_folders(filldelete_runs(w)),
        code=python_sources("mobifrag.tables.free_space"),
    output:
        results("filldelete/{fs}/free-space.csv"),
    log:
        results("logs/filldelete-{fs}-free-space.log"),
    localrule: True
    params:
        python=PYTHON,
        states=lambda w: " ".join(
            free_space_targets.level_state(
                f"{level}-{app}-rep-{rep}",
                f"{run}/freespace/00-aging.txt",
                f"{run}/freespace/00-aging.df",
                level,
                config["filldelete"],
                app_size_scale(scale_params(w.scale)["filldelete"]["disk_mib"]),
            )
            for rep, level, app, run in filldelete_aged_runs(w)
        ),
    shell:
        "{params.python} -m mobifrag.tables.free_space {params.states} --out {output}"
        " 2> {log}"


rule filldelete_tables:
    input:
        lambda w: run_folders(filldelete_runs(w)),
        free_space=results("filldelete/{fs}/free-space.csv"),
        code=python_sources("mobifrag.tables.fragments"),
    output:
        results("filldelete/{fs}/dof.csv"),
    log:
        results("logs/filldelete-{fs}-tables.log"),
    localrule: True
    params:
        python=PYTHON,
        runs=lambda w: run_labels(filldelete_runs(w)),
    shell:
        "{params.python} -m mobifrag.tables.fragments {params.runs} --dof {output} 2> {log}"
