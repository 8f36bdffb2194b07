"""jobs/ext4tune-bench.sh's shm_tmp, run from a host shell in a mount namespace of its
own: filebench gets a writable /tmp, and of the host's /tmp only the folders that hold
the given paths come back (the host's /tmp and /run are never written)."""

import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest
from test_lib_sh import in_private_run

from conftest import REPO

SCRIPT = REPO / "jobs" / "ext4tune-bench.sh"


def shm_tmp_function() -> str:
    lines = SCRIPT.read_text().splitlines()
    start = lines.index("shm_tmp() {")
    end = lines.index("}", start)
    return "\n".join(lines[start : end + 1])


@pytest.fixture
def host_tmp_folder():
    """A folder of the host's /tmp holding a file, as a checkout under /tmp would."""
    folder = Path(tempfile.mkdtemp(prefix="mobifrag-shm-", dir="/tmp"))
    (folder / "bin").mkdir()
    (folder / "bin" / "filebench").write_text("a binary\n")
    yield folder
    shutil.rmtree(folder)


def run_shm_tmp(*paths: str, then="ls -A /tmp") -> subprocess.CompletedProcess:
    """shm_tmp PATHS, a file written to the new /tmp, then `then`."""
    quoted = " ".join(f"'{path}'" for path in paths)
    script = "\n".join(
        [
            'die() { echo "$*" >&2; exit 1; }',
            shm_tmp_function(),
            "mount -t tmpfs job-run /run && export TMPDIR=/run/tmp && mkdir -p $TMPDIR",
            f"shm_tmp {quoted}",
            "touch /tmp/filebench-shm-probe || exit 3",
            then,
        ]
    )
    return subprocess.run(in_private_run(script), capture_output=True, text=True, timeout=60)


def test_only_the_folders_holding_the_paths_come_back(host_tmp_folder):
    checkout = host_tmp_folder
    done = run_shm_tmp(str(checkout), f"{checkout}/bin/filebench", "/usr/bin/env")
    assert done.returncode == 0, done.stderr
    assert sorted(done.stdout.split()) == sorted([checkout.name, "filebench-shm-probe"])
    # The writable /tmp was the namespace's own.
    assert not Path("/tmp/filebench-shm-probe").exists()


def test_a_bound_folder_shows_the_hosts_files(host_tmp_folder):
    binary = host_tmp_folder / "bin" / "filebench"
    done = run_shm_tmp(str(binary), then=f"cat '{binary}'")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "a binary\n"


def test_no_path_under_tmp_leaves_an_empty_writable_tmp():
    done = run_shm_tmp("/usr/bin/env", "/opt/checkout")
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["filebench-shm-probe"]
