"""The reserve label: the measured fragmentation of a descriptor's files, no feature."""

import csv
import json

import pytest

from mobifrag.workloads.ars_selection.__main__ import main
from mobifrag.workloads.ars_selection.descriptors import FEATURES
from mobifrag.workloads.ars_selection.labels import (
    LabelError,
    file_dofs,
    label,
    labelled_rows,
    max_dof_by_path,
)


@pytest.mark.parametrize(
    ("dofs", "reserve", "source", "dof_max"),
    [
        ([3.0], 1, "measured", "3"),
        ([1.0, 2.5, None], 1, "measured", "2.5"),  # one fragmented file is enough
        ([1.0, 1.0], 0, "measured", "1"),  # contiguous
        ([None], 0, "measured", "NA"),  # inline data: nothing placed, nothing fragmented
        ([], 0, "no_file", "NA"),  # the replay writes no file through it
    ],
)
def test_label_rule(dofs, reserve, source, dof_max):
    got = label(dofs, dof_above=1.0)
    assert (got["reserve"], got["label_source"], got["dof_max"]) == (reserve, source, dof_max)
    assert got["files"] == len(dofs)


# Descriptors with features that disagree with their measured fragmentation as real
# traces do: a file written 2,000 times one byte at a time stays in one block, one
# written 3 times by interleaved threads is cut in pieces.
FEATURE_ROWS = [
    {"descriptor": 1, "size_bytes": 2141, "write_interval_s": 110.5, "write_requests": 2141},
    {"descriptor": 2, "size_bytes": 3246349, "write_interval_s": 63.3, "write_requests": 1821},
    {"descriptor": 3, "size_bytes": 12288, "write_interval_s": 0.2, "write_requests": 3},
    {"descriptor": 4, "size_bytes": 1016, "write_interval_s": 29.1, "write_requests": 14},
    {"descriptor": 5, "size_bytes": 90000, "write_interval_s": 0.4, "write_requests": 49},
]
MEASURED = {1: [None], 2: [1.0, 4.0], 3: [3.0], 4: [], 5: [1.0]}


def reserve_column(rows):
    return [r["reserve"] for r in labelled_rows(rows, MEASURED, 1.0)]


@pytest.mark.parametrize("column", FEATURES)
def test_label_reads_no_feature_column(column):
    """The label is not a function of any feature: moving a feature's values between
    files, or setting them to the extremes, leaves every label as it was. The former
    label, written-many (write_requests > 100) and fragmented, fails this."""
    before = reserve_column(FEATURE_ROWS)
    assert before == [0, 1, 1, 0, 0]
    values = [row[column] for row in FEATURE_ROWS]
    variants = [values[::-1], values[1:] + values[:1], [0] * len(values), [10**9] * len(values)]
    for variant in variants:
        moved = [{**row, column: v} for row, v in zip(FEATURE_ROWS, variant, strict=True)]
        assert reserve_column(moved) == before, (column, variant)


def test_largest_dof_over_snapshots_na_as_none(tmp_path):
    table = tmp_path / "dof.csv"
    table.write_text("day,path,dof\n1,a,2\n2,a,5\n1,b,NA\n2,c,1\n2,b,NA\n")
    assert max_dof_by_path([table]) == {"a": 5.0, "b": None, "c": 1.0}


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


def test_a_file_the_dof_table_lacks_is_named():
    with pytest.raises(LabelError, match=r"t.csv: no row for mg/b \(descriptor 7, 1 of its 2"):
        file_dofs({7: ["mg/a", "mg/b"]}, {"mg/a": 1.0}, "t.csv")


TRACE = """\
1 0 open data/data O_RDWR|O_CREAT|O_LARGEFILE 36
1 10 write 36 4096
1 20 write 36 4096
1 30 close 36 0
1 40 open data/data O_RDWR|O_CREAT|O_LARGEFILE 36
1 50 write 36 100
2 5 open data/data O_RDWR|O_CREAT|O_LARGEFILE 41
2 25 pwrite 41 0 1
2 60 write 43 4
"""

PARAMS = {"fragmented_dof_above": 1.0, "splits": 1, "test_share": 0.25, "stratify": True}
PARAMS |= {"average": "weighted", "standardize": False, "timing_repeats": 1, "models": {}}


def read(path):
    with open(path, newline="") as handle:
        return list(csv.DictReader(handle))


def test_dataset_command_joins_trace_and_dof(tmp_path):
    trace = tmp_path / "mobigen.out.app"
    trace.write_text(TRACE)
    dof = tmp_path / "dof.csv"
    dof.write_text(
        "app,path,dof\napp,mg/temp_1_0.dat,2\napp,mg/temp_1_2.dat,NA\napp,mg/temp_2_1.dat,NA\n"
    )
    out, files = tmp_path / "dataset.csv", tmp_path / "files.csv"
    args = ["dataset", "--app", "app", "--mobibench", str(trace), "--dir", "mg"]
    args += ["--dof", str(dof), "--params", json.dumps(PARAMS)]
    assert main(args + ["--out", str(out), "--files", str(files)]) == 0
    rows = {r["descriptor"]: r for r in read(out)}
    assert set(rows) == {"36", "41", "43"}
    assert (rows["36"]["write_requests"], rows["36"]["size_bytes"]) == ("3", "8192")
    assert (rows["36"]["files"], rows["36"]["dof_max"], rows["36"]["reserve"]) == ("2", "2", "1")
    assert (rows["41"]["reserve"], rows["41"]["label_source"]) == ("0", "measured")
    assert (rows["43"]["reserve"], rows["43"]["label_source"]) == ("0", "no_file")
    assert all(r["app"] == "app" for r in rows.values())
    assert [(r["descriptor"], r["path"], r["dof"]) for r in read(files)] == [
        ("36", "mg/temp_1_0.dat", "2"),
        ("36", "mg/temp_1_2.dat", "NA"),
        ("41", "mg/temp_2_1.dat", "NA"),
    ]


def test_dataset_command_refuses_a_dof_table_of_another_replay(tmp_path, capsys):
    trace = tmp_path / "mobigen.out.app"
    trace.write_text(TRACE)
    dof = tmp_path / "dof.csv"
    dof.write_text("path,dof\nother/temp_1_0.dat,2\n")
    args = ["dataset", "--app", "app", "--mobibench", str(trace), "--dir", "mg"]
    args += ["--dof", str(dof), "--params", json.dumps(PARAMS)]
    args += ["--out", str(tmp_path / "d.csv"), "--files", str(tmp_path / "f.csv")]
    assert main(args) == 65
    assert f"{dof}: no row for mg/temp_1_0.dat" in capsys.readouterr().err
