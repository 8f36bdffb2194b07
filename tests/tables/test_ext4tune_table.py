"""Ext4 tuning tables (seed 004): IOzone, filebench and postmark outputs of a run (IOzone's
reports, filebench's summary and workload parsed, with errors naming file and line) and
the block trace of each benchmark run (blktrace's binary format, replayed through the
real ftl-sim on the eMMC profile by mobifrag.model.run_phases, as rule ftl_replay_run
does) → modeled and wall MiB/s rows, normalized to the default configuration;
configuration facts; mkfs options."""

import csv

import pytest

from block_traces import DEVICE, write_blktrace
from conftest import FTL_SIM
from mobifrag.measure.iozone import IozoneReportError, iozone_run
from mobifrag.model import run_phases
from mobifrag.model.run_phases import RunModels
from mobifrag.tables.ext4tune import (
    TuningTableError,
    auto_da_alloc_rows,
    filebench_summary,
    filebench_workload,
    main,
    normalize,
    postmark_bytes,
    run_rows,
)
from mobifrag.workloads import ext4tune
from mobifrag.workloads.ext4tune import FILEBENCH_MIXES, IOZONE_TESTS

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


# IOzone's report of one throughput-mode test as it prints it (the header's credits cut)
IOZONE_TEXT = """\tIozone: Performance Test of File I/O
\t        Version $Revision: 3.489 $
\tRun began: Sat Nov 28 05:47:48 2026

\tNo retest option selected
\tSetting no_unlink
\tInclude fsync in write timing
\tCommand line used: iozone -t {processes} {options} -s 1m -e -w -+n -F /run/fs/bench/f
\tOutput is in kBytes/sec
\tTime Resolution = 0.000001 seconds.
\tThroughput test with {processes} process
\tEach process writes a {file_kib} kByte file in {record} kByte records

\tChildren see throughput for  {processes} {label} \t= {rate:10.2f} kB/sec
\tParent sees throughput for  {processes} {label} \t= {parent:10.2f} kB/sec
\tMin throughput per process \t\t\t= {each:10.2f} kB/sec
\tMax throughput per process \t\t\t= {each:10.2f} kB/sec
\tAvg throughput per process \t\t\t= {each:10.2f} kB/sec
\tMin xfer \t\t\t\t\t= {xfer:10.2f} kB



iozone test complete.
"""
# each test's options and IOzone's name for it (jobs/ext4tune-bench.sh)
IOZONE_TEST_RUNS = {
    "seq-write": ("-i 0 -r 256k", "initial writers", 256),
    "seq-read": ("-i 1 -r 256k", "readers", 256),
    "rand-write": ("-i 8 -+p 0 -r 4k", "mixed workload", 4),
    "rand-read": ("-i 8 -+p 100 -r 4k", "mixed workload", 4),
}


def write_iozone(run, test, mib_s=10.0, processes=1, xfer_kib=1024):
    """iozone/<test>.txt: `processes` each moving `xfer_kib` at `mib_s` per process."""
    options, label, record = IOZONE_TEST_RUNS[test]
    rate = mib_s * 1024 * processes
    text = IOZONE_TEXT.format(
        processes=processes, options=options, label=label, record=record, file_kib=xfer_kib,
        rate=rate, parent=0.9 * rate, each=rate / processes, xfer=xfer_kib,
    )  # fmt: skip
    (run / "iozone").mkdir(parents=True, exist_ok=True)
    (run / "iozone" / f"{test}.txt").write_text(text)
    return run / "iozone" / f"{test}.txt"


# filebench's output as its summary prints it: flowop → (ops, ms/op)
FILEBENCH_TEXT = """Filebench Version 1.5-alpha3
0.000: Allocated 177MB of shared memory
0.010: {fileset} populated: {files} files, avg. dir. width = {files}, 0 leafdirs
1.030: Running...
4.040: Run took 3 seconds...
4.040: Per-Operation Breakdown
{breakdown}
4.040: IO Summary:    32 ops 10.621 ops/s 0/3 rd/wr   2.7mb/s 1.102ms/op
4.040: Shutting down processes
"""
FILEBENCH_WORKLOAD = """# a workload as the job ran it
set mode quit alldone
define fileset name={fileset},path=/run/fs/fb,size={size},entries={files},prealloc=0
define process name=ffsb,instances=1
{{
  thread name=starter,memsize=4k,instances=1
  {{
    flowop delay name=settle1,value=1
  }}
  thread name={role},memsize=64k,instances={threads}
  {{
    flowop semblock name=gate1,value=1,highwater={files}
  }}
}}
run 3600
"""


def filebench_breakdown(op, files, ms=(2.0, 0.5, 0.25)):
    """The Per-Operation Breakdown of one mix: `files` whole-file `op`s taking ms[0] each,
    the open/create and close taking ms[1], a fsync after each write ms[2]; the start
    gate's wait and the starter's second are not working time."""
    first = "create1" if op == "write" else "open1"
    lines = [("done1", files, 0.0), ("close1", files, ms[1])]
    if op == "write":
        lines.append(("fsync1", files, ms[2]))
    lines += [(f"{op}1", files, ms[0]), (first, files, ms[1]), ("gate1", files, 125.0)]
    lines += [("started1", 1, 0.0), ("open-gate1", 1, 0.3), ("settle1", 1, 1000.1)]
    return "\n".join(
        f"{name:<20} {ops}ops {ops / 3:8.0f}ops/s   0.0mb/s {ms_op:8.3f}ms/op [0.000ms - 1.000ms]"
        for name, ops, ms_op in lines
    )


def write_filebench(run, mix, threads=2, files=4, size="256k", **breakdown):
    """A mix's filebench/<mix>.f (as run) and filebench/<mix>.txt (its output)."""
    op = "write" if mix.endswith("write") else "read"
    folder = run / "filebench"
    folder.mkdir(parents=True, exist_ok=True)
    fileset = "ffsblarge" if mix.startswith("large") else "ffsbsmall"
    role = "writer" if op == "write" else "reader"
    (folder / f"{mix}.f").write_text(
        FILEBENCH_WORKLOAD.format(
            fileset=fileset, size=size, files=files, role=role, threads=threads
        )
    )
    text = FILEBENCH_TEXT.format(
        fileset=fileset, files=files, breakdown=filebench_breakdown(op, files, **breakdown)
    )
    (folder / f"{mix}.txt").write_text(text)


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
    """A run whose IOzone and filebench rates scale with `scale`; every trace carries
    `metadata` extra 4 KiB writes (what a configuration's metadata traffic adds on the
    device)."""
    run = root
    run.mkdir(parents=True)
    # IOzone: one process moving 1 MiB per test at 10 MiB/s × scale
    for test in IOZONE_TESTS:
        op = "write" if test.endswith("write") else "read"
        write_iozone(run, test, mib_s=10 * scale)
        write_blktrace(run / "blktrace" / f"iozone-{test}", run_trace(op, 64, metadata, 2))
    # FFSB in filebench: two threads, four 256 KiB files (1 MiB), its working time
    # shrinking with `scale`
    for mix in FILEBENCH_MIXES:
        op = "write" if mix.endswith("write") else "read"
        write_filebench(run, mix, ms=(2.0 / scale, 0.5 / scale, 0.25 / scale))
        write_blktrace(run / "blktrace" / f"filebench-{mix}", run_trace(op, 64, metadata, 2))
    postmark = run_trace("write", 32, metadata, flushes=4) + [(3 * 10**6, "R", 1 << 22, 64)]
    write_blktrace(run / "blktrace" / "postmark", postmark)
    (run / "postmark.txt").write_text(POSTMARK.format(read=read, written=written))
    (run / "postmark-wall-ns.txt").write_text(f"{int(wall)}\n")
    (run / "mkfs.txt").write_text(DUMPE2FS.format(inode=128, flex=32))
    (run / "mount.txt").write_text("/dev/vda /run/fs ext4 rw,noatime,data=writeback 0 0\n")
    (run / "df.txt").write_text("Filesystem 1K-blocks Used Available Use% Mounted\n")
    with open(run / "df.txt", "a") as handle:
        handle.write("/dev/vda 126000 64000 62000 51% /run/fs\n")
    (run / "auto-da-alloc.tsv").write_text("iozone-seq-write\t0\npostmark\t7\n")
    return run


def index(run, iozone_processes=1, filebench_threads=2):
    """A run's phases replayed as rule ftl_replay_run does (RUN_PHASE_DEPTHS: IOzone's
    at one process, filebench's at the config's thread count)."""
    out = run / "model" / "phases.json"
    sim = ["--device", str(DEVICE), "--ftl-sim", str(FTL_SIM)]
    depths = []
    for test in IOZONE_TESTS:
        depths += ["--depth", f"iozone-{test}", str(iozone_processes)]
    if filebench_threads:
        for mix in FILEBENCH_MIXES:
            depths += ["--depth", f"filebench-{mix}", str(filebench_threads)]
    argv = [str(run), *sim, *depths, "-o", str(out)]
    assert run_phases.main(argv) == 0
    return out


def modeled(run):
    """(run, its phase models)."""
    return run, RunModels([index(run)])


def rows_by(rows, config):
    return {(r["benchmark"], r["workload"]): r for r in rows if r["config"] == config}


# one mix's work: 4 files of 256 KiB by 2 threads; working time per file: the whole-file
# operation 2 ms, open or create 0.5 ms, close 0.5 ms, a write's fsync 0.25 ms
FILEBENCH_BYTES = 4 * 256 * 1024
WRITE_BUSY_S, READ_BUSY_S = 4 * (2 + 0.5 + 0.5 + 0.25) / 1000, 4 * (2 + 0.5 + 0.5) / 1000


@needs_ftl_sim
def test_iozone_rates_are_its_own_and_postmark_is_bytes_over_wall(tmp_path):
    rows = rows_by(
        run_rows("default", "1", *modeled(make_run(tmp_path / "d", wall=2e9))), "default"
    )
    # IOzone's "Children see throughput", 10240 kB/sec
    assert rows["IOzone", "seq-write"]["wall_mib_s"] == pytest.approx(10)
    assert rows["IOzone", "rand-read"]["op"] == "read"
    assert {r["tool"] for k, r in rows.items() if k[0] == "IOzone"} == {"iozone"}
    # filebench: its bytes per thread over each thread's share of the working time
    small_write = rows["FFSB", "small-write"]
    assert small_write["wall_mib_s"] == pytest.approx(FILEBENCH_BYTES / MIB / WRITE_BUSY_S)
    assert rows["FFSB", "large-read"]["wall_mib_s"] == pytest.approx(1 / READ_BUSY_S)
    assert rows["FFSB", "large-read"]["tool"] == "filebench"
    assert {r["op"] for k, r in rows.items() if k[0] == "FFSB" and "read" in k[1]} == {"read"}
    assert rows["Postmark", "read"]["wall_mib_s"] == pytest.approx(1.0)  # 2 MiB in 2 s
    assert rows["Postmark", "write"]["wall_mib_s"] == pytest.approx(0.25)
    assert rows["Postmark", "write"]["tool"] == "postmark"
    assert len(rows) == 10


@needs_ftl_sim
def test_modeled_rates_are_benchmark_bytes_per_thread_over_modeled_time(tmp_path):
    rows = rows_by(run_rows("default", "1", *modeled(make_run(tmp_path / "d"))), "default")
    iozone, ffsb = rows["IOzone", "seq-write"], rows["FFSB", "large-write"]
    assert (iozone["threads"], ffsb["threads"]) == (1, 2)
    assert iozone["workload_bytes"] == str(MIB) and ffsb["workload_bytes"] == str(MIB)
    assert iozone["requests"] == "64" and iozone["flushes"] == "2"
    assert iozone["write_bytes"] == str(2 * MIB) and iozone["read_bytes"] == "0"
    seconds = float(iozone["modeled_ms"]) / 1000
    assert iozone["modeled_mib_s"] == pytest.approx(1 / seconds, rel=1e-5)
    assert iozone["trace_mib_s"] == pytest.approx(2 / seconds, rel=1e-5)
    # FFSB's threads ran side by side: per thread, each moved 0.5 MiB in the modeled time
    assert ffsb["modeled_mib_s"] == pytest.approx(0.5 / (float(ffsb["modeled_ms"]) / 1000))
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
    rows = run_rows("default", "1", *modeled(make_run(tmp_path / "d", metadata=64)))
    rows += run_rows("tuned", "1", *modeled(make_run(tmp_path / "t", scale=1.25, wall=0.8e9)))
    table = normalize(rows)
    default, tuned = rows_by(table, "default"), rows_by(table, "tuned")
    assert {r["wall_normalized"] for r in default.values()} == {1.0}
    assert {r["modeled_normalized"] for r in default.values()} == {1.0}
    assert tuned["IOzone", "seq-read"]["wall_normalized"] == pytest.approx(1.25)
    assert tuned["FFSB", "small-read"]["wall_normalized"] == pytest.approx(1.25)
    assert tuned["Postmark", "read"]["wall_normalized"] == pytest.approx(1.25)
    # on the device model the tuned runs lack the default's 64 metadata writes: faster
    for key, row in tuned.items():
        assert row["modeled_normalized"] > 1, key
        assert int(row["write_bytes"]) < int(default[key]["write_bytes"]), key


@needs_ftl_sim
def test_async_commit_is_compared_with_the_writeback_configuration(tmp_path):
    rows = run_rows("default", "1", *modeled(make_run(tmp_path / "d")))
    rows += run_rows("writeback", "1", *modeled(make_run(tmp_path / "w", wall=0.8e9)))
    rows += run_rows("async-commit", "1", *modeled(make_run(tmp_path / "a", wall=0.5e9)))
    table = normalize(rows)
    commit, default = rows_by(table, "async-commit"), rows_by(table, "default")
    assert commit["Postmark", "write"]["wall_vs_writeback"] == pytest.approx(1.6)
    assert commit["Postmark", "write"]["wall_normalized"] == pytest.approx(2.0)
    assert default["Postmark", "write"]["wall_vs_writeback"] == pytest.approx(0.8)
    without = normalize([r for r in rows if r["config"] != "writeback"])
    assert {r["modeled_vs_writeback"] for r in without} == {"NA"}


@needs_ftl_sim
def test_no_default_run_is_an_error_naming_it(tmp_path):
    rows = run_rows("tuned", "1", *modeled(make_run(tmp_path / "t")))
    with pytest.raises(TuningTableError, match="no 'default' run to normalize to"):
        normalize(rows)


@needs_ftl_sim
def test_missing_iozone_report_is_named(tmp_path):
    run = make_run(tmp_path / "d")
    (run / "iozone" / "seq-read.txt").unlink()
    with pytest.raises(TuningTableError, match="seq-read.txt: no IOzone report"):
        run_rows("default", "1", *modeled(run))


@needs_ftl_sim
def test_unfinished_iozone_report_is_named(tmp_path):
    # IOzone killed before its results: the report has its header and nothing else
    run = make_run(tmp_path / "d")
    report = run / "iozone" / "rand-write.txt"
    report.write_text(report.read_text().split("Children see")[0])
    match = "rand-write.txt: not a whole IOzone throughput report .*'Children see throughput'"
    with pytest.raises(TuningTableError, match=match):
        run_rows("default", "1", *modeled(run))


@needs_ftl_sim
def test_missing_trace_of_a_run_is_named(tmp_path):
    run = make_run(tmp_path / "d")
    for path in (run / "blktrace" / "filebench-small-read").iterdir():
        path.unlink()
    (run / "blktrace" / "filebench-small-read").rmdir()
    order = run / "blktrace" / "order"
    kept = [p for p in order.read_text().splitlines() if p != "filebench-small-read"]
    order.write_text("".join(f"{p}\n" for p in kept))
    with pytest.raises(TuningTableError, match="no phase filebench-small-read"):
        run_rows("default", "1", *modeled(run))
    write_blktrace(run / "blktrace" / "filebench-small-read", [])
    with pytest.raises(TuningTableError, match="filebench-small-read has no block requests"):
        run_rows("default", "1", *modeled(run))


@needs_ftl_sim
def test_a_phase_modeled_at_another_depth_than_its_processes_is_refused(tmp_path):
    run = make_run(tmp_path / "d")
    # IOzone ran two processes, its phases were modeled at the one the rule gives them
    for test in IOZONE_TESTS:
        write_iozone(run, test, processes=2)
    models = RunModels([index(run)])
    match = "seq-write.txt: 2 processes, modeled at queue depth 1"
    with pytest.raises(TuningTableError, match=match):
        run_rows("default", "1", run, models)


@needs_ftl_sim
def test_a_filebench_mix_modeled_without_its_thread_count_is_refused(tmp_path):
    run = make_run(tmp_path / "d")
    # no --depth for the filebench phases: each modeled on one thread, its workload ran two
    models = RunModels([index(run, filebench_threads=0)])
    match = "large-write.f: 2 threads, modeled at queue depth 1"
    with pytest.raises(TuningTableError, match=match):
        run_rows("default", "1", run, models)


@needs_ftl_sim
def test_iozone_test_without_data_is_refused(tmp_path):
    run = make_run(tmp_path / "d")
    write_iozone(run, "seq-read", xfer_kib=0)
    with pytest.raises(TuningTableError, match="seq-read.txt: IOzone's processes moved no data"):
        run_rows("default", "1", *modeled(run))


def test_iozone_report_gives_its_test_processes_sizes_and_rate(tmp_path):
    done = iozone_run(write_iozone(tmp_path, "rand-write", mib_s=2.5, xfer_kib=32768))
    assert (done.test, done.processes) == ("mixed workload", 1)
    assert (done.file_kib, done.record_kib, done.min_xfer_kib) == (32768, 4, 32768)
    assert done.children_kib_s == 2560


@pytest.mark.parametrize(
    ("replace", "match"),
    [
        # a result line IOzone did not write so (a rate in ops/sec, -O)
        (("kB/sec\n\tParent", "ops/sec\n\tParent"),
         r"seq-read.txt:14: a malformed 'Children see throughput' line"),
        (("\tMin xfer \t\t\t\t\t=", "\tMin xfer = lots"),
         r"seq-read.txt:19: a malformed 'Min xfer' line"),
        # IOzone's own complaint
        (("\tThroughput test", "\tCan not open temp file: /run/fs/bench/f\n\tThroughput test"),
         r"seq-read.txt:11: IOzone reports a failure: Can not open temp file"),
        # the children's count differs from the processes'
        (("for  1 readers", "for  2 readers"), "seq-read.txt: 1 processes, throughput given for 2"),
        (("iozone test complete.", ""), "seq-read.txt: not a whole .*'iozone test complete.'"),
    ],
)  # fmt: skip
def test_iozone_report_errors_name_the_file_and_line(tmp_path, replace, match):
    report = write_iozone(tmp_path, "seq-read")
    report.write_text(report.read_text().replace(*replace))
    with pytest.raises(IozoneReportError, match=match):
        iozone_run(report)


@needs_ftl_sim
def test_postmark_without_data_section_is_named(tmp_path):
    run = make_run(tmp_path / "d")
    (run / "postmark.txt").write_text("PostMark v1.51\nError: out of space\n")
    with pytest.raises(TuningTableError, match="postmark.txt: no 'Data:' section"):
        run_rows("default", "1", *modeled(run))


@needs_ftl_sim
def test_cli_writes_both_tables(tmp_path):
    default, tuned = make_run(tmp_path / "d"), make_run(tmp_path / "t", scale=2, wall=0.5e9)
    (tuned / "async-commit-probe.txt").write_text("journal_async_commit alone: refused\n")
    bench, configs = tmp_path / "bench.csv", tmp_path / "configs.csv"
    argv = ["--run", "default", "1", str(default), "--run", "tuned", "1", str(tuned)]
    argv += ["--model", str(index(default)), "--model", str(index(tuned))]
    calls = tmp_path / "auto-da-alloc.csv"
    argv += ["--auto-da-alloc", str(calls)]
    assert main([*argv, "--table", str(bench), "--configs", str(configs)]) == 0
    assert [(r["config"], r["phase"], r["calls"]) for r in csv.DictReader(calls.open())] == [
        ("default", "iozone-seq-write", "0"),
        ("default", "postmark", "7"),
        ("tuned", "iozone-seq-write", "0"),
        ("tuned", "postmark", "7"),
    ]
    rows = list(csv.DictReader(bench.open()))
    assert len(rows) == 20
    assert {r["tool"] for r in rows if r["benchmark"] == "FFSB"} == {"filebench"}
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
    argv = ["--run", "tuned", "1", str(run), "--table", str(tmp_path / "b.csv")]
    argv += ["--model", str(index(run)), "--auto-da-alloc", str(tmp_path / "a.csv")]
    assert main([*argv, "--configs", str(tmp_path / "c.csv")]) == 1
    assert "no 'default' run" in capsys.readouterr().err
    assert not (tmp_path / "b.csv").exists()


def test_filebench_summary_gives_each_flowops_count_and_latency(tmp_path):
    write_filebench(tmp_path, "small-write", threads=8, files=64, size="40k")
    flowops = filebench_summary(tmp_path / "filebench" / "small-write.txt")
    assert flowops["write1"] == (64, 2.0) and flowops["fsync1"] == (64, 0.25)
    assert flowops["settle1"] == (1, 1000.1)
    workload = filebench_workload(tmp_path / "filebench" / "small-write.f")
    assert workload == {"file_bytes": 40 * 1024, "files": 64, "threads": 8}


@pytest.mark.parametrize(
    ("size", "expected"), [("40k", 40960), ("25m", 25 * MIB), ("1g", 1024 * MIB), ("512", 512)]
)
def test_filebench_sizes_are_powers_of_1024(tmp_path, size, expected):
    write_filebench(tmp_path, "large-read", size=size)
    assert filebench_workload(tmp_path / "filebench" / "large-read.f")["file_bytes"] == expected


@pytest.mark.parametrize(
    ("replace", "match"),
    [
        # a run that filebench itself says failed: the line that says so
        (("IO Summary:", "NO VALID RESULTS! Filebench run terminated prematurely\nIO Summary:"),
         r"large-write.txt:16: filebench reports a failure: .*NO VALID RESULTS"),
        # a breakdown line that is not a flowop's
        (("open-gate1 ", "open-gate1 garbled"), r"large-write.txt:\d+: not a flowop line"),
        # no breakdown (filebench killed before its summary)
        (("4.040: Per-Operation Breakdown", "4.040: Shutting"),
         "large-write.txt: no 'Per-Operation Breakdown' and 'IO Summary'"),
    ],
)  # fmt: skip
def test_filebench_output_errors_name_the_file_and_line(tmp_path, replace, match):
    write_filebench(tmp_path, "large-write")
    report = tmp_path / "filebench" / "large-write.txt"
    report.write_text(report.read_text().replace(*replace))
    with pytest.raises(TuningTableError, match=match):
        filebench_summary(report)


@pytest.mark.parametrize(
    ("replace", "match"),
    [
        (("size=256k", "size=lots"), r"large-read.f:3: cannot read size 'lots'"),
        (("entries=4,", ""), r"large-read.f:3: cannot read 'entries'"),
        (("thread name=reader", "thread name=other"), "large-read.f: no fileset .*threads"),
    ],
)
def test_filebench_workload_errors_name_the_file_and_line(tmp_path, replace, match):
    write_filebench(tmp_path, "large-read")
    workload = tmp_path / "filebench" / "large-read.f"
    workload.write_text(workload.read_text().replace(*replace))
    with pytest.raises(TuningTableError, match=match):
        filebench_workload(workload)


@needs_ftl_sim
def test_a_filebench_mix_that_missed_files_is_refused(tmp_path):
    # filebench counted 3 whole-file reads of a fileset of 4 (e.g. its statistics were
    # cleared after a thread had begun): the bytes would be wrong, so no row
    run = make_run(tmp_path / "d")
    report = run / "filebench" / "small-read.txt"
    report.write_text(report.read_text().replace("read1                4ops", "read1   3ops"))
    match = "small-read.txt: read1 counted 3 whole-file reads, the workload's fileset has 4"
    with pytest.raises(TuningTableError, match=match):
        run_rows("default", "1", *modeled(run))


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


@needs_ftl_sim
def test_each_repetition_normalizes_to_its_own_default(tmp_path):
    rows = run_rows("default", "1", *modeled(make_run(tmp_path / "d1", wall=1e9)))
    rows += run_rows("default", "2", *modeled(make_run(tmp_path / "d2", wall=2e9)))
    rows += run_rows("tuned", "1", *modeled(make_run(tmp_path / "t1", wall=1e9)))
    rows += run_rows("tuned", "2", *modeled(make_run(tmp_path / "t2", wall=1e9)))
    table = normalize(rows)
    walls = {(r["config"], r["rep"]) for r in table}
    assert walls == {("default", "1"), ("default", "2"), ("tuned", "1"), ("tuned", "2")}
    tuned = {r["rep"]: r["wall_normalized"] for r in table if r["config"] == "tuned"}
    # repetition 2's default took twice as long: its tuned run is twice as fast
    assert tuned["1"] == pytest.approx(1) and tuned["2"] == pytest.approx(2)


@needs_ftl_sim
def test_a_repetition_without_its_default_is_named(tmp_path):
    rows = run_rows("default", "1", *modeled(make_run(tmp_path / "d1")))
    rows += run_rows("tuned", "2", *modeled(make_run(tmp_path / "t2")))
    with pytest.raises(TuningTableError, match="of repetition 2 has no default value"):
        normalize(rows)


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("postmark\tmany\n", r"auto-da-alloc.tsv:1: not PHASE<tab>calls: 'postmark\\tmany'"),
        ("postmark\t1\nfilebench-large-write\n", r"auto-da-alloc.tsv:2: not PHASE<tab>calls"),
        ("", "auto-da-alloc.tsv: no measured phase"),
    ],
)
def test_a_damaged_auto_da_alloc_count_is_named_by_line(tmp_path, text, match):
    (tmp_path / "auto-da-alloc.tsv").write_text(text)
    with pytest.raises(TuningTableError, match=match):
        auto_da_alloc_rows("default", "1", tmp_path)


def test_a_run_without_auto_da_alloc_counts_is_named(tmp_path):
    with pytest.raises(TuningTableError, match="auto-da-alloc.tsv: No such file"):
        auto_da_alloc_rows("default", "1", tmp_path)
