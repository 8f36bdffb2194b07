"""mobifrag.report.job_times: job-minutes per rule from the jobs' Snakemake benchmark files."""

from pathlib import Path

import pytest

from mobifrag.report import job_times

HEADER = "s\th:m:s\tmax_rss\tmax_vms\tmax_uss\tmax_pss\tio_in\tio_out\tmean_load\tcpu_time\n"
PLATFORM = "platform/qemu-x86_64-0123456789/quick"
DEVICE = "emulator-emmc/quick"


def bench(root: Path, stage: str, name: str, *rows: str) -> Path:
    path = root / stage / "benchmarks" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(HEADER + "".join(f"{row}\n" for row in rows))
    return path


def row(seconds: float, rss="1200.50") -> str:
    return f"{seconds:.4f}\t0:00:00\t{rss}\t1500.00\t-\t-\t0.10\t2.00\t95.00\t{seconds / 2:.2f}"


@pytest.fixture
def results(tmp_path):
    bench(tmp_path, PLATFORM, "concurrent_appenders-ext4-writers-1-rep-1.tsv", row(120))
    bench(tmp_path, PLATFORM, "concurrent_appenders-f2fs-writers-4-rep-2.tsv", row(300, "900"))
    bench(tmp_path, PLATFORM, "ars_checks.tsv", row(60, "-"))
    bench(tmp_path, DEVICE, "ftl_replay_remap-fig13-w-2g_cache16k.tsv", row(30, "40"))
    bench(tmp_path, DEVICE, "ftl_replay-fig13-w-2g.tsv", row(6, "35"))
    # A wildcard holding "/" puts the file in a subfolder named after the rule.
    bench(tmp_path, DEVICE, "ftl_dop-scan/ext4_closed.tsv", row(12, "20"))
    return tmp_path


def rows_of(root: Path, scale="quick", **only):
    jobs = job_times.collect(job_times.stage_folders(root, scale, **only))
    return {row[0]: row for row in job_times.rule_rows(jobs)}


def test_the_rule_is_the_file_name_up_to_its_wildcards():
    assert job_times.rule_of("concurrent_appenders-ext4-writers-1-rep-1.tsv") == (
        "concurrent_appenders"
    )
    assert job_times.rule_of("ftl_replay_remap-fig13_cache16k.tsv") == "ftl_replay_remap"
    assert job_times.rule_of("ftl_dop-scan/ext4_closed.tsv") == "ftl_dop"
    assert job_times.rule_of("flashsim_diff.tsv") == "flashsim_diff"


def test_jobs_are_summed_per_rule_over_platform_and_device_stages(results):
    rows = rows_of(results)
    rule, jobs, total, longest, rss, path = rows["concurrent_appenders"]
    assert (jobs, total, longest, rss) == (2, 7.0, 5.0, 1200.5)
    assert path.endswith("concurrent_appenders-f2fs-writers-4-rep-2.tsv")
    assert rows["ftl_replay_remap"][1:3] == (1, 0.5)
    assert rows["ftl_replay"][1:3] == (1, 0.1)
    assert rows["ftl_dop"][1:3] == (1, 0.2)
    assert rows["ars_checks"][4] is None  # nothing measured: "-"
    assert list(rows)[0] == "concurrent_appenders"  # most job-minutes first


def test_a_repeated_benchmark_adds_its_runs(tmp_path):
    bench(tmp_path, DEVICE, "scan_tables-ext4.tsv", row(30), row(90, "2000"))
    assert rows_of(tmp_path)["scan_tables"][1:5] == (1, 2.0, 2.0, 2000.0)


def test_the_extended_format_names_its_rule(tmp_path):
    path = tmp_path / DEVICE / "benchmarks" / "custom-name.tsv"
    path.parent.mkdir(parents=True)
    extended = f"{HEADER.rstrip()}\tjobid\trule_name\twildcards\n"
    path.write_text(f"{extended}{row(60)}\t3\t('flashsim_diff',)\t{{}}\n")
    assert rows_of(tmp_path)["flashsim_diff"][1:3] == (1, 1.0)


def test_other_scales_and_filtered_stages_are_left_out(results):
    bench(results, "emulator-emmc/test", "scan_tables-ext4.tsv", row(600))
    assert "scan_tables" not in rows_of(results)
    assert set(rows_of(results, "test")) == {"scan_tables"}
    only_device = rows_of(results, device="emulator-emmc", platform="no-such-key")
    assert set(only_device) == {"ftl_replay", "ftl_replay_remap", "ftl_dop"}
    assert set(rows_of(results, device="no-such-device")) == {
        "concurrent_appenders",
        "ars_checks",
    }


def test_main_prints_rules_and_all_job_minutes(results, capsys):
    assert job_times.main(["quick", "--results", str(results)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split("\t") == [
        "rule",
        "jobs",
        "job_min",
        "longest_min",
        "max_rss_mb",
        "longest_job",
    ]
    assert lines[1].split("\t")[:5] == ["concurrent_appenders", "2", "7.0", "5.0", "1200"]
    assert lines[-1] == "# all 6 jobs of 2 stage folders: 8.8 job-min"


def test_a_damaged_file_is_named(results, capsys):
    broken = bench(results, DEVICE, "ftl_dop-broken.tsv")
    broken.write_text("wall\n12\n")
    assert job_times.main(["quick", "--results", str(results)]) == 1
    assert f"{broken}: no `s` column" in capsys.readouterr().err


def test_a_file_without_a_job_row_is_named(results, capsys):
    empty = bench(results, PLATFORM, "scan_run-ext4.tsv")
    assert job_times.main(["quick", "--results", str(results)]) == 1
    assert f"{empty}: no job's row" in capsys.readouterr().err


def test_no_benchmark_files_is_an_error(tmp_path, capsys):
    assert job_times.main(["quick", "--results", str(tmp_path)]) == 1
    assert "no benchmark files in benchmarks/ of" in capsys.readouterr().err


def test_a_run_log_points_to_the_new_usage(tmp_path, capsys):
    log = tmp_path / "2026-11-23T145017.snakemake.log"
    log.write_text("Building DAG of jobs...\n")
    assert job_times.main([str(log)]) == 2
    assert "python -m mobifrag.report.job_times <scale>" in capsys.readouterr().err


def test_a_written_table_reads_back_with_its_run(results, tmp_path):
    jobs = job_times.collect(job_times.stage_folders(results, "quick"))
    path = job_times.write_table(tmp_path / "t.tsv", jobs, {"commit": "abc", "scale": "quick"})
    times = job_times.read_table(path)
    assert times.meta == {"commit": "abc", "scale": "quick"}
    assert times.minutes["concurrent_appenders"] == 7.0 and times.jobs == len(jobs)
    assert times.total == pytest.approx(sum(job.seconds for job in jobs) / 60, abs=0.05)


@pytest.mark.parametrize(
    ("body", "says"),
    [
        ("rule\tjobs\n", ":2: expected the columns"),
        ("rule\tjobs\tjob_min\tlongest_min\tmax_rss_mb\nscan_run\t2\tnan\t1\t3\n", ":3: jobs or"),
        ("rule\tjobs\tjob_min\tlongest_min\tmax_rss_mb\nscan_run\tx\t1\t1\t3\n", ":3: jobs or"),
        ("rule\tjobs\tjob_min\tlongest_min\tmax_rss_mb\nscan_run\t2\t1\n", ":3: 3 fields"),
        ("# commit: abc\n", "no table"),
    ],
)
def test_a_damaged_table_is_refused_with_its_line(tmp_path, body, says):
    path = tmp_path / "t.tsv"
    path.write_text("# scale: quick\n" + body)
    with pytest.raises(job_times.BenchmarkError, match=says):
        job_times.read_table(path)
