"""What comes back from the device: the job's folder is pulled into `<out>.partial/`,
and only a pull that completed for a job that exited 0 is renamed to `<out>`. Anything
else raises DeviceError saying why, and whatever was pulled stays in `<out>.partial/`.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

from mobifrag.platform.adb import DeviceError, Tool
from mobifrag.platform.adb_staging import DevicePlan

LOG_TAIL_LINES = 30


def pull_outputs(adb: Tool, plan: DevicePlan, partial: Path) -> DeviceError | None:
    """Pulls W/run/out to <out>.partial (which adb creates); a failure is returned."""
    try:
        adb.run("pulling the outputs", "pull", plan.out_dir, str(partial))
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


def verdict(partial: Path, serial: str, job_error, pull_error, script: str) -> int:
    """The job's exit status, or a DeviceError saying why there is none to trust."""
    kept = f"what was pulled is kept in {partial}" if partial.exists() else "nothing was pulled"
    first = job_error or pull_error
    if first is not None:
        raise type(first)(f"{first}; {kept}")
    status = read_status(partial)
    if status is None:
        raise DeviceError(f"job {script} left no exit status on the device; {kept}")
    if status != 0:
        raise DeviceError(
            f"job {script} exited with status {status} on device {serial}; "
            f"{kept}; its log ends:\n{log_tail(partial / 'job.log')}"
        )
    return status


def finish(partial: Path, out: Path, record: dict) -> None:
    """The pulled folder becomes `out`, with the run's record in place of its exit status."""
    (partial / "exit-status").unlink()
    (partial / "platform-run.json").write_text(json.dumps(record, indent=2) + "\n")
    if out.exists():
        shutil.rmtree(out)
    os.replace(partial, out)
