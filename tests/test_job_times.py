"""mobifrag.job_times: wall time per rule from a Snakemake run log."""

from mobifrag import job_times

LOG = """\
[Mon Nov 23 14:50:17 2026]
localrule scan_run:
    output: results/d/s/scan/run
    jobid: 4
[Mon Nov 23 14:50:20 2026]
rule figure:
    output: paper-figures/d/s/a.pdf, paper-figures/d/s/a.png
    jobid: 7
[Mon Nov 23 14:52:17 2026]
Finished jobid: 4 (Rule: scan_run)
[Mon Nov 23 14:53:20 2026]
localrule scan_run:
    output: results/d/s/scan/other
    jobid: 5
[Mon Nov 23 14:58:20 2026]
Finished jobid: 5 (Rule: scan_run)
"""


def test_jobs_are_timed_from_start_to_finish_and_summed_per_rule():
    rows = {row[0]: row for row in job_times.rule_rows(job_times.parse(LOG.splitlines()))}
    rule, done, unfinished, total, longest, output = rows["scan_run"]
    assert (done, unfinished) == (2, 0)
    assert total == 7.0 and longest == 5.0
    assert output == "results/d/s/scan/other"


def test_a_job_without_a_finish_line_counts_as_unfinished():
    rows = {row[0]: row for row in job_times.rule_rows(job_times.parse(LOG.splitlines()))}
    assert rows["figure"][1:3] == (0, 1)


def test_a_log_without_jobs_is_refused(tmp_path, capsys):
    log = tmp_path / "empty.log"
    log.write_text("Building DAG of jobs...\n")
    assert job_times.main([str(log)]) == 1
    assert "names no jobs" in capsys.readouterr().err
