"""The workflow as a user drives it: dry runs, lint, and errors before any work."""

import importlib

import pytest
import yaml

from conftest import (
    JOINT_CORES,
    REPO,
    clear_results,
    emulator_platform_run,
    joint_run,
    may_write,
    planned_jobs,
    runs_workflow,
    snakemake,
    write_snapshot,
)
from mobifrag.workflow.figure_registry import read_registry
from mobifrag.workflow.study_config import load_config


def test_dry_run_shows_the_chain(tmp_path):
    # A fresh results folder (another scale name) so every experiment is planned.
    config = load_config()
    # The scan with a repetition count of its own (repetitions_of), the rest the scale's.
    config["scales"]["dryrun"] = {**config["scales"]["test"], "repetitions_of": {"scan": 3}}
    override = tmp_path / "config.yaml"
    override.write_text(yaml.safe_dump(config))
    run = snakemake("-n", "all", "--configfile", str(override), "--config", "scale=dryrun")
    jobs = planned_jobs(run.stdout + run.stderr)
    appenders = config["concurrent_appenders"]
    runs = len(appenders["writers"]) * len(appenders["filesystems"])
    repetitions = config["scales"]["test"]["repetitions"]
    assert repetitions != 3
    assert jobs["concurrent_appenders"] == runs * repetitions
    assert jobs["scan_run"] == 3 * len(config["scan"]["filesystems"])
    assert jobs["dispersed_run"] == repetitions * len(config["dispersed"]["filesystems"])
    # AutoAge's writers interleave differently in every run: one replay per repetition.
    assert jobs["autoage_replay"] == repetitions
    assert jobs["concurrent_appenders_tables"] == 1
    assert jobs["figure"] == len(read_registry())


# Conda-forge has no qemu-system, f2fs-tools or blktrace, so rules carry no conda/container
# directive: the software comes from bootstrap/debian-packages.txt or the Nix shell.
ACCEPTED_LINT = "Specify a conda environment or container for each rule."


def test_lint_finds_nothing_else():
    run = snakemake("--lint", check=False)
    lints = [
        line.strip()[2:].rstrip(":")
        for line in (run.stdout + run.stderr).splitlines()
        if line.strip().startswith("* ")
    ]
    assert lints, "snakemake --lint printed nothing: did its output format change?"
    assert set(lints) == {ACCEPTED_LINT}


def test_unknown_device_fails_before_any_work():
    run = snakemake("-n", "all", "--config", "device=no-such-phone", check=False)
    assert run.returncode != 0
    assert "devices/no-such-phone.yaml: no such device profile" in run.stdout + run.stderr


def test_bad_profile_names_file_and_field():
    path = REPO / "devices" / "test-broken-profile.yaml"
    profile = yaml.safe_load((REPO / "devices" / "emulator-emmc.yaml").read_text())
    profile["name"] = "test-broken-profile"
    profile["platform"]["cpus"] = "two"
    profile["storage"]["warp"] = 9
    path.write_text(yaml.safe_dump(profile))
    try:
        run = snakemake("-n", "all", "--config", "device=test-broken-profile", check=False)
    finally:
        path.unlink()
    output = run.stdout + run.stderr
    assert run.returncode != 0
    assert "test-broken-profile.yaml: field platform.cpus" in output
    assert "field storage.warp" in output


def test_unknown_scale_is_named():
    run = snakemake("-n", "all", "--config", "scale=enormous", check=False)
    assert run.returncode != 0
    assert "scale 'enormous' is not one of" in run.stdout + run.stderr


def test_missing_kernel_source_is_one_line(tmp_path):
    config = load_config()
    config["kernel"]["source"] = str(tmp_path / "linux-source-6.1.tar.xz")
    override = tmp_path / "config.yaml"
    override.write_text(yaml.safe_dump(config))
    run = snakemake("-n", "all", "--configfile", str(override), check=False)
    assert run.returncode != 0
    assert "install it with 'apt-get install linux-source-6.1'" in run.stdout + run.stderr


def test_empty_mkfs_options_stay_one_argument():
    # F2FS's mkfs options are empty by default; the job script still needs the argument.
    run_dir = emulator_platform_run("test") / "concurrent-appenders/f2fs/writers-1/rep-1"
    run = snakemake("-n", "-p", "-f", str(run_dir.relative_to(REPO)), "--config", "scale=test")
    assert " -- f2fs '' 1 " in run.stdout + run.stderr


def test_the_measured_writers_get_the_phones_cores_and_the_aging_does_not():
    runs = emulator_platform_run("test")
    targets = [runs / "concurrent-appenders/ext4/writers-5/rep-1", runs / "filldelete/ext4/filled"]
    relative = [str(t.relative_to(REPO)) for t in targets]
    run = snakemake("-n", "-p", "-f", *relative, "--config", "scale=test")
    commands = [line for line in run.stdout.splitlines() if "mobifrag.platform.run" in line]
    by_script = {c.split("--script ")[1].split()[0]: c for c in commands}
    assert set(by_script) == {"jobs/concurrent-appenders.sh", "jobs/age-image.sh"}
    assert " --cpus 4 -- " in by_script["jobs/concurrent-appenders.sh"]
    assert "--cpus" not in by_script["jobs/age-image.sh"]


def test_a_bad_vcpu_count_in_the_config_is_named(tmp_path):
    config = load_config()
    config["guest_cpus"]["treat"] = 16
    override = tmp_path / "config.yaml"
    override.write_text(yaml.safe_dump(config))
    run = snakemake("-n", "all", "--configfile", str(override), check=False)
    assert run.returncode != 0
    assert "guest_cpus" in run.stdout + run.stderr
    assert "16 is greater than the maximum of 8" in run.stdout + run.stderr


@pytest.mark.parametrize("seed", [-1, 0, 2**31, 2**64])
def test_a_seed_a_workload_cannot_take_is_refused_naming_seed(seed):
    # PostMark reads its seed as a positive C int; 0 or less it replaces with 42
    run = snakemake("-n", "all", "--config", f"seed={seed}", check=False)
    output = run.stdout + run.stderr
    assert run.returncode != 0
    assert f"On instance['seed']:\n    {seed}" in output


def test_a_repetitions_seed_past_the_bound_is_refused_naming_seed():
    largest = yaml.safe_load((REPO / "config" / "schema.yaml").read_text())["properties"]["seed"]
    run = snakemake("-n", "all", "--config", f"seed={largest['maximum']}", check=False)
    output = run.stdout + run.stderr
    assert run.returncode != 0
    assert f"config seed {largest['maximum']} + repetition_seed_offset 0 + repetition 2" in output


@pytest.mark.parametrize(
    ("device", "series"), [("emulator-emmc", "emulator wall"), ("hikey960", "phone wall")]
)
def test_figures_name_the_wall_series_for_where_the_runs_ran(device, series, board_serials):
    figure = f"paper-figures/{device}/test/tmc-fig13a-dispersed-writes.pdf"
    run = snakemake("-n", "-p", "-f", figure, "--config", "scale=test", f"device={device}")
    assert f'MOBIFRAG_WALL_SERIES="{series}"' in run.stdout
    # and the table of the paper's values beside this run's, which save_figure draws
    reference = f"results/{device}/test/figures/tmc-fig13a-dispersed-writes-paper.csv"
    assert f"MOBIFRAG_FIGURE_REFERENCE={reference}" in run.stdout


def test_the_emulator_tests_joint_run_plans_every_modules_guest_jobs(monkeypatch):
    # The one run tests/conftest.py (fresh_runs) makes the emulator tests' outputs with:
    # a run it cannot start falls back to one module after another, which passes, slowly.
    # Each module is imported as pytest imports it: by its name, its folder on sys.path.
    modules = []
    for path in sorted(REPO.glob("tests/*/test_*.py")):
        monkeypatch.syspath_prepend(path.parent)
        modules.append(importlib.import_module(path.stem))
    runs = [m.FRESH_RUN for m in modules if hasattr(m, "FRESH_RUN")]
    assert len(runs) >= 10
    plan = snakemake("-n", "--forceall", *joint_run(runs), cores=JOINT_CORES)
    jobs = planned_jobs(plan.stdout)
    guests = ("ars_eval_fragbench", "filldelete_fill", "ext4tune_bench", "scan_run")
    assert all(jobs.get(rule) for rule in (*guests, "user_latency_run", "treat_e4defrag"))


def test_tests_that_wait_for_the_joint_run_come_after_the_others(request):
    # The joint run goes on in the background while the others run; a test that waits
    # for it in their midst would hold them all back until it ends.
    order = [runs_workflow(item) for item in request.session.items]
    assert order == sorted(order)
    selected = {item.nodeid for item in request.session.items}
    emulator = "tests/emulator/test_emulator.py::test_job_outputs_and_disk_reach_the_host"
    if emulator in selected:
        assert runs_workflow(next(i for i in request.session.items if i.nodeid == emulator))


def test_only_runs_that_may_write_wait_for_the_joint_run():
    assert may_write(("results/x.tsv", "--config", "scale=test"))
    assert not may_write(("-n", "all"))
    assert not may_write(("--dry-run", "all"))
    assert not may_write(("--lint",))


def test_profiles_on_one_platform_share_its_runs():
    # emulator-ufs differs from emulator-emmc only in its storage model: its tables read
    # the same platform runs, so a device swap reruns no guest.
    emmc, ufs = emulator_platform_run("test"), emulator_platform_run("test", "emulator-ufs")
    assert emmc == ufs
    table = "results/emulator-ufs/test/concurrent-appenders/dof.csv"
    run = snakemake("-n", "-p", "-F", table, "--config", "scale=test", "device=emulator-ufs")
    assert f"{emmc.relative_to(REPO)}/concurrent-appenders/ext4/writers-5/rep-2" in run.stdout
    # The guest jobs name one profile of the platform whichever device the run is for, so
    # a swap changes none of their parameters (Snakemake would rerun them otherwise).
    assert "--device emulator-emmc" in run.stdout and "--device emulator-ufs" not in run.stdout


def test_platform_key_follows_what_defines_the_platform():
    from mobifrag.workflow.profiles import load_device
    from mobifrag.workflow.stages import platform_key

    platform = load_device("emulator-emmc")["platform"]
    key = platform_key(platform, "emulator-6.1-0123456789ab")
    assert key.startswith("qemu-x86_64-")
    assert platform_key({**platform, "memory_mib": 2048}, "emulator-6.1-0123456789ab") != key
    assert platform_key({**platform, "cpus": 2}, "emulator-6.1-0123456789ab") != key
    assert platform_key(platform, "emulator-6.1-ba9876543210") != key


@pytest.mark.emulator
def test_figure_over_a_broken_table_names_the_rule_and_file(tmp_path, emulator_kernel):
    # Experiments done but one snapshot malformed: the figure must fail in the rule that
    # turns snapshots into its table, naming the file, and keep the experiments. The
    # snapshots stand in for the guest's, but the kernel is an input of their rules, so
    # without a built one the run would stop there, before the table.
    import shutil

    scale = "brokentable"
    config = load_config()
    config["scales"][scale] = config["scales"]["test"]
    override = tmp_path / "config.yaml"
    override.write_text(yaml.safe_dump(config))
    run_dir = REPO / "results/emulator-emmc" / scale
    clear_results(scale)
    try:
        appenders = emulator_platform_run(scale) / "concurrent-appenders"
        for fs in config["concurrent_appenders"]["filesystems"]:
            for n in config["concurrent_appenders"]["writers"]:
                for rep in range(1, config["scales"][scale]["repetitions"] + 1):
                    snapshot = appenders / f"{fs}/writers-{n}/rep-{rep}/snapshot"
                    write_snapshot(snapshot, files=[], extents=[])
        broken = appenders / "ext4/writers-1/rep-1/snapshot/files.tsv"
        broken.write_text("path\tsize\n")
        figure = f"paper-figures/emulator-emmc/{scale}/tmc-fig06-layout.pdf"
        run = snakemake(
            figure,
            "--configfile",
            str(override),
            "--config",
            f"scale={scale}",
            "--allowed-rules",
            "concurrent_appenders_tables",
            "figure_stamp",
            "figure",
            check=False,
        )
        assert run.returncode != 0
        assert "Error in rule concurrent_appenders_tables" in run.stdout + run.stderr
        log = run_dir / "logs/concurrent-appenders-tables.log"
        assert str(broken.relative_to(REPO)) in log.read_text()
        assert broken.is_file()
    finally:
        clear_results(scale)
        shutil.rmtree(REPO / "paper-figures/emulator-emmc" / scale, ignore_errors=True)


def rule_directives(text: str):
    """(rule, {directive: its text}) of every rule of a snakefile, read as text."""
    rule, directives, current = None, {}, None
    for line in [*text.splitlines(), "end:"]:
        if line and not line[0].isspace():
            if rule:
                yield rule, directives
            head = line.split()
            is_rule = len(head) == 2 and head[0] in ("rule", "checkpoint")
            derived = head[:2] == ["use", "rule"] and len(head) == 6
            name = head[1].rstrip(":") if is_rule else head[4] if derived else None
            rule, directives, current = name, {}, None
            if derived:
                directives["base"] = head[2]
        elif rule and line.startswith("    ") and not line.startswith("     "):
            current, _, rest = line.strip().partition(":")
            directives[current] = rest
        elif rule and current:
            directives[current] += "\n" + line


def test_every_guest_and_model_rule_writes_a_benchmark_beside_its_log():
    # Guest rules run the platform runner; model rules run ftl-sim or FlashSim (their
    # input `sim`). mobifrag.report.job_times reads the benchmark files, and takes a file's rule
    # from its name: <stage folder>/benchmarks/<rule>-<wildcards>.tsv or <rule>.tsv.
    import re

    checked = set()
    for path in [REPO / "Snakefile", *sorted((REPO / "rules").rglob("*.smk"))]:
        for rule, directives in rule_directives(path.read_text()):
            guest = directives.get("base") == "guest_job"
            model = re.search(r"^\s+sim=", directives.get("input", ""), re.MULTILINE)
            if not (guest or model):
                continue
            checked.add(rule)
            where = f"{path.name}: rule {rule}"
            assert "benchmark" in directives, f"{where} declares no benchmark:"
            benchmark = re.sub(r"\s+", "", directives["benchmark"])
            log = re.sub(r"\s+", "", directives["log"])
            stage, _, name = benchmark.partition("benchmarks/")
            assert stage == log.partition("logs/")[0], f"{where}: benchmark not beside its log"
            assert re.match(rf"{rule}[-.]", name), f"{where}: benchmark file not named <rule>-"
    assert {"concurrent_appenders", "scan_run", "ftl_replay_phase", "ftl_replay"} <= checked
    assert {"ftl_dop", "flashsim_diff", "ftl_replay_run", "janusd_recurring"} <= checked
