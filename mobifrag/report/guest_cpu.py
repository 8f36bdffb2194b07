"""How busy each job script's guests kept the host, from the runs' platform-run.json.

    python -m mobifrag.report.guest_cpu <scale> [--platform KEY] [--results DIR] [--phases]

Every emulator run records its wall seconds and QEMU's CPU seconds (user and system) in
platform-run.json, beside the job script that ran. Prints one row per job script (runs,
wall minutes, CPU minutes, busy share: CPU over wall), busiest total first, and the sum:
the guest CPU-minutes a host's cores must supply, whatever the order of the jobs. The
busy share is what a guest rule's `busy_percent` (rules/common/guest.smk,
guest_resources) rests on. Runs from before the CPU was recorded, and runs on a real
device, are counted apart.

With --phases, one row per job script and kind of phase instead (the phase's first word,
its numbers as #; `boot` is the time before the job's first phase line), from the
phases each run recorded (mobifrag/platform/phase_times.py).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path

from mobifrag.report.job_times import platform_folders
from mobifrag.workflow import stages

RECORD = "platform-run.json"


class RecordError(ValueError):
    """A platform-run.json that cannot be read as a run's record."""


@dataclass(frozen=True)
class Run:
    script: str | None  # None: recorded before the script was
    wall_seconds: float
    cpu_seconds: float | None  # None: recorded before the CPU was, or not an emulator
    phases: tuple[tuple[str, float, float], ...] = ()  # (what, seconds, CPU seconds)


def read_phases(path: Path, phases) -> tuple[tuple[str, float, float], ...]:
    if not isinstance(phases, list):
        raise RecordError(f"{path}: phases is {phases!r}, not a list")
    spans = []
    for index, phase in enumerate(phases):
        try:
            what, seconds, cpu = phase["what"], phase["seconds"], phase["cpu_seconds"]
        except (TypeError, KeyError) as error:
            raise RecordError(f"{path}: phase {index} has no {error}") from None
        if not all(isinstance(value, (int, float)) and value >= 0 for value in (seconds, cpu)):
            raise RecordError(f"{path}: phase {index} ({what}): seconds are not numbers >= 0")
        spans.append((str(what), float(seconds), float(cpu)))
    return tuple(spans)


def read_run(path: Path) -> Run:
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise RecordError(f"{path}: not a run record ({error})") from None
    if not isinstance(record, dict):
        raise RecordError(f"{path}: not a run record (a JSON object)")
    wall = record.get("emulator_wall_seconds", record.get("device_wall_seconds"))
    cpu = record.get("emulator_cpu_seconds")
    for name, value in (("wall seconds", wall), ("emulator_cpu_seconds", cpu)):
        if value is not None and (not isinstance(value, (int, float)) or value < 0):
            raise RecordError(f"{path}: {name} is {value!r}, not a number of seconds")
    if wall is None:
        raise RecordError(f"{path}: no emulator_wall_seconds or device_wall_seconds")
    phases = read_phases(path, record.get("phases", []))
    return Run(record.get("script"), float(wall), None if cpu is None else float(cpu), phases)


def collect(results: Path, scale: str, platform: str | None = None) -> list[Run]:
    folders = platform_folders(results, scale, platform)
    return [read_run(path) for folder in folders for path in sorted(folder.rglob(RECORD))]


def summed(items) -> dict:
    """key -> [count, wall minutes, CPU minutes] over (key, wall s, CPU s) items."""
    totals: dict = {}
    for key, wall, cpu in items:
        count, walls, cpus = totals.get(key, [0, 0.0, 0.0])
        totals[key] = [count + 1, walls + wall / 60, cpus + cpu / 60]
    return totals


def script_rows(runs: list[Run]) -> list[tuple[str, int, float, float]]:
    """(job script, runs, wall minutes, CPU minutes) for the runs whose CPU is known,
    most CPU first."""
    known = [run for run in runs if run.cpu_seconds is not None and run.script is not None]
    totals = summed((run.script, run.wall_seconds, run.cpu_seconds) for run in known)
    rows = [(script, int(n), wall, cpu) for script, (n, wall, cpu) in totals.items()]
    return sorted(rows, key=lambda row: (-row[3], row[0]))


def phase_kind(what: str) -> str:
    """`replay holes-000004k` -> `replay`; `measured: write in 10 MiB` -> `measured`."""
    first = what.split(" ", 1)[0].rstrip(":,")
    return re.sub(r"\d+", "#", first) or "-"


def phase_rows(runs: list[Run]) -> list[tuple[str, str, int, float, float]]:
    """(job script, kind of phase, phases, wall minutes, CPU minutes), most CPU first."""
    spans = (
        ((run.script, phase_kind(what)), seconds, cpu)
        for run in runs
        if run.script
        for what, seconds, cpu in run.phases
    )
    rows = [(*key, int(n), wall, cpu) for key, (n, wall, cpu) in summed(spans).items()]
    return sorted(rows, key=lambda row: (-row[4], row[0], row[1]))


def print_phases(runs: list[Run]) -> int:
    rows = phase_rows(runs)
    if not rows:
        print("guest_cpu: no run with its phases recorded", file=sys.stderr)
        return 1
    print("script\tphase\tphases\twall_min\tcpu_min\tbusy_percent")
    for script, kind, count, wall, cpu in rows:
        print(f"{script}\t{kind}\t{count}\t{wall:.1f}\t{cpu:.1f}\t{busy_percent(cpu, wall)}")
    timed = sum(1 for run in runs if run.phases)
    print(f"# {timed} of {len(runs)} runs with their phases timed")
    return 0


def busy_percent(cpu: float, wall: float) -> str:
    return f"{100 * cpu / wall:.0f}" if wall > 0 else "-"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("scale", help="the scale whose runs to sum (test, quick, paper)")
    parser.add_argument("--platform", help="only this platform key's runs")
    parser.add_argument("--results", type=Path, default=Path(stages.ROOT))
    parser.add_argument("--phases", action="store_true", help="per kind of phase")
    args = parser.parse_args(argv)
    try:
        runs = collect(args.results, args.scale, args.platform)
    except RecordError as error:
        print(f"guest_cpu: {error}", file=sys.stderr)
        return 1
    if args.phases:
        return print_phases(runs)
    rows = script_rows(runs)
    if not rows:
        where = stages.stage_glob(
            args.results, stages.PLATFORM_RUNS, platform=args.platform, scale=args.scale
        )
        print(f"guest_cpu: no run with its CPU seconds recorded in {where}", file=sys.stderr)
        return 1
    print("script\truns\twall_min\tcpu_min\tbusy_percent")
    for script, count, wall, cpu in rows:
        print(f"{script}\t{count}\t{wall:.1f}\t{cpu:.1f}\t{busy_percent(cpu, wall)}")
    wall = sum(row[2] for row in rows)
    cpu = sum(row[3] for row in rows)
    apart = len(runs) - sum(row[1] for row in rows)
    print(
        f"# {len(runs) - apart} runs: {cpu:.1f} guest CPU-min in {wall:.1f} job-min "
        f"({busy_percent(cpu, wall)} % busy); {apart} runs without CPU seconds not counted"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
