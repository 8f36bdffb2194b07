"""Run one job script on a real device (a HiKey960 board or a rooted phone) over adb.

The job contract is the emulator's (jobs/lib.sh): the job runs as `sh SCRIPT ARGS` with
its working directory as the output folder and finds MOBIFRAG_DISK, MOBIFRAG_AGENT,
TMPDIR and MOBIFRAG_ROOT in its environment. Only the runner differs. On the device,
under the profile's workdir W:

    W/bin/mobifrag-agent     the static aarch64 agent (pushed)
    W/jobs/                  the repository's jobs/ folder (pushed; MOBIFRAG_ROOT=W)
    W/inputs/<k>-<name>      inputs named by the job's arguments (pushed, see below)
    W/run/run.sh             the wrapper: environment, blktrace, the job, exit-status
    W/run/out/               the job's working directory, pulled back as the outputs
    W/run/tmp/               TMPDIR

Inputs: an argument that is an absolute path to an existing file or folder inside the
working directory or the repository (e.g. `$(realpath results/.../traces)`) is pushed
to W/inputs/<k>-<basename> and the argument is rewritten to that device path; k is the
argument's position, so two inputs never collide. Any other absolute host path that
exists is refused (it would not exist on the device); every other argument is passed
unchanged.

Root commands are fenced. Before any adb command (dry runs included) the profile's
test_partition and workdir must pass mobifrag.workflow.profiles' checks: no '.'/'..' component,
no system partition, whole-disk or dm/loop/zram name; workdir exactly one folder in
/data/local/tmp. On the device a read-only probe resolves test_partition (readlink -f)
and the runner refuses it unless it is a block device, a partition node
(/sys/class/block/<node>/partition exists), not a system partition by its GPT name,
not mounted (device numbers against the mount tables) and held by nothing (dm-crypt,
...). Only then is the workdir laid out; every `rm -rf` and `chown -R` is built by
fenced() and names only paths inside the workdir, which must resolve to itself on the
device. MOBIFRAG_DISK is the resolved node, and MOBIFRAG_DEVICE_CHECKED_DISK its device
number, the opt-in jobs/lib.sh requires before it formats. Because every job formats
it, the runner refuses to run unless the profile sets allow_destructive: true.

Outputs are pulled into `<out>.partial/`; only a pull that completed for a job that
exited 0 is renamed to `<out>`. A failure of any kind (a wrong serial, a device that
disappears, a full device, a failed job, a timeout) raises DeviceError naming what is
wrong, and whatever was pulled stays in `<out>.partial/`. Every adb/fastboot command and
its output goes to the session log (the rule's console log); the job's own session is
streamed there as it runs (its phase lines, jobs/lib.sh), with a heartbeat on stderr
as in the emulator (mobifrag/platform/emulator.py, Progress).

Dry run (MOBIFRAG_DRY_RUN=1 or platform.dry_run: true): every adb/fastboot command is
printed in order, and none is run.

    python -m mobifrag.platform.adb_runner flash --device hikey960 --image boot.img [--boot-only]
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import os
import shlex
import shutil
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

from mobifrag import REPO
from mobifrag.platform.emulator import Progress, heartbeat_interval, wait_with_heartbeat
from mobifrag.workflow.profiles import (
    ProfileError,
    adb_fence_problems,
    is_system_partition,
    load_device,
    virtual_node,
    workdir_problem,
)

JOBS = REPO / "jobs"
DRY_RUN_ENV = "MOBIFRAG_DRY_RUN"
RAMDISK_ENV = "MOBIFRAG_RAMDISK"
AGENT_NAME = "mobifrag-agent"
ELF_MACHINE_AARCH64 = 183
COMMAND_TIMEOUT_S = 600
LOG_TAIL_LINES = 30
CHECKED_DISK_ENV = "MOBIFRAG_DEVICE_CHECKED_DISK"
GONE_MARKERS = ("not found", "no devices", "offline", "closed", "protocol fault", "no device")
FULL_MARKER = "No space left on device"


class DeviceError(RuntimeError):
    """A device job or flash that did not complete; the message says what is wrong."""


# --- running adb/fastboot -------------------------------------------------------------


@dataclass
class Tool:
    """adb or fastboot bound to one serial, logging (and in a dry run, only printing)
    every command."""

    program: str
    serial: str
    log: TextIO
    dry_run: bool = False
    printed: list[str] = field(default_factory=list)

    def argv(self, *args: str) -> list[str]:
        return [self.program, "-s", self.serial, *args]

    def run(self, step: str, *args: str, timeout: float = COMMAND_TIMEOUT_S) -> str:
        command = shlex.join(self.argv(*args))
        self.log.write(f"$ {command}\n")
        self.log.flush()
        if self.dry_run:
            print(command)
            self.printed.append(command)
            return ""
        try:
            done = subprocess.run(
                self.argv(*args),
                capture_output=True,
                text=True,
                timeout=timeout,
                stdin=subprocess.DEVNULL,
            )
        except FileNotFoundError:
            raise DeviceError(
                f"{self.program} not found: install it with 'apt-get install {self.program}'"
            ) from None
        except subprocess.TimeoutExpired:
            raise StepTimeout(f"{step}: still running after {timeout:.0f} s") from None
        output = (done.stdout or "") + (done.stderr or "")
        self.log.write(output)
        self.log.flush()
        if done.returncode != 0:
            raise self.failure(step, done.returncode, output)
        return done.stdout

    def stream(self, step: str, *args: str, timeout: float, progress: Progress) -> str:
        """run(), with the command's output written to the log as it comes and fed to
        `progress`, whose heartbeat goes out meanwhile."""
        if self.dry_run:
            return self.run(step, *args, timeout=timeout)
        self.log.write(f"$ {shlex.join(self.argv(*args))}\n")
        self.log.flush()
        try:
            process = subprocess.Popen(
                self.argv(*args),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                text=True,
                errors="replace",
            )
        except FileNotFoundError:
            raise DeviceError(
                f"{self.program} not found: install it with 'apt-get install {self.program}'"
            ) from None
        lines: list[str] = []
        fresh: list[str] = []
        lock = threading.Lock()

        def copy() -> None:
            for line in process.stdout:
                self.log.write(line)
                self.log.flush()
                with lock:
                    lines.append(line)
                    fresh.append(line)

        def drain() -> str:
            with lock:
                text = "".join(fresh)
                fresh.clear()
            return text

        reader = threading.Thread(target=copy, daemon=True)
        reader.start()
        try:
            finished = wait_with_heartbeat(process, timeout, progress, drain)
        finally:
            if process.poll() is None:
                process.kill()
                process.wait()
            reader.join(timeout=10)
        if not finished:
            raise StepTimeout(f"{step}: still running after {timeout:.0f} s")
        output = "".join(lines)
        if process.returncode != 0:
            raise self.failure(step, process.returncode, output)
        return output

    def failure(self, step: str, status: int, output: str) -> DeviceError:
        text = output.strip() or "(no output)"
        if FULL_MARKER in output:
            return DeviceFull(f"device {self.serial} is full: {step} failed ({text})")
        if any(marker in output.lower() for marker in GONE_MARKERS):
            return DeviceGone(f"device {self.serial} disappeared during {step} ({text})")
        return DeviceError(f"{step} failed on device {self.serial} (exit {status}): {text}")


class StepTimeout(DeviceError):
    """An adb command that did not finish in time."""


class DeviceGone(DeviceError):
    """adb lost the device (unplugged, rebooted, wrong serial)."""


class DeviceFull(DeviceError):
    """The device ran out of space."""


def dry_run_requested(platform: dict) -> bool:
    return os.environ.get(DRY_RUN_ENV, "") not in ("", "0") or bool(platform.get("dry_run"))


def as_root(platform: dict, script: str) -> list[str]:
    """`adb shell` arguments running `script` as root."""
    if platform["root"] == "su":
        return ["shell", f"su -c {shlex.quote(script)}"]
    return ["shell", script]


# --- what the job needs on the device ---------------------------------------------------


@dataclass(frozen=True)
class DevicePlan:
    """The device paths of one job and what gets pushed there."""

    workdir: str
    script: str
    args: tuple[str, ...]
    pushes: tuple[tuple[Path, str], ...]

    @property
    def run_dir(self) -> str:
        return f"{self.workdir}/run"

    @property
    def out_dir(self) -> str:
        return f"{self.workdir}/run/out"

    @property
    def agent(self) -> str:
        return f"{self.workdir}/bin/{AGENT_NAME}"


def _within(path: Path, roots: tuple[Path, ...]) -> bool:
    return any(path == root or root in path.parents for root in roots)


def device_argument(arg: str, position: int, workdir: str, roots: tuple[Path, ...]):
    """(device argument, push) for one job argument; push is None when nothing moves."""
    if not os.path.isabs(arg) or not os.path.exists(arg):
        return arg, None
    host = Path(arg).resolve()
    if not _within(host, roots):
        raise DeviceError(
            f"job argument {arg} is a host path outside the working directory and the "
            "repository: it cannot be pushed to the device"
        )
    target = f"{workdir}/inputs/{position}-{host.name}"
    return target, (host, target)


def plan_job(platform: dict, script: Path, args: tuple[str, ...]) -> DevicePlan:
    workdir = platform["workdir"]
    if problem := workdir_problem(workdir):
        raise DeviceError(f"platform.workdir: {problem}")
    roots = (Path.cwd().resolve(), REPO)
    device_args, pushes = [], []
    for position, arg in enumerate(args):
        device_arg, push = device_argument(arg, position, workdir, roots)
        device_args.append(device_arg)
        if push is not None:
            pushes.append(push)
    return DevicePlan(
        workdir=workdir,
        script=f"{workdir}/jobs/{script.name}",
        args=tuple(device_args),
        pushes=tuple(pushes),
    )


def check_script(script: Path) -> None:
    if script.resolve().parent != JOBS:
        raise DeviceError(f"job script {script} is not in {JOBS}: only jobs/ is pushed")


def check_agent(agent: Path | None) -> Path:
    """The agent must exist and be built for aarch64 (the host's would not run)."""
    if agent is None:
        raise DeviceError("no agent given: the device needs the static aarch64 agent")
    try:
        header = agent.read_bytes()[:20]
    except OSError:
        raise DeviceError(
            f"agent binary {agent} does not exist: build it with "
            "'snakemake agent/build/aarch64/mobifrag-agent'"
        ) from None
    if header[:4] != b"\x7fELF" or int.from_bytes(header[18:20], "little") != ELF_MACHINE_AARCH64:
        raise DeviceError(
            f"agent binary {agent} is not an aarch64 executable: the device needs "
            "agent/build/aarch64/mobifrag-agent (rules/infra/device.smk)"
        )
    return agent


def check_fences(profile: dict) -> None:
    """The profile's test_partition and workdir pass mobifrag.workflow.profiles' checks (a profile
    built in code never went through the profile checker)."""
    problems = adb_fence_problems(profile)
    if problems:
        raise DeviceError(
            "; ".join(
                f"devices/{profile['name']}.yaml: field {key}: {why}" for key, why in problems
            )
        )


def check_destructive(profile: dict, what: str) -> None:
    if not profile["platform"]["allow_destructive"]:
        raise DeviceError(
            f"devices/{profile['name']}.yaml: platform.allow_destructive is false, and {what}; "
            f"set it to true in the board's local device file devices/local/{profile['name']}"
            ".yaml to allow this (docs/hikey960.md)"
        )


# --- device-side scripts ----------------------------------------------------------------


def fenced(workdir: str, path: str) -> str:
    """`path`, quoted for a root shell, once it is shown to be the workdir or inside it;
    every `rm -rf` and `chown -R` of the runner names its paths through here."""
    if problem := workdir_problem(workdir):
        raise DeviceError(f"refusing a root command outside the workdir: {problem}")
    inside = path == workdir or path.startswith(workdir + "/")
    components = path.removeprefix(workdir).split("/")[1:]
    if not inside or any(part in ("", ".", "..") for part in components):
        raise DeviceError(f"refusing a root command on {path}: it is not inside {workdir}")
    return shlex.quote(path)


def remove_command(workdir: str, *names: str) -> str:
    return "rm -rf " + " ".join(fenced(workdir, f"{workdir}/{name}") for name in names)


def chown_command(workdir: str) -> str:
    return f"chown -R shell:shell {fenced(workdir, workdir)}"


def probe_script(partition: str) -> str:
    """Read-only: what `partition` resolves to on the device, one `key=value` a line
    (node, block, partition, dev, sectors, partname, holders, mounted); check_probe
    decides."""
    part = shlex.quote(partition)
    return "; ".join(
        [
            f"node=$(readlink -f {part})",
            "sys=/sys/class/block/${node##*/}",
            'echo "node=$node"',
            'if [ -b "$node" ]; then echo block=yes; else echo block=no; fi',
            'if [ -e "$sys/partition" ]; then echo partition=yes; else echo partition=no; fi',
            'dev=$(cat "$sys/dev" 2> /dev/null)',
            'echo "dev=$dev"',
            'echo "sectors=$(cat "$sys/size" 2> /dev/null)"',
            'echo "partname=$(sed -n "s/^PARTNAME=//p" "$sys/uevent" 2> /dev/null)"',
            'echo "holders=$(ls "$sys/holders" 2> /dev/null | tr "\\n" " ")"',
            "mounted=no",
            'if [ -n "$dev" ] && grep -q "^[0-9]* [0-9]* $dev " /proc/self/mountinfo '
            "/proc/1/mountinfo 2> /dev/null; then mounted=yes; fi",
            'if grep -q "^$node " /proc/mounts /proc/swaps 2> /dev/null; then mounted=yes; fi',
            'echo "mounted=$mounted"',
        ]
    )


def layout_script(plan: DevicePlan, chown_shell: bool) -> str:
    """A fresh workdir, once it is shown to resolve to itself (no link out of
    /data/local/tmp); exits 5 (cannot create) or 6 (resolves elsewhere)."""
    w = fenced(plan.workdir, plan.workdir)
    lines = [
        f"mkdir -p {w} || exit 5",
        f'resolved=$(readlink -f {w}); [ "$resolved" = {w} ] || {{ echo "mobifrag: workdir '
        f'{plan.workdir} resolves to $resolved: refusing to delete in it"; exit 6; }}',
        remove_command(plan.workdir, "run", "inputs", "jobs"),
        f"mkdir -p {w}/run/out {w}/run/tmp {w}/inputs {w}/bin || exit 5",
    ]
    if chown_shell:
        lines.append(chown_command(plan.workdir))
    return "; ".join(lines)


@dataclass(frozen=True)
class CheckedDisk:
    """The test partition as the device showed it: node, size, device number (hex
    major:minor, as `stat -c %t:%T` prints it)."""

    node: str
    mib: int
    number: str


def probe_facts(reply: str) -> dict[str, str]:
    return dict(line.split("=", 1) for line in reply.splitlines() if "=" in line)


def probe_problem(facts: dict[str, str]) -> str | None:
    """Why the probed node may not be formatted; None when it may."""
    node = facts.get("node", "")
    name = node.rsplit("/", 1)[-1]
    holders = facts.get("holders", "").strip()
    if facts.get("block") != "yes":
        return f"resolves to {node or 'nothing'}, which is not a block device"
    if virtual := virtual_node(name):
        return f"resolves to {virtual}"
    if facts.get("partition") != "yes":
        return f"resolves to {node}, a whole disk (no /sys/class/block/{name}/partition)"
    if is_system_partition(facts.get("partname", "")):
        return f"resolves to {node}, the system partition {facts['partname']}"
    if facts.get("mounted") != "no":
        return f"resolves to {node}, which is mounted"
    if holders:
        return f"resolves to {node}, which is in use by {holders}"
    return None


def hex_device_number(dev: str) -> str:
    major, minor = (int(part) for part in dev.split(":"))
    return f"{major:x}:{minor:x}"


def check_probe(partition: str, reply: str) -> CheckedDisk:
    facts = probe_facts(reply)
    if problem := probe_problem(facts):
        raise DeviceError(f"test partition {partition} {problem}: refusing to format it")
    try:
        mib = int(facts["sectors"]) * 512 // (1024 * 1024)
        return CheckedDisk(facts["node"], mib, hex_device_number(facts["dev"]))
    except (KeyError, ValueError):
        raise DeviceError(f"test partition {partition}: unexpected reply {reply!r}") from None


def wrapper_script(plan: DevicePlan, disk: CheckedDisk, env: tuple[tuple[str, str], ...]) -> str:
    """run.sh: the job's environment, tool shims, blktrace when present, the job, and
    its exit status in out/exit-status (the only thing read to decide success). The
    disk and its checked device number come last, so no job setting overrides them."""
    w = plan.workdir
    exports = {
        "MOBIFRAG_ROOT": w,
        "MOBIFRAG_AGENT": plan.agent,
        "MOBIFRAG_OUT": plan.out_dir,
        "TMPDIR": f"{plan.run_dir}/tmp",
        **dict(env),
        "MOBIFRAG_PLATFORM": "adb",
        "MOBIFRAG_DISK": disk.node,
        CHECKED_DISK_ENV: disk.number,
    }
    job = shlex.join(["sh", plan.script, *plan.args])
    return "\n".join(
        [
            "# written by mobifrag.platform.adb_runner; runs as root on the device",
            f'export PATH="{w}/bin:$PATH"',
            *(f"export {key}={shlex.quote(value)}" for key, value in sorted(exports.items())),
            'chmod 755 "$MOBIFRAG_AGENT"',
            SHIMS,
            'cd "$MOBIFRAG_OUT" || exit 1',
            # The job's phase lines also go to this session's output, which the runner
            # streams into the console log (a write that fails there is dropped).
            'export MOBIFRAG_PHASE_OUT="/proc/$$/fd/1"',
            BLKTRACE_START,
            f"{job} > job.log 2>&1 &",
            "job=$!",
            f"echo $job > {shlex.quote(plan.run_dir)}/job.pid",
            'wait "$job"',
            "status=$?",
            BLKTRACE_STOP,
            'echo "$status" > exit-status',
            "sync",
            "",
        ]
    )


# Android names some tools differently; a shim on PATH keeps the job scripts unchanged.
SHIMS = """\
shim() {  # shim NAME COMMAND...: NAME runs COMMAND when the device has no NAME
  name=$1; shift
  command -v "$name" > /dev/null 2>&1 && return 0
  printf '#!%s\\n%s "$@"\\n' "$(command -v sh)" "$*" > "$MOBIFRAG_ROOT/bin/$name"
  chmod 755 "$MOBIFRAG_ROOT/bin/$name"
}
command -v mke2fs > /dev/null 2>&1 && shim mkfs.ext4 exec mke2fs -t ext4
command -v make_f2fs > /dev/null 2>&1 && shim mkfs.f2fs exec make_f2fs
shim e2freefrag echo 'e2freefrag: not present on this device, no free-space histogram of'"""

BLKTRACE_START = """\
bt=
if command -v blktrace > /dev/null 2>&1; then
  grep -q ' /sys/kernel/debug ' /proc/mounts || mount -t debugfs debugfs /sys/kernel/debug
  mkdir -p blktrace
  blktrace -d "$MOBIFRAG_DISK" -D blktrace > blktrace.log 2>&1 &
  bt=$!
  echo "blktrace: recording $MOBIFRAG_DISK into blktrace/" > blktrace-status.txt
else
  echo "blktrace: not present on the device; no block trace recorded" > blktrace-status.txt
fi"""

BLKTRACE_STOP = """\
if [ -n "$bt" ]; then kill -INT "$bt"; wait "$bt"; fi"""


# --- the job ------------------------------------------------------------------------------


@dataclass
class Session:
    """One job on one device: the tool, the plan and where things land on the host."""

    profile: dict
    adb: Tool
    plan: DevicePlan
    partial: Path

    @property
    def platform(self) -> dict:
        return self.profile["platform"]

    def shell(
        self,
        step: str,
        script: str,
        timeout: float = COMMAND_TIMEOUT_S,
        progress: Progress | None = None,
    ) -> str:
        command = as_root(self.platform, script)
        if progress is not None:
            return self.adb.stream(step, *command, timeout=timeout, progress=progress)
        return self.adb.run(step, *command, timeout=timeout)


def connect(session: Session) -> None:
    """The serial must name a connected device (and, with adbd, one running as root)."""
    try:
        session.adb.run("the device check", "get-state")
    except DeviceError as error:
        if session.adb.dry_run:
            raise
        raise DeviceError(
            f"no usable adb device with serial {session.adb.serial} (devices/"
            f"{session.profile['name']}.yaml, platform.serial); connected: "
            f"{connected_serials()}; adb said: {error}"
        ) from None
    if session.platform["root"] == "adbd":
        session.adb.run("adb root", "root")
        session.adb.run("waiting for the device after adb root", "wait-for-device")


def connected_serials() -> str:
    try:
        listing = subprocess.run(
            ["adb", "devices"], capture_output=True, text=True, timeout=30
        ).stdout
    except (OSError, subprocess.TimeoutExpired):
        return "unknown (adb devices failed)"
    serials = [line.split()[0] for line in listing.splitlines()[1:] if line.strip()]
    return ", ".join(serials) or "none"


def prepare(session: Session) -> CheckedDisk:
    """Checks the test partition on the device, then lays out the workdir."""
    partition = session.platform["test_partition"]
    try:
        reply = session.shell("the test partition check", probe_script(partition))
    except DeviceError as error:
        if type(error) is DeviceError:
            raise DeviceError(f"test partition {partition}: {error}") from None
        raise
    disk = CheckedDisk(partition, 0, "") if session.adb.dry_run else check_probe(partition, reply)
    layout = layout_script(session.plan, session.platform["root"] == "su")
    session.shell("laying out the workdir", layout)
    return disk


def push_all(session: Session, agent: Path, wrapper: Path) -> None:
    plan = session.plan
    session.adb.run("pushing the agent", "push", str(agent), plan.agent)
    session.adb.run("pushing the job scripts", "push", str(JOBS), f"{plan.workdir}/jobs")
    for host, target in plan.pushes:
        session.adb.run(f"pushing input {host}", "push", str(host), target)
    session.adb.run("pushing the job wrapper", "push", str(wrapper), f"{plan.run_dir}/run.sh")


def run_wrapper(
    session: Session, timeout: float, progress: Progress | None = None
) -> DeviceError | None:
    """Runs run.sh; a failure is returned (not raised) so the outputs are still pulled."""
    run_sh = f"sh {shlex.quote(session.plan.run_dir)}/run.sh"
    try:
        session.shell("the job", run_sh, timeout=timeout, progress=progress)
    except StepTimeout:
        stop_job(session)
        return DeviceError(f"job still running on the device after {timeout:.0f} s, stopped")
    except DeviceError as error:
        return error
    return None


def stop_job(session: Session) -> None:
    pid_file = shlex.quote(f"{session.plan.run_dir}/job.pid")
    with contextlib.suppress(DeviceError):
        session.shell("stopping the job", f'kill -TERM "$(cat {pid_file})"')


def pull_outputs(session: Session) -> DeviceError | None:
    """Pulls W/run/out to <out>.partial (which adb creates); a failure is returned."""
    try:
        session.adb.run("pulling the outputs", "pull", session.plan.out_dir, str(session.partial))
    except DeviceError as error:
        return error
    return None


def read_status(partial: Path) -> int | None:
    try:
        return int((partial / "exit-status").read_text().strip())
    except (OSError, ValueError):
        return None


def log_tail(path: Path) -> str:
    try:
        lines = path.read_text(errors="replace").splitlines()
    except OSError:
        return "(no job log)"
    return "\n".join(lines[-LOG_TAIL_LINES:]) or "(empty job log)"


def verdict(session: Session, job_error, pull_error, script: str) -> int:
    """The job's exit status, or a DeviceError saying why there is none to trust."""
    kept = (
        f"what was pulled is kept in {session.partial}"
        if session.partial.exists()
        else "nothing was pulled"
    )
    first = job_error or pull_error
    if first is not None:
        raise type(first)(f"{first}; {kept}")
    status = read_status(session.partial)
    if status is None:
        raise DeviceError(f"job {script} left no exit status on the device; {kept}")
    if status != 0:
        raise DeviceError(
            f"job {script} exited with status {status} on device {session.adb.serial}; "
            f"{kept}; its log ends:\n{log_tail(session.partial / 'job.log')}"
        )
    return status


def finish(session: Session, out: Path, record: dict) -> None:
    (session.partial / "exit-status").unlink()
    (session.partial / "platform-run.json").write_text(json.dumps(record, indent=2) + "\n")
    if out.exists():
        shutil.rmtree(out)
    os.replace(session.partial, out)


def clean_device(session: Session) -> None:
    """Removes this job's files from the device; a failure here only goes to the log."""
    try:
        command = remove_command(session.plan.workdir, "run", "inputs")
        session.shell("cleaning the device workdir", command)
    except DeviceError as error:
        session.adb.log.write(f"mobifrag: could not clean the device: {error}\n")


def run_job(profile: dict, spec, out: Path, console: Path) -> str:
    """Runs spec (a platform.JobSpec) on the profile's device; outputs land in out."""
    platform = profile["platform"]
    dry_run = dry_run_requested(platform)
    check_fences(profile)
    check_script(spec.script)
    if not dry_run:
        check_destructive(profile, f"every job formats {platform['test_partition']}")
        check_agent(spec.agent)
    out, console = Path(out), Path(console)
    plan = plan_job(platform, spec.script, spec.args)
    partial = out.with_name(out.name + ".partial")
    if not dry_run:
        shutil.rmtree(partial, ignore_errors=True)
        partial.parent.mkdir(parents=True, exist_ok=True)
    console.parent.mkdir(parents=True, exist_ok=True)
    wrapper = console.with_name(console.name.removesuffix(".log") + ".run.sh")
    with open(console, "w") as log:
        adb = Tool("adb", platform["serial"], log, dry_run=dry_run)
        session = Session(profile, adb, plan, partial)
        return run_session(session, spec, out, wrapper)


def run_session(session: Session, spec, out: Path, wrapper: Path) -> str:
    start = time.monotonic()
    connect(session)
    disk = prepare(session)
    if not session.adb.dry_run and disk.mib < spec.disk_mib:
        raise DeviceError(
            f"test partition {disk.node} holds {disk.mib} MiB; the job needs {spec.disk_mib} MiB"
        )
    wrapper.write_text(wrapper_script(session.plan, disk, spec.env))
    push_all(session, spec.agent or Path(AGENT_NAME), wrapper)
    timeout = spec.timeout_s or session.platform["job_timeout_s"]
    label = session.adb.log.name if isinstance(session.adb.log.name, str) else "job"
    progress = Progress(
        Path(label).name.removesuffix(".log").removesuffix(".console"),
        time.monotonic(),
        heartbeat_interval(),
        getattr(spec, "expect_seconds", None),
        stream=sys.stderr,
    )
    job_error = run_wrapper(session, timeout, progress)
    pull_error = None if isinstance(job_error, DeviceGone) else pull_outputs(session)
    if session.adb.dry_run:
        clean_device(session)
        return f"dry run: printed {len(session.adb.printed)} commands, ran none"
    verdict(session, job_error, pull_error, spec.script.name)
    seconds = time.monotonic() - start
    finish(session, out, run_record(session, disk, spec.disk_mib, seconds))
    clean_device(session)
    return f"{spec.script.name} finished in {seconds:.1f} s on device {session.adb.serial}"


def run_record(session: Session, disk: CheckedDisk, wanted_mib: int, seconds: float):
    status = (session.partial / "blktrace-status.txt").read_text().strip()
    return {
        "platform": "adb",
        "serial": session.adb.serial,
        "test_partition": session.platform["test_partition"],
        "disk": disk.node,
        "disk_device_number": disk.number,
        "disk_mib": disk.mib,
        "disk_mib_requested": wanted_mib,
        "blktrace": status,
        "device_wall_seconds": round(seconds, 3),
    }


# --- flashing -----------------------------------------------------------------------------


def flash_commands(profile: dict, image: Path, boot_only: bool) -> list[tuple[str, str, list]]:
    """(tool, step, arguments) of putting `image` on the board, in order."""
    partition = profile["platform"]["boot"]["partition"]
    steps = [
        ("adb", "rebooting into the bootloader", ["reboot", "bootloader"]),
    ]
    if boot_only:
        steps.append(("fastboot", "booting the image once", ["boot", str(image)]))
    else:
        steps.append(("fastboot", f"flashing {partition}", ["flash", partition, str(image)]))
        steps.append(("fastboot", "rebooting", ["reboot"]))
    steps.append(("adb", "waiting for the device", ["wait-for-device"]))
    return steps


def flash(
    device: str, image: Path, log_path: Path, done: Path | None = None, boot_only: bool = False
) -> str:
    """Puts `image` on the board (fastboot flash, or fastboot boot); `done` records the
    image's hash once that really happened, never in a dry run."""
    profile = load_device(device)
    platform = profile["platform"]
    if platform["type"] != "adb" or not platform["flash_kernel"]:
        raise DeviceError(f"device {device}: platform.flash_kernel is not true, nothing to flash")
    dry_run = dry_run_requested(platform)
    if not dry_run:
        check_destructive(profile, f"fastboot would write {image} to the board")
        if not image.is_file():
            raise DeviceError(f"boot image {image} does not exist")
    log_path.parent.mkdir(parents=True, exist_ok=True)
    with open(log_path, "w") as log:
        tools = {name: Tool(name, platform["serial"], log, dry_run) for name in ("adb", "fastboot")}
        for name, step, args in flash_commands(profile, image, boot_only):
            tools[name].run(step, *args)
    if dry_run:
        return "dry run: nothing flashed"
    if done is not None:
        digest = hashlib.sha256(image.read_bytes()).hexdigest()
        done.write_text(json.dumps({"image": str(image), "sha256": digest}) + "\n")
    return f"{image} on device {platform['serial']}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Flash or boot the study's kernel on a board.")
    sub = parser.add_subparsers(dest="command", required=True)
    flash_parser = sub.add_parser("flash", help="fastboot flash (or --boot-only: fastboot boot)")
    flash_parser.add_argument("--device", required=True)
    flash_parser.add_argument("--image", required=True, type=Path)
    flash_parser.add_argument("--log", required=True, type=Path)
    flash_parser.add_argument("--done", type=Path, help="written once the image is on the board")
    flash_parser.add_argument("--boot-only", action="store_true")
    args = parser.parse_args(argv)
    try:
        message = flash(args.device, args.image, args.log, args.done, boot_only=args.boot_only)
    except (DeviceError, ProfileError) as error:
        print(f"adb_runner: {error}", file=sys.stderr)
        return 1
    print(f"adb_runner: {message}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
