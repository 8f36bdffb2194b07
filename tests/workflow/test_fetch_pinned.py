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


@pytest.mark.parametrize("tool", sorted(TOOLS))
def test_mobifrag_vendor_names_the_vendor_folder(tmp_path, tool):
    """A checkout with no ../shared/vendor beside it (a clone under /tmp) takes the copy
    from the folder MOBIFRAG_VENDOR names, and the error names that folder."""
    folder, prefix = TOOLS[tool], tool.upper()
    pin = pins(folder)
    tarball = f"{tool}-{pin[f'{prefix}_COMMIT'][:7]}.tar.gz"
    repo = tmp_path / "repo"
    (repo / "scripts").mkdir(parents=True)
    shutil.copy(REPO / "scripts" / "fetch-pinned.sh", repo / "scripts")
    shutil.copytree(REPO / folder, repo / folder)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = {"PATH": "/usr/bin:/bin", f"{prefix}_OFFLINE": "1", "MOBIFRAG_VENDOR": str(elsewhere)}
    fetch = [repo / folder / "fetch.sh", tmp_path / "build"]
    done = subprocess.run(fetch, capture_output=True, text=True, env=env)
    assert done.returncode == 1
    assert f"{elsewhere}/{tarball} is missing" in done.stderr, done.stderr
    real = REPO.parent / "shared" / "vendor" / tarball
    if not real.is_file():
        pytest.skip("no shared copy of the tarball to point MOBIFRAG_VENDOR at")
    shutil.copy(real, elsewhere / tarball)
    done = subprocess.run(fetch, capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stderr
    assert f"copied {elsewhere}/{tarball}" in done.stderr
    assert (tmp_path / "build" / tarball).read_bytes() == real.read_bytes()


@pytest.mark.parametrize("tool", sorted(TOOLS))
def test_a_checkouts_vendor_folder_comes_before_the_shared_one(tmp_path, tool):
    """A source archive of `make dist` carries the tarball in its own vendor/: offline and
    with no MOBIFRAG_VENDOR, the fetch takes it from there."""
    folder, prefix = TOOLS[tool], tool.upper()
    tarball = f"{tool}-{pins(folder)[f'{prefix}_COMMIT'][:7]}.tar.gz"
    real = REPO.parent / "shared" / "vendor" / tarball
    if not real.is_file():
        pytest.skip("no shared copy of the tarball to put in vendor/")
    repo = tmp_path / "repo"
    (repo / "scripts").mkdir(parents=True)
    shutil.copy(REPO / "scripts" / "fetch-pinned.sh", repo / "scripts")
    shutil.copytree(REPO / folder, repo / folder)
    (repo / "vendor").mkdir()
    shutil.copy(real, repo / "vendor" / tarball)
    env = {"PATH": "/usr/bin:/bin", f"{prefix}_OFFLINE": "1"}
    done = subprocess.run(
        [repo / folder / "fetch.sh", tmp_path / "build"], capture_output=True, text=True, env=env
    )
    assert done.returncode == 0, done.stderr
    assert f"copied {repo}/vendor/{tarball}" in done.stderr
