"""The artifact's version and its source archive (mobifrag/release.py, make dist)."""

import shutil
import subprocess
import sys
import tarfile

import pytest
import yaml

from conftest import REPO
from mobifrag import release
from mobifrag.report import provenance


def test_version_citation_and_changelog_agree():
    assert release.problems() == []
    current = release.version()
    assert release.changelog_versions((REPO / "CHANGELOG.md").read_text())[0][0] == current
    assert str(yaml.safe_load((REPO / "CITATION.cff").read_text())["version"]) == current


def test_the_version_is_printed_and_recorded():
    run = subprocess.run(
        [sys.executable, "-m", "mobifrag", "--version"], cwd=REPO, capture_output=True, text=True
    )
    assert run.returncode == 0 and run.stdout.strip() == f"mobifrag {release.version()}"
    assert provenance.artifact_version() == release.version()


def release_files(tmp_path, cff_extra=""):
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text('[project]\nname = "mobifrag"\nversion = "0.1.0"\n')
    cff = tmp_path / "CITATION.cff"
    cff.write_text(f"cff-version: 1.2.0\ntitle: t\nversion: 0.1.0\n{cff_extra}license: MIT\n")
    log = tmp_path / "CHANGELOG.md"
    log.write_text("# Changelog\n\n## 0.1.0 (unreleased)\n\n### 2026-12-02\n\n- a change\n")
    return pyproject, cff, log


def test_release_dates_the_version_everywhere(tmp_path):
    pyproject, cff, log = release_files(tmp_path)
    assert release.problems(pyproject, cff, log) == []
    release.release("0.1.0", "2026-12-10", pyproject, cff, log)
    assert "## 0.1.0 — 2026-12-10\n" in log.read_text()
    data = yaml.safe_load(cff.read_text())
    assert (str(data["version"]), str(data["date-released"])) == ("0.1.0", "2026-12-10")
    assert release.problems(pyproject, cff, log) == []
    # the next version starts unreleased; releasing an old one again is refused
    with pytest.raises(release.ReleaseError, match=r"'## 0.1.0 \(unreleased\)'"):
        release.release("0.1.0", "2026-12-11", pyproject, cff, log)


def test_disagreements_are_named(tmp_path):
    pyproject, cff, log = release_files(tmp_path, 'date-released: "2026-12-01"\n')
    found = release.problems(pyproject, cff, log)
    assert found == [f"{cff}: date-released 2026-12-01, but 0.1.0 is unreleased"]
    pyproject.write_text('[project]\nversion = "0.2.0"\n')
    found = release.problems(pyproject, cff, log)
    assert f"{cff}: version '0.1.0', {pyproject} says 0.2.0" in found
    assert f"{log}: newest section is 0.1.0, {pyproject} says 0.2.0" in found
    with pytest.raises(release.ReleaseError, match="not MAJOR.MINOR.PATCH"):
        release.release("1.0", "2026-12-10", pyproject, cff, log)


def vendor_copy(tmp_path):
    """A build folder holding verified copies of the redistributable inputs, from
    ../shared/vendor (the fetch scripts take them as they are)."""
    shared = REPO.parent / "shared" / "vendor"
    build = tmp_path / "build"
    for item in release.OUTSIDE_INPUTS:
        if not item.redistributable:
            continue
        for name, _ in item.files:
            if not (shared / name).is_file():
                pytest.skip(f"no shared copy of {name}")
            (build / item.folder).mkdir(parents=True, exist_ok=True)
            shutil.copy(shared / name, build / item.folder / name)
    return build


def test_dist_writes_head_with_the_redistributable_inputs(tmp_path):
    build = vendor_copy(tmp_path)
    out = tmp_path / "dist"
    target, digest = release.dist(out, build, allow_dirty=True)
    assert target.parent == out and target.name.startswith(f"mobifrag-{release.version()}")
    assert target.with_name(target.name + ".sha256").read_text() == f"{digest}  {target.name}\n"
    prefix = target.name.removesuffix(".tar.gz")
    with tarfile.open(target) as archive:
        names = set(archive.getnames())
        readme = archive.extractfile(f"{prefix}/vendor/README.md").read().decode()
    tracked = subprocess.run(
        ["git", "ls-tree", "-r", "--name-only", "HEAD"],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    assert {f"{prefix}/{name}" for name in tracked} <= names
    assert f"{prefix}/vendor/filebench-22620e6.tar.gz" in names
    assert f"{prefix}/vendor/flashsim-53098b0.tar.gz" in names
    assert not [n for n in names if "mobigen" in n or n.endswith(".deb")]
    # every input listed with its licence and pinned checksum, carried or not and why
    for item in release.OUTSIDE_INPUTS:
        for name, key in item.files:
            line = next(line for line in readme.splitlines() if f"`{name}`" in line)
            assert release.pinned(item, key) in line and item.licence in line
            assert ("| yes:" in line) == item.redistributable
    # the same commit and inputs give the same bytes
    again, same = release.dist(tmp_path / "again", build, allow_dirty=True)
    assert same == digest


def test_dist_refuses_a_copy_whose_checksum_is_off(tmp_path):
    build = vendor_copy(tmp_path)
    tarball = build / "flashsim" / "flashsim-53098b0.tar.gz"
    data = bytearray(tarball.read_bytes())
    data[100] ^= 0xFF
    tarball.write_bytes(bytes(data))
    env_offline = {"FLASHSIM_OFFLINE": "1", "MOBIFRAG_VENDOR": str(tmp_path / "none")}
    with pytest.MonkeyPatch.context() as patch:
        for key, value in env_offline.items():
            patch.setenv(key, value)
        with pytest.raises(release.ReleaseError, match="could not get FlashSim"):
            release.dist(tmp_path / "dist", build, allow_dirty=True)
    assert not (tmp_path / "dist").exists()


def test_make_dist_runs_the_release_module():
    plan = subprocess.run(["make", "-n", "dist"], cwd=REPO, capture_output=True, text=True)
    assert "python -m mobifrag.release check" in plan.stdout
    assert "python -m mobifrag.release dist --out dist" in plan.stdout
