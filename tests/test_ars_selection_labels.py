"""The reserve label: written-many (access behaviour) and fragmented (measured DoF)."""

import csv
import json

import pytest

from mobifrag.workloads.ars_selection.__main__ import main
from mobifrag.workloads.ars_selection.labels import (
    LabelError,
    label,
    labelled_rows,
    max_dof_by_path,
)


def row(path, writes, cls="other"):
    return {"path": path, "class": cls, "write_requests": writes}


@pytest.mark.parametrize(
    ("writes", "dof", "cls", "reserve", "source"),
    [
        (101, 3.0, "other", 1, "measured"),  # written-many and fragmented
        (100, 3.0, "sqlite", 0, "measured"),  # 100 writes is not more than 100
        (500, 1.0, "sqlite", 0, "measured"),  # written-many but contiguous
        (500, None, "sqlite", 1, "file_type"),  # gone before the snapshot: SQLite type
        (500, None, "other", 0, "file_type"),
        (1, 50.0, "other", 0, "measured"),  # fragmented but written once
    ],
)
def test_label_rule(writes, dof, cls, reserve, source):
    got = label(row("f", writes, cls), dof, written_many_more_than=100, dof_above=1.0)
    assert got["reserve"] == reserve and got["label_source"] == source
    assert got["dof_max"] == ("NA" if dof is None else f"{dof:.6g}")


def test_largest_dof_over_snapshots(tmp_path):
    table = tmp_path / "dof.csv"
    table.write_text("day,path,dof\n1,a,2\n2,a,5\n1,b,NA\n2,c,1\n")
    assert max_dof_by_path([table]) == {"a": 5.0, "c": 1.0}


def test_dof_table_without_dof_column_is_named(tmp_path):
    table = tmp_path / "dof.csv"
    table.write_text("path,extents\na,3\n")
    with pytest.raises(LabelError, match=rf"{table}: no column dof"):
        max_dof_by_path([table])


def test_bad_dof_value_names_line(tmp_path):
    table = tmp_path / "dof.csv"
    table.write_text("path,dof\na,2\nb,lots\n")
    with pytest.raises(LabelError, match=rf"{table}:3: dof 'lots'"):
        max_dof_by_path([table])


def test_labelled_rows_keep_features():
    rows = labelled_rows([row("a", 200)], {"a": 4.0}, 100, 1.0)
    assert rows == [
        {
            **row("a", 200),
            "dof_max": "4",
            "written_many": 1,
            "fragmented": 1,
            "label_source": "measured",
            "reserve": 1,
        }
    ]


def test_dataset_command_joins_trace_and_dof(tmp_path):
    trace = tmp_path / "app.iotrace"
    lines = ["#iotrace v1", "0\t0\tcreate\tlog.txt"]
    lines += [f"{i}\t0\tappend\tlog.txt\t10" for i in range(1, 102)]
    lines += ["200\t1\tappend\tonce.bin\t4096", "300\t2\tsql\tx.db\tdelete\tinsert\t1\t10"]
    trace.write_text("\n".join(lines) + "\n")
    dof = tmp_path / "dof.csv"
    dof.write_text("app,path,dof\napp,log.txt,3\napp,once.bin,2\napp,x.db,1\n")
    params = {"written_many_more_than": 100, "fragmented_dof_above": 1.0, "splits": 1}
    params |= {"test_share": 0.25, "stratify": True, "average": "weighted"}
    params |= {"standardize": False, "timing_repeats": 1, "models": {}}
    out = tmp_path / "dataset.csv"
    args = ["dataset", "--app", "app", "--trace", str(trace), "--dof", str(dof)]
    assert main(args + ["--params", json.dumps(params), "--out", str(out)]) == 0
    with open(out, newline="") as handle:
        rows = {r["path"]: r for r in csv.DictReader(handle)}
    assert set(rows) == {"log.txt", "once.bin", "x.db", "x.db-journal"}
    assert (rows["log.txt"]["write_requests"], rows["log.txt"]["reserve"]) == ("101", "1")
    assert rows["once.bin"]["reserve"] == "0" and rows["x.db"]["reserve"] == "0"
    assert rows["x.db-journal"]["label_source"] == "file_type"
    assert all(r["app"] == "app" for r in rows.values())
