"""Run a job script inside the study's kernel under QEMU.

The guest's root is the host's root, read-only over 9p; a second 9p share is the job's
writable output directory; a fresh raw image made for this run is the test disk
(/dev/vda). The guest runs mobifrag/platform/guest/init.sh, which runs the job and records its
exit status. A guest that hangs is killed after the profile's timeout; a guest that
panics or dies leaves no exit status. Either way the caller gets an EmulatorError holding
the console log's tail, and the output directory is not created.

While the guest runs, the job's phase lines (jobs/lib.sh, progress_step) reach the
console log through the guest's console, which the runner follows for its heartbeat
(mobifrag/platform/progress.py) and to time each phase.
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import resource
import shlex
import shutil
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from mobifrag import REPO
from mobifrag.platform.phase_line import phase_step
from mobifrag.platform.phase_times import PhaseSpan, PhaseTimer, process_cpu_seconds
from mobifrag.platform.progress import Progress, console_progress, wait_with_heartbeat

GUEST_INIT = REPO / "mobifrag" / "platform" / "guest" / "init.sh"
QEMU = "qemu-system-x86_64"
CONSOLE_TAIL_LINES = 40
KVM_PROBE_TIMEOUT_S = 60
# How often the runner reads the console for phase lines, to time each phase.
PHASE_POLL_S = 0.25


class EmulatorError(RuntimeError):
    """The guest did not complete its job; the message says why and shows the console."""


@dataclass(frozen=True)
class GuestJob:
    """One experiment run: a job script with arguments, on a fresh test disk."""

    kernel: Path
    script: Path
    args: tuple[str, ...] = ()
    env: tuple[tuple[str, str], ...] = ()
    disk_bytes: int = 256 * 1024 * 1024
    # An image an earlier job kept (an aged file system) to start from, copied so the
    # kept image never changes; and whether to keep this job's disk as out/disk.img.
    base_image: Path | None = None
    keep_disk: bool = False
    cpus: int = 1
    # Under TCG the vCPUs take turns on one host thread (QEMU's round-robin TCG) instead
    # of one host thread each: for guests that need a phone's CPUs for the kernel's
    # per-CPU state (ext4's locality groups), not for speed (config `guest_cpus`).
    vcpus_share_a_thread: bool = False
    memory_mib: int = 320
    timeout_s: float = 3600
    # A previous run's seconds (its benchmark file), for the heartbeat's time left.
    expect_seconds: float | None = None


@dataclass(frozen=True)
class JobResult:
    accel: str
    exit_status: int
    wall_seconds: float
    console_log: Path
    # QEMU's user and system CPU seconds: what the guest cost the host, so a run's
    # busy share (cpu over wall) tells how many such guests a host core can hold.
    cpu_seconds: float
    phases: tuple[PhaseSpan, ...] = ()


@dataclass(frozen=True)
class QemuRun:
    finished: bool  # before the timeout
    wall_seconds: float
    cpu_seconds: float
    phases: tuple[PhaseSpan, ...] = ()


def children_cpu_seconds() -> float:
    """User and system CPU seconds of this process's reaped children so far."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def require_qemu() -> str:
    path = shutil.which(QEMU)
    if path is None:
        raise EmulatorError(f"{QEMU} not found: install it with 'apt-get install qemu-system-x86'")
    return path


def console_tail(log: Path, lines: int = CONSOLE_TAIL_LINES) -> str:
    try:
        text = log.read_text(errors="replace").splitlines()
    except OSError:
        return "(no console output)"
    return "\n".join(text[-lines:]) or "(no console output)"


def guest_cpu_model(accel: str) -> str:
    """The host's CPU under KVM. Under TCG the baseline x86-64 model: a quick Ext4
    tuning run took 13-15 % less time on it than on `max`, whose extensions TCG emulates
    more slowly than the baseline code paths the kernel and programs pick instead
    (docs/measurements.md, 2026-11-28)."""
    return "max" if accel == "kvm" else "qemu64"


def accel_option(job: GuestJob, accel: str) -> str:
    """QEMU's -accel value: round-robin TCG (one host thread for every vCPU) for a guest
    whose vCPUs share a thread, else the accelerator as chosen (MTTCG under TCG: a host
    thread per vCPU)."""
    if accel == "tcg" and job.cpus > 1 and job.vcpus_share_a_thread:
        return "tcg,thread=single"
    return accel


def host_threads(job: GuestJob, accel: str) -> int:
    """Host threads that run the guest's vCPUs."""
    return 1 if accel_option(job, accel) == "tcg,thread=single" else job.cpus


def check_host_threads(job: GuestJob, accel: str, host_cores: int | None) -> None:
    """A guest whose vCPUs share a thread under TCG holds one host core; under KVM each
    vCPU is a host thread of its own, and more of them than the host has cores is
    refused (README, Determinism)."""
    threads = host_threads(job, accel)
    if job.vcpus_share_a_thread and host_cores is not None and threads > host_cores:
        raise EmulatorError(
            f"a guest of {job.cpus} vCPUs under {accel} runs {threads} host threads, more"
            f" than this host's {host_cores} cores; lower the experiment's vCPUs (config"
            " guest_cpus)"
        )


TCG_LOOPS_PER_JIFFY = 8_000_000


def clock_options(job: GuestJob, accel: str) -> list[str]:
    """Kernel options for the guest's clock. Under TCG every vCPU reads one TSC, QEMU's
    count of the host's clock; but the kernel takes the TSCs of a `qemu64` CPU (AMD,
    without constant_tsc) on more than one CPU for unsynchronized and falls back to the
    emulated HPET, each clock read a trip into QEMU. `tsc=reliable` keeps the TSC (and
    skips the sync test at each CPU's bring-up). `lpj` skips the delay-loop calibration
    of every secondary vCPU, which fails under TCG after about 0.15 s each; delays are
    timed by the TSC all the same, and the value is the boot CPU's own under TCG
    (a 2 GHz TSC at the kernel's 250 Hz; docs/measurements.md, 2026-12-02)."""
    if accel != "tcg" or job.cpus == 1:
        return []
    return ["tsc=reliable", f"lpj={TCG_LOOPS_PER_JIFFY}"]


def qemu_command(job: GuestJob, accel: str, share: Path, disk: Path) -> list[str]:
    append = " ".join(
        [
            "console=ttyS0",
            "root=hostroot",
            "rootfstype=9p",
            # The host's root is read-only to the guest and its files do not change
            # under a job: cached, each program a job runs is read over 9p once, not at
            # every exec (an exec took 80 ms without, 45 ms with; docs/measurements.md).
            "rootflags=trans=virtio,version=9p2000.L,msize=262144,cache=loose",
            "ro",
            "init=/bin/sh",
            "panic=-1",
            # Under a loaded host, TCG's timer can miss the kernel's IO-APIC check and
            # panic at boot; the check proves nothing about an emulated board.
            "no_timer_check",
            # Under TCG, evaluating the ACPI PCI interrupt links and probing the PS/2
            # controller took 1.8 of the kernel's 3.5 s of boot, paid by every job; the
            # BIOS's routing table serves the three virtio devices as well, and nothing
            # reads a keyboard (docs/measurements.md, 2026-11-29).
            "pci=noacpi",
            "i8042.nokbd",
            "i8042.noaux",
            *clock_options(job, accel),
            "quiet",
            "--",
            str(GUEST_INIT),
        ]
    )
    return [
        QEMU,
        "-accel",
        accel_option(job, accel),
        "-cpu",
        guest_cpu_model(accel),
        "-smp",
        str(job.cpus),
        "-m",
        str(job.memory_mib),
        "-nographic",
        "-no-reboot",
        "-nodefaults",
        "-serial",
        "stdio",
        "-kernel",
        str(job.kernel),
        "-append",
        append,
        "-virtfs",
        "local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap",
        "-virtfs",
        f"local,path={share},mount_tag=out,security_model=none,multidevs=remap",
        "-drive",
        # A host write or read error (a full disk under the image) reaches the guest as
        # an I/O error that fails the job, instead of pausing the guest until its timeout.
        f"file={disk},if=virtio,format=raw,cache=unsafe,discard=unmap,werror=report,rerror=report",
        # Entropy from the host: without it the guest's random pool took seconds to be
        # ready, and each mkfs (libuuid's getrandom) slept 4.5 s waiting for it.
        "-device",
        "virtio-rng-pci",
    ]


def write_job_wrapper(job: GuestJob, share: Path) -> None:
    """job.sh as the guest runs it: the job's environment, then the job script."""
    lines = ["# written by mobifrag.platform.emulator"]
    env = dict(job.env)
    env.setdefault("MOBIFRAG_ROOT", str(REPO))
    env.setdefault("MOBIFRAG_DISK", "/dev/vda")
    env.setdefault("MOBIFRAG_PLATFORM", "qemu")
    for key, value in sorted(env.items()):
        lines.append(f"export {key}={shlex.quote(value)}")
    command = ["exec", "/bin/sh", str(job.script.resolve()), *job.args]
    lines.append(" ".join(shlex.quote(part) for part in command))
    (share / "job.sh").write_text("\n".join(lines) + "\n")
    # The guest's init puts the host's tool directories on the job's PATH (guest/init.sh).
    (share / "host-path").write_text(os.environ.get("PATH", "") + "\n")


# --- the console, followed while the guest runs ------------------------------------------


class ConsoleFollower:
    """Reads what QEMU appended to the console log since the last call."""

    def __init__(self, path: Path):
        self.path = path
        self.offset = 0

    def read(self) -> str:
        try:
            with open(self.path, "rb") as log:
                log.seek(self.offset)
                data = log.read()
        except OSError:
            return ""
        self.offset += len(data)
        return data.decode(errors="replace")


PR_SET_PDEATHSIG = 1  # <linux/prctl.h>


def die_with_parent(sig: int, parent: int | None = None) -> None:
    """Have the calling process get `sig` once its parent exits (Linux's
    PR_SET_PDEATHSIG, kept across exec); `parent` is the pid it must have, and if that
    one is already gone, `sig` comes at once. Nothing elsewhere than Linux."""
    if not sys.platform.startswith("linux"):
        return
    parent = os.getppid() if parent is None else parent
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_PDEATHSIG, int(sig), 0, 0, 0) != 0:
        error = ctypes.get_errno()
        raise OSError(error, f"prctl(PR_SET_PDEATHSIG): {os.strerror(error)}")
    if os.getppid() != parent:
        os.kill(os.getpid(), sig)


def guest_dies_with_runner():
    """A preexec_fn for QEMU: SIGKILL once the runner starting it exits, however it ends
    (a SIGKILL leaves it no time to kill its guest), so no orphaned guest runs on."""
    runner = os.getpid()
    return lambda: die_with_parent(signal.SIGKILL, parent=runner)


def run_qemu(
    command: list[str], console: Path, timeout_s: float, progress: Progress | None = None
) -> QemuRun:
    """Run QEMU to completion. Its CPU time is what the children reaped meanwhile used:
    QEMU is the runner's one child while it runs. With `progress`, a heartbeat goes out
    at its interval, fed from the console log."""
    start = time.monotonic()
    cpu_before = children_cpu_seconds()
    follower = ConsoleFollower(console)
    timer = PhaseTimer(start, phase_step)
    # The handler goes in before QEMU starts: a SIGTERM between the start and the wait
    # would otherwise end the runner by the default action, with no word of why.
    with open(console, "wb") as log, termination_raises():
        process = subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=log,
            preexec_fn=guest_dies_with_runner(),
        )

        def poll() -> str:
            text = follower.read()
            timer.feed(text, time.monotonic(), process_cpu_seconds(process.pid))
            return text

        try:
            finished = wait_with_heartbeat(
                process, timeout_s, progress, poll, poll_every=PHASE_POLL_S
            )
        finally:
            # A runner stopped by a signal (a cluster scheduler's SIGTERM, a killed
            # workflow) must not leave its guest running on with nobody to wait for it.
            if process.poll() is None:
                process.kill()
                process.wait()
    end = time.monotonic()
    cpu = children_cpu_seconds() - cpu_before
    timer.feed(follower.read() + "\n", end, cpu)
    return QemuRun(finished, end - start, cpu, tuple(timer.spans(end, cpu)))


@contextlib.contextmanager
def termination_raises():
    """SIGTERM raises EmulatorError inside the block (main thread only: elsewhere
    Python cannot install handlers, and the default action stands)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop(signum, _frame):
        raise EmulatorError(f"runner stopped by {signal.Signals(signum).name}; guest killed")

    previous = signal.signal(signal.SIGTERM, stop)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def read_exit_status(share: Path) -> int | None:
    try:
        return int((share / "exit-status").read_text().strip())
    except (OSError, ValueError):
        return None


def check_free_space(job: GuestJob, folder: Path) -> None:
    """Refuse to boot when the folder that holds the test disk image has less free space
    than the job's disk may fill: the guest would fail on a full host disk mid-run."""
    needed = job.disk_bytes
    if job.base_image is not None and Path(job.base_image).is_file():
        needed = max(needed, Path(job.base_image).stat().st_size)
    free = shutil.disk_usage(folder).free
    if free < needed:
        raise EmulatorError(
            f"not enough free space for the test disk in {folder}: the job's disk needs "
            f"{needed} bytes, {free} bytes are free"
        )


def prepare_disk(job: GuestJob, disk: Path) -> None:
    """A fresh sparse image, or a sparse copy of the job's base image."""
    if job.base_image is None:
        with open(disk, "wb") as image:
            image.truncate(job.disk_bytes)
        return
    if not Path(job.base_image).is_file():
        raise EmulatorError(f"base disk image {job.base_image} does not exist")
    copy = subprocess.run(
        ["cp", "--sparse=always", str(job.base_image), str(disk)], capture_output=True, text=True
    )
    if copy.returncode != 0:
        raise EmulatorError(f"cannot copy {job.base_image}: {copy.stderr.strip()}")


def check_outcome(job: GuestJob, finished: bool, status, share: Path, console: Path) -> None:
    """Raise EmulatorError unless the guest finished and the job exited 0."""
    if not finished:
        raise EmulatorError(
            f"guest still running after {job.timeout_s:.0f} s and was killed "
            f"(console log {console}):\n{console_tail(console)}"
        )
    if status is None:
        raise EmulatorError(
            f"guest stopped without finishing the job (panic or crash; console log "
            f"{console}, partial outputs in {share}):\n{console_tail(console)}"
        )
    if status != 0:
        job_log = console_tail(share / "job.log")
        raise EmulatorError(
            f"job {job.script.name} exited with status {status} (outputs kept in {share}); "
            f"its log ends:\n{job_log}"
        )


def run_job(job: GuestJob, out_dir: Path, console: Path, accel: str = "auto") -> JobResult:
    """Run `job` in a fresh guest; on success its outputs appear in out_dir."""
    require_qemu()
    if not Path(job.kernel).is_file():
        raise EmulatorError(f"kernel image {job.kernel} does not exist: build it first")
    chosen = choose_accel(job.kernel, accel)
    check_host_threads(job, chosen, os.cpu_count())
    out_dir, console = Path(out_dir), Path(console)
    staging = out_dir.with_name(out_dir.name + ".running")
    shutil.rmtree(staging, ignore_errors=True)
    share = staging / "share"
    share.mkdir(parents=True)
    disk = staging / "test-disk.img"
    try:
        check_free_space(job, staging)
    except EmulatorError:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    prepare_disk(job, disk)
    write_job_wrapper(job, share)
    console.parent.mkdir(parents=True, exist_ok=True)

    progress = console_progress(console, job.expect_seconds, disk)
    command = qemu_command(job, chosen, share, disk)
    qemu = run_qemu(command, console, job.timeout_s, progress)
    status = read_exit_status(share)
    if not (qemu.finished and status == 0 and job.keep_disk):
        disk.unlink(missing_ok=True)
    check_outcome(job, qemu.finished, status, share, console)
    (share / "exit-status").unlink()
    if job.keep_disk:
        os.replace(disk, share / "disk.img")
    if out_dir.exists():
        shutil.rmtree(out_dir)
    os.replace(share, out_dir)
    shutil.rmtree(staging, ignore_errors=True)
    return JobResult(
        accel=chosen,
        exit_status=status,
        wall_seconds=qemu.wall_seconds,
        console_log=console,
        cpu_seconds=qemu.cpu_seconds,
        phases=qemu.phases,
    )


def kvm_usable(kernel: Path) -> bool:
    """Boot `kernel` under KVM without a root file system: a working KVM reaches the
    kernel's 'unable to mount root' panic within seconds; a broken one fails or stalls."""
    if not os.access("/dev/kvm", os.R_OK | os.W_OK):
        return False
    command = [QEMU, "-accel", "kvm", "-cpu", "host", "-m", "256", "-nographic", "-no-reboot"]
    command += ["-nodefaults", "-serial", "stdio", "-kernel", str(kernel)]
    command += ["-append", "console=ttyS0 panic=-1 root=/dev/nonexistent"]
    try:
        run = subprocess.run(
            command, capture_output=True, timeout=KVM_PROBE_TIMEOUT_S, stdin=subprocess.DEVNULL
        )
    except subprocess.TimeoutExpired:
        return False
    return b"Kernel panic" in run.stdout


_ACCEL_CACHE = REPO / "build" / "accel.json"


def choose_accel(kernel: Path, requested: str) -> str:
    """KVM when asked for or when it really runs a guest here, else TCG."""
    if requested in ("kvm", "tcg"):
        return requested
    try:
        cached = json.loads(_ACCEL_CACHE.read_text())
        if cached.get("host") == os.uname().nodename:
            return cached["accel"]
    except (OSError, ValueError, KeyError):
        pass
    accel = "kvm" if kvm_usable(kernel) else "tcg"
    _ACCEL_CACHE.parent.mkdir(parents=True, exist_ok=True)
    _ACCEL_CACHE.write_text(json.dumps({"host": os.uname().nodename, "accel": accel}) + "\n")
    return accel
