"""scripts/fetch-pinned.sh, through each tool's fetch.sh: offline and without the vendor
copy it names what to fetch; a vendor copy whose bytes are damaged is refused, naming the
pinned checksum, and nothing is unpacked."""

import shutil
import subprocess

import pytest

from conftest import REPO

# tool → the folder holding its fetch.sh and upstream.env
TOOLS = {"flashsim": "model/flashsim", "filebench": "benchmarks/filebench"}


def pins(folder):
    return dict(
        line.split("=", 1)
        for line in (REPO / folder / "upstream.env").read_text().splitlines()
        if line and not line.startswith("#")
    )


@pytest.mark.parametrize("tool", sorted(TOOLS))
def test_fetch_names_what_to_fetch_and_refuses_a_damaged_copy(tmp_path, tool):
    folder, prefix = TOOLS[tool], tool.upper()
    pin = pins(folder)
    assert len(pin[f"{prefix}_COMMIT"]) == 40 and len(pin[f"{prefix}_SHA256"]) == 64
    tarball = f"{tool}-{pin[f'{prefix}_COMMIT'][:7]}.tar.gz"
    # A copy of the repository layout without the vendor folder, offline: a clear error.
    repo = tmp_path / "repo"
    (repo / "scripts").mkdir(parents=True)
    shutil.copy(REPO / "scripts" / "fetch-pinned.sh", repo / "scripts")
    shutil.copytree(REPO / folder, repo / folder)
    env = {"PATH": "/usr/bin:/bin", f"{prefix}_OFFLINE": "1"}
    fetch = [repo / folder / "fetch.sh", tmp_path / "build"]
    done = subprocess.run(fetch, capture_output=True, text=True, env=env)
    assert done.returncode == 1
    for key in ("REPO", "COMMIT", "SHA256"):
        assert pin[f"{prefix}_{key}"] in done.stderr, done.stderr
    assert f"shared/vendor/{tarball}" in done.stderr
    # The real tarball with one byte changed (or stand-in bytes where there is none).
    vendor = tmp_path / "shared" / "vendor"
    vendor.mkdir(parents=True)
    real = REPO.parent / "shared" / "vendor" / tarball
    damaged = bytearray(real.read_bytes() if real.is_file() else b"not the tool")
    damaged[len(damaged) // 2] ^= 0xFF
    (vendor / tarball).write_bytes(bytes(damaged))
    done = subprocess.run(fetch, capture_output=True, text=True, env=env)
    assert done.returncode == 1 and "refusing" in done.stderr, done.stderr
    assert pin[f"{prefix}_SHA256"] in done.stderr
    assert not (tmp_path / "build" / tarball.removesuffix(".tar.gz")).exists()
    assert not (tmp_path / "build" / tarball).exists()
