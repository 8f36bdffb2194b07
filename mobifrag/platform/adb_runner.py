"""Run one job script on a real device (a HiKey960 board or a rooted phone) over adb.

The job contract is the emulator's (jobs/lib.sh): the job runs as `sh SCRIPT ARGS` with
its working directory as the output folder and finds MOBIFRAG_DISK, MOBIFRAG_AGENT,
TMPDIR and MOBIFRAG_ROOT in its environment. Only the runner differs; this module
composes its parts:

    mobifrag/platform/adb.py            adb and fastboot, logged; DeviceError and kin
    mobifrag/platform/adb_fence.py      the profile's fences; root commands kept in W
    mobifrag/platform/adb_partition.py  the test partition, probed on the device
    mobifrag/platform/adb_staging.py    the device workdir W, and what is pushed there
    mobifrag/platform/adb_wrapper.py    run.sh: the job's environment, blktrace, status
    mobifrag/platform/adb_outputs.py    the pull, the job's verdict, <out> only on success
    mobifrag/platform/adb_flash.py      fastboot flash (or boot) of the study's kernel
    mobifrag/platform/progress.py       the heartbeat while the job runs

A job: the fences first (before any adb command, dry runs included), then the device
check, the test partition probe, the workdir's layout, the pushes, run.sh, the pull.
Because every job formats the test partition, the runner refuses to run unless the
profile sets allow_destructive: true.

Outputs are pulled into `<out>.partial/`; only a pull that completed for a job that
exited 0 is renamed to `<out>`. A failure of any kind (a wrong serial, a device that
disappears, a full device, a failed job, a timeout) raises DeviceError naming what is
wrong, and whatever was pulled stays in `<out>.partial/`. Every adb/fastboot command and
its output goes to the session log (the rule's console log); the job's own session is
streamed there as it runs (its phase lines, jobs/lib.sh), with a heartbeat on stderr
as in the emulator.

Dry run (MOBIFRAG_DRY_RUN=1 or platform.dry_run: true): every adb/fastboot command is
printed in order, and none is run.

    python -m mobifrag.platform.adb_runner flash --device hikey960 --image boot.img [--boot-only]
"""

from __future__ import annotations

import argparse
import contextlib
import shlex
import shutil
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from mobifrag.platform.adb import (
    COMMAND_TIMEOUT_S,
    DeviceError,
    DeviceGone,
    StepTimeout,
    Tool,
    as_root,
    connected_serials,
    dry_run_requested,
)
from mobifrag.platform.adb_fence import check_destructive, check_fences, remove_command
from mobifrag.platform.adb_flash import flash
from mobifrag.platform.adb_outputs import finish, pull_outputs, verdict
from mobifrag.platform.adb_partition import CheckedDisk, check_probe, probe_script
from mobifrag.platform.adb_staging import (
    AGENT_NAME,
    DevicePlan,
    check_agent,
    check_script,
    layout_script,
    plan_job,
    push_all,
)
from mobifrag.platform.adb_wrapper import wrapper_script
from mobifrag.platform.progress import Progress, console_progress
from mobifrag.workflow.profiles import ProfileError


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
    push_all(session.adb, session.plan, spec.agent or Path(AGENT_NAME), wrapper)
    timeout = spec.timeout_s or session.platform["job_timeout_s"]
    label = session.adb.log.name if isinstance(session.adb.log.name, str) else "job"
    progress = console_progress(Path(label), getattr(spec, "expect_seconds", None))
    job_error = run_wrapper(session, timeout, progress)
    pull_error = (
        None
        if isinstance(job_error, DeviceGone)
        else pull_outputs(session.adb, session.plan, session.partial)
    )
    if session.adb.dry_run:
        clean_device(session)
        return f"dry run: printed {len(session.adb.printed)} commands, ran none"
    verdict(session.partial, session.adb.serial, job_error, pull_error, spec.script.name)
    seconds = time.monotonic() - start
    finish(session.partial, out, run_record(session, disk, spec.disk_mib, seconds))
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
