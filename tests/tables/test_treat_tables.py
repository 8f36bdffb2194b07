"""Treatment tables (TMC Figs. 14–17): SQLite kinds, bytes past EOF, Fig. 16 summary,
ftl-sim flash writes; and the insert benchmark's traces."""

import csv
import json

import pytest

from mobifrag.measure.fragmentation import Extent
from mobifrag.tables import treat as treatment_tables
from mobifrag.workloads import insert_benchmark
from mobifrag.workloads.iotrace import read_trace

KIB = 1024


def read_csv(path):
    with open(path) as handle:
        return list(csv.DictReader(handle))


@pytest.mark.parametrize(
    ("path", "kind"),
    [
        ("app/databases/main.db", "database"),
        ("app/databases/main.db-journal", "journal"),
        ("app/databases/main.db-wal", "wal"),
        ("app/databases/main.db-shm", "shm"),
        ("app/cache/photo.jpg", "other"),
        ("lib/base.apk", "other"),
    ],
)
def test_sqlite_kind(path, kind):
    assert treatment_tables.sqlite_kind(path) == kind


def test_past_eof_counts_only_reserved_blocks():
    extents = [
        Extent(0, 100 * 4 * KIB, 8 * KIB),  # written data, 6 KiB file: 2 blocks
        Extent(8 * KIB, 102 * 4 * KIB, 120 * KIB, frozenset({"unwritten"})),
    ]
    assert treatment_tables.past_eof_bytes(6 * KIB, extents, 4 * KIB) == 120 * KIB
    assert treatment_tables.past_eof_bytes(128 * KIB, extents, 4 * KIB) == 0
    # An extent that straddles the file's last block counts only its part beyond it.
    whole = [Extent(0, 0, 128 * KIB, frozenset({"unwritten"}))]
    assert treatment_tables.past_eof_bytes(5 * KIB, whole, 4 * KIB) == 120 * KIB
    delayed = [Extent(0, 0, 128 * KIB, frozenset({"delalloc"}))]
    assert treatment_tables.past_eof_bytes(0, delayed, 4 * KIB) == 0


def preallocated_snapshot(snapshot_dir, name, unit_kib):
    """Two 12 KiB databases: contiguous with a reservation, or interleaved without."""
    files, extents = [], []
    for f in range(2):
        path = f"db/app{f}.db"
        if unit_kib:
            allocated = unit_kib * KIB
            extents.append((path, 0, 0, (1000 + f * 64) * 4 * KIB, 12 * KIB, "-"))
            extents.append(
                (path, 1, 12 * KIB, (1003 + f * 64) * 4 * KIB, allocated - 12 * KIB, "unwritten")
            )
        else:
            allocated = 12 * KIB
            for b in range(3):
                physical = (1000 + 2 * b + f) * 4 * KIB
                extents.append((path, b, b * 4 * KIB, physical, 4 * KIB, "-"))
        files.append((path, 12 * KIB, allocated, 2 if unit_kib else 3, f + 1))
    files.append(("cache/a.bin", 4 * KIB, 4 * KIB, 1, 9))
    extents.append(("cache/a.bin", 0, 0, 5000 * 4 * KIB, 4 * KIB, "-"))
    return snapshot_dir(name, files=files, extents=extents)


def test_dof_table_and_prealloc_summary(snapshot_dir, tmp_path):
    none = preallocated_snapshot(snapshot_dir, "none", 0)
    unit = preallocated_snapshot(snapshot_dir, "unit", 64)
    dof = tmp_path / "dof.csv"
    status = treatment_tables.main(
        ["dof", "--run", "app=x,unit_kib=0", str(none), "--run", "app=x,unit_kib=64", str(unit)]
        + ["--out", str(dof)]
    )
    assert status == 0
    rows = read_csv(dof)
    assert list(rows[0])[:3] == ["app", "unit_kib", "path"]
    assert list(rows[0])[-2:] == ["kind", "past_eof_bytes"]
    by_unit = {(r["unit_kib"], r["path"]): r for r in rows}
    assert by_unit[("0", "db/app0.db")]["dof"] == "3"
    assert by_unit[("64", "db/app0.db")]["dof"] == "1"
    assert by_unit[("64", "db/app1.db")]["past_eof_bytes"] == str(52 * KIB)
    assert by_unit[("64", "cache/a.bin")]["kind"] == "other"

    summary = tmp_path / "summary.csv"
    assert (
        treatment_tables.main(["prealloc-summary", "--dof", str(dof), "--out", str(summary)]) == 0
    )
    result = {r["unit_kib"]: r for r in read_csv(summary)}
    assert result["0"]["sqlite_files"] == "2" and result["0"]["unfragmented_share"] == "0"
    assert result["64"]["unfragmented_share"] == "1"
    assert result["64"]["wasted_bytes"] == str(2 * 52 * KIB)  # the non-SQLite file is not counted
    assert result["0"]["wasted_bytes"] == "0"


def test_flash_table_reads_ftl_sim_summaries(tmp_path):
    summary = {
        "requests": {"write": {"count": 10, "bytes": 40960, "latency_us": {}}},
        "flash": {"bytes_written": 49152, "page_programs": 12, "waf": 1.2, "remapped_pages": 3},
        "translation": {"page_writes": 2},
    }
    ftl = tmp_path / "ftl.json"
    ftl.write_text(json.dumps(summary))
    out = tmp_path / "flash.csv"
    status = treatment_tables.main(
        ["flash", "--run", "level=low,threads=5", str(ftl), "--out", str(out)]
    )
    assert status == 0
    (row,) = read_csv(out)
    assert row == {
        "level": "low",
        "threads": "5",
        "host_write_requests": "10",
        "host_write_bytes": "40960",
        "flash_bytes_written": "49152",
        "flash_page_programs": "12",
        "waf": "1.2",
        "remapped_pages": "3",
        "translation_page_writes": "2",
    }


def test_flash_table_names_a_file_that_is_not_a_summary(tmp_path, capsys):
    bad = tmp_path / "ftl.json"
    bad.write_text("{}")
    status = treatment_tables.main(
        ["flash", "--run", "a=b", str(bad), "--out", str(tmp_path / "o")]
    )
    assert status == 1
    assert str(bad) in capsys.readouterr().err


def test_insert_benchmark_gives_each_thread_its_own_database(tmp_path):
    out = tmp_path / "wal.iotrace"
    assert (
        insert_benchmark.main(
            ["--threads", "3", "--journal", "wal", "--inserts", "4", "--row-bytes", "100"]
            + ["--out", str(out)]
        )
        == 0
    )
    ops = read_trace(out)
    sql = [op for op in ops if op.op == "sql"]
    assert len(sql) == 12
    assert {op.thread: op.path for op in sql} == {t: f"mobibench/db-{t}.db" for t in range(3)}
    assert {op.args for op in sql} == {("wal", "insert", 1, 100)}


def test_insert_benchmark_rejects_bad_parameters():
    with pytest.raises(ValueError):
        insert_benchmark.insert_ops(0, "wal", 1, 1)
    with pytest.raises(ValueError):
        insert_benchmark.insert_ops(1, "memory", 1, 1)
