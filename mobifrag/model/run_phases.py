"""Every traced phase of one platform run replayed on a device model (rule ftl_replay_run).

    python -m mobifrag.model.run_phases RUN --device devices/D.yaml \
        --ftl-sim ftl-sim/target/release/ftl-sim [--fio PATTERN] [--replay PATTERN] \
        [--depth PHASE N] -o phases.json

RUN's guest job traced each measured phase into RUN/blktrace/<phase>/. Each phase is
replayed through ftl-sim on the device profile on a device written once, then written
as the run's earlier phases wrote it (model.phase_history), with the requests in flight
its trace shows (model.ftl.replay_phase): a request waits
only for those whose completion the trace logged before its issue, so readahead's
requests issued together stay in flight together. The workloads do synchronous I/O, one
request outstanding per thread, so a phase never has fewer requests in flight than the
threads that issued it, even where the slow guest serialized them. The thread count of a
phase comes from the report of the tool that ran it:

- `--fio PATTERN`: fio's reports RUN/fio/<report>.json; the phase named PATTERN with
  {report} and {job} filled in ran as many threads as fio jobs of that name (a pattern
  without {job} counts every job of the report);
- `--replay PATTERN`: the agent's replay reports RUN/replay/<report>.json and their
  `threads`;
- `--depth PHASE N`: a phase whose thread count the workload fixes (a config value).

A phase no report names ran on one thread (the job's own shell: creating files,
Postmark). The output keeps, per phase, its thread count (`queue_depth`, the requests
in flight at the least) and ftl-sim's summary; the tables read it (`RunModels`) and run
no simulator.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from mobifrag.measure.fio import FioReportError, job_counts
from mobifrag.model import ftl, phase_history
from mobifrag.workflow.atomic import write_lines_atomic


class ModelIndexError(ValueError):
    """A run's phase models cannot be made or read; the message names the file."""


def traced_phases(run: Path) -> list[str]:
    """The phases the run's job traced (folders of RUN/blktrace/)."""
    folder = Path(run) / "blktrace"
    phases = sorted(p.name for p in folder.iterdir() if p.is_dir()) if folder.is_dir() else []
    if not phases:
        raise ModelIndexError(f"{folder}: no traced phase (did the job run blktrace?)")
    return phases


def fio_depths(run: Path, pattern: str) -> dict[str, int]:
    """Phase name → fio threads, for every report under RUN/fio/."""
    depths = {}
    for report in sorted((Path(run) / "fio").glob("*.json")):
        counts = job_counts(report)
        if "{job}" not in pattern:
            depths[pattern.format(report=report.stem)] = sum(counts.values())
            continue
        for job, count in counts.items():
            depths[pattern.format(report=report.stem, job=job)] = count
    return depths


def replay_depths(run: Path, pattern: str) -> dict[str, int]:
    """Phase name → the agent's replay threads, for every report under RUN/replay/."""
    depths = {}
    for report in sorted((Path(run) / "replay").glob("*.json")):
        try:
            threads = json.loads(report.read_text())["threads"]
        except (OSError, ValueError, KeyError, TypeError) as error:
            raise ModelIndexError(f"{report}: no replay threads ({error})") from None
        if not isinstance(threads, int) or threads < 1:
            raise ModelIndexError(f"{report}: threads {threads!r} is not a positive count")
        depths[pattern.format(report=report.stem)] = threads
    return depths


def phase_depths(
    run: Path, fio: str | None, replay: str | None, fixed: dict[str, int]
) -> dict[str, int]:
    """Queue depth of every traced phase; two sources naming one phase must agree."""
    named: dict[str, int] = {}
    sources = [
        fio_depths(run, fio) if fio else {},
        replay_depths(run, replay) if replay else {},
        fixed,
    ]
    for depths in sources:
        for phase, depth in depths.items():
            if named.setdefault(phase, depth) != depth:
                raise ModelIndexError(
                    f"{run}: phase {phase}: its reports give {named[phase]} and {depth} threads"
                )
    return {phase: named.get(phase, 1) for phase in traced_phases(run)}


def replay_run(ftl_sim: Path, device: Path, run: Path, depths: dict[str, int]) -> dict:
    """The kept index: every phase's queue depth and ftl-sim summary."""
    phases = {}
    for phase, depth in depths.items():
        history = phase_history.earlier_traces(run, phase)
        summary = ftl.replay_phase(ftl_sim, device, Path(run) / "blktrace" / phase, depth, history)
        phases[phase] = {"queue_depth": depth, "summary": summary}
    return {"run": str(run), "device": str(device), "phases": phases}


class RunModels:
    """The phase models of several runs (indexes written by this module), by run folder."""

    def __init__(self, indexes: list[Path]):
        self._runs: dict[Path, tuple[Path, dict]] = {}
        for index in indexes:
            data = load_index(index)
            self._runs[Path(data["run"]).resolve()] = (index, data["phases"])

    def _run(self, run: Path) -> tuple[Path, dict]:
        found = self._runs.get(Path(run).resolve())
        if found is None:
            raise ModelIndexError(f"{run}: no phase models given for this run (--model)")
        return found

    def phases(self, run: Path) -> list[str]:
        """The traced phases of a run, by name."""
        return sorted(self._run(run)[1])

    def phase(self, run: Path, phase: str) -> tuple[dict, int]:
        """(ftl-sim summary, queue depth) of one phase; a phase that asked nothing of
        the disk has no modeled time to judge, so it is refused by name."""
        index, phases = self._run(run)
        if phase not in phases:
            raise ModelIndexError(f"{index}: no phase {phase} (the job did not trace it)")
        summary = phases[phase]["summary"]
        if ftl.modeled_seconds(summary) <= 0:
            raise ModelIndexError(
                f"{index}: phase {phase} has no block requests: it never reached the disk"
            )
        return summary, phases[phase]["queue_depth"]


def load_index(path: Path) -> dict:
    try:
        data = json.loads(Path(path).read_text())
        phases = data["phases"]
        for phase, entry in phases.items():
            if not isinstance(entry["queue_depth"], int) or entry["queue_depth"] < 1:
                raise ValueError(f"phase {phase}: queue_depth {entry['queue_depth']!r}")
            entry["summary"]["time"]["modeled_us"]
        data["run"]
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as error:
        raise ModelIndexError(f"{path}: not a phase-model index ({error})") from None
    return data


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("run", type=Path)
    parser.add_argument("--device", type=Path, required=True, help="device profile")
    parser.add_argument("--ftl-sim", type=Path, required=True)
    parser.add_argument("--fio", metavar="PATTERN", help="phase name of a fio report's jobs")
    parser.add_argument("--replay", metavar="PATTERN", help="phase name of a replay report")
    parser.add_argument(
        "--depth", nargs=2, action="append", default=[], metavar=("PHASE", "N"),
        help="a phase's thread count, fixed by the workload",
    )  # fmt: skip
    parser.add_argument("-o", "--out", type=Path, required=True)
    args = parser.parse_args(argv)
    try:
        fixed = {phase: int(n) for phase, n in args.depth}
        if any(n < 1 for n in fixed.values()):
            raise ModelIndexError(f"--depth: thread counts must be positive ({args.depth})")
        depths = phase_depths(args.run, args.fio, args.replay, fixed)
        index = replay_run(args.ftl_sim, args.device, args.run, depths)
    except (ModelIndexError, FioReportError, ftl.FtlSimError, ValueError, OSError) as error:
        print(f"run_phases: {error}", file=sys.stderr)
        return 1
    write_lines_atomic(args.out, [json.dumps(index, indent=1)])
    return 0


if __name__ == "__main__":
    sys.exit(main())
