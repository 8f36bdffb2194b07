"""mobifrag.ars_tables on synthetic job outputs."""

import csv

from conftest import write_snapshot
from mobifrag.ars_tables import main

MIB = 1024 * 1024


def job_output(folder, extents_by_case, ns_by_case):
    """A jobs/ars-*.sh output folder: reads.tsv and one snapshot of file.db per case."""
    folder.mkdir(parents=True)
    lines = ["file\trun\tbytes\tns"]
    for case, times in ns_by_case.items():
        lines += [f"{case}\t{run}\t{8 * MIB}\t{ns}" for run, ns in enumerate(times, 1)]
    (folder / "reads.tsv").write_text("\n".join(lines) + "\n")
    for case, extents in extents_by_case.items():
        rows = [("file.db", i, i * 4096, (100 + 2 * i) * 4096, 4096, "") for i in range(extents)]
        write_snapshot(
            folder / "snapshot" / case,
            files=[("file.db", extents * 4096, extents * 4096, extents, 12)],
            extents=rows,
            fs=("f2fs", 4096, 65536, 30000, "/dev/vda"),
        )
    return folder


def read_csv(path):
    with open(path, newline="") as handle:
        return list(csv.DictReader(handle))


def test_one_row_per_scheme_and_case(tmp_path):
    run = job_output(
        tmp_path / "f2fs",
        {"continuous": 1, "fragmented": 6},
        {"continuous": [100_000_000, 100_000_000], "fragmented": [400_000_000]},
    )
    out = tmp_path / "motivation.csv"
    assert main(["--case", "file", "--run", "scheme=f2fs", str(run), "--out", str(out)]) == 0
    rows = {r["file"]: r for r in read_csv(out)}
    assert rows["continuous"]["scheme"] == "f2fs"
    assert rows["continuous"]["fragments"] == "1"
    assert rows["fragmented"]["fragments"] == "6"
    assert rows["continuous"]["read_runs"] == "2"
    assert float(rows["continuous"]["read_mib_s"]) == 80.0
    assert float(rows["fragmented"]["read_ms"]) == 400.0


def test_a_case_without_snapshot_is_named(tmp_path, capsys):
    run = job_output(tmp_path / "ars", {"continuous": 1}, {"fragmented": [1000]})
    out = tmp_path / "t.csv"
    assert main(["--case", "file", "--run", "scheme=ars", str(run), "--out", str(out)]) == 1
    assert "snapshot/fragmented" in capsys.readouterr().err
    assert not out.exists()


def test_nonpositive_read_time_is_rejected(tmp_path, capsys):
    run = job_output(tmp_path / "ars", {"continuous": 1}, {"continuous": [0]})
    out = tmp_path / "t.csv"
    assert main(["--case", "file", "--run", "scheme=ars", str(run), "--out", str(out)]) == 1
    assert "not positive" in capsys.readouterr().err
