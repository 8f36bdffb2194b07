"""Per-file features of ARS §IV.A from a hand-written trace with known answers."""

import pytest

from mobifrag.workloads.ars_selection.__main__ import main
from mobifrag.workloads.ars_selection.features import trace_features
from mobifrag.workloads.iotrace import TraceError

SMALL_TRACE = """#iotrace v1
0\t0\tcreate\ta.log
1000000\t0\tappend\ta.log\t100
3000000\t0\tappend\ta.log\t50
3500000\t0\twrite\tb.bin\t4096\t8192
4000000\t0\tcreate\tc.xml.tmp
4100000\t0\tappend\tc.xml.tmp\t300
4200000\t0\trename\tc.xml.tmp\tc.xml
5000000\t0\ttruncate\ta.log\t10
5000000\t1\tread\tb.bin\t0\t4096
6000000\t1\tsql\td.db\tdelete\tinsert\t2\t100
8000000\t1\tsql\td.db\tdelete\tselect\t0\t0
9000000\t1\tsql\td.db\tdelete\tupdate\t1\t5000
10000000\t2\tsql\tw.db\twal\tinsert\t1\t10
10000000\t3\tcreate\tempty.lock
"""

# (path, incarnation) → (class, size_bytes, write_interval_s, write_requests), worked out
# by hand: d.db: insert of 2 × 100 B dirties 2 pages (page 1 + one data page), the
# update of one row to 5,000 B dirties 3; its DELETE-mode journal is a new file at each
# transaction, header + 3 writes per page.
EXPECTED = {
    ("a.log", 0): ("other", 150, 2.0, 2),
    ("b.bin", 0): ("other", 12288, 0.0, 1),
    ("c.xml", 0): ("other", 300, 0.0, 1),
    ("d.db", 0): ("sqlite", 16384, 3.0, 5),
    ("d.db-journal", 0): ("sqlite", 512 + 2 * (4096 + 8), 0.0, 7),
    ("d.db-journal", 1): ("sqlite", 512 + 3 * (4096 + 8), 0.0, 10),
    ("w.db", 0): ("sqlite", 12288, 0.0, 2),
    ("w.db-wal", 0): ("sqlite", 32 + 2 * (4096 + 24), 0.0, 4),
}


def features_by_file(rows):
    return {
        (r["path"], r["incarnation"]): (
            r["class"],
            r["size_bytes"],
            r["write_interval_s"],
            r["write_requests"],
        )
        for r in rows
    }


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return path


def test_features_of_a_small_trace(tmp_path):
    rows = trace_features([write(tmp_path, "small.iotrace", SMALL_TRACE)])
    assert features_by_file(rows) == EXPECTED


def test_a_path_written_again_after_unlink_is_a_new_file(tmp_path):
    trace = write(
        tmp_path,
        "t.iotrace",
        "#iotrace v1\n0\t0\tappend\tf\t10\n1000000\t0\tappend\tf\t10\n"
        "2000000\t0\tunlink\tf\n3000000\t0\tappend\tf\t5\n",
    )
    assert features_by_file(trace_features([trace])) == {
        ("f", 0): ("other", 20, 1.0, 2),
        ("f", 1): ("other", 5, 0.0, 1),
    }


def test_rename_ends_the_target_and_moves_the_source(tmp_path):
    trace = write(
        tmp_path,
        "t.iotrace",
        "#iotrace v1\n0\t0\tappend\tp\t7\n1000000\t0\tappend\tp.tmp\t9\n"
        "2000000\t0\trename\tp.tmp\tp\n3000000\t0\tappend\tp\t1\n",
    )
    assert features_by_file(trace_features([trace])) == {
        ("p", 0): ("other", 7, 0.0, 1),
        ("p", 1): ("other", 10, 2.0, 2),
    }


@pytest.mark.parametrize("mode, files", [("delete", 3), ("truncate", 1), ("persist", 1)])
def test_only_delete_mode_makes_a_journal_per_transaction(tmp_path, mode, files):
    lines = "".join(f"{n}000000\t0\tsql\td.db\t{mode}\tinsert\t1\t100\n" for n in range(3))
    rows = trace_features([write(tmp_path, "t.iotrace", "#iotrace v1\n" + lines)])
    journals = [r for r in rows if r["path"] == "d.db-journal"]
    assert len(journals) == files
    # each insert dirties page 1 and the data page: header + 3 writes per page
    assert sum(r["write_requests"] for r in journals) == 3 * (1 + 3 * 2)


def test_later_traces_run_after_earlier_ones(tmp_path):
    # the second trace's clock starts 1 us after the first trace's last operation
    first = write(tmp_path, "1.iotrace", "#iotrace v1\n1000000\t0\tappend\tf\t10\n")
    second = write(tmp_path, "2.iotrace", "#iotrace v1\n2000000\t0\tappend\tf\t10\n")
    (row,) = trace_features([first, second])
    assert row["write_requests"] == 2 and row["size_bytes"] == 20
    assert row["write_interval_s"] == pytest.approx(2.000001)


def test_malformed_line_names_file_and_line(tmp_path):
    bad = write(tmp_path, "bad.iotrace", "#iotrace v1\n0\t0\tcreate\tx\nabc\t0\tappend\tx\t1\n")
    with pytest.raises(TraceError, match=rf"{bad}:3: TIME_US 'abc'"):
        trace_features([bad])


def test_command_line_reports_the_bad_line(tmp_path, capsys):
    bad = write(tmp_path, "bad.iotrace", "#iotrace v1\n0\t0\tfrobnicate\tx\n")
    dof = write(tmp_path, "dof.csv", "path,dof\n")
    params = tmp_path / "params.json"
    params.write_text(
        '{"written_many_more_than": 1, "fragmented_dof_above": 1, "splits": 1,'
        ' "test_share": 0.25, "stratify": true, "average": "weighted",'
        ' "standardize": false, "timing_repeats": 1, "models": {}}'
    )
    args = ["dataset", "--app", "x", "--trace", str(bad), "--dof", str(dof)]
    status = main(args + ["--params", str(params), "--out", str(tmp_path / "out.csv")])
    assert status == 65
    assert f"{bad}:2: unknown op 'frobnicate'" in capsys.readouterr().err
    assert not (tmp_path / "out.csv").exists()
