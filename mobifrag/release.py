"""The artifact's version and its source archive.

    python -m mobifrag.release version            the version (pyproject.toml)
    python -m mobifrag.release check              version, CITATION.cff and CHANGELOG agree
    python -m mobifrag.release release 0.1.0 [--date YYYY-MM-DD]
    python -m mobifrag.release dist [--out dist] [--allow-dirty]
    python -m mobifrag.release cache --build build --out .cache/vendor

One version, in pyproject.toml, is the artifact's: CITATION.cff carries it, CHANGELOG.md's
sections are by version (`## 0.1.0 (unreleased)`, then `## 0.1.0 — 2026-12-10` once
released, the changes by date beneath), and each run's provenance.json records it.
`release` dates the version in all three. `dist` writes the source archive to deposit:
`git archive` of HEAD with, under vendor/, the pinned outside inputs whose licences allow
passing them on (OUTSIDE_INPUTS), every file of vendor/ listed with its checksum and
licence in vendor/README.md, and the archive's own sha256 beside it. The fetch scripts
take a checkout's vendor/ folder before ../shared/vendor/, so the unpacked archive builds
without reaching upstream for those inputs. `cache` (`make fetch`) copies every pinned
outside input that the pre-flight fetched into one folder laid out as ../shared/vendor/,
for MOBIFRAG_VENDOR to name on a machine that reaches neither.
"""

from __future__ import annotations

import argparse
import datetime
import gzip
import hashlib
import io
import re
import subprocess
import sys
import tarfile
import tempfile
import tomllib
from dataclasses import dataclass
from pathlib import Path

import yaml

from mobifrag import REPO
from mobifrag.report.markdown import markdown_table

PYPROJECT = REPO / "pyproject.toml"
CITATION = REPO / "CITATION.cff"
CHANGELOG = REPO / "CHANGELOG.md"
UNRELEASED = "unreleased"
# `## 0.1.0 (unreleased)` or `## 0.1.0 — 2026-12-10`
VERSION_HEADING = re.compile(
    r"^## (?P<version>\d+\.\d+\.\d+)\s+"
    r"(?:\((?P<unreleased>unreleased)\)|—\s+(?P<date>\d{4}-\d{2}-\d{2}))\s*$",
    re.MULTILINE,
)
SEMVER = re.compile(r"\d+\.\d+\.\d+")
DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


class ReleaseError(ValueError):
    """A version, file or archive that cannot be used; the message names it."""


def version(pyproject: Path = PYPROJECT) -> str:
    try:
        return tomllib.loads(Path(pyproject).read_text())["project"]["version"]
    except (OSError, tomllib.TOMLDecodeError, KeyError) as error:
        raise ReleaseError(f"{pyproject}: no project.version ({error})") from None


def changelog_versions(text: str) -> list[tuple[str, str]]:
    """(version, its date or 'unreleased') of each version section, newest first."""
    return [(m["version"], m["date"] or UNRELEASED) for m in VERSION_HEADING.finditer(text)]


def citation(path: Path = CITATION) -> dict:
    try:
        data = yaml.safe_load(Path(path).read_text())
    except (OSError, yaml.YAMLError) as error:
        raise ReleaseError(f"{path}: {error}") from None
    if not isinstance(data, dict):
        raise ReleaseError(f"{path}: not a mapping")
    return data


def problems(
    pyproject: Path = PYPROJECT, citation_file: Path = CITATION, changelog: Path = CHANGELOG
) -> list[str]:
    """Where pyproject.toml, CITATION.cff and CHANGELOG.md disagree about the version."""
    found = []
    current = version(pyproject)
    cff = citation(citation_file)
    if str(cff.get("version")) != current:
        found.append(f"{citation_file}: version {cff.get('version')!r}, {pyproject} says {current}")
    sections = changelog_versions(Path(changelog).read_text())
    if not sections:
        found.append(f"{changelog}: no '## <version> (unreleased)' or '## <version> — <date>'")
        return found
    top, date = sections[0]
    if top != current:
        found.append(f"{changelog}: newest section is {top}, {pyproject} says {current}")
    released = cff.get("date-released")
    released = None if released is None else str(released)
    if date == UNRELEASED and released is not None:
        found.append(f"{citation_file}: date-released {released}, but {top} is unreleased")
    if date != UNRELEASED and released != date:
        found.append(f"{citation_file}: date-released {released}, {changelog} dates {top} {date}")
    return found


def release(
    new: str,
    date: str,
    pyproject: Path = PYPROJECT,
    citation_file: Path = CITATION,
    changelog: Path = CHANGELOG,
) -> None:
    """Date the version `new`: pyproject's version, CITATION.cff's version and
    date-released, and CHANGELOG's newest section `## new (unreleased)` → `## new — date`."""
    if not SEMVER.fullmatch(new):
        raise ReleaseError(f"version {new!r} is not MAJOR.MINOR.PATCH")
    if not DATE.fullmatch(date):
        raise ReleaseError(f"date {date!r} is not YYYY-MM-DD")
    log = Path(changelog).read_text()
    sections = changelog_versions(log)
    if not sections or sections[0] != (new, UNRELEASED):
        raise ReleaseError(
            f"{changelog}: the newest section must be '## {new} (unreleased)' to release it"
        )
    log = log.replace(f"## {new} (unreleased)", f"## {new} — {date}", 1)
    project = Path(pyproject).read_text()
    project = re.sub(r'(?m)^version = "[^"]*"$', f'version = "{new}"', project, count=1)
    cff = Path(citation_file).read_text()
    cff = re.sub(r"(?m)^version: .*$", f"version: {new}", cff, count=1)
    if re.search(r"(?m)^date-released: ", cff):
        cff = re.sub(r"(?m)^date-released: .*$", f'date-released: "{date}"', cff, count=1)
    else:
        cff = re.sub(r"(?m)^(version: .*)$", rf'\1\ndate-released: "{date}"', cff, count=1)
    for path, text in ((changelog, log), (pyproject, project), (citation_file, cff)):
        Path(path).write_text(text)


# --- the source archive ---------------------------------------------------------------


@dataclass(frozen=True)
class OutsideInput:
    """A pinned input the study needs that is not in the repository."""

    name: str
    pins: str  # the file that pins it (shell syntax, KEY=value lines)
    files: tuple[tuple[str, str], ...]  # (file, the key of pins holding its sha256)
    licence: str
    redistributable: bool
    why: str  # why it is, or is not, in the archive
    fetch: str = ""  # the script that fetches and verifies it into a build folder
    folder: str = ""  # that build folder, under build/
    # where scripts/preflight.sh leaves each of `files` under build/ (default FOLDER/FILE)
    fetched: tuple[str, ...] = ()

    def fetched_paths(self, build: Path) -> list[Path]:
        return [build / p for p in self.fetched] or [build / self.folder / f for f, _ in self.files]


# The outside inputs, as ../shared/vendor/README.md and each upstream.env state them.
OUTSIDE_INPUTS = (
    OutsideInput(
        "filebench",
        "benchmarks/filebench/upstream.env",
        (("filebench-22620e6.tar.gz", "FILEBENCH_SHA256"),),
        "CDDL-1.0 (its LICENSE and COPYING)",
        True,
        "the CDDL allows passing on the unmodified source with its licence",
        "benchmarks/filebench/fetch.sh",
        "filebench",
    ),
    OutsideInput(
        "FlashSim",
        "model/flashsim/upstream.env",
        (("flashsim-53098b0.tar.gz", "FLASHSIM_SHA256"),),
        "GPL-3.0 (its COPYING)",
        True,
        "the GPL allows passing on the unmodified source with its licence",
        "model/flashsim/fetch.sh",
        "flashsim",
    ),
    OutsideInput(
        "Mobibench's app traces",
        "traces/mobibench/upstream.env",
        (
            ("mobibench-f56ea5e/mobigen.out.facebook", "MOBIBENCH_SHA256_facebook"),
            ("mobibench-f56ea5e/mobigen.out.twitter", "MOBIBENCH_SHA256_twitter"),
        ),
        "none stated upstream",
        False,
        "no licence is stated, so no right to pass them on; traces/mobibench/fetch.sh gets "
        "them from github.com/ESOS-Lab/Mobibench at the pinned commit",
        fetched=("mobibench/mobigen.out.facebook", "mobibench/mobigen.out.twitter"),
    ),
    OutsideInput(
        "IOzone (Debian's iozone3 489-1)",
        "benchmarks/iozone/upstream.env",
        (("iozone3_489-1_amd64.deb", "IOZONE_SHA256"),),
        "IOzone's own (Debian non-free)",
        False,
        "non-free; benchmarks/iozone/fetch.sh downloads it from Debian's archive, verified",
        fetched=("iozone/apt/iozone3_489-1_amd64.deb",),
    ),
)


def git(*args: str, repo: Path = REPO) -> str:
    run = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True)
    if run.returncode != 0:
        raise ReleaseError(f"git {' '.join(args)}: {run.stderr.strip()}")
    return run.stdout.strip()


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def pinned(item: OutsideInput, key: str, repo: Path = REPO) -> str:
    """The sha256 the input's pins file gives under `key`."""
    path = repo / item.pins
    pins = dict(
        line.split("=", 1)
        for line in path.read_text().splitlines()
        if "=" in line and not line.lstrip().startswith("#")
    )
    if key not in pins:
        raise ReleaseError(f"{path}: no {key}")
    return pins[key].strip()


def vendor_files(build: Path, repo: Path = REPO) -> dict[str, bytes]:
    """name → bytes of every redistributable input, each fetched and verified by its
    own fetch script (a verified copy under build/ is taken as it is), then checked here
    against its pin once more."""
    files = {}
    for item in OUTSIDE_INPUTS:
        if not item.redistributable:
            continue
        folder = build / item.folder
        run = subprocess.run([str(repo / item.fetch), str(folder)], capture_output=True, text=True)
        if run.returncode != 0:
            raise ReleaseError(f"{item.fetch} could not get {item.name}:\n{run.stderr}")
        for name, key in item.files:
            data = (folder / name).read_bytes()
            if sha256(data) != pinned(item, key, repo):
                raise ReleaseError(f"{folder / name}: sha256 differs from {item.pins} {key}")
            files[name] = data
    return files


def vendor_readme(files: dict[str, bytes], label: str, repo: Path = REPO) -> str:
    lines = [
        f"# Outside inputs of mobifrag {label}",
        "",
        "The pinned third-party inputs the study needs, and which of them this archive",
        "carries. The fetch scripts take this folder before `../shared/vendor/` (or the",
        "folder `MOBIFRAG_VENDOR` names) and verify every copy against its pinned sha256;",
        "the Linux kernel source is Debian's `linux-source-6.1` package, installed by the",
        "bootstrap.",
        "",
    ]
    rows = [
        (
            item.name,
            f"`{name}`",
            item.licence,
            f"yes: {item.why}" if name in files else f"no: {item.why}",
            pinned(item, key, repo),
            f"`{item.pins}`",
        )
        for item in OUTSIDE_INPUTS
        for name, key in item.files
    ]
    header = ("input", "file", "licence", "in this archive", "sha256", "pinned in")
    return "\n".join(lines + markdown_table(header, rows)) + "\n"


def fill_cache(build: Path, out: Path, repo: Path = REPO) -> list[str]:
    """Every pinned outside input, as the pre-flight fetched it into `build`, copied into
    `out` under its vendor name once its checksum is checked; returns the names."""
    names = []
    for item in OUTSIDE_INPUTS:
        for (name, key), source in zip(item.files, item.fetched_paths(build), strict=True):
            if not source.is_file():
                raise ReleaseError(f"{source} is missing: run make preflight first")
            data = source.read_bytes()
            if sha256(data) != pinned(item, key, repo):
                raise ReleaseError(f"{source}: sha256 differs from {item.pins} {key}")
            target = out / name
            target.parent.mkdir(parents=True, exist_ok=True)
            partial = target.with_name(target.name + ".partial")
            partial.write_bytes(data)
            partial.replace(target)
            names.append(name)
    (out / "README.md").write_text(cache_readme(repo))
    return names


def cache_readme(repo: Path = REPO) -> str:
    lines = [
        "# Outside inputs of mobifrag, fetched by `make fetch`",
        "",
        "Every pinned third-party input the study needs, laid out as `../shared/vendor/`.",
        "On a machine that reaches neither upstream nor that folder, name this one:",
        "`MOBIFRAG_VENDOR=<this folder> make reproduce`. The fetch scripts check every file",
        "against its pinned sha256. For your own machines only: some of these may not be",
        "passed on (see the licences).",
        "",
    ]
    rows = [
        (item.name, f"`{name}`", item.licence, pinned(item, key, repo), f"`{item.pins}`")
        for item in OUTSIDE_INPUTS
        for name, key in item.files
    ]
    header = ("input", "file", "licence", "sha256", "pinned in")
    return "\n".join(lines + markdown_table(header, rows)) + "\n"


def add_file(archive: tarfile.TarFile, name: str, data: bytes, mtime: int) -> None:
    info = tarfile.TarInfo(name)
    info.size, info.mtime, info.mode = len(data), mtime, 0o644
    info.uname = info.gname = "root"
    archive.addfile(info, io.BytesIO(data))


def dist(out: Path, build: Path | None = None, allow_dirty: bool = False, repo: Path = REPO):
    """dist/mobifrag-<version>.tar.gz of HEAD with vendor/; returns (archive, sha256)."""
    dirty = git("status", "--porcelain", "--untracked-files=no", repo=repo)
    if dirty and not allow_dirty:
        raise ReleaseError(
            "the checkout has uncommitted changes; the archive holds HEAD only: commit "
            "them first (or --allow-dirty)"
        )
    current = version(repo / "pyproject.toml")
    sections = changelog_versions((repo / "CHANGELOG.md").read_text())
    released = bool(sections) and sections[0][0] == current and sections[0][1] != UNRELEASED
    commit = git("rev-parse", "--short=12", "HEAD", repo=repo)
    label = current if released else f"{current}-unreleased-{commit}"
    prefix = f"mobifrag-{label}"
    mtime = int(git("log", "-1", "--format=%ct", "HEAD", repo=repo))
    with tempfile.TemporaryDirectory() as scratch:
        files = vendor_files(Path(build or repo / "build"), repo)
        tar = Path(scratch) / f"{prefix}.tar"
        git("archive", "--format=tar", f"--prefix={prefix}/", "-o", str(tar), "HEAD", repo=repo)
        with tarfile.open(tar, "a") as archive:
            for name, data in sorted(files.items()):
                add_file(archive, f"{prefix}/vendor/{name}", data, mtime)
            readme = vendor_readme(files, label, repo).encode()
            add_file(archive, f"{prefix}/vendor/README.md", readme, mtime)
        out.mkdir(parents=True, exist_ok=True)
        target = out / f"{prefix}.tar.gz"
        # mtime 0 and no file name in the gzip header: the same tar gives the same bytes
        with (
            open(tar, "rb") as raw,
            open(target, "wb") as handle,
            gzip.GzipFile(fileobj=handle, mode="wb", filename="", mtime=0) as zipped,
        ):
            zipped.write(raw.read())
    digest = sha256(target.read_bytes())
    target.with_name(target.name + ".sha256").write_text(f"{digest}  {target.name}\n")
    return target, digest


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("version", help="print the version")
    commands.add_parser("check", help="pyproject, CITATION.cff and CHANGELOG agree")
    rel = commands.add_parser("release", help="date a version in all three")
    rel.add_argument("version")
    rel.add_argument("--date", default=datetime.date.today().isoformat())
    make = commands.add_parser("dist", help="write the source archive")
    make.add_argument("--out", type=Path, default=REPO / "dist")
    make.add_argument(
        "--build", type=Path, help="where the outside inputs are fetched (default build/)"
    )
    make.add_argument("--allow-dirty", action="store_true")
    cache = commands.add_parser("cache", help="copy the fetched outside inputs into a folder")
    cache.add_argument("--build", type=Path, default=REPO / "build", help="where they were fetched")
    cache.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    try:
        if args.command == "version":
            print(version())
        elif args.command == "check":
            found = problems()
            for problem in found:
                print(f"release: {problem}", file=sys.stderr)
            return 1 if found else 0
        elif args.command == "release":
            release(args.version, args.date)
            print(f"release: {args.version} dated {args.date}", file=sys.stderr)
        elif args.command == "cache":
            names = fill_cache(args.build, args.out)
            print(f"release: {len(names)} outside inputs in {args.out}", file=sys.stderr)
            print(
                f"release: offline, name it: MOBIFRAG_VENDOR={args.out.resolve()}", file=sys.stderr
            )
        else:
            target, digest = dist(args.out, args.build, args.allow_dirty)
            print(f"release: wrote {target} (sha256 {digest})", file=sys.stderr)
    except (ReleaseError, OSError) as error:
        print(f"release: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
