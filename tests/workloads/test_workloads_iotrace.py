"""The .iotrace writer and reader (traces/FORMAT.md)."""

import pytest

from mobifrag.workloads.iotrace import (
    HEADER,
    TraceError,
    escape,
    make_op,
    read_trace,
    unescape,
    write_trace,
)


def test_round_trip_of_every_op(tmp_path):
    ops = [
        make_op(0, 0, "mkdir", "a/b"),
        make_op(1, 0, "create", "a/b/c.txt"),
        make_op(2, 0, "write", "a/b/c.txt", 4096, 100),
        make_op(3, 1, "append", "x.db", 512),
        make_op(4, 1, "read", "x.db", 0, 512),
        make_op(5, 1, "fsync", "x.db"),
        make_op(6, 1, "fdatasync", "x.db"),
        make_op(7, 2, "fallocate", "f", 0, 131072, "keep"),
        make_op(8, 2, "truncate", "f", 0),
        make_op(9, 2, "rename", "f", "g h"),
        make_op(10, 2, "unlink", "g h"),
        make_op(11, 3, "sql", "d/t.db", "wal", "insert", 2, 300),
        make_op(12, 0, "fill", "fill/filler.bin", 70),
        make_op(13, 0, "reclaim", "media", 97, 1000, 5, "*.jpg"),
    ]
    path = tmp_path / "t.iotrace"
    write_trace(path, ops, ["a comment"])
    text = path.read_text()
    assert text.startswith(HEADER + "\n# a comment\n")
    assert read_trace(path) == ops
    assert not list(tmp_path.glob(".*.tmp"))


def test_escaping_round_trips_control_bytes():
    name = "dir/a\tb\nc\\d\x01e"
    assert escape(name) == "dir/a\\tb\\nc\\\\d\\x01e"
    assert unescape(escape(name)) == name


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("5\t0\twrite\tf\t0", "write takes 2 argument(s), got 1"),
        ("5\t0\tfrobnicate\tf", "unknown op 'frobnicate'"),
        ("x\t0\tcreate\tf", "TIME_US 'x' is not a non-negative integer"),
        ("5\t0\tcreate\t/etc/passwd", "absolute path"),
        ("5\t0\tcreate\ta/../../b", "contains '..'"),
        ("5\t0\tsql\td.db\twall\tinsert\t1\t1", "'wall' is not one of"),
        ("5\t0\trename\ta\t../b", "contains '..'"),
        ("5\t0\tcreate", "at least 4"),
    ],
)
def test_malformed_line_is_reported_with_file_and_line(tmp_path, line, message):
    path = tmp_path / "bad.iotrace"
    path.write_text(f"{HEADER}\n# comment\n\n0\t0\tcreate\tok\n{line}\n1\t0\tunlink\tok\n")
    with pytest.raises(TraceError) as error:
        read_trace(path)
    assert str(error.value).startswith(f"{path}:5: ")
    assert message in str(error.value)


def test_header_and_time_order_are_checked(tmp_path):
    path = tmp_path / "noheader.iotrace"
    path.write_text("0\t0\tcreate\tf\n")
    with pytest.raises(TraceError, match=r"noheader.iotrace:1: first line"):
        read_trace(path)
    path = tmp_path / "back.iotrace"
    path.write_text(f"{HEADER}\n10\t3\tcreate\tf\n9\t4\tcreate\tg\n5\t3\tunlink\tf\n")
    with pytest.raises(TraceError, match=r"back.iotrace:4: TIME_US 5 goes back in thread 3"):
        read_trace(path)


def test_make_op_refuses_bad_paths():
    for bad in ("/abs", "..", "a/../b", ""):
        with pytest.raises(ValueError):
            make_op(0, 0, "create", bad)
