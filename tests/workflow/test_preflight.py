"""The pre-flight check of the pinned outside inputs (scripts/preflight.sh): with no
upstream and no vendor folder, every missing input is named with its checksum; `make
fetch` fills a folder that an offline machine names with MOBIFRAG_VENDOR."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from mobifrag import REPO, release


def test_missing_outside_inputs_are_named_before_any_job(tmp_path):
    env = {
        **os.environ,
        "MOBIFRAG_VENDOR": str(tmp_path / "no-vendor"),
        "FLASHSIM_OFFLINE": "1",
        "FILEBENCH_OFFLINE": "1",
        "MOBIBENCH_OFFLINE": "1",
        "PREFLIGHT_BUILD": str(tmp_path / "build"),
    }
    run = subprocess.run(
        [str(REPO / "scripts" / "preflight.sh")], env=env, capture_output=True, text=True
    )
    assert run.returncode == 1
    for name in ("flashsim", "filebench", "mobibench-facebook", "mobibench-twitter"):
        assert f"--- {name}\n" in run.stderr
    assert "5e447af581ef239257128deaed22aa29d8e9c5afd8118f17b6e4f563c7712dc6" in run.stderr
    assert "MOBIFRAG_VENDOR=<folder>" in run.stderr


def offline(vendor: Path, build: Path) -> dict[str, str]:
    """The environment of a machine that reaches no upstream, with `vendor` named."""
    return {
        **os.environ,
        "MOBIFRAG_VENDOR": str(vendor),
        "FLASHSIM_OFFLINE": "1",
        "FILEBENCH_OFFLINE": "1",
        "MOBIBENCH_OFFLINE": "1",
        "IOZONE_OFFLINE": "1",
        "PREFLIGHT_BUILD": str(build),
    }


def test_make_fetch_fills_a_cache_an_offline_machine_takes(tmp_path):
    # The connected machine's sources: the shared vendor folder and the IOzone package
    # an earlier fetch downloaded (the tests reach neither GitHub nor, reliably, Debian).
    shared = REPO.parent / "shared" / "vendor"
    if not shared.is_dir():
        pytest.skip(f"no shared vendor folder {shared} to stand for the connected machine")
    source = tmp_path / "sources"
    shutil.copytree(shared, source)
    deb = REPO / "build" / "iozone" / "apt" / "iozone3_489-1_amd64.deb"
    if not deb.is_file():
        pytest.skip(f"no {deb} (make preflight downloads it)")
    shutil.copy(deb, source / deb.name)
    cache = tmp_path / "cache"
    fetch = subprocess.run(
        ["make", "-s", "fetch", f"VENDOR_CACHE={cache}"],
        cwd=REPO, env=offline(source, tmp_path / "build"), capture_output=True, text=True,
    )  # fmt: skip
    assert fetch.returncode == 0, fetch.stderr
    assert f"MOBIFRAG_VENDOR={cache}" in fetch.stderr
    for item in release.OUTSIDE_INPUTS:
        for name, key in item.files:
            data = (cache / name).read_bytes()
            assert hashlib.sha256(data).hexdigest() == release.pinned(item, key), name
    assert "MOBIFRAG_VENDOR" in (cache / "README.md").read_text()
    # the offline machine: nothing but the cache
    run = subprocess.run(
        [str(REPO / "scripts" / "preflight.sh")],
        env=offline(cache, tmp_path / "offline-build"), capture_output=True, text=True,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert (tmp_path / "offline-build" / "iozone" / "bin" / "iozone").is_file()
    # without it, every input is named
    missing = subprocess.run(
        [str(REPO / "scripts" / "preflight.sh")],
        env=offline(tmp_path / "none", tmp_path / "bare-build"), capture_output=True, text=True,
    )  # fmt: skip
    assert missing.returncode == 1
    for name in ("flashsim", "filebench", "iozone", "mobibench-facebook", "mobibench-twitter"):
        assert f"--- {name}\n" in missing.stderr


def test_a_cache_refuses_an_input_whose_checksum_is_off(tmp_path):
    build = tmp_path / "build"
    item = release.OUTSIDE_INPUTS[0]
    for path in (p for i in release.OUTSIDE_INPUTS for p in i.fetched_paths(build)):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"not the pinned bytes")
    with pytest.raises(release.ReleaseError, match="sha256 differs from"):
        release.fill_cache(build, tmp_path / "cache")
    assert not (tmp_path / "cache" / item.files[0][0]).exists()
