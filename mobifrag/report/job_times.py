"""Where a study's time went, rule by rule, from its jobs' Snakemake benchmark files.

    python -m mobifrag.report.job_times <scale> [--device DEVICE] [--platform KEY]
    snakemake all -n --config scale=<scale> | python -m mobifrag.report.job_times <scale> --eta -

Every guest rule and every rule running a device model (ftl-sim, FlashSim) declares a
`benchmark:` file: Snakemake's TSV of the job's wall time (`s`, `h:m:s`), peak memory
(`max_rss`, MB) and I/O, in benchmarks/ of the stage folder that holds the rule's log
(results/platform/<key>/<scale>/ for the platform's runs, results/<device>/<scale>/ for
the device model). Each file is named after its rule, `<rule>-<wildcards>.tsv` or
`<rule>.tsv`, so a file's rule is the leading word of its name (the extended format's
`rule_name` column, where present, wins). Prints one row per rule (jobs, job-minutes,
the longest job's minutes, the peak resident MB, the longest job's benchmark file),
longest total first, and the job-minutes of all of them. A job rerun overwrites its
file, so the table counts each job's last run.

With --out FILE the table is also written as a TSV (rule, jobs, job_min, longest_min,
max_rss_mb) after comment lines naming the run; `reference write` keeps one beside a
reference run's verdicts (docs/reference/<device>-<scale>-job-times.tsv), and the
artifact appendix takes its experiments' times from it.

With --eta DRYRUN (a file, or - for stdin, holding a `snakemake -n` run's output), it
instead estimates what that run has left: each rule's jobs in the dry run's "Job stats"
table times the rule's mean job seconds in the benchmark files, in job-minutes and, over
--cores, in wall minutes (a lower bound: jobs wait for each other); rules with no
benchmark file are counted apart.
"""

from __future__ import annotations

import argparse
import csv
import math
import re
import sys
from dataclasses import dataclass
from pathlib import Path

from mobifrag.workflow import stages
from mobifrag.workflow.atomic import write_lines_atomic

# A rule's name is a Python identifier; the file name goes on with "-" or ".".
RULE = re.compile(r"\w+")


class BenchmarkError(ValueError):
    """A benchmark file that is not a Snakemake benchmark TSV."""


TABLE_COLUMNS = ("rule", "jobs", "job_min", "longest_min", "max_rss_mb")


@dataclass(frozen=True)
class JobTimes:
    """A written job-times table: its comment lines' facts and job-minutes per rule."""

    path: Path
    meta: dict[str, str]
    minutes: dict[str, float]
    jobs: int

    @property
    def total(self) -> float:
        return sum(self.minutes.values())


@dataclass
class Job:
    rule: str
    path: Path
    seconds: float
    max_rss_mb: float | None = None


def rule_of(relative: str) -> str:
    """The rule of a benchmark file named `<rule>-<wildcards>.tsv`, given its path below
    the benchmarks folder (a wildcard holding "/" puts it in a subfolder)."""
    match = RULE.match(relative)
    if not match:
        raise BenchmarkError(f"{relative}: a benchmark file's name starts with its rule")
    return match.group(0)


def number(value: str | None) -> float | None:
    """A benchmark value; Snakemake writes "-" or "NA" where it measured nothing."""
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def read_job(path: Path, folder: Path) -> Job:
    """One job's benchmark file; several rows (a rule's `repeat`) add up."""
    with open(path, encoding="utf-8", newline="") as handle:
        reader = csv.DictReader(handle, delimiter="\t")
        rows = list(reader)
    if "s" not in (reader.fieldnames or []):
        raise BenchmarkError(f"{path}: no `s` column (not a Snakemake benchmark file?)")
    if not rows:
        raise BenchmarkError(f"{path}: no job's row below the header")
    seconds = [number(row["s"]) for row in rows]
    if None in seconds:
        raise BenchmarkError(f"{path}: `s` is not a number in every row")
    rss = [value for row in rows if (value := number(row.get("max_rss"))) is not None]
    # Snakemake 9 writes the extended format's rule name as a tuple: ('scan_run',).
    named = RULE.search(rows[0].get("rule_name") or "")
    rule = named.group(0) if named else rule_of(path.relative_to(folder).as_posix())
    return Job(rule, path, sum(seconds), max(rss, default=None))


def platform_folders(results: Path, scale: str, platform: str | None = None) -> list[Path]:
    """The platform-run folder of a scale of every platform key (or of `platform`)."""
    return stages.stage_folders(results, stages.PLATFORM_RUNS, scale=scale, platform=platform)


def stage_folders(
    results: Path, scale: str, device: str | None = None, platform: str | None = None
) -> list[Path]:
    """The benchmarks folders of a scale: every platform's runs and every device's
    model stage (one of each with `device` or `platform`), then the workloads'."""
    folders = [
        *platform_folders(results, scale, platform),
        *stages.stage_folders(results, stages.RESULTS, scale=scale, device=device),
        *stages.stage_folders(results, stages.WORKLOADS, scale=scale),
    ]
    return [f / stages.BENCHMARKS for f in folders if (f / stages.BENCHMARKS).is_dir()]


def collect(folders: list[Path]) -> list[Job]:
    return [read_job(path, folder) for folder in folders for path in sorted(folder.rglob("*.tsv"))]


def rule_rows(jobs: list[Job]) -> list[tuple[str, int, float, float, float | None, str]]:
    """(rule, jobs, job-minutes, longest job's minutes, peak max_rss MB, longest job's
    file) per rule, most job-minutes first."""
    rows = []
    for rule in sorted({job.rule for job in jobs}):
        mine = [job for job in jobs if job.rule == rule]
        longest = max(mine, key=lambda job: job.seconds)
        rss = [job.max_rss_mb for job in mine if job.max_rss_mb is not None]
        rows.append(
            (
                rule,
                len(mine),
                sum(job.seconds for job in mine) / 60,
                longest.seconds / 60,
                max(rss, default=None),
                str(longest.path),
            )
        )
    return sorted(rows, key=lambda row: (-row[2], row[0]))


def write_table(path: Path, jobs: list[Job], meta: dict[str, str]) -> Path:
    """The rule table as a TSV after `# key: value` lines, written whole or not at all."""
    lines = [f"# {key}: {value}" for key, value in meta.items()]
    lines.append("\t".join(TABLE_COLUMNS))
    for rule, count, total, longest, rss, _ in rule_rows(jobs):
        peak = "NA" if rss is None else f"{rss:.0f}"
        lines.append(f"{rule}\t{count}\t{total:.2f}\t{longest:.2f}\t{peak}")
    write_lines_atomic(path, lines)
    return Path(path)


def read_table(path: Path) -> JobTimes:
    """A table `write_table` wrote; a damaged one is refused naming the file and line."""
    meta: dict[str, str] = {}
    minutes: dict[str, float] = {}
    jobs = 0
    header = None
    for line_no, line in enumerate(Path(path).read_text().splitlines(), 1):
        if line.startswith("#"):
            key, colon, value = line[1:].partition(":")
            if colon:
                meta[key.strip()] = value.strip()
            continue
        fields = line.split("\t")
        where = f"{path}:{line_no}"
        if header is None:
            if tuple(fields) != TABLE_COLUMNS:
                raise BenchmarkError(f"{where}: expected the columns {', '.join(TABLE_COLUMNS)}")
            header = fields
            continue
        if len(fields) != len(TABLE_COLUMNS):
            raise BenchmarkError(f"{where}: {len(fields)} fields, expected {len(TABLE_COLUMNS)}")
        try:
            count, job_min = int(fields[1]), float(fields[2])
        except ValueError:
            raise BenchmarkError(f"{where}: jobs or job_min is not a number") from None
        if count < 0 or not math.isfinite(job_min) or job_min < 0:
            raise BenchmarkError(f"{where}: jobs or job_min is negative or not finite")
        minutes[fields[0]] = job_min
        jobs += count
    if header is None:
        raise BenchmarkError(f"{path}: no table below the comment lines")
    return JobTimes(Path(path), meta, minutes, jobs)


def planned_jobs(dry_run: str) -> dict[str, int]:
    """Rule → job count from the "Job stats" table of a `snakemake -n` run."""
    jobs: dict[str, int] = {}
    in_table = False
    for line in dry_run.splitlines():
        parts = line.split()
        if parts[:2] == ["job", "count"]:
            in_table = True
            continue
        if not in_table:
            continue
        if not parts or parts[0] == "total":
            in_table = False
            continue
        if len(parts) == 2 and parts[1].isdigit():
            jobs[parts[0]] = int(parts[1])
    return jobs


def eta_rows(jobs: list[Job], planned: dict[str, int]):
    """(rule, planned jobs, mean job seconds or None, expected seconds or None) per rule
    of the plan, longest expected first, unknown ones last."""
    rows = []
    for rule, count in planned.items():
        mine = [job.seconds for job in jobs if job.rule == rule]
        mean = sum(mine) / len(mine) if mine else None
        rows.append((rule, count, mean, None if mean is None else mean * count))
    return sorted(rows, key=lambda row: (row[3] is None, -(row[3] or 0), row[0]))


def print_eta(jobs: list[Job], planned: dict[str, int], cores: int) -> None:
    print("rule\tjobs\tmean_job_min\texpected_job_min")
    for rule, count, mean, expected in eta_rows(jobs, planned):
        if mean is None:
            print(f"{rule}\t{count}\t-\t-")
        else:
            print(f"{rule}\t{count}\t{mean / 60:.1f}\t{expected / 60:.1f}")
    known = sum(row[3] for row in eta_rows(jobs, planned) if row[3] is not None)
    unknown = sum(count for rule, count, mean, _ in eta_rows(jobs, planned) if mean is None)
    print(
        f"# {sum(planned.values())} jobs left: about {known / 60:.1f} job-min, "
        f"at least {known / 60 / max(cores, 1):.1f} min on {cores} cores; "
        f"{unknown} jobs of rules without a benchmark file not counted"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("scale", help="the scale whose jobs to sum (test, quick, paper)")
    parser.add_argument("--device", help="only this device's model stage")
    parser.add_argument("--platform", help="only this platform key's runs")
    parser.add_argument("--results", type=Path, default=Path(stages.ROOT))
    parser.add_argument(
        "--eta", metavar="DRYRUN", help="a `snakemake -n` output (- for stdin): time it has left"
    )
    parser.add_argument("--cores", type=int, default=2, help="cores of the run (--eta)")
    parser.add_argument("--out", type=Path, help="also write the rule table to this TSV")
    args = parser.parse_args(argv)
    if args.scale.endswith(".log") or Path(args.scale).is_file():
        print(
            f"job_times: {args.scale} is not a scale: the table comes from the jobs' "
            "benchmark files, not a run log: python -m mobifrag.report.job_times <scale>",
            file=sys.stderr,
        )
        return 2
    folders = stage_folders(args.results, args.scale, args.device, args.platform)
    try:
        jobs = collect(folders)
    except (OSError, BenchmarkError) as error:
        print(f"job_times: {error}", file=sys.stderr)
        return 1
    if not jobs:
        where = " or ".join(
            str(stages.stage_glob(args.results, pattern, scale=args.scale))
            for pattern in (stages.PLATFORM_RUNS, stages.RESULTS)
        )
        print(f"job_times: no benchmark files in {stages.BENCHMARKS}/ of {where}", file=sys.stderr)
        return 1
    if args.eta is not None:
        try:
            text = sys.stdin.read() if args.eta == "-" else Path(args.eta).read_text()
        except OSError as error:
            print(f"job_times: {error}", file=sys.stderr)
            return 1
        planned = planned_jobs(text)
        if not planned:
            print(f"job_times: no 'Job stats' table in {args.eta}: nothing left?", file=sys.stderr)
            return 1
        print_eta(jobs, planned, args.cores)
        return 0
    print("rule\tjobs\tjob_min\tlongest_min\tmax_rss_mb\tlongest_job")
    for rule, count, total, longest, rss, path in rule_rows(jobs):
        peak = "-" if rss is None else f"{rss:.0f}"
        print(f"{rule}\t{count}\t{total:.1f}\t{longest:.1f}\t{peak}\t{path}")
    total = sum(job.seconds for job in jobs) / 60
    print(f"# all {len(jobs)} jobs of {len(folders)} stage folders: {total:.1f} job-min")
    if args.out:
        meta = {"scale": args.scale, "device": args.device or "every device"}
        print(f"job_times: wrote {write_table(args.out, jobs, meta)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
