"""Where a guest's time goes: the wall and CPU seconds of each phase of a job.

A job announces each phase on the guest's console (jobs/lib.sh, progress_step). The
runner reads the console four times a second and notes, for each new phase line, the
wall clock and QEMU's CPU seconds so far; a phase lasts until the next one, the last one
until QEMU exits. The time before the first phase line (the guest's boot and the job's
start) is its own span, `boot`. Timing is to the poll (a quarter of a second): a phase
shorter than that may be charged to its neighbour.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

BOOT = "boot"


@dataclass(frozen=True)
class PhaseSpan:
    step: int  # 0 for the boot span
    what: str
    seconds: float
    cpu_seconds: float

    def record(self) -> dict:
        return {
            "step": self.step,
            "what": self.what,
            "seconds": round(self.seconds, 3),
            "cpu_seconds": round(self.cpu_seconds, 3),
        }


def process_cpu_seconds(pid: int) -> float | None:
    """User and system CPU seconds of a live process, all its threads (procfs), or
    None when it cannot be read (gone, or no procfs)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
            text = stat.read()
    except OSError:
        return None
    # The command name may hold spaces and parentheses: the fields follow the last ')'.
    fields = text[text.rfind(")") + 2 :].split()
    try:
        ticks = int(fields[11]) + int(fields[12])  # utime, stime: fields 14 and 15
    except (IndexError, ValueError):
        return None
    return ticks / os.sysconf("SC_CLK_TCK")


class PhaseTimer:
    """Phase lines fed as console text comes, each with the clock and CPU at its
    reading; `spans(end, end_cpu)` cuts the run into phases."""

    def __init__(self, start: float, parse):
        self.start = start
        self.parse = parse  # a console line -> (step, what), or None
        self.partial = ""
        self.marks: list[tuple[int, str, float, float | None]] = []

    def feed(self, text: str, now: float, cpu: float | None) -> None:
        lines = (self.partial + text).split("\n")
        self.partial = lines.pop()
        for line in lines:
            phase = self.parse(line)
            if phase is not None:
                self.marks.append((*phase, now, cpu))

    def spans(self, end: float, end_cpu: float) -> list[PhaseSpan]:
        """The boot span, then one span per phase line. A mark whose CPU could not be
        read takes the previous mark's, so the phase it starts gets the CPU the phase
        before it used since that mark."""
        points = [(0, BOOT, self.start, 0.0)]
        for step, what, now, cpu in self.marks:
            points.append((step, what, now, points[-1][3] if cpu is None else cpu))
        points.append((0, "", end, end_cpu))
        return [
            PhaseSpan(step, what, max(0.0, nxt[2] - now), max(0.0, nxt[3] - cpu))
            for (step, what, now, cpu), nxt in zip(points, points[1:], strict=False)
        ]
