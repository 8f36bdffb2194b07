"""The workflow on a real SLURM cluster: a slice of the study through profiles/slurm.

scripts/slurm-local.sh brings up a single-node SLURM on localhost (munge, slurmctld,
slurmd, slurmdbd with a private MariaDB so that `sacct` reports finished jobs). The
TMC Fig. 6 slice (three concurrent-appender experiments and their tables) runs twice
from the same test-scale parameters under two scale names: once locally and once with
the SLURM executor. The kernel is built locally first (the emulator_kernel fixture).

What must match between the two runs is what does not depend on timing: the files each
run wrote, the tables' columns and rows, the files and their sizes, the file systems'
geometry. DoF and the layout (so layout.csv's row count) differ from one run to the
next, local or not: the writers are threads appending with fsync on a guest with two
vCPUs, and the order in which their appends reach ext4's allocator depends on thread
scheduling. For those the test checks the paper's qualitative result in both runs
instead (five writers fragment their files more than one writer does).

How the SLURM run submits: only the guest jobs become `sbatch` jobs; the table builder
is a local rule (`localrule: True`) and runs beside Snakemake. The first guest boot
of the SLURM run is made to fail (a qemu-system-x86_64 wrapper first on PATH, which the
jobs inherit through sbatch's --export=ALL): the guest rules' `retries: 1`
(rules/infra/guest.smk) must run it again and the run must still succeed. The Snakemake
inside a SLURM job honours a rule's own `retries`, so the second attempt runs in the same
allocation (the main process resubmits only when the SLURM job itself fails); the job's
SLURM log, kept with --slurm-keep-successful-logs, shows both attempts.
"""

import csv
import os
import re
import shutil
import subprocess
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

import pytest
import yaml

from conftest import REPO, clear_results, emulator_platform_run, planned_jobs, snakemake
from mobifrag.workflow.profiles import load_device
from mobifrag.workflow.study_config import load_config

pytestmark = [
    pytest.mark.slurm,
    pytest.mark.emulator,
    pytest.mark.skipif(
        os.geteuid() != 0,
        reason="needs root: scripts/slurm-local.sh installs slurm-wlm and starts SLURM's daemons",
    ),
]

SCRIPT = REPO / "scripts" / "slurm-local.sh"
DEVICE = "emulator-emmc"
SLURM_SCALE = "slurmtest"
LOCAL_SCALE = "slurmlocal"
SLICE = "concurrent-appenders"
# One file system keeps the slice short: the test is about scheduling, not about F2FS.
FILESYSTEM = "ext4"
JOB_PREFIX = "mobifragtest"
TIMEOUT_S = 600
QEMU = "qemu-system-x86_64"


def target(scale: str) -> str:
    return f"results/{DEVICE}/{scale}/{SLICE}/dof.csv"


def run_dir(scale: str) -> Path:
    return REPO / "results" / DEVICE / scale


def platform_dir(scale: str) -> Path:
    """Where the slice's guest runs are (mobifrag/workflow/stages.py)."""
    return emulator_platform_run(scale, DEVICE)


@pytest.fixture(scope="module")
def slurm_cluster():
    was_up = subprocess.run([SCRIPT, "status"], capture_output=True).returncode == 0
    start = subprocess.run([SCRIPT, "start"], capture_output=True, text=True, timeout=600)
    assert start.returncode == 0, f"slurm-local.sh start failed:\n{start.stdout}\n{start.stderr}"
    yield
    if not was_up:
        subprocess.run([SCRIPT, "stop"], capture_output=True, timeout=180)


def failing_qemu(bin_dir: Path, marker: Path) -> Path:
    """A qemu-system-x86_64 whose first guest boot (the call that creates `marker`)
    fails at once; every other call, and the KVM probe (no -virtfs), is the real qemu."""
    real = shutil.which(QEMU)
    assert real, f"{QEMU} not found"
    wrapper = bin_dir / QEMU
    wrapper.write_text(
        "#!/bin/sh\n"
        f'case " $* " in *" -virtfs "*) if mkdir {marker} 2>/dev/null; then\n'
        f'  echo "{QEMU}: failure injected by tests/emulator/test_slurm.py" >&2; exit 1\n'
        "fi ;; esac\n"
        f'exec {real} "$@"\n'
    )
    wrapper.chmod(0o755)
    return wrapper


def cancel_leftovers():
    """Cancel this test's SLURM jobs still queued or running (after a timeout)."""
    queue = subprocess.run(["squeue", "-h", "-o", "%i %j"], capture_output=True, text=True)
    ids = [
        line.split()[0]
        for line in queue.stdout.splitlines()
        if line.split()[1].startswith(f"{JOB_PREFIX}_")
    ]
    if ids:
        subprocess.run(["scancel", *ids], capture_output=True)


@pytest.fixture(scope="module")
def runs(emulator_kernel, slurm_cluster, tmp_path_factory):
    """Run the slice locally and through SLURM; return both runs' outputs."""
    # Only the two scales: Snakemake merges this file over config/config.yaml.
    test_scale = load_config()["scales"]["test"]
    # One run per experiment: the test is about scheduling, not about repetitions.
    test_scale["repetitions"] = 1
    override = tmp_path_factory.mktemp("slurm") / "config.yaml"
    override.write_text(
        yaml.safe_dump(
            {
                "scales": {SLURM_SCALE: test_scale, LOCAL_SCALE: test_scale},
                "concurrent_appenders": {"filesystems": [FILESYSTEM]},
            }
        )
    )
    for scale in (SLURM_SCALE, LOCAL_SCALE):
        # Always fresh real runs: an earlier run's results must not stand in for these.
        clear_results(scale, device=DEVICE)

    local = snakemake(
        target(LOCAL_SCALE), "--configfile", str(override), "--config", f"scale={LOCAL_SCALE}"
    )

    command = [
        sys.executable,
        "-m",
        "snakemake",
        "--workflow-profile",
        "profiles/slurm",
        # The cluster is local and idle: no need to wait the default 40 s before the
        # first status query.
        "--slurm-init-seconds-before-status-checks",
        "5",
        # A prefix of its own, so that the jobs of this test can be found and cancelled.
        "--slurm-jobname-prefix",
        JOB_PREFIX,
        # The retried job's log (test_failed_guest_job_was_retried).
        "--slurm-keep-successful-logs",
        target(SLURM_SCALE),
        "--configfile",
        str(override),
        "--config",
        f"scale={SLURM_SCALE}",
    ]
    # The first guest boot of the SLURM run fails once (failing_qemu).
    wrapper_dir = tmp_path_factory.mktemp("failing-qemu")
    marker = wrapper_dir / "failed-once"
    failing_qemu(wrapper_dir, marker)
    env = {**os.environ, "PATH": f"{wrapper_dir}{os.pathsep}{os.environ['PATH']}"}
    started = time.monotonic()
    try:
        cluster = subprocess.run(
            command, cwd=REPO, capture_output=True, text=True, timeout=TIMEOUT_S, env=env
        )
    except subprocess.TimeoutExpired:
        cancel_leftovers()
        raise
    output = cluster.stdout + cluster.stderr
    assert cluster.returncode == 0, f"{' '.join(command)} failed:\n{output[-5000:]}"
    print(f"SLURM run: {time.monotonic() - started:.0f} s")

    # The plugin's run ID (prefix_uuid) is the SLURM job name of every job of the run.
    run_id = re.search(r"SLURM run ID: (\S+)", output).group(1)
    assert run_id.startswith(f"{JOB_PREFIX}_")
    # Every sbatch call, as (Snakemake job, SLURM job): a retried job appears twice.
    submitted = re.findall(
        r"Job (\d+) has been submitted with SLURM jobid (\d+) \(log: ([^)]+)\)", output
    )
    return {
        "local_output": local.stdout + local.stderr,
        "slurm_output": output,
        "job_name": run_id,
        "submitted": submitted,
        "failure_injected": marker.is_dir(),
    }


def sacct(job_name: str) -> list[dict[str, str]]:
    fields = ["JobID", "JobName", "State", "Comment", "AllocCPUS", "ReqMem", "ExitCode"]
    listing = subprocess.run(
        ["sacct", "-X", "-n", "-P", "--name", job_name, "-S", "now-1days"]
        + ["-o", ",".join(fields)],
        capture_output=True,
        text=True,
        check=True,
    )
    return [dict(zip(fields, line.split("|"), strict=True)) for line in listing.stdout.splitlines()]


def megabytes(request: str) -> float:
    """sacct's ReqMem ("2G", "2048M", "1000Mn", ...) in MB."""
    number, unit = re.fullmatch(r"([\d.]+)([KMGT]?)[nc]?", request).groups()
    return float(number) * {"K": 1 / 1024, "": 1, "M": 1, "G": 1024, "T": 1024**2}[unit]


def expected_jobs() -> Counter:
    config = load_config()
    runs = len(config[SLICE.replace("-", "_")]["writers"])
    return Counter({"concurrent_appenders": runs, "concurrent_appenders_tables": 1})


def test_both_runs_planned_the_same_jobs(runs):
    assert planned_jobs(runs["local_output"]) == expected_jobs()
    assert planned_jobs(runs["slurm_output"]) == expected_jobs()


def guest_jobs() -> int:
    return expected_jobs()["concurrent_appenders"]


def test_only_guest_jobs_were_submitted(runs):
    # The slice's three guest jobs, each once; the table builder is a local rule: no
    # sbatch job of its own.
    assert len(runs["submitted"]) == guest_jobs()
    assert len({job for job, _, _ in runs["submitted"]}) == guest_jobs()
    assert re.search(r"^localrule concurrent_appenders_tables:$", runs["slurm_output"], re.M)
    assert "rule_concurrent_appenders_tables" not in runs["slurm_output"]


def test_failed_guest_job_was_retried(runs):
    assert runs["failure_injected"], "no guest boot went through the failing qemu wrapper"
    jobs = sacct(runs["job_name"])
    assert {job["JobID"] for job in jobs} == {slurm_id for _, slurm_id, _ in runs["submitted"]}
    assert {(job["State"], job["ExitCode"]) for job in jobs} == {("COMPLETED", "0:0")}
    # Exactly one job's first attempt failed; it ran again in its allocation and succeeded.
    logs = {slurm_id: Path(log).read_text() for _, slurm_id, log in runs["submitted"]}
    failed = [slurm_id for slurm_id, text in logs.items() if "failure injected" in text]
    assert len(failed) == 1, failed
    text = logs[failed[0]]
    assert re.search(r"^Trying to restart job \d+\.$", text, re.M), text[-3000:]
    assert text.rindex("Trying to restart job") > text.index("failure injected")


def test_every_job_went_through_slurm(runs):
    jobs = sacct(runs["job_name"])
    # The plugin names every job of a run after the run and puts the rule and its
    # wildcards in the job's comment.
    rules = Counter(
        re.fullmatch(r"rule_(\w+?)_wildcards_.*", job["Comment"]).group(1) for job in jobs
    )
    assert rules == Counter({"concurrent_appenders": guest_jobs()})
    writers = load_config()["concurrent_appenders"]["writers"]
    # A guest job's wildcards: the platform key, scale, file system, writers, repetition.
    platform = platform_dir(SLURM_SCALE).parent.name
    assert {job["Comment"] for job in jobs if "appenders_wildcards" in job["Comment"]} == {
        f"rule_concurrent_appenders_wildcards_{platform}_{SLURM_SCALE}_{FILESYSTEM}_{n}_1"
        for n in writers
    }


def test_slurm_gave_the_declared_resources(runs):
    profile = yaml.safe_load((REPO / "profiles" / "slurm" / "config.yaml").read_text())
    # Guest rules declare their resources from the device profile (rules/common/guest.smk).
    guest = load_device(DEVICE)["platform"]
    jobs = sacct(runs["job_name"])
    assert jobs
    for job in jobs:
        # Only guest jobs go to SLURM (test_only_guest_jobs_were_submitted).
        assert job["Comment"].startswith("rule_concurrent_appenders_wildcards")
        assert int(job["AllocCPUS"]) == guest["cpus"]
        assert megabytes(job["ReqMem"]) == guest["memory_mib"] + 1024
    # What a job without resources of its own would get.
    assert profile["default-resources"]["mem_mb"] != guest["memory_mib"] + 1024


def relative_files(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*") if p.is_file()}


def test_same_files(runs):
    local, cluster = relative_files(run_dir(LOCAL_SCALE)), relative_files(run_dir(SLURM_SCALE))
    assert cluster == local
    local_runs = relative_files(platform_dir(LOCAL_SCALE))
    assert relative_files(platform_dir(SLURM_SCALE)) == local_runs
    assert f"{SLICE}/dof.csv" in cluster
    # No leftovers of an unfinished job (staging folder, disk image).
    assert not any(".running" in path or path.endswith(".img") for path in cluster | local_runs)


def read_table(path: Path, delimiter=","):
    with open(path) as handle:
        reader = csv.DictReader(handle, delimiter=delimiter)
        return reader.fieldnames, list(reader)


# Per-file facts that do not depend on how the writers' appends interleaved.
DOF_STABLE = ("fs", "writers", "path", "class", "size_bytes", "ideal_extents")


def test_same_tables(runs):
    local_cols, local_dof = read_table(run_dir(LOCAL_SCALE) / SLICE / "dof.csv")
    cluster_cols, cluster_dof = read_table(run_dir(SLURM_SCALE) / SLICE / "dof.csv")
    assert cluster_cols == local_cols
    assert len(cluster_dof) == len(local_dof) > 0

    def stable(rows):
        return sorted(tuple(row[c] for c in DOF_STABLE) for row in rows)

    assert stable(cluster_dof) == stable(local_dof)

    local_cols, local_layout = read_table(run_dir(LOCAL_SCALE) / SLICE / "layout.csv")
    cluster_cols, cluster_layout = read_table(run_dir(SLURM_SCALE) / SLICE / "layout.csv")
    assert cluster_cols == local_cols
    files = {(r["fs"], r["writers"], r["path"]) for r in cluster_layout}
    assert files == {(r["fs"], r["writers"], r["path"]) for r in local_layout}


def test_same_snapshots(runs):
    for experiment in sorted((platform_dir(LOCAL_SCALE) / SLICE / "ext4").iterdir()):
        local = experiment / "rep-1" / "snapshot"
        cluster = platform_dir(SLURM_SCALE) / SLICE / "ext4" / experiment.name / "rep-1/snapshot"
        for table, stable in (
            ("files.tsv", ("path", "size_bytes")),
            ("fs.tsv", ("fs_type", "block_size", "total_blocks")),
        ):
            local_cols, local_rows = read_table(local / table, "\t")
            cluster_cols, cluster_rows = read_table(cluster / table, "\t")
            assert cluster_cols == local_cols
            assert sorted(tuple(r[c] for c in stable) for r in cluster_rows) == sorted(
                tuple(r[c] for c in stable) for r in local_rows
            ), f"{experiment.name}/{table}"


def test_both_runs_show_concurrent_appends_fragment(runs):
    for scale in (LOCAL_SCALE, SLURM_SCALE):
        _, rows = read_table(run_dir(scale) / SLICE / "dof.csv")
        dof = defaultdict(list)
        for row in rows:
            dof[int(row["writers"])].append(float(row["dof"]))
        mean = {writers: sum(v) / len(v) for writers, v in dof.items()}
        assert mean[max(mean)] > mean[min(mean)], f"{scale}: {mean}"
