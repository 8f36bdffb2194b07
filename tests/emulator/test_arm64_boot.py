"""The arm64 kernel the pipeline builds for the HiKey960 boots under
`qemu-system-aarch64 -M virt -cpu cortex-a57` (TCG) to a shell and runs the static
aarch64 agent's fragcheck on a virtio disk: proof that the cross-build works before any
board sees the image.

The host's root is x86_64, so the guest gets a tiny initramfs instead of the host root:
Debian's static busybox for arm64 (the shell), the aarch64 agent, and an init script.
The test disk is an ext4 image made and filled on the host.

Slow (the kernel cross-build takes most of it), so it runs only when asked: `make
test-arm64` (MOBIFRAG_TEST_ARM64=1 python -m pytest -m arm64 tests/emulator/test_arm64_boot.py).
"""

import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from conftest import REPO, snakemake
from mobifrag.platform.kernel import kernel_dir
from mobifrag.workflow.study_config import load_config

pytestmark = [
    pytest.mark.arm64,
    pytest.mark.skipif(
        os.environ.get("MOBIFRAG_TEST_ARM64") != "1",
        reason="arm64 cross-build and TCG boot: run with `make test-arm64`",
    ),
]

QEMU = "qemu-system-aarch64"
BOOT_TIMEOUT_S = 600
FILE_BYTES = 1024 * 1024

INIT = """\
#!/bin/busybox sh
/bin/busybox mkdir -p /proc /sys /dev /mnt /tmp
/bin/busybox mount -t proc proc /proc
/bin/busybox mount -t sysfs sysfs /sys
/bin/busybox mount -t devtmpfs devtmpfs /dev
echo "MOBIFRAG-SHELL $(/bin/busybox uname -m) $(/bin/busybox uname -r)"
/bin/busybox mount -t ext4 -o ro /dev/vda /mnt
/bin/mobifrag-agent fragcheck --root /mnt --files /tmp/files.tsv \\
  --extents /tmp/extents.tsv --fs /tmp/fs.tsv
echo "MOBIFRAG-FRAGCHECK-STATUS $?"
/bin/busybox cat /tmp/files.tsv
echo MOBIFRAG-END
/bin/busybox poweroff -f
"""


@pytest.fixture(scope="module")
def arm64_build():
    """The hikey960 kernel Image, the aarch64 agent and busybox, built by the workflow."""
    config = load_config()
    folder = kernel_dir(
        Path(config["kernel"]["source"]), REPO / config["kernel"]["series"], "hikey960"
    )
    files = {
        "kernel": folder / "Image",
        "agent": REPO / "agent/build/aarch64/mobifrag-agent",
        "busybox": REPO / "build/device/busybox-arm64/busybox",
    }
    started = time.monotonic()
    snakemake(*(str(path.relative_to(REPO)) for path in files.values()))
    print(f"arm64 build: {time.monotonic() - started:.0f} s")
    return files


def make_initramfs(tmp_path: Path, busybox: Path, agent: Path) -> Path:
    root = tmp_path / "initramfs"
    (root / "bin").mkdir(parents=True)
    shutil.copy(busybox, root / "bin/busybox")
    shutil.copy(agent, root / "bin/mobifrag-agent")
    (root / "init").write_text(INIT)
    for path in (root / "init", root / "bin/busybox", root / "bin/mobifrag-agent"):
        path.chmod(0o755)
    image = tmp_path / "initramfs.cpio"
    listing = subprocess.run(
        ["find", "."], cwd=root, capture_output=True, text=True, check=True
    ).stdout
    with open(image, "wb") as cpio:
        subprocess.run(
            ["cpio", "--quiet", "-o", "-H", "newc", "-R", "0:0"],
            cwd=root,
            input=listing.encode(),
            stdout=cpio,
            check=True,
        )
    return image


def make_disk(tmp_path: Path) -> Path:
    """An ext4 image holding a 1 MiB file and a small one, made on the host."""
    content = tmp_path / "content"
    content.mkdir()
    (content / "app.db").write_bytes(os.urandom(FILE_BYTES))
    (content / "note.txt").write_text("mobifrag\n")
    disk = tmp_path / "disk.img"
    subprocess.run(
        ["mkfs.ext4", "-q", "-F", "-b", "4096", "-d", str(content), str(disk), "64M"], check=True
    )
    return disk


def boot(kernel: Path, initramfs: Path, disk: Path, console: Path) -> float:
    command = [
        QEMU, "-M", "virt", "-cpu", "cortex-a57", "-accel", "tcg", "-smp", "1", "-m", "512",
        "-nographic", "-no-reboot", "-nodefaults", "-serial", "stdio",
        "-kernel", str(kernel), "-initrd", str(initramfs),
        "-append", "console=ttyAMA0 panic=-1 rdinit=/init",
        "-drive", f"file={disk},if=none,format=raw,id=test",
        "-device", "virtio-blk-device,drive=test",
    ]  # fmt: skip
    started = time.monotonic()
    with open(console, "wb") as log:
        subprocess.run(
            command, stdout=log, stderr=log, stdin=subprocess.DEVNULL, timeout=BOOT_TIMEOUT_S
        )
    return time.monotonic() - started


@pytest.mark.skipif(shutil.which(QEMU) is None, reason=f"{QEMU} missing (qemu-system-arm)")
def test_arm64_kernel_boots_to_a_shell_and_runs_fragcheck(arm64_build, tmp_path):
    initramfs = make_initramfs(tmp_path, arm64_build["busybox"], arm64_build["agent"])
    console = tmp_path / "console.log"
    seconds = boot(arm64_build["kernel"], initramfs, make_disk(tmp_path), console)
    text = console.read_text(errors="replace")
    print(f"arm64 TCG boot and fragcheck: {seconds:.1f} s")
    assert "MOBIFRAG-SHELL aarch64" in text, text[-3000:]
    assert "MOBIFRAG-FRAGCHECK-STATUS 0" in text, text[-3000:]
    table = text.split("MOBIFRAG-FRAGCHECK-STATUS 0", 1)[1].split("MOBIFRAG-END", 1)[0]
    rows = [line.split("\t") for line in table.strip().splitlines()]
    header, data = rows[0], {row[0]: dict(zip(rows[0], row, strict=True)) for row in rows[1:]}
    assert header[:2] == ["path", "size_bytes"]
    app = next(row for path, row in data.items() if path.endswith("app.db"))
    assert int(app["size_bytes"]) == FILE_BYTES and int(app["n_extents"]) >= 1
