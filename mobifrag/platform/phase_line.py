"""The phase lines a job prints at each of its steps (jobs/lib.sh, progress_step):

    mobifrag-phase: <experiment> step <i>/<n> <what> written=<bytes>

Both runners read them from the job's session: the heartbeat shows the last one
(mobifrag/platform/progress.py), and the emulator times each phase
(mobifrag/platform/phase_times.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

PHASE_PREFIX = "mobifrag-phase:"
PHASE_LINE = re.compile(
    re.escape(PHASE_PREFIX)
    + r" (?P<experiment>\S+) step (?P<step>\d+)/(?P<steps>\d+) (?P<what>.*?)"
    + r" ?written=(?P<written>\d+|-)\s*$"
)


@dataclass(frozen=True)
class Phase:
    """One phase line of a job."""

    experiment: str
    step: int
    steps: int
    what: str
    written: int | None


def parse_phase(line: str) -> Phase | None:
    """The phase line in `line` (a console line may carry other text before it: a
    carriage return, a kernel message cut short), or None."""
    start = line.find(PHASE_PREFIX)
    if start < 0:
        return None
    match = PHASE_LINE.match(line[start:].rstrip("\r\n"))
    if match is None:
        return None
    written = match["written"]
    return Phase(
        experiment=match["experiment"],
        step=int(match["step"]),
        steps=int(match["steps"]),
        what=match["what"].strip(),
        written=None if written == "-" else int(written),
    )


def phase_step(line: str) -> tuple[int, str] | None:
    phase = parse_phase(line)
    return None if phase is None else (phase.step, phase.what)
