"""IOzone, fetched as Debian's pinned iozone3 package (benchmarks/iozone, rule
iozone_fetch): an unreachable mirror is an error naming it and the package, offline a
vendor copy is checked or named missing; the fetched
binary runs the four tests as jobs/ext4tune-bench.sh invokes them (on the host, in a
scratch folder), each test only reads or only writes the file, and its reports are what
the Ext4-tuning table reads."""

import os
import re
import shutil
import subprocess

import pytest

from conftest import REPO, snakemake
from mobifrag.measure.iozone import iozone_run
from mobifrag.workloads.ext4tune import IOZONE_TESTS

SOURCE = REPO / "benchmarks" / "iozone"
IOZONE = REPO / "build" / "iozone" / "bin" / "iozone"
JOB = REPO / "jobs" / "ext4tune-bench.sh"
# IOzone's name for each test in its throughput report
LABELS = {
    "seq-write": "initial writers",
    "seq-read": "readers",
    "rand-write": "mixed workload",
    "rand-read": "mixed workload",
}


def pin():
    return dict(
        line.split("=", 1)
        for line in (SOURCE / "upstream.env").read_text().splitlines()
        if line and not line.startswith("#")
    )


def job_options():
    """Each test's IOzone options as the job gives them (its iozone_options)."""
    return dict(re.findall(r"^\s*([a-z-]+)\) echo '(-i [^']*)' ;;$", JOB.read_text(), re.M))


@pytest.mark.skipif(shutil.which("apt-get") is None, reason="no apt-get")
def test_an_unreachable_mirror_is_named_with_the_package(tmp_path):
    copy = tmp_path / "benchmarks" / "iozone"
    shutil.copytree(SOURCE, copy)
    env = (copy / "upstream.env").read_text()
    (copy / "upstream.env").write_text(
        re.sub(r"^IOZONE_MIRROR=.*$", "IOZONE_MIRROR=http://127.0.0.1:9/debian", env, flags=re.M)
    )
    done = subprocess.run(
        [copy / "fetch.sh", tmp_path / "build"], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 1
    version = pin()["IOZONE_VERSION"]
    assert f"cannot get iozone3 {version}: the mirror http://127.0.0.1:9/debian" in done.stderr
    assert not (tmp_path / "build" / "bin" / "iozone").exists()


def test_offline_a_damaged_vendor_copy_is_refused_and_a_missing_one_named(tmp_path):
    name = f"iozone3_{pin()['IOZONE_VERSION']}_{pin()['IOZONE_ARCH']}.deb"
    vendor = tmp_path / "vendor"
    vendor.mkdir()
    env = {**os.environ, "IOZONE_OFFLINE": "1", "MOBIFRAG_VENDOR": str(vendor)}
    fetch = [SOURCE / "fetch.sh", tmp_path / "build"]
    missing = subprocess.run(fetch, env=env, capture_output=True, text=True, timeout=120)
    assert missing.returncode == 1
    assert f"{vendor / name} is missing" in missing.stderr
    assert pin()["IOZONE_SHA256"] in missing.stderr
    (vendor / name).write_bytes(b"not the package")
    damaged = subprocess.run(fetch, env=env, capture_output=True, text=True, timeout=120)
    assert damaged.returncode == 1
    assert f"{vendor / name} has sha256" in damaged.stderr and "refusing it" in damaged.stderr
    assert not (tmp_path / "build" / "bin" / "iozone").exists()


@pytest.fixture(scope="module")
def iozone():
    """The binary rule iozone_fetch makes (fetched here when a fresh clone lacks it)."""
    snakemake(str(IOZONE.relative_to(REPO)))
    return IOZONE


@pytest.mark.workflow
def test_the_job_names_every_test(iozone):
    assert set(job_options()) == set(IOZONE_TESTS)


@pytest.mark.workflow
def test_the_four_tests_run_as_the_job_runs_them(tmp_path, iozone):
    target = tmp_path / "iozone.tmp"
    options = job_options()
    for test in IOZONE_TESTS:
        before = target.stat().st_mtime_ns if target.exists() else None
        command = [str(iozone), "-t", "1", *options[test].split(), "-s", "1m"]
        command += ["-e", "-w", "-+n", "-F", str(target)]
        run = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, check=True)
        report = tmp_path / f"{test}.txt"
        report.write_text(run.stdout + run.stderr)
        done = iozone_run(report)
        assert (done.test, done.processes) == (LABELS[test], 1), test
        assert done.file_kib == done.min_xfer_kib == 1024, test
        assert done.record_kib == (256 if test.startswith("seq") else 4), test
        assert done.children_kib_s > 0, test
        # -w keeps the file; a read test leaves it as it was, a write test writes it
        # (-+p 0: IOzone says "Percent read ... is 1", its one process writes only)
        assert target.stat().st_size == 1024 * 1024, test
        if test.endswith("read"):
            assert target.stat().st_mtime_ns == before, test
        elif before is not None:
            assert target.stat().st_mtime_ns > before, test
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        ["iozone.tmp", *(f"{t}.txt" for t in IOZONE_TESTS)]
    )
