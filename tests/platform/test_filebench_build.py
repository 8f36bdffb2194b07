"""filebench, built from its pinned upstream source (benchmarks/filebench, rule
filebench_build): fetch.sh takes the verified vendor copy (its refusals:
tests/workflow/test_fetch_pinned.py); the FFSB workloads of benchmarks/filebench/ run with the
built binary (on the host, in a scratch folder) and their summaries are what the
Ext4-tuning table reads."""

import shutil
import subprocess

import pytest

from conftest import REPO, snakemake
from mobifrag.tables.ext4tune import (
    FILEBENCH_DATA,
    filebench_summary,
    filebench_workload,
)
from mobifrag.workloads.ext4tune import FILEBENCH_MIXES

SOURCE = REPO / "benchmarks" / "filebench"
FILEBENCH = REPO / "build" / "filebench" / "bin" / "filebench"
TARBALL = "filebench-22620e6.tar.gz"


def pin():
    return dict(
        line.split("=", 1)
        for line in (SOURCE / "upstream.env").read_text().splitlines()
        if line and not line.startswith("#")
    )


@pytest.mark.skipif(
    not (REPO.parent / "shared" / "vendor" / TARBALL).is_file(), reason="no vendor copy"
)
def test_fetch_takes_the_verified_vendor_copy(tmp_path):
    repo = tmp_path / "repo"
    (repo / "benchmarks").mkdir(parents=True)
    (repo / "scripts").mkdir()
    shutil.copy(REPO / "scripts" / "fetch-pinned.sh", repo / "scripts")
    shutil.copytree(SOURCE, repo / "benchmarks" / "filebench")
    (tmp_path / "shared").symlink_to(REPO.parent / "shared")
    env = {"PATH": "/usr/bin:/bin", "FILEBENCH_OFFLINE": "1"}
    fetch = [repo / "benchmarks" / "filebench" / "fetch.sh", tmp_path / "build"]
    done = subprocess.run(fetch, capture_output=True, text=True, env=env, check=True)
    source = tmp_path / "build" / "filebench-22620e6"
    assert done.stdout.strip() == str(source)
    assert (source / "configure.ac").is_file()
    assert (source / ".verified").read_text().strip() == pin()["FILEBENCH_SHA256"]


@pytest.fixture(scope="module")
def filebench():
    """The binary rule filebench_build makes (built here when a fresh clone lacks it)."""
    snakemake(str(FILEBENCH.relative_to(REPO)))
    return FILEBENCH


@pytest.mark.workflow
@pytest.mark.skipif(shutil.which("setarch") is None, reason="no setarch")
def test_the_ffsb_workloads_run_and_count_every_file_once(tmp_path, filebench):
    # the four mixes in the job's order, as jobs/ext4tune-bench.sh fills them in: 4
    # threads, 1 MiB large files, 3 small files per thread
    threads, files = 4, 3
    for mix in FILEBENCH_MIXES:
        text = (REPO / "benchmarks" / "filebench" / f"ffsb-{mix}.f").read_text()
        for name, value in {
            "DIR": tmp_path / "fs", "THREADS": threads, "LARGE": "1m", "FILES": files,
            "ENTRIES": threads * files, "TIMEOUT": 120,
        }.items():  # fmt: skip
            text = text.replace(f"@{name}@", str(value))
        assert "@" not in text.split("\nset mode")[1], mix
        workload = tmp_path / f"{mix}.f"
        workload.write_text(text)
        command = ["setarch", "x86_64", "-R", str(filebench), "-f", str(workload)]
        done = subprocess.run(command, capture_output=True, text=True, timeout=180)
        report = tmp_path / f"{mix}.txt"
        report.write_text(done.stdout + done.stderr)
        assert done.returncode == 0, report.read_text()
        flowops = filebench_summary(report)
        work = filebench_workload(workload)
        assert work["threads"] == threads
        op = FILEBENCH_DATA["write" if mix.endswith("write") else "read"]
        expected = threads if mix.startswith("large") else threads * files
        assert work["files"] == expected
        assert flowops[op][0] == expected, report.read_text()
    large = sorted((tmp_path / "fs" / "ffsblarge").rglob("*"))
    assert sum(p.stat().st_size for p in large if p.is_file()) == threads * 1024 * 1024
