"""Wall time per rule of a Snakemake run, read from its log.

    python -m mobifrag.job_times .snakemake/log/<run>.snakemake.log

Prints one row per rule (jobs finished, total and longest minutes, the longest job's
output) and the run's span, longest total first: where a run's time went, for the
README's per-target times. Jobs still running or failed when the log ends are counted
as unfinished.
"""

from __future__ import annotations

import argparse
import re
import sys
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

STAMP = re.compile(r"^\[(\w{3} \w{3} +\d+ \d\d:\d\d:\d\d \d{4})\]$")
START = re.compile(r"^(?:local)?rule (\w+):$")
JOBID = re.compile(r"^\s+jobid: (\d+)$")
OUTPUT = re.compile(r"^\s+output: (.*)$")
FINISHED = re.compile(r"^Finished jobid: (\d+) \(Rule: (\w+)\)$")


@dataclass
class Job:
    rule: str
    started: datetime
    output: str = ""
    seconds: float | None = None


@dataclass
class Run:
    jobs: dict[int, Job] = field(default_factory=dict)
    first: datetime | None = None
    last: datetime | None = None


def parse(lines) -> Run:
    run, stamp, opening = Run(), None, None
    for line in lines:
        line = line.rstrip("\n")
        if m := STAMP.match(line):
            stamp = datetime.strptime(m.group(1), "%a %b %d %H:%M:%S %Y")
            run.first, run.last = run.first or stamp, stamp
        elif (m := START.match(line)) and stamp:
            opening = Job(m.group(1), stamp)
        elif (m := OUTPUT.match(line)) and opening:
            opening.output = m.group(1)
        elif (m := JOBID.match(line)) and opening:
            run.jobs[int(m.group(1))], opening = opening, None
        elif (m := FINISHED.match(line)) and stamp and int(m.group(1)) in run.jobs:
            job = run.jobs[int(m.group(1))]
            job.seconds = (stamp - job.started).total_seconds()
    return run


def rule_rows(run: Run) -> list[tuple[str, int, int, float, float, str]]:
    """(rule, finished, unfinished, total min, longest min, longest output) per rule."""
    rows = []
    for rule in sorted({job.rule for job in run.jobs.values()}):
        jobs = [job for job in run.jobs.values() if job.rule == rule]
        done = [job for job in jobs if job.seconds is not None]
        longest = max(done, key=lambda job: job.seconds, default=None)
        rows.append(
            (
                rule,
                len(done),
                len(jobs) - len(done),
                sum(job.seconds for job in done) / 60,
                longest.seconds / 60 if longest else 0.0,
                longest.output if longest else "",
            )
        )
    return sorted(rows, key=lambda row: -row[3])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("log", type=Path, help="a .snakemake/log/*.snakemake.log file")
    args = parser.parse_args(argv)
    try:
        with open(args.log, encoding="utf-8") as handle:
            run = parse(handle)
    except OSError as error:
        print(f"job_times: {error}", file=sys.stderr)
        return 1
    if not run.jobs:
        print(f"job_times: {args.log} names no jobs (not a Snakemake run log?)", file=sys.stderr)
        return 1
    print("rule\tfinished\tunfinished\ttotal_min\tlongest_min\tlongest_output")
    for rule, done, open_, total, longest, output in rule_rows(run):
        print(f"{rule}\t{done}\t{open_}\t{total:.1f}\t{longest:.1f}\t{output}")
    span = (run.last - run.first).total_seconds() / 60
    print(f"# span {span:.1f} min from {run.first:%H:%M:%S} to {run.last:%H:%M:%S}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
