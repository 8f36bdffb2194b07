"""Ext4 tuning tables (seed 004): fio and postmark outputs of a run → MiB/s rows,
normalized to the default configuration; configuration facts; mkfs options."""

import csv
import json

import pytest

from mobifrag import ext4tune
from mobifrag.ext4tune_table import (
    FIO_BENCHMARKS,
    TuningTableError,
    main,
    normalize,
    postmark_bytes,
    run_rows,
)

MIB = 1024 * 1024
POSTMARK = """PostMark v1.51 : 8/14/01
Time:
\t2 seconds total
Data:
\t{read} read ({read} per second)
\t{written} written ({written} per second)
"""
DUMPE2FS = """Inode size:\t          {inode}
Block count:              32768
Blocks per group:         1024
Flex block group size:    {flex}
"""


def fio_report(path, sections):
    """A fio JSON report: section → (op, per-thread MiB/s), with a drop job before each."""
    jobs = []
    for section, (op, rates) in sections.items():
        jobs.append({"jobname": f"drop-before-{section}", "read": {"bw_bytes": 0}})
        for rate in rates:
            other = "read" if op == "write" else "write"
            jobs.append(
                {"jobname": section, op: {"bw_bytes": int(rate * MIB)}, other: {"bw_bytes": 0}}
            )
    path.write_text("drop-before-x : Saving output of prerun\n" + json.dumps({"jobs": jobs}))


def make_run(root, scale=1.0, read="2.00 megabytes", written="512.00 kilobytes", wall=1e9):
    run = root
    (run / "fio").mkdir(parents=True)
    for stem, sections in (
        ("iozone", ("seq-write", "seq-read", "rand-write", "rand-read")),
        ("ffsb", ("large-write", "large-read", "small-write", "small-read")),
    ):
        rates = [10 * scale] if stem == "iozone" else [2 * scale, 4 * scale]
        fio_report(
            run / "fio" / f"{stem}.json",
            {s: ("write" if s.endswith("write") else "read", rates) for s in sections},
        )
    (run / "postmark.txt").write_text(POSTMARK.format(read=read, written=written))
    (run / "postmark-wall-ns.txt").write_text(f"{int(wall)}\n")
    (run / "mkfs.txt").write_text(DUMPE2FS.format(inode=128, flex=32))
    (run / "mount.txt").write_text("/dev/vda /run/fs ext4 rw,noatime,data=writeback 0 0\n")
    (run / "df.txt").write_text("Filesystem 1K-blocks Used Available Use% Mounted\n")
    with open(run / "df.txt", "a") as handle:
        handle.write("/dev/vda 126000 64000 62000 51% /run/fs\n")
    return run


def rows_by(rows, config):
    return {(r["benchmark"], r["workload"]): r for r in rows if r["config"] == config}


def test_fio_rates_are_per_thread_means_and_postmark_is_bytes_over_wall(tmp_path):
    rows = rows_by(run_rows("default", make_run(tmp_path / "d", wall=2e9)), "default")
    assert rows["IOzone", "seq-write"]["mib_s"] == pytest.approx(10)
    assert rows["IOzone", "rand-read"]["op"] == "read"
    assert rows["FFSB", "small-write"]["mib_s"] == pytest.approx(3)  # mean of 2 and 4
    assert rows["FFSB", "large-read"]["tool"] == "fio"
    assert rows["Postmark", "read"]["mib_s"] == pytest.approx(1.0)  # 2 MiB in 2 s
    assert rows["Postmark", "write"]["mib_s"] == pytest.approx(0.25)
    assert rows["Postmark", "write"]["tool"] == "postmark"
    assert len(rows) == 10


def test_postmark_units_are_powers_of_1024(tmp_path):
    report = tmp_path / "postmark.txt"
    report.write_text(POSTMARK.format(read="1.50 gigabytes", written="300 bytes"))
    assert postmark_bytes(report) == {"read": 1.5 * 1024 * MIB, "write": 300}


def test_normalized_to_the_default_configuration(tmp_path):
    rows = run_rows("default", make_run(tmp_path / "d"))
    rows += run_rows("tuned", make_run(tmp_path / "t", scale=1.25, wall=0.8e9))
    table = normalize(rows)
    default, tuned = rows_by(table, "default"), rows_by(table, "tuned")
    assert {r["normalized"] for r in default.values()} == {1.0}
    assert tuned["IOzone", "seq-read"]["normalized"] == pytest.approx(1.25)
    assert tuned["Postmark", "read"]["normalized"] == pytest.approx(1.25)


def test_no_default_run_is_an_error_naming_it(tmp_path):
    rows = run_rows("tuned", make_run(tmp_path / "t"))
    with pytest.raises(TuningTableError, match="no 'default' run to normalize to"):
        normalize(rows)


def test_missing_fio_report_is_named(tmp_path):
    run = make_run(tmp_path / "d")
    (run / "fio" / "ffsb.json").unlink()
    with pytest.raises(TuningTableError, match="ffsb.json: no fio report"):
        run_rows("default", run)


def test_missing_section_is_named(tmp_path):
    run = make_run(tmp_path / "d")
    fio_report(run / "fio" / "ffsb.json", {"large-write": ("write", [1])})
    with pytest.raises(TuningTableError, match="ffsb.json: no job large-read"):
        run_rows("default", run)


def test_fio_job_without_data_is_refused(tmp_path):
    run = make_run(tmp_path / "d")
    sections = {s: ("write" if "write" in s else "read", [5]) for s in FIO_BENCHMARKS["iozone"][1]}
    sections["seq-read"] = ("read", [0])
    fio_report(run / "fio" / "iozone.json", sections)
    with pytest.raises(TuningTableError, match="iozone.json: a seq-read job moved no read"):
        run_rows("default", run)


def test_postmark_without_data_section_is_named(tmp_path):
    run = make_run(tmp_path / "d")
    (run / "postmark.txt").write_text("PostMark v1.51\nError: out of space\n")
    with pytest.raises(TuningTableError, match="postmark.txt: no 'Data:' section"):
        run_rows("default", run)


def test_cli_writes_both_tables(tmp_path):
    default, tuned = make_run(tmp_path / "d"), make_run(tmp_path / "t", scale=2, wall=0.5e9)
    (tuned / "async-commit-probe.txt").write_text("journal_async_commit alone: refused\n")
    bench, configs = tmp_path / "bench.csv", tmp_path / "configs.csv"
    argv = ["--run", "default", str(default), "--run", "tuned", str(tuned)]
    assert main([*argv, "--table", str(bench), "--configs", str(configs)]) == 0
    rows = list(csv.DictReader(bench.open()))
    assert len(rows) == 20
    assert {r["normalized"] for r in rows if r["config"] == "tuned"} == {"2"}
    facts = {r["config"]: r for r in csv.DictReader(configs.open())}
    assert facts["tuned"]["flex_bg_size"] == "32"
    assert facts["tuned"]["block_groups"] == "32"
    assert facts["tuned"]["mount_options"] == "rw,noatime,data=writeback"
    assert facts["tuned"]["used_percent"] == "51"
    assert facts["tuned"]["async_commit_alone"] == "journal_async_commit alone: refused"


def test_cli_without_default_fails_with_a_message(tmp_path, capsys):
    run = make_run(tmp_path / "t")
    argv = ["--run", "tuned", str(run), "--table", str(tmp_path / "b.csv")]
    assert main([*argv, "--configs", str(tmp_path / "c.csv")]) == 1
    assert "no 'default' run" in capsys.readouterr().err
    assert not (tmp_path / "b.csv").exists()


@pytest.mark.parametrize(("disk_mib", "per_group"), [(128, 1024), (256, 2048), (4096, 32768)])
def test_every_disk_is_cut_into_the_papers_32_groups(disk_mib, per_group):
    assert ext4tune.blocks_per_group(disk_mib, 32) == per_group


def test_mkfs_options_join_base_group_size_and_configuration():
    line = ext4tune.mkfs_options("-b 4096 -m 0", 128, 32, "-G 32 -I 128")
    assert line == "-b 4096 -m 0 -g 1024 -G 32 -I 128"
    assert ext4tune.mkfs_options("-b 4096", 128, 32, "") == "-b 4096 -g 1024"


@pytest.mark.parametrize("disk_mib", [16, 8192])
def test_disk_without_32_usable_groups_is_refused(disk_mib):
    with pytest.raises(ext4tune.TuningError, match=f"a {disk_mib} MiB disk cannot have 32"):
        ext4tune.blocks_per_group(disk_mib, 32)


def test_configuration_may_not_override_the_geometry():
    with pytest.raises(ext4tune.TuningError, match="may not set -b or -g"):
        ext4tune.mkfs_options("-b 4096", 128, 32, "-g 4096")
