"""scripts/bootstrap.sh's Rust check: ftl-sim's rust-version or a named refusal."""

import os
import subprocess
from pathlib import Path

from conftest import REPO

FUNCTIONS = ("die", "rust_version", "version_at_least", "rust_toolchain")


def bootstrap_functions() -> str:
    """The script's functions that the check uses, without its main case."""
    text = (REPO / "scripts" / "bootstrap.sh").read_text()
    lines, keep = [], False
    for line in text.splitlines():
        if any(line.startswith(f"{name}()") for name in FUNCTIONS):
            keep = True
        if keep:
            lines.append(line)
        if keep and (line == "}" or line.startswith("die()")):
            keep = False
    return "\n".join(lines)


def run_check(tmp_path: Path, tools: dict[str, str]) -> subprocess.CompletedProcess:
    """rust_toolchain with PATH holding only the stand-in TOOLS (name: shell body)
    beside the system's basic commands."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name in ("sed", "sort", "head", "awk", "printf", "grep", "tr", "cp", "chmod"):
        (bin_dir / name).symlink_to(subprocess.check_output(["which", name], text=True).strip())
    for name, body in tools.items():
        tool = bin_dir / name
        tool.write_text(f"#!/bin/sh\n{body}\n")
        tool.chmod(0o755)
    script = f"{bootstrap_functions()}\nrust_toolchain && echo toolchain-ok"
    return subprocess.run(
        ["/bin/bash", "-c", script],
        cwd=REPO,
        env={"PATH": str(bin_dir), "HOME": os.environ.get("HOME", "/root")},
        capture_output=True,
        text=True,
    )


def test_the_rust_version_is_ftl_sims():
    script = f"{bootstrap_functions()}\nrust_version"
    out = subprocess.run(["/bin/bash", "-c", script], cwd=REPO, capture_output=True, text=True)
    assert out.stdout.strip() == "1.82"
    assert 'rust-version = "1.82"' in (REPO / "ftl-sim" / "Cargo.toml").read_text()


def test_a_new_enough_cargo_passes(tmp_path):
    run = run_check(tmp_path, {"cargo": 'echo "cargo 1.96.0 (f2d3ce0bd 2026-03-21)"'})
    assert run.returncode == 0, run.stderr
    assert "toolchain-ok" in run.stdout


def test_an_old_cargo_is_refused_naming_both_versions(tmp_path):
    run = run_check(tmp_path, {"cargo": 'echo "cargo 1.65.0"'})
    assert run.returncode != 0
    assert "cargo 1.65.0" in run.stderr
    assert "rust-version 1.82" in run.stderr


def test_no_cargo_without_root_names_the_debian_packages(tmp_path):
    run = run_check(tmp_path, {"id": "echo 1000", "apt-get": "exit 0"})
    assert run.returncode != 0
    assert "cargo not found" in run.stderr
    assert "bootstrap/debian-rust-packages.txt" in run.stderr


def test_no_cargo_as_root_installs_every_listed_package(tmp_path):
    log = tmp_path / "apt.log"
    debian_cargo = tmp_path / "debian-cargo"
    debian_cargo.write_text('#!/bin/sh\necho "cargo 1.96.0"\n')
    debian_cargo.chmod(0o755)
    # The stand-in apt-get logs its arguments; its install puts the new cargo on PATH.
    install = (
        f'echo "$@" >> {log}\n'
        f'case "$*" in *install*) cp {debian_cargo} {tmp_path}/bin/cargo ;; esac'
    )
    run = run_check(tmp_path, {"id": "echo 0", "apt-get": install})
    assert run.returncode == 0, run.stderr
    listed = [
        line.strip()
        for line in (REPO / "bootstrap" / "debian-rust-packages.txt").read_text().splitlines()
        if line.strip() and not line.startswith("#")
    ]
    installed = log.read_text().splitlines()[-1].split()
    assert set(listed) <= set(installed)
