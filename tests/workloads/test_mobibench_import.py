"""Import of Mobibench (MobiGen) app traces, as Mobibench's replayer replays them."""

import csv
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import REPO
from mobifrag.workloads.__main__ import main
from mobifrag.workloads.iotrace import read_trace
from mobifrag.workloads.mobibench_import import (
    MobibenchError,
    import_mobibench,
    read_calls,
    stats,
    written_many_paths,
)

# Hand-written in the shape of mobigen.out.facebook: grouped by thread, times in µs.
TRACE = """\
1 0 open /data/data O_WRONLY|O_CREAT|O_TRUNC|O_LARGEFILE 36
1 10 write 36 4
1 20 write 36 4
1 30 fsync 36 0
1 40 close 36 0
1 50 write 36 4
2 5 open "/system/fonts/DroidSans.ttf" O_RDONLY|O_LARGEFILE 40
2 6 read 40 1024
2 15 open data/data O_RDWR|O_CREAT|O_LARGEFILE 41
2 25 pwrite 41 8192 4096
2 26 pread 41 0 100
2 27 read 41 10
2 28 read 41 -1
2 29 fstat64 41 0
2 31 stat64 "/data/data/com.x/databases/a.db" 0
2 32 access "/data/data/com.x/databases/a.db-wal" -1
2 33 unlink "/data/data/com.x/cache/x" 0
2 34 fdatasync 41 0
2 35 write 99 8
3 1 open data/data O_RDWR|O_CREAT|O_LARGEFILE -1
"""


def write(tmp_path: Path, text: str, name: str = "mobigen.out.app") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def test_calls_map_as_mobibench_replays_them(tmp_path):
    result = import_mobibench(write(tmp_path, TRACE), "mg")
    lines = [(op.time_us, op.thread, op.op, op.path, op.args) for op in result.ops]
    assert lines == [
        (0, 1, "create", "mg/temp_1_0.dat", ()),
        (10, 1, "write", "mg/temp_1_0.dat", (0, 4)),
        (15, 2, "create", "mg/temp_2_1.dat", ()),
        (20, 1, "write", "mg/temp_1_0.dat", (4, 4)),
        (25, 2, "write", "mg/temp_2_1.dat", (8192, 4096)),
        (26, 2, "read", "mg/temp_2_1.dat", (0, 100)),
        (27, 2, "read", "mg/temp_2_1.dat", (0, 10)),
        (30, 1, "fsync", "mg/temp_1_0.dat", ()),
        (34, 2, "fdatasync", "mg/temp_2_1.dat", ()),
    ]
    skipped = result.skipped
    assert skipped["write on a descriptor the trace did not open"] == 2  # after close; fd 99
    assert skipped["open of a named phone file (read-only)"] == 1
    assert skipped["read on a named phone file"] == 1
    assert skipped["read that moved no bytes in the capture"] == 1
    assert skipped["open that failed in the capture"] == 1
    assert skipped["unlink of a named phone file"] == 1


def test_stats_count_writes_and_files_by_descriptor_as_the_paper(tmp_path):
    lines = ["1 0 open /data/data O_WRONLY|O_CREAT|O_TRUNC|O_LARGEFILE 36"]
    lines += [f"1 {t} write 36 4" for t in range(1, 102)]  # 101 writes: written-many
    lines += ["1 200 close 36 0", "1 201 open data/data O_RDWR|O_CREAT|O_LARGEFILE 36"]
    lines += [f"1 {t} pwrite 36 0 4096" for t in range(202, 302)]  # fd 36 again: 201
    lines += ["2 0 open data/data O_RDWR|O_CREAT|O_LARGEFILE 50", "2 1 write 50 1"]
    result = import_mobibench(write(tmp_path, "\n".join(lines) + "\n"))
    row = stats(result, 100)
    assert (row["calls"], row["writes"], row["write_calls"], row["pwrite_calls"]) == (
        206,
        202,
        102,
        100,
    )
    assert (row["files"], row["written_many"], row["written_many_percent"]) == (2, 1, 50.0)
    # As replayed, each open is its own file: 101 and 100 writes, only one above 100.
    assert (row["replayed_files"], row["replayed_written_many"]) == (3, 1)
    assert written_many_paths(result.ops, 100) == ["mobigen_temp/temp_1_0.dat"]


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("1 0 open /data/data O_RDWR", "open takes 3 field(s), got 2"),
        ("1 x write 36 4", "TIME_US 'x' is not a non-negative integer"),
        ("-1 0 write 36 4", "THREAD '-1' is not a non-negative integer"),
        ("1 0 mmap 36 4", "unknown call 'mmap'"),
        ("1 0 pwrite 36 -5 4096", "pwrite: OFFSET '-5' is not a non-negative integer"),
        ("1 0 write 36 4 9", "write takes 2 field(s), got 3"),
        ("1 0 stat64 /no/quotes 0", "stat64: expected a quoted path"),
        ("1 0", "expected THREAD TIME_US CALL"),
    ],
)
def test_malformed_line_is_named_by_file_and_line(tmp_path, line, message):
    path = write(tmp_path, f"1 0 open /data/data O_RDWR|O_CREAT 36\n{line}\n")
    with pytest.raises(MobibenchError, match=f"^{path}:2: ") as error:
        read_calls(path)
    assert message in str(error.value)


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("1 20 pwrite 36 18446744073709551615 4096", "18446744073709551615 is not an integer"),
        ("1 20 pwrite 36 9223372036854775807 4096", "beyond the largest file offset"),
        ("1 20 write 36 9223372036854775807", "beyond the largest file offset"),
        ("1 18446744073709551616 write 36 4", "TIME_US 18446744073709551616 is not"),
    ],
)
def test_a_number_the_iotrace_cannot_hold_is_named_by_file_and_line(tmp_path, line, message):
    # the first write moves the descriptor's offset past 0, so a huge write overflows
    path = write(tmp_path, f"1 0 open data/data O_RDWR|O_CREAT 36\n1 10 write 36 4\n{line}\n")
    with pytest.raises(MobibenchError, match=f"^{path}:3: ") as error:
        import_mobibench(path)
    assert message in str(error.value)
    out = tmp_path / "t.iotrace"
    assert main(["mobibench", "--in", str(path), "--out", str(out)]) == 65
    assert not out.exists()


def test_more_threads_than_a_trace_may_have_are_named_by_line(tmp_path):
    lines = [f"{t} {t} open data/data O_RDWR|O_CREAT {t + 3}" for t in range(1, 258)]
    path = write(tmp_path, "\n".join(lines) + "\n")
    with pytest.raises(MobibenchError, match=f"^{path}:257: open: THREAD 257 would be distinct"):
        import_mobibench(path)


def test_empty_trace_is_an_error(tmp_path):
    with pytest.raises(MobibenchError, match=":1: no calls"):
        read_calls(write(tmp_path, "\n"))


def test_cli_writes_a_valid_trace_reserved_list_and_stats(tmp_path, capsys):
    source = write(tmp_path, TRACE)
    out, reserved, table = tmp_path / "t.iotrace", tmp_path / "reserved.txt", tmp_path / "s.csv"
    argv = ["mobibench", "--in", str(source), "--out", str(out), "--reserved", str(reserved)]
    assert main(argv + ["--written-many-more-than", "1"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["ops"] == len(read_trace(out)) == 9
    assert reserved.read_text().splitlines() == ["mobigen_temp/temp_1_0.dat"]
    assert main(["mobibench-stats", "--trace", f"app={source}", "--out", str(table)]) == 0
    rows = list(csv.DictReader(table.open()))
    assert rows[0]["app"] == "app" and rows[0]["writes"] == "5" and rows[0]["files"] == "3"


def test_cli_malformed_input_exits_65_naming_the_line(tmp_path, capsys):
    source = write(tmp_path, "1 0 open /data/data O_RDWR 36 7\n")
    assert main(["mobibench", "--in", str(source), "--out", str(tmp_path / "t")]) == 65
    assert f"{source}:1: open takes 3 field(s), got 4" in capsys.readouterr().err


def test_fetch_refuses_a_copy_whose_checksum_differs(tmp_path):
    out = tmp_path / "mobigen.out.facebook"
    out.write_text("not the trace\n")
    # the shared copy the test checks for, whatever MOBIFRAG_VENDOR the caller set
    shared = REPO.parent / "shared" / "vendor"
    env = {**os.environ, "MOBIBENCH_OFFLINE": "1", "MOBIFRAG_VENDOR": str(shared)}
    fetch = REPO / "traces" / "mobibench" / "fetch.sh"
    done = subprocess.run([fetch, "nosuchapp", out], env=env, capture_output=True, text=True)
    assert done.returncode == 2 and "no pinned trace for app 'nosuchapp'" in done.stderr
    vendor = shared / "mobibench-f56ea5e" / out.name
    done = subprocess.run([fetch, "facebook", out], env=env, capture_output=True, text=True)
    if vendor.is_file():  # the wrong file is replaced by the verified shared copy
        assert done.returncode == 0, done.stderr
        assert out.read_bytes() == vendor.read_bytes()
    else:
        assert done.returncode == 1 and "cannot get mobigen.out.facebook" in done.stderr


def test_fetch_takes_the_copy_in_mobifrag_vendor(tmp_path):
    """A checkout with no ../shared/vendor beside it reads the folder MOBIFRAG_VENDOR
    names; the error says which copy it looked for."""
    out = tmp_path / "mobigen.out.twitter"
    elsewhere = tmp_path / "elsewhere"
    env = {**os.environ, "MOBIBENCH_OFFLINE": "1", "MOBIFRAG_VENDOR": str(elsewhere)}
    fetch = REPO / "traces" / "mobibench" / "fetch.sh"
    done = subprocess.run([fetch, "twitter", out], env=env, capture_output=True, text=True)
    assert done.returncode == 1, done.stderr
    assert f"{elsewhere}/mobibench-f56ea5e/{out.name} is missing" in done.stderr
    real = REPO.parent / "shared" / "vendor" / "mobibench-f56ea5e" / out.name
    if not real.is_file():
        pytest.skip("no shared copy of Mobibench's traces")
    (elsewhere / "mobibench-f56ea5e").mkdir(parents=True)
    shutil.copy(real, elsewhere / "mobibench-f56ea5e" / out.name)
    done = subprocess.run([fetch, "twitter", out], env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert out.read_bytes() == real.read_bytes()


VENDOR = REPO.parent / "shared" / "vendor" / "mobibench-f56ea5e"


@pytest.mark.skipif(not VENDOR.is_dir(), reason="no shared copy of Mobibench's traces")
@pytest.mark.parametrize(
    ("app", "calls", "writes", "files", "many"),
    [("facebook", 30819, 14429, 91, 18), ("twitter", 16307, 6029, 60, 15)],
)
def test_the_real_traces_give_the_papers_counts(tmp_path, app, calls, writes, files, many):
    result = import_mobibench(VENDOR / f"mobigen.out.{app}", app)
    row = stats(result)
    assert (row["calls"], row["writes"], row["files"], row["written_many"]) == (
        calls,
        writes,
        files,
        many,
    )
    out = tmp_path / f"{app}.iotrace"
    assert main(["mobibench", "--in", str(VENDOR / f"mobigen.out.{app}"), "--out", str(out)]) == 0
    assert len(read_trace(out)) == len(result.ops)
