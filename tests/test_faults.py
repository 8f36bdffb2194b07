"""Faults of the host under a run, without a guest: a full disk fails the job before it
boots and, under a guest, reaches it as an I/O error."""

import shutil
from collections import namedtuple
from pathlib import Path

import pytest

from mobifrag import emulator
from mobifrag.emulator import EmulatorError, GuestJob

MIB = 1024 * 1024
Usage = namedtuple("Usage", "total used free")


def drive_options(command: list[str]) -> dict[str, str]:
    value = command[command.index("-drive") + 1]
    return dict(option.partition("=")[::2] for option in value.split(","))


def test_the_test_disk_reports_host_io_errors_to_the_guest(tmp_path):
    job = GuestJob(kernel=Path("bzImage"), script=Path("jobs/x.sh"))
    disk = tmp_path / "test-disk.img"
    options = drive_options(emulator.qemu_command(job, "tcg", tmp_path, disk))
    assert options["file"] == str(disk)
    assert options["werror"] == "report" and options["rerror"] == "report"


@pytest.fixture
def guest_job(tmp_path, monkeypatch):
    """A job whose runner gets as far as booting; booting fails the test."""
    kernel = tmp_path / "bzImage"
    kernel.write_bytes(b"kernel")
    monkeypatch.setattr(emulator, "require_qemu", lambda: "qemu-system-x86_64")

    def boot(*args, **kwargs):
        raise AssertionError("the guest was booted")

    monkeypatch.setattr(emulator, "run_qemu", boot)
    monkeypatch.setattr(emulator, "choose_accel", lambda kernel, accel: "tcg")
    return GuestJob(kernel=kernel, script=Path("jobs/x.sh"), disk_bytes=256 * MIB)


def test_a_full_host_disk_fails_the_job_before_booting(tmp_path, monkeypatch, guest_job):
    asked = []

    def usage(path):
        asked.append(Path(path))
        return Usage(total=1024 * MIB, used=1024 * MIB - 10 * MIB, free=10 * MIB)

    monkeypatch.setattr(shutil, "disk_usage", usage)
    out = tmp_path / "runs" / "out"
    with pytest.raises(EmulatorError) as error:
        emulator.run_job(guest_job, out, tmp_path / "console.log")
    message = str(error.value)
    folder = out.with_name("out.running")
    assert asked == [folder]
    assert str(folder) in message
    assert f"{256 * MIB} bytes" in message and f"{10 * MIB} bytes are free" in message
    assert not folder.exists() and not out.exists()


def test_a_kept_image_larger_than_the_disk_is_what_must_fit(tmp_path, monkeypatch, guest_job):
    base = tmp_path / "kept.img"
    with open(base, "wb") as image:
        image.truncate(512 * MIB)
    job = GuestJob(
        kernel=guest_job.kernel, script=guest_job.script, disk_bytes=256 * MIB, base_image=base
    )
    monkeypatch.setattr(shutil, "disk_usage", lambda path: Usage(1024 * MIB, 0, 300 * MIB))
    with pytest.raises(EmulatorError, match=f"needs {512 * MIB} bytes"):
        emulator.run_job(job, tmp_path / "out", tmp_path / "console.log")


def test_enough_free_space_goes_on_to_boot(tmp_path, monkeypatch, guest_job):
    monkeypatch.setattr(shutil, "disk_usage", lambda path: Usage(1024 * MIB, 0, 512 * MIB))
    with pytest.raises(AssertionError, match="the guest was booted"):
        emulator.run_job(guest_job, tmp_path / "out", tmp_path / "console.log")
