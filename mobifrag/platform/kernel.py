"""Where a kernel build lives: one directory per (source, patch series, config fragment).

The key hashes everything that changes the kernel, so a changed patch or fragment gives
a new build while results can be cleaned without rebuilding the kernel.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from mobifrag import REPO

BUILD_SCRIPT = REPO / "scripts" / "build-kernel.sh"
CONFIG_FRAGMENTS = REPO / "kernel-patches" / "configs"
KERNEL_CACHE = REPO / "build" / "kernel"


class KernelInputError(FileNotFoundError):
    """Something a kernel build needs is missing; the message says what to install."""


def series_patches(series: Path) -> list[Path]:
    names = [line.split("#", 1)[0].strip() for line in series.read_text().splitlines()]
    return [series.parent / name for name in names if name]


def fragment_path(target: str) -> Path:
    return CONFIG_FRAGMENTS / f"{target}.config"


def kernel_inputs(source: Path, series: Path, target: str) -> list[Path]:
    """The files a build of `target` depends on, checked to exist."""
    if not source.is_file():
        raise KernelInputError(
            f"kernel source {source} is missing: install it with 'apt-get install "
            f"{source.name.removesuffix('.tar.xz')}' (or run 'make bootstrap')"
        )
    if not series.is_file():
        raise KernelInputError(f"patch series {series} is missing")
    fragment = fragment_path(target)
    if not fragment.is_file():
        raise KernelInputError(f"config fragment {fragment} for kernel {target!r} is missing")
    patches = series_patches(series)
    for patch in patches:
        if not patch.is_file():
            raise KernelInputError(f"patch {patch} listed in {series} is missing")
    return [series, fragment, BUILD_SCRIPT, *patches]


def kernel_key(source: Path, series: Path, target: str) -> str:
    inputs = kernel_inputs(source, series, target)
    digest = hashlib.sha256()
    digest.update(f"{source.name}:{source.stat().st_size}\n".encode())
    for path in inputs:
        digest.update(path.name.encode() + b"\n" + path.read_bytes())
    version = source.name.removeprefix("linux-source-").removesuffix(".tar.xz")
    return f"{target}-{version}-{digest.hexdigest()[:12]}"


def kernel_dir(source: Path, series: Path, target: str) -> Path:
    return KERNEL_CACHE / kernel_key(source, series, target)
