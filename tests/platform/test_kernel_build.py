"""The patch-series mechanism of scripts/build-kernel.sh, on the real source tarball."""

import subprocess
import tarfile

import pytest

from conftest import REPO
from mobifrag.platform.kernel import KernelInputError, kernel_key
from mobifrag.workflow.study_config import load_config

CONFIG = load_config()
SOURCE = REPO / CONFIG["kernel"]["source"]
SERIES = REPO / CONFIG["kernel"]["series"]
BUILD = REPO / "scripts" / "build-kernel.sh"
FRAGMENT = REPO / "kernel-patches" / "configs" / "emulator.config"

TRIVIAL_PATCH = """\
--- a/init/version.c
+++ b/init/version.c
@@ -1,4 +1,5 @@
 // SPDX-License-Identifier: GPL-2.0-only
+/* mobifrag test patch */
 /*
  *  linux/init/version.c
  *
"""


def build(*args, out):
    command = [str(BUILD), "--fragment", str(FRAGMENT), "--out", str(out), *args]
    return subprocess.run(command, capture_output=True, text=True)


def test_series_patches_are_applied_in_order(tmp_path):
    series = tmp_path / "series"
    (tmp_path / "0001-test.patch").write_text(TRIVIAL_PATCH)
    series.write_text("# comment line\n0001-test.patch  # trailing comment\n")
    run = build(
        "--source", str(SOURCE), "--series", str(series), "--prepare-only", out=tmp_path / "k"
    )
    assert run.returncode == 0, run.stderr
    assert "applying 0001-test.patch" in run.stdout
    assert (
        "/* mobifrag test patch */" in (tmp_path / "k" / "src" / "init" / "version.c").read_text()
    )
    config = (tmp_path / "k" / "src" / ".config").read_text()
    assert "CONFIG_F2FS_FS=y" in config and "CONFIG_BLK_DEV_IO_TRACE=y" in config


def fake_source(tmp_path):
    tree = tmp_path / "linux-source-6.1"
    (tree / "init").mkdir(parents=True)
    (tree / "init" / "version.c").write_text("unrelated\n")
    tarball = tmp_path / "linux-source-6.1.tar.xz"
    with tarfile.open(tarball, "w:xz") as archive:
        archive.add(tree, arcname="linux-source-6.1")
    return tarball


def test_patch_that_does_not_apply_is_named(tmp_path):
    (tmp_path / "0001-test.patch").write_text(TRIVIAL_PATCH)
    (tmp_path / "series").write_text("0001-test.patch\n")
    run = build(
        "--source",
        str(fake_source(tmp_path)),
        "--series",
        str(tmp_path / "series"),
        out=tmp_path / "k",
    )
    assert run.returncode != 0
    assert "patch 0001-test.patch does not apply" in run.stderr


def test_missing_patch_in_series_is_named(tmp_path):
    (tmp_path / "series").write_text("0002-missing.patch\n")
    run = build(
        "--source",
        str(fake_source(tmp_path)),
        "--series",
        str(tmp_path / "series"),
        out=tmp_path / "k",
    )
    assert run.returncode != 0
    assert "0002-missing.patch listed in" in run.stderr


def test_missing_source_says_what_to_install(tmp_path):
    with pytest.raises(KernelInputError, match="apt-get install linux-source-6.1"):
        kernel_key(tmp_path / "linux-source-6.1.tar.xz", SERIES, "emulator")
    run = build(
        "--source",
        str(tmp_path / "linux-source-6.1.tar.xz"),
        "--series",
        str(SERIES),
        out=tmp_path / "k",
    )
    assert "apt-get install linux-source-6.1" in run.stderr


def test_key_changes_with_a_patch(tmp_path):
    series = tmp_path / "series"
    series.write_text("")
    empty = kernel_key(SOURCE, series, "emulator")
    (tmp_path / "0001-test.patch").write_text(TRIVIAL_PATCH)
    series.write_text("0001-test.patch\n")
    patched = kernel_key(SOURCE, series, "emulator")
    assert empty != patched and patched.startswith("emulator-6.1-")
