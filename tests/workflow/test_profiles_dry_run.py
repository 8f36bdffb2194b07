"""Every shipped device profile plans a whole run without hardware, ramdisk or network;
what a profile still lacks (the HiKey960's Android ramdisk) fails the job that needs it.
"""

import os
import re
import subprocess
import sys

import pytest
import yaml

from conftest import (
    BOARD_SERIAL,
    REPO,
    local_device_files,
    local_env,
    planned_jobs,
    repo_copy,
    snakemake,
)
from mobifrag.workflow.profiles import DEVICES, SCHEMA
from mobifrag.workflow.study_config import load_config

PROFILES = sorted(p.stem for p in DEVICES.glob("*.yaml") if p != SCHEMA)


def without_ramdisk():
    unset = ("MOBIFRAG_RAMDISK", "MOBIFRAG_DRY_RUN")
    return {k: v for k, v in os.environ.items() if k not in unset}


def run_snakemake(args, env, cwd=REPO):
    command = [sys.executable, "-m", "snakemake", "--cores", "2", *args]
    return subprocess.run(command, cwd=cwd, env=local_env(env), capture_output=True, text=True)


@pytest.mark.parametrize("profile", PROFILES)
def test_every_shipped_profile_plans_a_whole_run(profile, board_serials):
    # --forceall: the whole plan, whatever the checkout has already run (after a finished
    # study a plain dry run has nothing to do and prints no job table).
    run = snakemake("-n", "--forceall", "all", "--config", f"device={profile}", check=False)
    output = run.stdout + run.stderr
    assert run.returncode == 0, output[-3000:]
    assert "Job stats" in output
    # A real device's jobs share its one test partition: each holds the run's one
    # adb_jobs slot (profiles/default), a guest none.
    on_hardware = profile_platform(profile) == "adb"
    assert ("adb_jobs=1" in output) == on_hardware
    assert ("adb_jobs=0" in output) != on_hardware
    # ARS's SQLite, app and selection runs, ARS's Fig. 1, TMC's user-latency and
    # persistent-journal runs repeat everywhere (config repeated); ARS's Fig. 2 runs once
    # everywhere.
    config = load_config()
    scale = config["scales"][config["scale"]]
    every_reps = scale["repetitions"]
    schemes, states = len(config["ars"]["schemes"]), len(scale["user_latency"]["states"])
    jobs = planned_jobs(output)
    runs = schemes * every_reps
    assert (jobs["ars_eval_sqlite"], jobs["ars_eval_apps"]) == (runs, runs)
    apps = len(config["ars_selection"]["apps"])
    assert jobs["ars_selection_replay"] == apps * every_reps
    assert jobs["user_latency_run"] == states * every_reps
    assert jobs["treat_journal"] == len(scale["treat"]["journal_modes"]) * every_reps
    assert (jobs["ars_motivation"], jobs["ars_blocksize"]) == (schemes * every_reps, schemes)


def profile_platform(name):
    return yaml.safe_load((DEVICES / f"{name}.yaml").read_text())["platform"]["type"]


def test_a_placeholder_serial_fails_the_plan_and_a_local_file_fixes_it(tmp_path):
    env = {**without_ramdisk(), "MOBIFRAG_LOCAL_DEVICES": str(tmp_path / "none")}
    plan = run_snakemake(["-n", "all", "--config", "device=hikey960"], env)
    output = plan.stdout + plan.stderr
    assert plan.returncode != 0
    assert "devices/hikey960.yaml: field platform.serial is the placeholder 'CHANGEME0123'" in (
        output
    )
    assert str(tmp_path / "none" / "hikey960.yaml") in output
    # a run that only prints its adb commands needs no serial; a local file gives one
    marker = ["-n", "--config", "device=hikey960", "--", "build/device/hikey960/ramdisk.missing"]
    printed = run_snakemake(marker, {**env, "MOBIFRAG_DRY_RUN": "1"})
    assert printed.returncode == 0, (printed.stdout + printed.stderr)[-3000:]
    env.update(local_device_files(tmp_path / "local"))
    planned = run_snakemake(marker, env)
    assert planned.returncode == 0, (planned.stdout + planned.stderr)[-3000:]
    # devices/local/ is ignored by git, so a board run leaves the checkout clean
    ignored = subprocess.run(["git", "check-ignore", "-q", "devices/local/hikey960.yaml"], cwd=REPO)
    assert ignored.returncode == 0


def test_the_missing_ramdisk_is_planned_and_fails_its_job_by_name(tmp_path):
    env = {**without_ramdisk(), **local_device_files(tmp_path / "local")}
    plan = run_snakemake(["-n", "all", "--config", "device=hikey960"], env)
    output = plan.stdout + plan.stderr
    assert plan.returncode == 0, output[-3000:]
    assert "ramdisk_missing" in output
    # The job itself (it has no inputs: nothing else runs) stops with the remedy.
    marker = "build/device/hikey960/ramdisk.missing"
    run = run_snakemake(["--nolock", "--config", "device=hikey960", "--", marker], env)
    output = run.stdout + run.stderr
    assert run.returncode != 0
    assert "MOBIFRAG_RAMDISK" in output and "platform.boot.ramdisk" in output
    assert "docs/hikey960.md" in output
    assert not (REPO / marker).exists()


def test_a_named_ramdisk_takes_the_markers_place(tmp_path):
    ramdisk = tmp_path / "ramdisk.img"
    ramdisk.write_bytes(b"ramdisk")
    env = {**without_ramdisk(), "MOBIFRAG_RAMDISK": str(ramdisk)}
    env.update(local_device_files(tmp_path / "local"))
    plan = run_snakemake(["-n", "all", "--config", "device=hikey960"], env)
    output = plan.stdout + plan.stderr
    assert plan.returncode == 0, output[-3000:]
    assert "ramdisk_missing" not in output and "boot_image" in output


@pytest.mark.parametrize("rule, done", [("flash_boot_image", "flash"), ("boot_once", "boot-once")])
def test_a_dry_run_flash_writes_its_done_file(tmp_path, rule, done):
    copy = repo_copy(tmp_path / "repo")
    boot = copy / "build/device/hikey960/boot.img"
    boot.parent.mkdir(parents=True)
    boot.write_bytes(b"boot image")
    ramdisk = tmp_path / "ramdisk.img"
    ramdisk.write_bytes(b"ramdisk")
    env = {**without_ramdisk(), "MOBIFRAG_RAMDISK": str(ramdisk), "MOBIFRAG_DRY_RUN": "1"}
    env.update(local_device_files(tmp_path / "local"))
    target = f"build/device/hikey960/{done}.done"
    args = ["--allowed-rules", rule, "--config", "device=hikey960", "--", target]
    run = run_snakemake(args, env, cwd=copy)
    assert run.returncode == 0, (run.stdout + run.stderr)[-3000:]
    assert '"dry_run": true' in (copy / target).read_text()
    # the local device file's serial reaches the commands
    assert f"fastboot -s {BOARD_SERIAL}" in (copy / f"build/device/hikey960/{done}.log").read_text()
    # A real run afterwards does not take the dry run's stamp for a flashed kernel.
    env.pop("MOBIFRAG_DRY_RUN")
    plan = run_snakemake(["-n", *args], env, cwd=copy)
    assert "Params have changed" in plan.stdout + plan.stderr


def test_the_profile_checker_prints_usage():
    run = subprocess.run(
        [sys.executable, "-m", "mobifrag.workflow.profiles", "--help"],
        cwd=REPO,
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0
    assert run.stdout.startswith("usage:") and "FILE" in run.stdout
    none = subprocess.run(
        [sys.executable, "-m", "mobifrag.workflow.profiles"],
        cwd=REPO,
        capture_output=True,
        text=True,
    )
    assert none.returncode == 2 and "usage:" in none.stderr


def test_a_broken_stray_profile_stops_only_runs_on_it(tmp_path):
    copy = repo_copy(tmp_path / "repo")
    (copy / "devices/stray.yaml").write_text("name: stray\nplatform: {type: qemu, cpus: many}\n")
    env = without_ramdisk()
    other = run_snakemake(["-n", "all", "--config", "device=emulator-emmc"], env, cwd=copy)
    assert other.returncode == 0, (other.stdout + other.stderr)[-3000:]
    own = run_snakemake(["-n", "all", "--config", "device=stray"], env, cwd=copy)
    assert own.returncode != 0 and "stray.yaml" in own.stdout + own.stderr


@pytest.mark.parametrize("name", ["CORES", "GUESTS_PER_CORE", "MEM_MB"])
@pytest.mark.parametrize("value", ["-1", "0", "two", ""])
def test_a_run_refuses_a_bad_core_count_or_memory(name, value):
    run = subprocess.run(
        ["make", "-s", "cores", f"{name}={value}"], cwd=REPO, capture_output=True, text=True
    )
    assert run.returncode == 2 and f"{name}={value} is not a positive number" in run.stderr
    assert subprocess.run(["make", "-s", "cores", f"{name}=2"], cwd=REPO).returncode == 0


def planned_command(target, *settings):
    """The Snakemake command `make TARGET` runs, as make prints it (continuations joined)."""
    run = subprocess.run(
        ["make", "-n", target, *settings], cwd=REPO, capture_output=True, text=True
    )
    command = run.stdout.replace("\\\n", " ")
    # The recipe may wrap the command (keeping its status for the partial report).
    line = next(line for line in command.splitlines() if "snakemake --profile" in line)
    return line[line.index("snakemake --profile") :].split(" || ")[0].strip()


def test_a_run_holds_guests_per_core_and_the_hosts_free_memory():
    command = planned_command("reproduce", "CORES=3", "GUESTS_PER_CORE=2", "MEM_MB=5000")
    assert (
        "--resources mem_mb=5000 adb_jobs=1 host_load=$(( 3 * 100 )) "
        "--max-jobs-per-timespan 1000/1m --cores $(( 3 * 2 ))" in command
    )
    free = planned_command("reproduce")
    assert "--resources mem_mb=" in free and "mem_mb= " not in free
    # The command as make runs it plans the study (every option takes its own words).
    env = {**os.environ, "PATH": f"{REPO / '.venv/bin'}:{os.environ['PATH']}"}
    plan = subprocess.run(
        ["bash", "-c", f"{command} --dry-run --forceall"],
        cwd=REPO,
        env=local_env(env),
        text=True,
        capture_output=True,
    )
    assert plan.returncode == 0, (plan.stdout + plan.stderr)[-3000:]
    loads = planned_host_loads(plan.stdout)
    # A busy guest holds a whole host core, Ext4 tuning's and ARS SQLite's two thirds,
    # an appender half, a host job none.
    assert loads["ars_eval_fragbench"] == {100}
    assert loads["ext4tune_bench"] == {66}
    assert loads["ars_eval_sqlite"] == {66}
    assert loads["concurrent_appenders"] == {50}
    assert loads["scan_run"] == {100}
    assert "ftl_replay_phase" not in loads


def planned_host_loads(dry_run):
    """host_load of each rule's planned jobs, from a dry run's job listing."""
    loads = {}
    for block in dry_run.split("\n\n"):
        rule = re.search(r"^(?:local)?rule (\w+):", block, re.MULTILINE)
        load = re.search(r"host_load=(\d+)", block)
        if rule and load:
            loads.setdefault(rule.group(1), set()).add(int(load.group(1)))
    return loads
