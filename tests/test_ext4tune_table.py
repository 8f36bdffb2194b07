"""Ext4 tuning tables (seed 004): fio and postmark outputs of a run and the block trace of
each benchmark run (blktrace's binary format, replayed through the real ftl-sim on the
eMMC profile by mobifrag.model.run_phases, as rule ftl_replay_run does) → modeled and
wall MiB/s rows, normalized to the default configuration; configuration facts; mkfs
options."""

import csv
import json

import pytest
from test_ftl_closed_loop import DEVICE, FTL_SIM, write_blktrace

from mobifrag.model import run_phases
from mobifrag.model.run_phases import RunModels
from mobifrag.tables.ext4tune import (
    FIO_BENCHMARKS,
    TuningTableError,
    main,
    normalize,
    postmark_bytes,
    run_rows,
)
from mobifrag.workloads import ext4tune

MIB = 1024 * 1024
needs_ftl_sim = pytest.mark.skipif(not FTL_SIM.is_file(), reason="ftl-sim is not built")
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


def fio_report(path, sections, io_bytes=MIB):
    """A fio JSON report: section → (op, per-thread MiB/s), with a drop job before each;
    every thread moved `io_bytes`."""
    jobs = []
    for section, (op, rates) in sections.items():
        jobs.append({"jobname": f"drop-before-{section}", "read": {"bw_bytes": 0}})
        for rate in rates:
            other = "read" if op == "write" else "write"
            done = {"bw_bytes": int(rate * MIB), "io_bytes": io_bytes}
            jobs.append({"jobname": section, op: done, other: {"bw_bytes": 0, "io_bytes": 0}})
    path.write_text("drop-before-x : Saving output of prerun\n" + json.dumps({"jobs": jobs}))


def run_trace(op, pieces, metadata=0, flushes=0):
    """A benchmark run's block requests: its 1 MiB per thread in `pieces` requests (two
    threads' worth), plus `metadata` 4 KiB writes and `flushes` flushes."""
    size = 2 * 2048 // pieces
    requests = [(i * 10, "W" if op == "write" else "R", i * size, size) for i in range(pieces)]
    requests += [(10**6 + i, "W", (1 << 20) + i * 8, 8) for i in range(metadata)]
    requests += [(2 * 10**6 + i, "F", 0, 0) for i in range(flushes)]
    return requests


def make_run(
    root, scale=1.0, read="2.00 megabytes", written="512.00 kilobytes", wall=1e9, metadata=0
):
    """A run whose fio rates scale with `scale`; every trace carries `metadata` extra
    4 KiB writes (what a configuration's metadata traffic adds on the device)."""
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
        for section in sections:
            op = "write" if section.endswith("write") else "read"
            requests = run_trace(op, 64, metadata, flushes=2)
            write_blktrace(run / "blktrace" / f"{stem}-{section}", requests)
    postmark = run_trace("write", 32, metadata, flushes=4) + [(3 * 10**6, "R", 1 << 22, 64)]
    write_blktrace(run / "blktrace" / "postmark", postmark)
    (run / "postmark.txt").write_text(POSTMARK.format(read=read, written=written))
    (run / "postmark-wall-ns.txt").write_text(f"{int(wall)}\n")
    (run / "mkfs.txt").write_text(DUMPE2FS.format(inode=128, flex=32))
    (run / "mount.txt").write_text("/dev/vda /run/fs ext4 rw,noatime,data=writeback 0 0\n")
    (run / "df.txt").write_text("Filesystem 1K-blocks Used Available Use% Mounted\n")
    with open(run / "df.txt", "a") as handle:
        handle.write("/dev/vda 126000 64000 62000 51% /run/fs\n")
    return run


def index(run, pattern="{report}-{job}"):
    """A run's phases replayed as rule ftl_replay_run does (RUN_PHASE_DEPTHS)."""
    out = run / "model" / "phases.json"
    sim = ["--device", str(DEVICE), "--ftl-sim", str(FTL_SIM)]
    assert run_phases.main([str(run), *sim, "--fio", pattern, "-o", str(out)]) == 0
    return out


def modeled(run):
    """(run, its phase models)."""
    return run, RunModels([index(run)])


def rows_by(rows, config):
    return {(r["benchmark"], r["workload"]): r for r in rows if r["config"] == config}


@needs_ftl_sim
def test_fio_rates_are_per_thread_means_and_postmark_is_bytes_over_wall(tmp_path):
    rows = rows_by(run_rows("default", *modeled(make_run(tmp_path / "d", wall=2e9))), "default")
    assert rows["IOzone", "seq-write"]["wall_mib_s"] == pytest.approx(10)
    assert rows["IOzone", "rand-read"]["op"] == "read"
    assert rows["FFSB", "small-write"]["wall_mib_s"] == pytest.approx(3)  # mean of 2 and 4
    assert rows["FFSB", "large-read"]["tool"] == "fio"
    assert rows["Postmark", "read"]["wall_mib_s"] == pytest.approx(1.0)  # 2 MiB in 2 s
    assert rows["Postmark", "write"]["wall_mib_s"] == pytest.approx(0.25)
    assert rows["Postmark", "write"]["tool"] == "postmark"
    assert len(rows) == 10


@needs_ftl_sim
def test_modeled_rates_are_benchmark_bytes_per_thread_over_modeled_time(tmp_path):
    rows = rows_by(run_rows("default", *modeled(make_run(tmp_path / "d"))), "default")
    iozone, ffsb = rows["IOzone", "seq-write"], rows["FFSB", "large-write"]
    assert (iozone["threads"], ffsb["threads"]) == (1, 2)
    assert iozone["workload_bytes"] == str(MIB) and ffsb["workload_bytes"] == str(2 * MIB)
    assert iozone["requests"] == "64" and iozone["flushes"] == "2"
    assert iozone["write_bytes"] == str(2 * MIB) and iozone["read_bytes"] == "0"
    seconds = float(iozone["modeled_ms"]) / 1000
    assert iozone["modeled_mib_s"] == pytest.approx(1 / seconds, rel=1e-5)
    assert iozone["trace_mib_s"] == pytest.approx(2 / seconds, rel=1e-5)
    # FFSB's threads ran side by side: per thread, each moved 1 MiB in the modeled time
    assert ffsb["modeled_mib_s"] == pytest.approx(1 / (float(ffsb["modeled_ms"]) / 1000))
    # Postmark: its own bytes read and written, over one run's modeled time
    read, write = rows["Postmark", "read"], rows["Postmark", "write"]
    assert read["modeled_ms"] == write["modeled_ms"] and read["requests"] == "33"
    assert read["modeled_mib_s"] == pytest.approx(4 * write["modeled_mib_s"])
    assert read["trace_mib_s"] < write["trace_mib_s"]  # the device read 32 KiB, wrote 2 MiB


def test_postmark_units_are_powers_of_1024(tmp_path):
    report = tmp_path / "postmark.txt"
    report.write_text(POSTMARK.format(read="1.50 gigabytes", written="300 bytes"))
    assert postmark_bytes(report) == {"read": 1.5 * 1024 * MIB, "write": 300}


@needs_ftl_sim
def test_normalized_to_the_default_configuration(tmp_path):
    rows = run_rows("default", *modeled(make_run(tmp_path / "d", metadata=64)))
    rows += run_rows("tuned", *modeled(make_run(tmp_path / "t", scale=1.25, wall=0.8e9)))
    table = normalize(rows)
    default, tuned = rows_by(table, "default"), rows_by(table, "tuned")
    assert {r["wall_normalized"] for r in default.values()} == {1.0}
    assert {r["modeled_normalized"] for r in default.values()} == {1.0}
    assert tuned["IOzone", "seq-read"]["wall_normalized"] == pytest.approx(1.25)
    assert tuned["Postmark", "read"]["wall_normalized"] == pytest.approx(1.25)
    # on the device model the tuned runs lack the default's 64 metadata writes: faster
    for key, row in tuned.items():
        assert row["modeled_normalized"] > 1, key
        assert int(row["write_bytes"]) < int(default[key]["write_bytes"]), key


@needs_ftl_sim
def test_no_default_run_is_an_error_naming_it(tmp_path):
    rows = run_rows("tuned", *modeled(make_run(tmp_path / "t")))
    with pytest.raises(TuningTableError, match="no 'default' run to normalize to"):
        normalize(rows)


@needs_ftl_sim
def test_missing_fio_report_is_named(tmp_path):
    run = make_run(tmp_path / "d")
    (run / "fio" / "ffsb.json").unlink()
    with pytest.raises(TuningTableError, match="ffsb.json: no fio report"):
        run_rows("default", *modeled(run))


@needs_ftl_sim
def test_missing_section_is_named(tmp_path):
    run = make_run(tmp_path / "d")
    fio_report(run / "fio" / "ffsb.json", {"large-write": ("write", [1])})
    with pytest.raises(TuningTableError, match="ffsb.json: no job large-read"):
        run_rows("default", *modeled(run))


@needs_ftl_sim
def test_missing_trace_of_a_run_is_named(tmp_path):
    run = make_run(tmp_path / "d")
    for path in (run / "blktrace" / "ffsb-small-read").iterdir():
        path.unlink()
    (run / "blktrace" / "ffsb-small-read").rmdir()
    with pytest.raises(TuningTableError, match="no phase ffsb-small-read"):
        run_rows("default", *modeled(run))
    write_blktrace(run / "blktrace" / "ffsb-small-read", [])
    with pytest.raises(TuningTableError, match="ffsb-small-read has no block requests"):
        run_rows("default", *modeled(run))


@needs_ftl_sim
def test_a_phase_modeled_at_another_depth_than_its_threads_is_refused(tmp_path):
    run = make_run(tmp_path / "d")
    # phases named by report alone: the phase of a two-thread FFSB section is unnamed, so
    # modeled on one thread
    models = RunModels([index(run, pattern="{report}")])
    match = "ffsb.json: job large-write: 2 threads, modeled at queue depth 1"
    with pytest.raises(TuningTableError, match=match):
        run_rows("default", run, models)


@needs_ftl_sim
def test_fio_job_without_data_is_refused(tmp_path):
    run = make_run(tmp_path / "d")
    sections = {s: ("write" if "write" in s else "read", [5]) for s in FIO_BENCHMARKS["iozone"][1]}
    sections["seq-read"] = ("read", [0])
    fio_report(run / "fio" / "iozone.json", sections)
    with pytest.raises(TuningTableError, match="iozone.json: a seq-read job moved no read"):
        run_rows("default", *modeled(run))


@needs_ftl_sim
def test_postmark_without_data_section_is_named(tmp_path):
    run = make_run(tmp_path / "d")
    (run / "postmark.txt").write_text("PostMark v1.51\nError: out of space\n")
    with pytest.raises(TuningTableError, match="postmark.txt: no 'Data:' section"):
        run_rows("default", *modeled(run))


@needs_ftl_sim
def test_cli_writes_both_tables(tmp_path):
    default, tuned = make_run(tmp_path / "d"), make_run(tmp_path / "t", scale=2, wall=0.5e9)
    (tuned / "async-commit-probe.txt").write_text("journal_async_commit alone: refused\n")
    bench, configs = tmp_path / "bench.csv", tmp_path / "configs.csv"
    argv = ["--run", "default", str(default), "--run", "tuned", str(tuned)]
    argv += ["--model", str(index(default)), "--model", str(index(tuned))]
    assert main([*argv, "--table", str(bench), "--configs", str(configs)]) == 0
    rows = list(csv.DictReader(bench.open()))
    assert len(rows) == 20
    assert {r["wall_normalized"] for r in rows if r["config"] == "tuned"} == {"2"}
    # the same traces: the same modeled rates
    assert {r["modeled_normalized"] for r in rows if r["config"] == "tuned"} == {"1"}
    facts = {r["config"]: r for r in csv.DictReader(configs.open())}
    assert facts["tuned"]["flex_bg_size"] == "32"
    assert facts["tuned"]["block_groups"] == "32"
    assert facts["tuned"]["mount_options"] == "rw,noatime,data=writeback"
    assert facts["tuned"]["used_percent"] == "51"
    assert facts["tuned"]["async_commit_alone"] == "journal_async_commit alone: refused"


@needs_ftl_sim
def test_cli_without_default_fails_with_a_message(tmp_path, capsys):
    run = make_run(tmp_path / "t")
    argv = ["--run", "tuned", str(run), "--table", str(tmp_path / "b.csv")]
    argv += ["--model", str(index(run))]
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
