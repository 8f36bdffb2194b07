"""scripts/bootstrap.sh's Python environment: built aside and moved into place whole, so
an interrupted bootstrap leaves no half-built venv; a folder holding only the stamp is
rebuilt; two bootstraps of one venv take turns. Each test bootstraps a copy of the script
with a lock that pins nothing (a real venv with pip, no download) into a temporary folder."""

from __future__ import annotations

import fcntl
import hashlib
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

from conftest import REPO


def checkout(tmp_path: Path) -> Path:
    """A folder laid out as the repository for bootstrap.sh --python-only."""
    root = tmp_path / "repo"
    (root / "scripts").mkdir(parents=True)
    shutil.copy2(REPO / "scripts" / "bootstrap.sh", root / "scripts" / "bootstrap.sh")
    (root / "requirements.txt").write_text("# no direct dependencies\n")
    (root / "requirements.lock").write_text("# pins nothing\n")
    return root


def bootstrap(root: Path, venv: Path, **popen) -> subprocess.Popen:
    env = {**os.environ, "MOBIFRAG_VENV": str(venv), "PYTHON": sys.executable}
    return subprocess.Popen(
        [str(root / "scripts" / "bootstrap.sh"), "--python-only"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        **popen,
    )


def finished(process: subprocess.Popen) -> tuple[int, str]:
    output, _ = process.communicate(timeout=300)
    return process.returncode, output


def wait_for(condition, seconds: float = 120) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)


def test_a_folder_holding_only_the_stamp_is_rebuilt(tmp_path):
    root, venv = checkout(tmp_path), tmp_path / "venv"
    venv.mkdir()
    lock = (root / "requirements.lock").read_bytes()
    (venv / "requirements.lock.sha256").write_text(hashlib.sha256(lock).hexdigest() + "\n")
    status, output = finished(bootstrap(root, venv))
    assert status == 0, output
    assert "installing" in output
    assert subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "--version"]).returncode == 0


def test_an_interrupted_bootstrap_leaves_no_venv_and_the_next_one_builds_it(tmp_path):
    root, venv = checkout(tmp_path), tmp_path / "venv"
    # SIGINT as a terminal delivers it, even where this test runs with it ignored (a
    # background job of a non-interactive shell), which the child would inherit
    process = bootstrap(
        root,
        venv,
        start_new_session=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    # Ctrl-C while the venv is being made (its pip is installed into it for seconds)
    wait_for(lambda: Path(f"{venv}.new", "bin").is_dir())
    os.killpg(process.pid, signal.SIGINT)
    status, output = finished(process)
    assert status != 0, output
    assert not venv.exists(), output  # no .venv that make would take for a whole one
    status, output = finished(bootstrap(root, venv))
    assert status == 0, output
    assert subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "--version"]).returncode == 0
    assert not Path(f"{venv}.new").exists()


def test_a_second_bootstrap_waits_then_finds_a_venv_that_works_where_it_lands(tmp_path):
    root, venv = checkout(tmp_path), tmp_path / "venv"
    with open(f"{venv}.lock", "w") as held:
        fcntl.flock(held, fcntl.LOCK_EX)  # as a first bootstrap of the venv holds it
        process = bootstrap(root, venv)
        time.sleep(3)
        assert process.poll() is None  # waiting, not building beside the first
        assert not Path(f"{venv}.new").exists()
    status, output = finished(process)
    assert status == 0, output
    assert f"waiting for another bootstrap of {venv}" in output
    assert (venv / "requirements.lock.sha256").is_file()
    assert not Path(f"{venv}.new").exists() and not Path(f"{venv}.old").exists()
    # pip's script was written in venv.new: its shebang now names the venv's own python
    pip = subprocess.run([str(venv / "bin" / "pip"), "--version"], capture_output=True, text=True)
    assert pip.returncode == 0, pip.stderr
    assert str(venv) in pip.stdout and f"{venv}.new" not in pip.stdout
    assert f"{venv}.new" not in (venv / "bin" / "activate").read_text()
    # a second run only checks
    status, output = finished(bootstrap(root, venv))
    assert status == 0 and "installing" not in output, output
