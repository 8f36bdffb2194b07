"""The heartbeat of a running job, shared by both runners (the emulator's and adb's).

While a job runs, its session's output (a guest's console, an adb shell) is fed to a
Progress, which keeps the last phase line (mobifrag/platform/phase_line.py); every
HEARTBEAT_INTERVAL_S the runner prints one heartbeat line on its stderr (Snakemake
shows it): elapsed time, the expected time left where a previous run's time is known,
the last phase line and, for a guest, the bytes its test disk image holds.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path
from typing import TextIO

from mobifrag.platform.phase_line import Phase, parse_phase

# A heartbeat on the runner's stderr this often while a job runs (issue 21: at least
# every 30 s); MOBIFRAG_HEARTBEAT_S overrides it (tests use a short one).
HEARTBEAT_INTERVAL_S = 20.0
HEARTBEAT_ENV = "MOBIFRAG_HEARTBEAT_S"


def heartbeat_interval(environ=os.environ) -> float:
    """HEARTBEAT_INTERVAL_S, or MOBIFRAG_HEARTBEAT_S's seconds when it is a positive
    number no longer than that."""
    try:
        value = float(environ.get(HEARTBEAT_ENV, ""))
    except ValueError:
        return HEARTBEAT_INTERVAL_S
    return value if 0 < value <= HEARTBEAT_INTERVAL_S else HEARTBEAT_INTERVAL_S


def duration(seconds: float) -> str:
    """12s, 4m05s, 1h02m."""
    seconds = max(0, int(seconds))
    if seconds < 60:
        return f"{seconds}s"
    if seconds < 3600:
        return f"{seconds // 60}m{seconds % 60:02d}s"
    return f"{seconds // 3600}h{seconds % 3600 // 60:02d}m"


def mib(count: int) -> str:
    return f"{count / (1024 * 1024):.1f} MiB"


class Progress:
    """What a running job has shown so far, and its heartbeat: `feed` takes the output
    the job's session printed (console text, in pieces as it comes), `beat(now)` writes
    one heartbeat line when one is due. The clock is the caller's (monotonic seconds),
    so tests drive it without waiting."""

    def __init__(
        self,
        label: str,
        start: float,
        interval: float = HEARTBEAT_INTERVAL_S,
        expect_seconds: float | None = None,
        disk: Path | None = None,
        stream: TextIO | None = None,
    ):
        self.label = label
        self.start = start
        self.interval = interval
        self.expect_seconds = expect_seconds
        self.disk = disk
        self.stream = stream
        self.next_due = start + interval
        self.phase: Phase | None = None
        self.phases = 0
        self.beats = 0
        self.partial = ""

    def feed(self, text: str) -> None:
        lines = (self.partial + text).split("\n")
        self.partial = lines.pop()
        for line in lines:
            phase = parse_phase(line)
            if phase is not None:
                self.phase = phase
                self.phases += 1

    def disk_allocated(self) -> int | None:
        """Bytes the test disk image holds on the host (a sparse image grows as the
        guest writes; a copied base image counts from the start)."""
        if self.disk is None:
            return None
        try:
            return self.disk.stat().st_blocks * 512
        except OSError:
            return None

    def line(self, now: float) -> str:
        elapsed = now - self.start
        parts = [f"{duration(elapsed)} elapsed"]
        if self.expect_seconds:
            parts.append(self.time_left(elapsed))
        parts.append(self.phase_text())
        allocated = self.disk_allocated()
        if allocated is not None:
            parts.append(f"disk image {mib(allocated)}")
        return f"mobifrag-heartbeat: {self.label}: " + "; ".join(parts)

    def time_left(self, elapsed: float) -> str:
        left = self.expect_seconds - elapsed
        previous = f"previous run {duration(self.expect_seconds)}"
        if left >= 0:
            return f"about {duration(left)} left ({previous})"
        return f"{duration(-left)} over the {previous}"

    def phase_text(self) -> str:
        phase = self.phase
        if phase is None:
            return "no phase yet"
        text = f"step {phase.step}/{phase.steps} {phase.what}"
        if phase.written is not None:
            text += f", {mib(phase.written)} written"
        return text

    def due(self, now: float) -> bool:
        return now >= self.next_due

    def beat(self, now: float) -> str | None:
        """The heartbeat line, written to the stream, when one is due; the next is due
        one interval later on the same grid (a late beat does not shift it)."""
        if not self.due(now):
            return None
        while self.next_due <= now:
            self.next_due += self.interval
        text = self.line(now)
        self.beats += 1
        if self.stream is not None:
            self.stream.write(text + "\n")
            self.stream.flush()
        return text


def console_progress(
    console: Path, expect_seconds: float | None = None, disk: Path | None = None
) -> Progress:
    """The heartbeat, from now on stderr, of the job whose session goes to the log
    `console`, named after it (`<job>.console.log` beats as `<job>`)."""
    label = Path(console).name.removesuffix(".log").removesuffix(".console")
    return Progress(label, time.monotonic(), heartbeat_interval(), expect_seconds, disk, sys.stderr)


def wait_with_heartbeat(
    process: subprocess.Popen,
    timeout_s: float,
    progress: Progress | None = None,
    poll=None,
    clock=time.monotonic,
    poll_every: float | None = None,
) -> bool:
    """Wait for `process` up to timeout_s; a heartbeat at every interval meanwhile
    (`poll()` returns the session's new output for it), and with `poll_every`, a poll
    at least that often between beats. True when it ended in time."""
    deadline = clock() + timeout_s
    while True:
        now = clock()
        wait = deadline - now
        if progress is not None:
            wait = min(wait, progress.next_due - now)
        if poll_every is not None:
            wait = min(wait, poll_every)
        try:
            process.wait(timeout=max(wait, 0))
            return True
        except subprocess.TimeoutExpired:
            pass
        now = clock()
        if now >= deadline:
            return False
        beat = progress is not None and progress.due(now)
        if not (beat or poll_every is not None):
            continue
        try:
            text = poll() if poll is not None else ""
            if progress is not None:
                progress.feed(text)
                progress.beat(now)
        except (OSError, ValueError):  # progress never fails or stalls a run
            progress = None
