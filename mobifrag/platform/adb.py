"""adb and fastboot as the device runner uses them: every command bound to one serial,
written to the session log with its output, and a failure turned into a DeviceError
that says what went wrong (the device is gone, full, or the step failed).

Dry run (MOBIFRAG_DRY_RUN=1 or platform.dry_run: true): every command is printed in
order, and none is run.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import threading
from dataclasses import dataclass, field
from typing import TextIO

from mobifrag.platform.progress import Progress, wait_with_heartbeat

DRY_RUN_ENV = "MOBIFRAG_DRY_RUN"
COMMAND_TIMEOUT_S = 600
GONE_MARKERS = ("not found", "no devices", "offline", "closed", "protocol fault", "no device")
FULL_MARKER = "No space left on device"


class DeviceError(RuntimeError):
    """A device job or flash that did not complete; the message says what is wrong."""


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
        command = self.log_command(args)
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
            raise self.missing() from None
        except subprocess.TimeoutExpired:
            raise StepTimeout(f"{step}: still running after {timeout:.0f} s") from None
        output = (done.stdout or "") + (done.stderr or "")
        self.write_log(output)
        self.check(step, done.returncode, output)
        return done.stdout

    def stream(self, step: str, *args: str, timeout: float, progress: Progress) -> str:
        """run(), with the command's output written to the log as it comes and fed to
        `progress`, whose heartbeat goes out meanwhile."""
        if self.dry_run:
            return self.run(step, *args, timeout=timeout)
        self.log_command(args)
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
            raise self.missing() from None
        copy = LogCopy(process.stdout, self)
        try:
            finished = wait_with_heartbeat(process, timeout, progress, copy.fresh)
        finally:
            if process.poll() is None:
                process.kill()
                process.wait()
            copy.join()
        if not finished:
            raise StepTimeout(f"{step}: still running after {timeout:.0f} s")
        self.check(step, process.returncode, copy.everything())
        return copy.everything()

    def log_command(self, args: tuple[str, ...]) -> str:
        command = shlex.join(self.argv(*args))
        self.write_log(f"$ {command}\n")
        return command

    def write_log(self, text: str) -> None:
        self.log.write(text)
        self.log.flush()

    def missing(self) -> DeviceError:
        return DeviceError(
            f"{self.program} not found: install it with 'apt-get install {self.program}'"
        )

    def check(self, step: str, status: int, output: str) -> None:
        if status != 0:
            raise self.failure(step, status, output)

    def failure(self, step: str, status: int, output: str) -> DeviceError:
        text = output.strip() or "(no output)"
        if FULL_MARKER in output:
            return DeviceFull(f"device {self.serial} is full: {step} failed ({text})")
        if any(marker in output.lower() for marker in GONE_MARKERS):
            return DeviceGone(f"device {self.serial} disappeared during {step} ({text})")
        return DeviceError(f"{step} failed on device {self.serial} (exit {status}): {text}")


class LogCopy:
    """A command's output, copied line by line into its tool's log as it comes (a
    thread of its own), kept whole and, for the heartbeat, what came since `fresh()`."""

    def __init__(self, source, tool: Tool):
        self.lines: list[str] = []
        self.unread: list[str] = []
        self.lock = threading.Lock()
        self.reader = threading.Thread(target=self.copy, args=(source, tool), daemon=True)
        self.reader.start()

    def copy(self, source, tool: Tool) -> None:
        for line in source:
            tool.write_log(line)
            with self.lock:
                self.lines.append(line)
                self.unread.append(line)

    def fresh(self) -> str:
        with self.lock:
            text = "".join(self.unread)
            self.unread.clear()
        return text

    def everything(self) -> str:
        return "".join(self.lines)

    def join(self) -> None:
        self.reader.join(timeout=10)


def connected_serials() -> str:
    try:
        listing = subprocess.run(
            ["adb", "devices"], capture_output=True, text=True, timeout=30
        ).stdout
    except (OSError, subprocess.TimeoutExpired):
        return "unknown (adb devices failed)"
    serials = [line.split()[0] for line in listing.splitlines()[1:] if line.strip()]
    return ", ".join(serials) or "none"
