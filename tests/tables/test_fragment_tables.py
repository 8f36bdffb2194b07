import csv

import pytest

from mobifrag.measure.snapshot import SnapshotError, read_snapshot, unescape_path
from mobifrag.tables.fragments import main

KIB = 1024


def interleaved(n_files, blocks_per_file):
    """Extents of n files written round-robin one 4 KiB block at a time."""
    files, extents = [], []
    for f in range(n_files):
        path = f"writer{f}.db"
        files.append(
            (path, blocks_per_file * 4 * KIB, blocks_per_file * 4 * KIB, blocks_per_file, f)
        )
        for b in range(blocks_per_file):
            physical = (1000 + b * n_files + f) * 4 * KIB
            extents.append((path, b, b * 4 * KIB, physical, 4 * KIB, "-"))
    return files, extents


def read_csv(path):
    with open(path) as handle:
        return list(csv.DictReader(handle))


def test_labelled_runs_stack_into_one_dof_table(snapshot_dir, tmp_path):
    one = snapshot_dir("one", **dict(zip(("files", "extents"), interleaved(1, 8), strict=True)))
    five = snapshot_dir("five", **dict(zip(("files", "extents"), interleaved(5, 8), strict=True)))
    out = tmp_path / "dof.csv"
    assert (
        main(["--run", "writers=1", str(one), "--run", "writers=5", str(five), "--dof", str(out)])
        == 0
    )
    rows = read_csv(out)
    assert list(rows[0])[:2] == ["writers", "path"]
    by_run = {}
    for row in rows:
        by_run.setdefault(row["writers"], []).append(float(row["dof"]))
    assert by_run["1"] == [1.0]
    assert by_run["5"] == [8.0] * 5
    assert rows[-1]["class"] == "sqlite" and rows[-1]["L1"] == "8"


def test_layout_is_relative_to_lowest_block(snapshot_dir, tmp_path):
    snap = snapshot_dir(**dict(zip(("files", "extents"), interleaved(2, 3), strict=True)))
    out = tmp_path / "layout.csv"
    assert main(["--run", "writers=2", str(snap), "--layout", str(out)]) == 0
    rows = read_csv(out)
    starts = sorted(int(r["start_block"]) for r in rows)
    assert starts == list(range(6))
    assert {r["length_blocks"] for r in rows} == {"1"}


def test_empty_file_gets_na(snapshot_dir, tmp_path):
    snap = snapshot_dir(files=[("empty.db", 0, 0, 0, 7)], extents=[])
    out = tmp_path / "dof.csv"
    assert main(["--run", "x=1", str(snap), "--dof", str(out)]) == 0
    assert read_csv(out)[0]["dof"] == "NA"


def test_escaped_paths_round_trip():
    assert unescape_path(r"a\tb\nc\\d\x01") == "a\tb\nc\\d\x01"


def test_malformed_row_names_file_and_line(snapshot_dir):
    snap = snapshot_dir(files=[("a.db", "12x", 4096, 1, 1)], extents=[])
    with pytest.raises(SnapshotError, match=r"files.tsv:2: size_bytes"):
        read_snapshot(snap)


def test_wrong_header_is_reported(snapshot_dir):
    snap = snapshot_dir(files=[], extents=[])
    (snap / "extents.tsv").write_text("path\toffset\n")
    with pytest.raises(SnapshotError, match="extents.tsv: header"):
        read_snapshot(snap)


def test_cli_reports_errors_without_writing(snapshot_dir, tmp_path, capsys):
    snap = snapshot_dir(files=[("a.db", 1, 4096, 1, 1)], extents=[("a.db", 0, 0, 0)])
    out = tmp_path / "dof.csv"
    assert main(["--run", "x=1", str(snap), "--dof", str(out)]) == 1
    assert "extents.tsv:2" in capsys.readouterr().err
    assert not out.exists()


def test_bad_label_is_rejected(snapshot_dir, tmp_path, capsys):
    snap = snapshot_dir(files=[], extents=[])
    assert main(["--run", "writers", str(snap), "--dof", str(tmp_path / "d.csv")]) == 1
    assert "key=value" in capsys.readouterr().err


def test_levels_count_fragments_per_class_and_level(snapshot_dir, tmp_path):
    snap = snapshot_dir(**dict(zip(("files", "extents"), interleaved(2, 3), strict=True)))
    out = tmp_path / "levels.csv"
    assert main(["--run", "day=1", str(snap), "--levels", str(out)]) == 0
    rows = {(r["class"], r["level"]): int(r["fragments"]) for r in read_csv(out)}
    assert rows[("sqlite", "L1")] == 6
    assert sum(rows.values()) == 6
    assert len(rows) == 4 * 7
