"""The reserve label: written-many (access behaviour) and fragmented (measured DoF)."""

import pytest

from mobifrag.ars_selection.labels import LabelError, label, labelled_rows, max_dof_by_path


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
