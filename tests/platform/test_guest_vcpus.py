"""Guests with a phone's cores (config `guest_cpus`, runner --cpus): their vCPUs take turns
on one host thread under TCG, and where each vCPU would be a host thread of its own (KVM)
more of them than the host has cores are refused. Without a guest."""

from dataclasses import replace
from pathlib import Path

import pytest

from mobifrag.platform import emulator
from mobifrag.platform import run as platform
from mobifrag.platform.emulator import EmulatorError, GuestJob

KERNEL = Path("bzImage")
SCRIPT = Path("jobs/concurrent-appenders.sh")


def accel_and_smp(job, accel):
    command = emulator.qemu_command(job, accel, Path("share"), Path("disk.img"))
    return command[command.index("-accel") + 1], command[command.index("-smp") + 1]


def test_a_phones_cores_share_one_host_thread_under_tcg():
    job = GuestJob(kernel=KERNEL, script=SCRIPT, cpus=4, vcpus_share_a_thread=True)
    assert accel_and_smp(job, "tcg") == ("tcg,thread=single", "4")
    assert emulator.host_threads(job, "tcg") == 1
    emulator.check_host_threads(job, "tcg", 2)


def test_a_profiles_vcpus_keep_a_host_thread_each():
    job = GuestJob(kernel=KERNEL, script=SCRIPT, cpus=2)
    assert accel_and_smp(job, "tcg") == ("tcg", "2")
    assert emulator.host_threads(job, "tcg") == 2


def test_under_kvm_a_phones_cores_may_not_outnumber_the_hosts():
    job = GuestJob(kernel=KERNEL, script=SCRIPT, cpus=4, vcpus_share_a_thread=True)
    assert accel_and_smp(job, "kvm") == ("kvm", "4")
    with pytest.raises(EmulatorError, match=r"4 vCPUs under kvm runs 4 host threads.*guest_cpus"):
        emulator.check_host_threads(job, "kvm", 2)
    emulator.check_host_threads(job, "kvm", 4)


def test_the_check_comes_before_any_disk_is_made(tmp_path, monkeypatch):
    kernel = tmp_path / "bzImage"
    kernel.write_bytes(b"kernel")
    monkeypatch.setattr(emulator, "require_qemu", lambda: "qemu-system-x86_64")
    monkeypatch.setattr(emulator.os, "cpu_count", lambda: 2)
    job = GuestJob(kernel=kernel, script=SCRIPT, cpus=4, vcpus_share_a_thread=True)
    with pytest.raises(EmulatorError, match="more than this host's 2 cores"):
        emulator.run_job(job, tmp_path / "out", tmp_path / "console.log", accel="kvm")
    assert not (tmp_path / "out.running").exists()


@pytest.mark.parametrize("value", ["0", "9", "four"])
def test_a_bad_vcpu_count_is_named(value, capsys):
    with pytest.raises(SystemExit):
        platform.main(
            ["--device", "emulator-emmc", "--kernel", "k", "--script", "s"]
            + ["--out", "o", "--console", "c", "--cpus", value]
        )
    assert f"--cpus: {value!r} is not a vCPU count from 1 to 8" in capsys.readouterr().err


def test_a_real_device_refuses_cpus(tmp_path):
    spec = platform.JobSpec(
        script=SCRIPT,
        args=(),
        env=(),
        agent=None,
        kernel=KERNEL,
        disk_mib=64,
        timeout_s=None,
        cpus=4,
    )
    profile = {"name": "hikey960", "platform": {"type": "adb"}}
    with pytest.raises(platform.PlatformError, match="hikey960: --cpus is for emulated guests"):
        platform.run_on_device(profile, spec, tmp_path / "out", tmp_path / "console.log")


def test_vcpus_sharing_tcgs_one_tsc_keep_it_as_their_clock():
    def kernel_options(job, accel):
        command = emulator.qemu_command(job, accel, Path("share"), Path("disk.img"))
        return command[command.index("-append") + 1].split()

    four = GuestJob(kernel=KERNEL, script=SCRIPT, cpus=4, vcpus_share_a_thread=True)
    assert "tsc=reliable" in kernel_options(four, "tcg")
    assert "tsc=reliable" not in kernel_options(four, "kvm")
    assert "tsc=reliable" not in kernel_options(GuestJob(kernel=KERNEL, script=SCRIPT), "tcg")


class GuestBooted(Exception):
    """Raised by the stand-in runner once it has the guest's job."""


def guest_job_of(spec, monkeypatch):
    booted = []

    def run_job(job, out, console, accel):
        booted.append(job)
        raise GuestBooted

    monkeypatch.setattr(emulator, "run_job", run_job)
    profile = {"platform": {"cpus": 1, "memory_mib": 320, "job_timeout_s": 60, "accel": "tcg"}}
    with pytest.raises(GuestBooted):
        platform.run_in_emulator(profile, spec, Path("out"), Path("console.log"))
    return booted[0]


def test_a_probe_gives_each_vcpu_its_own_host_thread(monkeypatch):
    spec = platform.JobSpec(
        script=SCRIPT, args=(), env=(), agent=None, kernel=KERNEL, disk_mib=64, timeout_s=None
    )
    shared = guest_job_of(replace(spec, cpus=8), monkeypatch)
    own = guest_job_of(replace(spec, cpus=8, own_vcpu_threads=True), monkeypatch)
    assert accel_and_smp(shared, "tcg") == ("tcg,thread=single", "8")
    assert accel_and_smp(own, "tcg") == ("tcg", "8")
    assert emulator.host_threads(own, "tcg") == 8


def test_own_vcpu_threads_need_a_vcpu_count(capsys):
    with pytest.raises(SystemExit):
        platform.main(
            ["--device", "emulator-emmc", "--kernel", "k", "--script", "s"]
            + ["--out", "o", "--console", "c", "--vcpu-threads", "own"]
        )
    assert "--vcpu-threads own needs --cpus" in capsys.readouterr().err
