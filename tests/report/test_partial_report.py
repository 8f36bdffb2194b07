"""Verdicts whatever failed (mobifrag/report/partial.py): a run that lost an experiment
still gets claims.md and claims.csv, the lost claims naming the failed job and its log."""

from __future__ import annotations

import csv

from mobifrag.report.partial import FailedJob, failed_jobs, main

LOG_LINE = "    log: results/platform/x/quick/logs/filldelete-fill-ext4.log"
SNAKEMAKE_LOG = f"""\
[Wed Dec  2 06:01:02 2026]
Error in rule filldelete_fill:
    message: None
    jobid: 12
    output: results/platform/x/quick/filldelete/ext4/fill
{LOG_LINE} (check log file(s) for error details)
    shell:
        false
Shutting down, this might take some time.
Error in rule flashsim_build:
    jobid: 3
Exiting because a job execution failed. Look below for error messages
"""


def test_failed_jobs_are_read_from_snakemakes_log():
    assert failed_jobs(SNAKEMAKE_LOG) == [
        FailedJob("filldelete_fill", "results/platform/x/quick/logs/filldelete-fill-ext4.log"),
        FailedJob("flashsim_build"),
    ]


def test_an_unfinished_run_is_judged_from_the_tables_that_exist(tmp_path):
    results = tmp_path / "results"
    table = results / "concurrent-appenders" / "dof.csv"
    table.parent.mkdir(parents=True)
    table.write_text("fs,writers,file,dof\next4,1,a,1\next4,5,b,5\n")
    log = tmp_path / "snakemake.log"
    log.write_text(SNAKEMAKE_LOG)
    args = ["--device", "emulator-emmc", "--scale", "quick", "--snakemake-log", str(log)]
    assert main([*args, "--results", str(results), "--figures", str(tmp_path / "f")]) == 0
    summary = (results / "claims.md").read_text().splitlines()[2]
    assert "evidence claims:" in summary
    assert "The run did not finish: 2 job(s) failed (filldelete_fill, flashsim_build)" in summary
    with open(results / "claims.csv", newline="") as handle:
        rows = {row["id"]: row for row in csv.DictReader(handle)}
    assert rows["tmc-fig06-ext4-five-writers-fragment"]["verdict"] == "reproduced"
    lost = rows["tmc-fig07-non-sqlite-fragment-when-full"]
    assert lost["verdict"] == "not measured"
    assert lost["note"] == (
        "needs filldelete/ext4/dof.csv: failed filldelete_fill "
        "(log results/platform/x/quick/logs/filldelete-fill-ext4.log)"
    )
    assert not (results / "report.html").exists()  # no provenance record yet


def test_make_reproduce_writes_the_claims_when_snakemake_fails():
    import shutil
    import subprocess

    from mobifrag import REPO

    scale = "partial-run-test"
    results = REPO / "results" / "emulator-emmc" / scale
    shutil.rmtree(results, ignore_errors=True)
    try:
        run = subprocess.run(
            ["make", "-s", "reproduce", "SNAKEMAKE=false", f"SCALE={scale}"],
            cwd=REPO,
            capture_output=True,
            text=True,
        )
        assert run.returncode != 0  # Snakemake's failure is kept
        assert (results / "claims.csv").is_file()
        assert f"results/emulator-emmc/{scale}/claims.md: " in run.stdout
        assert "evidence claims:" in run.stdout and "The run did not finish" in run.stdout
    finally:
        shutil.rmtree(results, ignore_errors=True)
