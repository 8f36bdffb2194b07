"""jobs/lib.sh's fence around formatting and its blktrace stop, run from a host shell.

Of the fence only require_test_disk is ever called (never make_fs), so no disk is
written whatever the outcome; the tests that need a block device of the host only stat it.
"""

import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REPO

LIB = REPO / "jobs" / "lib.sh"
GUEST_INIT = REPO / "mobifrag" / "platform" / "guest" / "init.sh"
REACHED = "require_test_disk returned"
NOT_GUEST = "not inside the study's guest"


def require_test_disk(env, shell="bash"):
    """Runs require_test_disk in `shell` with only PATH and `env` set."""
    script = f'. "{LIB}"; require_test_disk; echo "{REACHED}"'
    return subprocess.run(
        [shell, "-c", script],
        env={"PATH": os.environ["PATH"], **env},
        capture_output=True,
        text=True,
        timeout=60,
    )


def mounted_numbers():
    """(major, minor) of every mounted file system."""
    lines = Path("/proc/self/mountinfo").read_text().splitlines()
    return {tuple(int(n) for n in line.split()[2].split(":")) for line in lines}


def block_nodes():
    """(path, (major, minor)) of the host's block device nodes in /dev."""
    nodes = []
    for path in sorted(Path("/dev").iterdir()):
        try:
            info = path.stat()
        except OSError:
            continue
        if stat.S_ISBLK(info.st_mode):
            nodes.append((path, (os.major(info.st_rdev), os.minor(info.st_rdev))))
    return nodes


def hex_number(numbers):
    return f"{numbers[0]:x}:{numbers[1]:x}"


def unused_loop_device():
    """A loop device node that nothing mounts or stacks on, or a skip."""
    mounted = mounted_numbers()
    for path, numbers in block_nodes():
        holders = Path("/sys/class/block", path.name, "holders")
        unused = numbers not in mounted and not (holders.is_dir() and any(holders.iterdir()))
        if path.name.startswith("loop") and unused:
            return path, numbers
    pytest.skip("no unused loop device on this host")


def mounted_block_device():
    mounted = mounted_numbers()
    for path, numbers in block_nodes():
        if numbers in mounted:
            return path, numbers
    pytest.skip("no mounted block device with a node in /dev on this host")


def any_disk_path():
    """A block device of the host if there is one (what the old check let through)."""
    nodes = block_nodes()
    return str(nodes[0][0]) if nodes else "/dev/no-such-disk"


@pytest.mark.parametrize("shell", ["bash", "sh"])
def test_a_host_shell_is_refused_before_anything_else(shell):
    done = require_test_disk({"MOBIFRAG_DISK": any_disk_path()}, shell)
    assert done.returncode != 0
    assert NOT_GUEST in done.stderr
    assert REACHED not in done.stdout


def test_without_a_disk_the_fence_still_speaks_first():
    done = require_test_disk({})
    assert done.returncode != 0 and NOT_GUEST in done.stderr


@pytest.mark.parametrize("checked", [None, "", "ff:ff"])
def test_a_device_job_needs_the_runners_check_of_this_disk(checked):
    env = {"MOBIFRAG_DISK": any_disk_path(), "MOBIFRAG_PLATFORM": "adb"}
    if checked is not None:
        env["MOBIFRAG_DEVICE_CHECKED_DISK"] = checked
    done = require_test_disk(env)
    assert done.returncode != 0 and NOT_GUEST in done.stderr


def opted_in(disk, numbers):
    return {
        "MOBIFRAG_DISK": str(disk),
        "MOBIFRAG_PLATFORM": "adb",
        "MOBIFRAG_DEVICE_CHECKED_DISK": hex_number(numbers),
    }


def test_an_opted_in_device_job_may_use_an_unused_disk():
    disk, numbers = unused_loop_device()
    done = require_test_disk(opted_in(disk, numbers))
    assert done.returncode == 0, done.stderr
    assert REACHED in done.stdout


def test_a_mounted_disk_is_refused_through_an_alias(tmp_path):
    disk, numbers = mounted_block_device()
    alias = tmp_path / "test-disk"
    alias.symlink_to(disk)
    done = require_test_disk(opted_in(alias, numbers))
    assert done.returncode != 0
    assert f"device {hex_number(numbers)}" in done.stderr and "is mounted" in done.stderr
    assert REACHED not in done.stdout


def test_without_awk_a_mounted_disk_cannot_be_seen_so_formatting_is_refused(tmp_path):
    disk, numbers = unused_loop_device()
    tools = tmp_path / "bin"
    tools.mkdir()
    for name in ("cat", "stat", "readlink", "basename", "ls", "tr", "grep", "sh", "bash"):
        (tools / name).symlink_to(shutil.which(name))
    done = subprocess.run(
        ["bash", "-c", f'. "{LIB}"; require_test_disk; echo "{REACHED}"'],
        env={"PATH": str(tools), **opted_in(disk, numbers)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode != 0
    assert "awk is not installed" in done.stderr and "refusing to format" in done.stderr
    assert REACHED not in done.stdout


def guest_marker_line():
    lines = [line for line in GUEST_INIT.read_text().splitlines() if "/run/mobifrag/guest" in line]
    assert len(lines) == 1, "mobifrag/platform/guest/init.sh writes the guest marker once"
    return lines[0]


def in_private_run(command):
    """`command` with a private tmpfs on /run (a mount namespace of its own, so the
    host's /run is never written), or a skip where that is not allowed."""
    if os.geteuid() != 0 or shutil.which("unshare") is None:
        pytest.skip("needs root and unshare for a private /run")
    probe = subprocess.run(["unshare", "--mount", "true"], capture_output=True)
    if probe.returncode != 0:
        pytest.skip("mount namespaces are not available here")
    return ["unshare", "--mount", "--propagation", "private", "sh", "-c", command]


def test_the_guest_inits_marker_is_what_lib_sh_accepts():
    disk, _ = unused_loop_device()
    script = (
        f"mount -t tmpfs guest-run /run && mkdir -p /run/mobifrag && {guest_marker_line()} && "
        f'. "{LIB}" && MOBIFRAG_DISK={disk} require_test_disk && echo "{REACHED}"'
    )
    done = subprocess.run(in_private_run(script), capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert REACHED in done.stdout


def test_a_marker_of_another_boot_is_refused():
    disk, _ = unused_loop_device()
    script = (
        "mount -t tmpfs guest-run /run && mkdir -p /run/mobifrag && "
        "echo 00000000-0000-0000-0000-000000000000 > /run/mobifrag/guest && "
        f'. "{LIB}" && MOBIFRAG_DISK={disk} require_test_disk && echo "{REACHED}"'
    )
    done = subprocess.run(in_private_run(script), capture_output=True, text=True, timeout=60)
    assert done.returncode != 0 and NOT_GUEST in done.stderr


# --- trace_start and trace_stop: blktrace's log kept, its failure the job's ---------------

# blktrace's stand-in on PATH: it arms by creating its per-CPU file in the folder of -D,
# then ends on SIGINT with its summary and the status BLKTRACE_STATUS, as blktrace ends
# (0 once it has written its summary, 1 when it could not trace); BLKTRACE_STATUS=never
# makes one that exits at once without arming.
BLKTRACE_STANDIN = f"""#!{sys.executable}
import os, pathlib, signal, sys, time
status = os.environ["BLKTRACE_STATUS"]
if status == "never":
    sys.exit("cannot open /dev/vdb")
def stop(*_):
    print("Total: 12 events (dropped 0), 1 KiB data")
    sys.exit(int(status))
signal.signal(signal.SIGINT, stop)  # a background job of sh starts with SIGINT ignored
pathlib.Path(sys.argv[sys.argv.index("-D") + 1], "trace.blktrace.0").touch()
time.sleep(60)
"""


# The agent's stand-in: its trace-wait returns once the stand-in blktrace's file is there
# (the stand-in's trace "runs"), and fails after 2 s without it, as the agent's does when
# blktrace exits before its trace starts.
AGENT_STANDIN = f"""#!{sys.executable}
import os, pathlib, sys, time
assert sys.argv[1] == "trace-wait" and "--pid" in sys.argv, sys.argv
for _ in range(100):
    if list(pathlib.Path(os.environ["TRACE_DIR"]).glob("trace.blktrace.*")):
        sys.exit(0)
    time.sleep(0.02)
sys.exit("mobifrag-agent trace-wait: /dev/vdb: blktrace exited before its trace started")
"""


def traced_phase(tmp_path, status):
    """trace_start then trace_stop of one phase with the stand-in blktrace, in sh."""
    out, tools = tmp_path / "out", tmp_path / "bin"
    out.mkdir()
    tools.mkdir()
    (tools / "blktrace").write_text(BLKTRACE_STANDIN)
    (tools / "blktrace").chmod(0o755)
    (tools / "agent").write_text(AGENT_STANDIN)
    (tools / "agent").chmod(0o755)
    script = f"""
TMPDIR={tmp_path} MOBIFRAG_DISK=/dev/vdb
. "{LIB}"
trace_start phase
echo armed
trace_stop phase
echo stopped
"""
    env = {
        "PATH": f"{tools}:{os.environ['PATH']}",
        "BLKTRACE_STATUS": str(status),
        "MOBIFRAG_AGENT": str(tools / "agent"),
        "TRACE_DIR": str(tmp_path / "blktrace" / "phase"),
    }
    run = subprocess.run(
        ["sh", "-c", script], cwd=out, env=env, capture_output=True, text=True, timeout=60
    )
    return run, out / "blktrace" / "phase"


def test_a_traced_phase_keeps_blktraces_log_with_the_trace_files(tmp_path):
    run, phase = traced_phase(tmp_path, 0)
    assert run.returncode == 0 and "stopped" in run.stdout, run.stderr
    assert (phase / "trace.blktrace.0").is_file()
    assert "dropped 0" in (phase / "blktrace.log").read_text()
    assert not list((tmp_path / "blktrace" / "phase").iterdir())  # moved, not copied


def test_trace_stop_fails_the_job_when_blktrace_failed(tmp_path):
    run, phase = traced_phase(tmp_path, 1)
    assert "armed" in run.stdout and "stopped" not in run.stdout
    assert run.returncode != 0
    assert "blktrace of phase exited with status 1 (its log: blktrace/phase/blktrace.log)" in (
        run.stderr
    )
    assert (phase / "blktrace.log").is_file()


def test_trace_start_fails_the_job_when_blktrace_never_arms(tmp_path):
    run, phase = traced_phase(tmp_path, "never")
    assert run.returncode != 0 and "armed" not in run.stdout
    assert "blktrace did not start (its log: blktrace/phase/blktrace.log)" in run.stderr
    assert "cannot open /dev/vdb" in run.stderr
