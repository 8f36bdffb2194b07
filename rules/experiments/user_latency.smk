# User-perceived latencies (TMC §5.2, Figs. 10–12): app launch, app install and SQLite
# queries on three aged states. Parameters: `user_latency` and each scale's
# `user_latency` in config/experiments/user_latency.yaml. Paths under results/workloads/{scale}/user-latency/ (traces,
# tiles), results/platform/{platform}/{scale}/user-latency/ (aged images, runs) and
# results/{device}/{scale}/user-latency/ (the table):
#   aging/{state}.iotrace, aged/{state}/        the No / Moderate / Severe images (kept
#                                               disk.img + fragcheck snapshot/)
#   aged/free-space.csv                         their free space, checked: no free extent
#                                               larger than a hole (copied beside latency.csv)
#   install/                                    one install trace per app + apps.tsv
#   tiles/mirth_cache.db                        the tile-cache database (host-built)
#   {state}/rep-{rep}/run/                      installs, launches, queries (blktrace);
#                                               repeated (config `repeated`), each
#                                               from the state's one aged image
#   latency.csv                                 the table of Figs. 10–12

from mobifrag.workflow import free_space_targets

UL = config["user_latency"]
UL_STATES = "|".join(UL["states"])
ul_params = lambda scale: scale_params(scale)["user_latency"]
ul_states = lambda scale: ul_params(scale)["states"]

# Checked now: a scale naming a state the config does not define stops the run.
for name, preset in config["scales"].items():
    unknown = sorted(set(preset["user_latency"]["states"]) - set(UL["states"]))
    if unknown:
        raise WorkflowError(
            f"config: scales.{name}.user_latency.states: {', '.join(unknown)} not in"
            f" user_latency.states ({', '.join(UL['states'])})"
        )
ul_dir = lambda w: on_platform("user-latency", w)

# (state, rep) → the run's folder below the platform's runs: each aged state's runs,
# repeated (config `repeated`).
user_latency_run_folders = lambda w: {
    (state, str(rep)): f"user-latency/{state}/rep-{rep}/run"
    for state in ul_states(w.scale)
    for rep in repetitions(w.scale, "user-latency", w.device)
}
user_latency_runs = lambda w: {
    key: on_platform(run, w) for key, run in user_latency_run_folders(w).items()
}

# The phases of a state's run (jobs/user-latency.sh: install-<app>, launch-<app>, sqlite).
UL_PHASES = [
    *(f"{step}-{app}" for step in ("install", "launch") for app in UL["apps"]),
    "sqlite",
]

# (state, rep, phase) → the replay summary of that phase of the state's run.
user_latency_models = lambda w: {
    (state, rep, phase): phase_summary(w, run, phase)
    for (state, rep), run in user_latency_run_folders(w).items()
    for phase in UL_PHASES
}


# An app's scenario model: TMC Table 3's, or one the config names (the game).
ul_model = lambda app: UL["models"].get(
    app, str(Path(config["autoage"]["models"], f"{app}.yaml"))
)


rule user_latency_aging_trace:
    output:
        workloads("user-latency/aging/{state}.iotrace"),
    log:
        workloads("logs/user-latency-aging-{state}.log"),
    wildcard_constraints:
        state=UL_STATES,
    localrule: True
    params:
        python=PYTHON,
        seed=config["seed"],
        fullness=config["filldelete"]["levels"][UL["fullness_level"]],
        disk_bytes=lambda w: ul_params(w.scale)["disk_mib"] * 1024 * 1024,
        small_bytes=lambda w: max(UL["states"][w.state], 4) * 1024,
        # No deletes no small files (TMC §5.2).
        total_bytes=lambda w: (
            ul_params(w.scale)["deleted_mib"] * 1024 * 1024
            if UL["states"][w.state]
            else 0
        ),
    shell:
        "{params.python} -m mobifrag.workloads holes --disk-bytes {params.disk_bytes}"
        " --fullness {params.fullness} --small-bytes {params.small_bytes}"
        " --small-total {params.total_bytes} --seed {params.seed} --out {output}"
        " > {log} 2>&1"


use rule guest_job as user_latency_age with:
    input:
        unpack(guest_inputs("jobs/age-image.sh")),
        trace=workloads("user-latency/aging/{state}.iotrace"),
    output:
        out=directory(platform_runs("user-latency/aged/{state}")),
    log:
        platform_runs("logs/user-latency-aged-{state}.console.log"),
    benchmark:
        platform_runs("benchmarks/user_latency_age-{state}.tsv")
    wildcard_constraints:
        state=UL_STATES,
    params:
        **guest_job_args(
            "{fs} {mkfs} $(realpath {input.trace}) {seed}",
            fs=UL["filesystem"],
            mkfs=mkfs_options(UL["filesystem"]),
            seed=config["seed"],
        ),
        disk_mib=lambda w: ul_params(w.scale)["disk_mib"],
        runner="--keep-disk",


# The aged states' free space, checked before any run starts from them: the holes must be
# the only free space (TMC §5.2), at the fullness level's utilization (TMC §4.3).
rule user_latency_free_space:
    input:
        aged=lambda w: [
            platform_runs("user-latency/aged/{state}").format(
                platform=w.platform, scale=w.scale, state=state
            )
            for state in ul_states(w.scale)
        ],
        code=python_sources("mobifrag.tables.free_space"),
    output:
        platform_runs("user-latency/aged/free-space.csv"),
    log:
        platform_runs("logs/user-latency-free-space.log"),
    localrule: True
    params:
        python=PYTHON,
        states=lambda w, input: " ".join(
            free_space_targets.holes_state(
                state,
                f"{aged}/freespace.txt",
                f"{aged}/df.txt",
                UL["fullness_level"],
                UL["states"][state] * 1024,
            )
            for state, aged in zip(ul_states(w.scale), input.aged)
        ),
    shell:
        "{params.python} -m mobifrag.tables.free_space {params.states} --out {output}"
        " 2> {log}"


rule user_latency_install_traces:
    input:
        models=[ul_model(app) for app in UL["apps"]],
    output:
        directory(workloads("user-latency/install")),
    log:
        workloads("logs/user-latency-install-traces.log"),
    localrule: True
    params:
        python=PYTHON,
        seed=config["seed"],
        apps=" ".join(UL["apps"]),
        size_scale=lambda w: app_size_scale(ul_params(w.scale)["disk_mib"]),
    shell:
        "{params.python} -m mobifrag.workloads.user_latency install-traces"
        " --apps {params.apps} --models {input.models} --seed {params.seed}"
        " --size-scale {params.size_scale} --out {output} > {log} 2>&1"


rule user_latency_tile_db:
    input:
        model=Path(config["autoage"]["models"], "earth.yaml"),
    output:
        workloads("user-latency/tiles/mirth_cache.db"),
    log:
        workloads("logs/user-latency-tile-db.log"),
    localrule: True
    params:
        python=PYTHON,
        seed=config["seed"],
        mib=lambda w: ul_params(w.scale)["tile_db_mib"],
    shell:
        "{params.python} -m mobifrag.workloads.tile_cache --bytes {params.mib}M --seed {params.seed}"
        " --out {output} > {log} 2>&1"


use rule guest_job as user_latency_run with:
    input:
        unpack(guest_inputs("jobs/user-latency.sh")),
        aged=platform_runs("user-latency/aged/{state}"),
        free_space=platform_runs("user-latency/aged/free-space.csv"),
        install=workloads("user-latency/install"),
        tiles=workloads("user-latency/tiles/mirth_cache.db"),
        queries=UL["queries"],
    output:
        out=directory(platform_runs("user-latency/{state}/rep-{rep}/run")),
    log:
        platform_runs("logs/user-latency-{state}-rep-{rep}.console.log"),
    benchmark:
        platform_runs("benchmarks/user_latency_run-{state}-rep-{rep}.tsv")
    wildcard_constraints:
        state=UL_STATES,
        rep=r"\d+",
    params:
        **guest_job_args(
            "{fs} $(realpath {input.install}) $(realpath {input.tiles}) $(realpath {input.queries}) {seed}",
            fs=UL["filesystem"],
            seed=lambda w: repetition_seed(w.scale, w.rep),
        ),
        disk_mib=lambda w: ul_params(w.scale)["disk_mib"],
        runner=guest_args("--disk-from {input.aged}/disk.img"),


# Every phase's replay is its own job (rule ftl_replay_phase); the table reads their
# summaries, the files' DoF from each run's snapshot and the wall time from latency.tsv.
rule user_latency_table:
    input:
        runs=lambda w: user_latency_runs(w).values(),
        aged=lambda w: [f"{ul_dir(w)}/aged/{state}" for state in ul_states(w.scale)],
        free_space=lambda w: f"{ul_dir(w)}/aged/free-space.csv",
        models=lambda w: user_latency_models(w).values(),
        code=python_sources("mobifrag.tables.user_latency"),
    output:
        table=results("user-latency/latency.csv"),
        free_space=results("user-latency/free-space.csv"),
    log:
        results("logs/user-latency-table.log"),
    localrule: True
    params:
        python=PYTHON,
        runs=lambda w: " ".join(
            f"--run {state} {rep} {path}"
            for (state, rep), path in user_latency_runs(w).items()
        ),
        models=lambda w: " ".join(
            f"--model {state} {rep} {phase} {path}"
            for (state, rep, phase), path in user_latency_models(w).items()
        ),
    shell:
        "{params.python} -m mobifrag.tables.user_latency {params.runs} {params.models}"
        " --table {output.table} 2> {log} && cp {input.free_space} {output.free_space}"
