"""The runner's hold on its QEMU process, with a stand-in command (no guest): a hang is
killed at the timeout, and a SIGTERM to the runner stops the child before it goes."""

import os
import signal
import threading
import time

import pytest

from mobifrag.platform.emulator import EmulatorError, run_qemu


def gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def sleeper(tmp_path):
    pidfile = tmp_path / "child.pid"
    return ["sh", "-c", f"echo $$ > {pidfile}; exec sleep 60"], pidfile


def terminate_once_started(pidfile, limit_s: float = 30.0) -> None:
    """SIGTERM to this process once the child has written its pid: a fixed delay lost
    the race on a loaded host, before the child had started."""
    deadline = time.monotonic() + limit_s
    while not pidfile.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    os.kill(os.getpid(), signal.SIGTERM)


def test_a_command_that_ends_is_finished(tmp_path):
    run = run_qemu(["true"], tmp_path / "console.log", timeout_s=30)
    assert run.finished and run.wall_seconds < 30


def test_the_cpu_time_is_the_commands_not_its_wall_time(tmp_path):
    busy = "i=0; while [ $i -lt 300000 ]; do i=$((i + 1)); done"
    spinning = run_qemu(["sh", "-c", busy], tmp_path / "busy.log", timeout_s=60)
    # About 0.4 CPU-s on an idle host; a loaded host stretches the wall time, not the CPU.
    assert spinning.cpu_seconds > 0.2
    sleeping = run_qemu(["sleep", "1"], tmp_path / "idle.log", timeout_s=30)
    assert sleeping.wall_seconds >= 1 and sleeping.cpu_seconds < 0.1


def test_a_command_past_its_timeout_is_killed(tmp_path):
    command, pidfile = sleeper(tmp_path)
    run = run_qemu(command, tmp_path / "console.log", timeout_s=1)
    assert not run.finished
    assert gone(int(pidfile.read_text()))


def test_sigterm_to_the_runner_kills_the_child_and_names_the_signal(tmp_path):
    command, pidfile = sleeper(tmp_path)
    timer = threading.Thread(target=terminate_once_started, args=(pidfile,))
    timer.start()
    before = signal.getsignal(signal.SIGTERM)
    with pytest.raises(EmulatorError, match="stopped by SIGTERM; guest killed"):
        run_qemu(command, tmp_path / "console.log", timeout_s=60)
    timer.join()
    assert gone(int(pidfile.read_text()))
    assert signal.getsignal(signal.SIGTERM) is before
