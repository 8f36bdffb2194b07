"""What produced a run: kernel, tools, device profile, config, seed and commit.

    python -m mobifrag.report.provenance --device NAME --kernel-provenance K.json \
        --config-json CONFIG.json --out provenance.json
    python -m mobifrag.report.provenance --record [config/measured-versions.json]
    python -m mobifrag.report.provenance --figure-stamp provenance.json
    python -m mobifrag.report.provenance --stamp-record CONFIG.json --out figure-stamp.json

Each record carries the artifact's version (`version`, pyproject.toml's), the time it
was written (`recorded`, UTC) and whether the checkout had uncommitted changes (`dirty`,
also shown as a `+modified` suffix of `commit`).
--figure-stamp prints the lines the figures' shared theme (paper-figures/theme.R) writes
on every figure and into its PDF's metadata: commit, device, scale, seed and run date,
read from a provenance record or from the smaller one --stamp-record writes. The figures
read the smaller one: it names no kernel, so a figure drawn from the device model alone
does not wait for the kernel build that provenance.json records.

Each run records the versions of the Debian packages of bootstrap/debian-packages.txt,
QEMU, the kernel source package, the R packages of the figures and every Python package,
and warns on stderr, naming each package, where they differ from the versions that the
README's numbers were measured with (config/measured-versions.json, written by --record
on the machine that measured them).
"""

from __future__ import annotations

import argparse
import datetime
import importlib.metadata
import json
import platform
import re
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from mobifrag import REPO
from mobifrag.workflow.profiles import load_device, local_path
from mobifrag.workflow.study_config import load_config

DEBIAN_LIST = REPO / "bootstrap" / "debian-packages.txt"
MEASURED = REPO / "config" / "measured-versions.json"
QEMU = "qemu-system-x86_64"
# R packages the figure scripts load (paper-figures/*.R) and make lint's lintr.
R_PACKAGES = ("ggplot2", "lintr")
# Installer tooling of a venv, not part of requirements.lock: recorded, never compared.
INSTALLER_PACKAGES = frozenset({"pip", "setuptools", "wheel"})

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


def run_command(command: list[str]) -> str | None:
    """The command's stdout, or None when it is absent, fails or hangs."""
    try:
        run = subprocess.run(command, capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return run.stdout if run.returncode == 0 else None


def canonical_name(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def python_distributions() -> dict[str, str]:
    """Every distribution the running interpreter sees, by PEP 503 name."""
    found = {}
    for dist in importlib.metadata.distributions():
        name = dist.metadata["Name"]
        if name:
            found.setdefault(canonical_name(name), dist.version)
    return dict(sorted(found.items()))


@dataclass(frozen=True)
class VersionReaders:
    """Where versions come from; tests pass fakes."""

    run: Callable[[list[str]], str | None] = run_command
    distributions: Callable[[], dict[str, str]] = python_distributions
    python_version: Callable[[], str] = platform.python_version
    debian_packages: tuple[str, ...] = field(default_factory=lambda: debian_list())


def debian_list(path: Path = DEBIAN_LIST) -> tuple[str, ...]:
    """The package names of bootstrap/debian-packages.txt, in order."""
    names = []
    for line in path.read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            names.append(line)
    return tuple(names)


def debian_version(package: str, run) -> str | None:
    """The installed version, or None. An unqualified Multi-Arch: same package installed for
    two architectures (libsqlite3-dev) is listed twice, always at one version."""
    out = run(["dpkg-query", "-W", "-f", "${Status}\t${Version}\n", package])
    for line in (out or "").splitlines():
        status, _, version = line.partition("\t")
        if status.endswith(" installed") and version:
            return version
    return None


def qemu_version(run) -> str | None:
    out = run([QEMU, "--version"])
    match = re.search(r"version (.+)", out or "")
    return match.group(1).strip() if match else None


def kernel_source_version(source: str | None, run) -> dict:
    """The kernel source tarball and the Debian package that owns it, with its version.
    A tarball no package owns (the Nix shell's) is known by its file name."""
    record = {"file": source, "package": None, "version": None}
    if not source:
        return record
    owner = run(["dpkg-query", "-S", str(source)])
    if owner and ":" in owner:
        package = owner.split(":", 1)[0].strip()
        record["package"] = package
        record["version"] = debian_version(package, run)
    return record


def r_versions(run, packages: tuple[str, ...] = R_PACKAGES) -> dict[str, str | None]:
    listed = ", ".join(f'"{name}"' for name in packages)
    script = (
        'cat("R", as.character(getRversion()), "\\n"); '
        f"for (p in c({listed})) cat(p, tryCatch(as.character(packageVersion(p)), "
        'error = function(e) "-"), "\\n")'
    )
    out = run(["Rscript", "-e", script]) or ""
    found: dict[str, str | None] = {"R": None, **{name: None for name in packages}}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[0] in found and parts[1] != "-":
            found[parts[0]] = parts[1]
    return found


def collect_versions(kernel_source: str | None, readers: VersionReaders | None = None) -> dict:
    readers = readers or VersionReaders()
    return {
        "debian": {pkg: debian_version(pkg, readers.run) for pkg in readers.debian_packages},
        "qemu": qemu_version(readers.run),
        "kernel_source": kernel_source_version(kernel_source, readers.run),
        "r": r_versions(readers.run),
        "python": {"interpreter": readers.python_version(), "packages": readers.distributions()},
    }


def flatten(versions: dict) -> dict[str, str | None]:
    """One comparable value per named package: 'debian fio', 'R ggplot2', 'python numpy'..."""
    flat: dict[str, str | None] = {}
    for package, version in versions.get("debian", {}).items():
        flat[f"debian {package}"] = version
    if "qemu" in versions:
        flat["qemu"] = versions["qemu"]
    source = versions.get("kernel_source")
    if source and source.get("package"):
        flat[f"kernel source {source['package']}"] = source.get("version")
    elif source:
        # no package owns it (the Nix shell's tarball): its file name, less a Nix store
        # hash, carries the version
        name = Path(source["file"]).name if source.get("file") else None
        flat["kernel source file"] = re.sub(r"^[0-9a-z]{32}-", "", name) if name else None
    for package, version in versions.get("r", {}).items():
        flat["R" if package == "R" else f"R {package}"] = version
    python = versions.get("python", {})
    if "interpreter" in python:
        flat["python"] = python["interpreter"]
    for package, version in python.get("packages", {}).items():
        if package not in INSTALLER_PACKAGES:
            flat[f"python {package}"] = version
    return flat


def version_differences(current: dict, measured: dict) -> list[dict]:
    """Every package of the measured set whose version here differs (or is missing)."""
    here = flatten(current)
    return [
        {"name": name, "here": here.get(name), "measured": version}
        for name, version in flatten(measured).items()
        if here.get(name) != version
    ]


def load_measured(path: Path = MEASURED) -> dict | None:
    try:
        return json.loads(Path(path).read_text())["versions"]
    except (OSError, ValueError, KeyError):
        return None


def warn_differences(differences: list[dict], reference: Path, stream=None) -> None:
    stream = stream or sys.stderr
    for diff in differences:
        here = diff["here"] or "not installed"
        measured = diff["measured"] or "not installed"
        print(
            f"provenance: warning: {diff['name']} is {here} here; README's numbers were "
            f"measured with {measured} ({reference})",
            file=stream,
        )


def record_measured(path: Path, readers: VersionReaders | None = None) -> dict:
    """Write this machine's versions as the reference set the README's numbers come from."""
    config = load_config()
    record = {
        "about": (
            "Versions the README's and docs/measurements.md's numbers were measured with; "
            "each run's provenance warns where its own differ. Rewrite with "
            "`.venv/bin/python -m mobifrag.report.provenance --record` on the measuring machine."
        ),
        "recorded": datetime.date.today().isoformat(),
        "host": {"machine": platform.machine(), "os": os_release()},
        "versions": collect_versions(config.get("kernel", {}).get("source"), readers),
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(record, indent=2, sort_keys=True) + "\n")
    return record


def os_release() -> str:
    try:
        for line in Path("/etc/os-release").read_text().splitlines():
            if line.startswith("PRETTY_NAME="):
                return line.split("=", 1)[1].strip().strip('"')
    except OSError:
        pass
    return platform.system()


def collect(
    device: str,
    kernel_provenance: Path,
    config: dict,
    readers: VersionReaders | None = None,
    measured: Path = MEASURED,
) -> dict:
    versions = collect_versions(config.get("kernel", {}).get("source"), readers)
    reference = load_measured(measured)
    differences = version_differences(versions, reference) if reference else None
    if differences:
        warn_differences(differences, measured)
    elif reference is None:
        print(
            f"provenance: warning: no measured versions to compare with ({measured})",
            file=sys.stderr,
        )
    commit = git_commit()
    return {
        "version": artifact_version(),
        "commit": commit,
        "dirty": commit.endswith("+modified"),
        "recorded": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "host": {"machine": platform.machine(), "kernel": platform.release()},
        "python": platform.python_version(),
        "kernel": json.loads(Path(kernel_provenance).read_text()),
        "tools": {name: tool_version(cmd) for name, cmd in TOOL_VERSIONS.items()},
        "versions": versions,
        "version_differences": differences,
        "device": load_device(device),
        # the untracked local device file whose platform values the profile carries
        "device_local": str(local_path(device)) if local_path(device).is_file() else None,
        "config": config,
        "seed": config.get("seed"),
    }


def artifact_version() -> str:
    """The artifact's version (pyproject.toml), or 'unknown' where it cannot be read."""
    from mobifrag.release import ReleaseError, version

    try:
        return version()
    except ReleaseError:
        return "unknown"


def run_date(record: dict, path: Path | None = None) -> str:
    """The day a provenance record was written: its `recorded` time, or for a record
    written before it had one, its file's modification time."""
    recorded = record.get("recorded")
    if recorded:
        return str(recorded)[:10]
    if path is not None and path.exists():
        mtime = path.stat().st_mtime
        return datetime.datetime.fromtimestamp(mtime, datetime.UTC).date().isoformat()
    return "unknown"


def figure_stamp(record: dict, path: Path | None = None) -> dict[str, str]:
    """What every figure of a run carries: commit, device, scale, seed and run date, and
    `line`, the caption line the shared theme draws under each figure."""
    config = record.get("config") or {}
    commit = str(record.get("commit") or "unknown")
    head, modified, _ = commit.partition("+modified")
    stamp = {
        "commit": commit,
        "device": str(config.get("device", "unknown")),
        "scale": str(config.get("scale", "unknown")),
        "seed": str(record.get("seed", config.get("seed", "unknown"))),
        "date": run_date(record, path),
    }
    short = head[:12] + ("+modified" if modified or record.get("dirty") else "")
    stamp["line"] = (
        f"mobifrag {short} | {stamp['device']} | {stamp['scale']} | seed {stamp['seed']}"
        f" | run {stamp['date']}"
    )
    return stamp


def stamp_record(config: dict) -> dict:
    """What a figure's stamp needs of a run: commit, the time it is written, device,
    scale and seed (config), nothing that needs the run's kernel or tools."""
    commit = git_commit()
    return {
        "commit": commit,
        "dirty": commit.endswith("+modified"),
        "recorded": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "config": config,
        "seed": config.get("seed"),
    }


def stamp_text(stamp: dict[str, str]) -> str:
    """The stamp as `key: value` lines (R reads them with read.dcf)."""
    return "".join(f"{key}: {' '.join(value.split())}\n" for key, value in stamp.items())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--device")
    parser.add_argument("--kernel-provenance", type=Path)
    parser.add_argument("--config-json", type=Path)
    parser.add_argument("--out", type=Path)
    parser.add_argument(
        "--measured", type=Path, default=MEASURED, help="reference versions to compare with"
    )
    parser.add_argument(
        "--record",
        type=Path,
        nargs="?",
        const=MEASURED,
        metavar="PATH",
        help="write this machine's versions as the measured reference and exit",
    )
    parser.add_argument(
        "--figure-stamp",
        type=Path,
        metavar="PROVENANCE",
        help="print the commit, device, scale, seed and date a figure carries, and exit",
    )
    parser.add_argument(
        "--stamp-record",
        type=Path,
        metavar="CONFIG_JSON",
        help="write the run's stamp record (commit, date, device, scale, seed) to --out and exit",
    )
    args = parser.parse_args(argv)
    if args.stamp_record:
        if args.out is None:
            parser.error("--stamp-record needs --out")
        config = json.loads(args.stamp_record.read_text())
        write_json(args.out, stamp_record(config))
        return 0
    if args.figure_stamp:
        record = json.loads(args.figure_stamp.read_text())
        sys.stdout.write(stamp_text(figure_stamp(record, args.figure_stamp)))
        return 0
    if args.record:
        record = record_measured(args.record)
        print(f"provenance: {len(flatten(record['versions']))} versions written to {args.record}")
        return 0
    missing = [
        option
        for option, value in (
            ("--device", args.device),
            ("--kernel-provenance", args.kernel_provenance),
            ("--config-json", args.config_json),
            ("--out", args.out),
        )
        if value is None
    ]
    if missing:
        parser.error(f"missing {', '.join(missing)} (or --record)")
    config = json.loads(args.config_json.read_text())
    record = collect(args.device, args.kernel_provenance, config, measured=args.measured)
    write_json(args.out, record)
    return 0


def write_json(path: Path, record: dict) -> None:
    partial = path.with_name(path.name + ".partial")
    partial.write_text(json.dumps(record, indent=2, sort_keys=True) + "\n")
    partial.replace(path)


if __name__ == "__main__":
    sys.exit(main())
