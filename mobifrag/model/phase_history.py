"""The traces of a run's phases before one phase, oldest first (ftl-sim --history-trace).

    python -m mobifrag.model.phase_history RUN PHASE

A guest job appends each traced phase's name to RUN/blktrace/order as it starts tracing
it (jobs/lib.sh trace_start). A phase is replayed on the device model after the writes of
every phase traced before it in the same run, so the data it reads lies on the planes
the run's own writes put it on: a file written by interleaved writers reads from the
few planes it landed on, as on the phone that wrote it. The command prints ftl-sim's
options, one `--history-trace DIR` pair per earlier phase (nothing for the first).
"""

from __future__ import annotations

import shlex
import sys
from collections.abc import Sequence
from pathlib import Path

ORDER = "order"


class PhaseHistoryError(ValueError):
    """The run's phase order cannot be read; the message names the file."""


def phase_order(run: Path) -> list[str]:
    """The traced phases of a run in the order its job traced them."""
    path = Path(run) / "blktrace" / ORDER
    try:
        lines = path.read_text().splitlines()
    except OSError as error:
        raise PhaseHistoryError(
            f"{path}: no phase order ({error.strerror}; a run from before its job"
            " recorded the order of its traces? run the job again)"
        ) from None
    for number, name in enumerate(lines, start=1):
        if not name or "/" in name or name in (".", ".."):
            raise PhaseHistoryError(f"{path}:{number}: {name!r} is not a phase name")
    return lines


def earlier_traces(run: Path, phase: str) -> list[Path]:
    """Trace folders of the phases traced before `phase` (its first time), oldest first."""
    order = phase_order(run)
    if phase not in order:
        raise PhaseHistoryError(f"{Path(run) / 'blktrace' / ORDER}: no phase {phase!r}")
    earlier = order[: order.index(phase)]
    folders = [Path(run) / "blktrace" / name for name in earlier]
    missing = [str(folder) for folder in folders if not folder.is_dir()]
    if missing:
        raise PhaseHistoryError(f"{', '.join(missing)}: listed in the phase order, not kept")
    return folders


def history_options(traces: Sequence[Path]) -> list[str]:
    """ftl-sim's options replaying `traces` in turn before the measured one."""
    return [arg for trace in traces for arg in ("--history-trace", str(trace))]


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 2:
        print("usage: python -m mobifrag.model.phase_history RUN PHASE", file=sys.stderr)
        return 2
    try:
        options = history_options(earlier_traces(Path(args[0]), args[1]))
    except PhaseHistoryError as error:
        print(f"phase_history: {error}", file=sys.stderr)
        return 1
    print(shlex.join(options))
    return 0


if __name__ == "__main__":
    sys.exit(main())
