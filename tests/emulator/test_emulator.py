"""The emulator runner against a real guest: success, failure, hang, panic."""

from pathlib import Path

import pytest

from mobifrag.platform import emulator
from mobifrag.platform.emulator import EmulatorError, GuestJob, run_job

pytestmark = pytest.mark.emulator


def host_cpu_flags():
    line = next(x for x in Path("/proc/cpuinfo").read_text().splitlines() if x.startswith("flags"))
    return line.split()


def job_script(tmp_path, body):
    script = tmp_path / "job.sh"
    script.write_text(body)
    return script


def run(tmp_path, kernel, body, timeout=120):
    job = GuestJob(
        kernel=kernel,
        script=job_script(tmp_path, body),
        timeout_s=timeout,
        disk_bytes=32 * 1024 * 1024,
        env=(("GREETING", "it's me"),),
    )
    return run_job(job, tmp_path / "out", tmp_path / "console.log")


def test_job_outputs_and_disk_reach_the_host(tmp_path, emulator_kernel):
    body = (
        'echo "$GREETING" > greeting.txt\n'
        "blockdev --getsize64 $MOBIFRAG_DISK > disk-bytes.txt\n"
        "grep -c ' / 9p ' /proc/mounts > root-is-9p.txt\n"
        "touch /should-fail 2> /dev/null && echo writable > root.txt || echo read-only > root.txt\n"
        "grep ' / 9p ' /proc/mounts > root-mount.txt\n"
        "grep -m1 '^flags' /proc/cpuinfo > cpu-flags.txt\n"
        "cat /sys/devices/system/clocksource/clocksource0/current_clocksource > clock.txt\n"
    )
    result = run(tmp_path, emulator_kernel, body)
    out = tmp_path / "out"
    assert result.exit_status == 0 and result.accel in ("kvm", "tcg")
    assert (out / "greeting.txt").read_text() == "it's me\n"
    assert (out / "disk-bytes.txt").read_text().strip() == str(32 * 1024 * 1024)
    assert (out / "root-is-9p.txt").read_text().strip() == "1"
    assert (out / "root.txt").read_text().strip() == "read-only"
    # The read-only root is cached; under TCG the guest has the baseline CPU model.
    assert "loose" in (out / "root-mount.txt").read_text().split()[3].split(",")
    flags = (out / "cpu-flags.txt").read_text().split()
    assert ("avx2" in flags) == (result.accel == "kvm" and "avx2" in host_cpu_flags())
    # Boot options that skip ACPI's interrupt links keep its timers: the guest's clock
    # (timestamps of blktrace and of wall-time series) is the TSC, not the jiffies that
    # booting without ACPI falls back to.
    assert (out / "clock.txt").read_text().strip() in ("tsc", "tsc-early", "kvm-clock")
    assert not (out / "exit-status").exists()
    assert not Path(str(out) + ".running").exists()


def test_failing_job_reports_status_and_leaves_no_output(tmp_path, emulator_kernel):
    with pytest.raises(EmulatorError, match=r"exited with status 3[\s\S]*about to fail"):
        run(tmp_path, emulator_kernel, "echo about to fail\nexit 3\n")
    assert not (tmp_path / "out").exists()


def test_hung_guest_is_killed_after_timeout(tmp_path, emulator_kernel):
    with pytest.raises(EmulatorError, match="still running after 20 s and was killed"):
        run(tmp_path, emulator_kernel, "sleep 600\n", timeout=20)
    assert not (tmp_path / "out").exists()


def test_panicking_guest_is_reported_with_console_tail(tmp_path, emulator_kernel):
    with pytest.raises(EmulatorError, match=r"without finishing the job[\s\S]*sysrq"):
        run(tmp_path, emulator_kernel, "echo c > /proc/sysrq-trigger\nsleep 60\n")
    assert not (tmp_path / "out").exists()


def test_missing_qemu_says_what_to_install(tmp_path, monkeypatch):
    monkeypatch.setattr(emulator.shutil, "which", lambda name: None)
    job = GuestJob(kernel=tmp_path / "bzImage", script=job_script(tmp_path, "true\n"))
    with pytest.raises(EmulatorError, match="apt-get install qemu-system-x86"):
        run_job(job, tmp_path / "out", tmp_path / "console.log")


def test_kept_disk_is_the_next_jobs_starting_point(tmp_path, emulator_kernel):
    first = GuestJob(
        kernel=emulator_kernel,
        script=job_script(tmp_path, "printf aged > $MOBIFRAG_DISK\n"),
        disk_bytes=8 * 1024 * 1024,
        keep_disk=True,
    )
    run_job(first, tmp_path / "aged", tmp_path / "aged.log")
    kept = tmp_path / "aged" / "disk.img"
    assert kept.read_bytes()[:4] == b"aged"
    second_dir = tmp_path / "second"
    second_dir.mkdir()
    second = GuestJob(
        kernel=emulator_kernel,
        script=job_script(
            second_dir, "head -c 4 $MOBIFRAG_DISK > seen.txt\nprintf new > $MOBIFRAG_DISK\n"
        ),
        base_image=kept,
    )
    run_job(second, tmp_path / "after", tmp_path / "after.log")
    assert (tmp_path / "after" / "seen.txt").read_text() == "aged"
    assert kept.read_bytes()[:4] == b"aged", "the kept image must not change"
