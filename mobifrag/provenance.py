"""What produced a run: kernel, tools, device profile, config, seed and commit.

    python -m mobifrag.provenance --device NAME --kernel-provenance K.json \
        --config-json CONFIG.json --out provenance.json
"""

from __future__ import annotations

import argparse
import json
import platform
import subprocess
import sys
from pathlib import Path

from mobifrag.profiles import load_device

REPO = Path(__file__).resolve().parent.parent

# Tool → command printing its version; the first line of its output is recorded.
TOOL_VERSIONS = {
    "qemu": ["qemu-system-x86_64", "--version"],
    "fio": ["fio", "--version"],
    "blktrace": ["blktrace", "-v"],
    "e2fsprogs": ["mke2fs", "-V"],
    "f2fs-tools": ["mkfs.f2fs", "-V"],
    "sqlite": ["sqlite3", "--version"],
    "R": ["R", "--version"],
    "gcc": ["gcc", "--version"],
    "cargo": ["cargo", "--version"],
    "snakemake": [sys.executable, "-m", "snakemake", "--version"],
    "filebench": ["filebench", "-h"],
    # an empty command file and no input: postmark prints its version and exits
    "postmark": ["sh", "-c", "postmark /dev/null < /dev/null"],
}


def tool_version(command: list[str]) -> str:
    try:
        run = subprocess.run(command, capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return "not installed"
    lines = (run.stdout + run.stderr).strip().splitlines()
    return lines[0].strip() if lines else f"exit status {run.returncode}"


def git_commit() -> str:
    try:
        head = subprocess.run(
            ["git", "-C", str(REPO), "rev-parse", "HEAD"], capture_output=True, text=True
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", str(REPO), "status", "--porcelain", "--untracked-files=no"],
            capture_output=True,
            text=True,
        ).stdout.strip()
    except OSError:
        return "unknown"
    return f"{head}{'+modified' if dirty else ''}" if head else "unknown"


def collect(device: str, kernel_provenance: Path, config: dict) -> dict:
    return {
        "commit": git_commit(),
        "host": {"machine": platform.machine(), "kernel": platform.release()},
        "python": platform.python_version(),
        "kernel": json.loads(Path(kernel_provenance).read_text()),
        "tools": {name: tool_version(cmd) for name, cmd in TOOL_VERSIONS.items()},
        "device": load_device(device),
        "config": config,
        "seed": config.get("seed"),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--device", required=True)
    parser.add_argument("--kernel-provenance", type=Path, required=True)
    parser.add_argument("--config-json", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    config = json.loads(args.config_json.read_text())
    record = collect(args.device, args.kernel_provenance, config)
    partial = args.out.with_name(args.out.name + ".partial")
    partial.write_text(json.dumps(record, indent=2, sort_keys=True) + "\n")
    partial.replace(args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
