"""fio's JSON reports (`--output-format=json`), as the guest jobs keep them."""

from __future__ import annotations

import json
from pathlib import Path


class FioReportError(ValueError):
    """A fio report that cannot be read; the message names the file."""


def fio_jobs(report: Path) -> list[dict]:
    """The `jobs` of a fio report. fio writes its notices (prerun output files, `cache
    invalidation of FILE failed` on a kernel without fadvise) into the same file ahead
    of the JSON, so reading starts at the first line that opens an object."""
    try:
        text = Path(report).read_text()
    except OSError as error:
        raise FioReportError(f"{report}: no fio report ({error})") from None
    start = 0 if text.startswith("{") else text.find("\n{") + 1
    try:
        jobs = json.loads(text[start:])["jobs"]
    except (ValueError, KeyError, TypeError) as error:
        raise FioReportError(f"{report}: no fio JSON ({error})") from None
    if not isinstance(jobs, list) or not all(isinstance(job, dict) for job in jobs):
        raise FioReportError(f"{report}: `jobs` is not a list of jobs")
    return jobs


def job_counts(report: Path) -> dict[str, int]:
    """How many threads (fio jobs) ran under each job name of a report."""
    counts: dict[str, int] = {}
    for job in fio_jobs(report):
        name = job.get("jobname")
        if not isinstance(name, str):
            raise FioReportError(f"{report}: a job has no jobname")
        counts[name] = counts.get(name, 0) + 1
    return counts
