"""mobifrag.tables.ars on synthetic job outputs: reads.tsv, snapshots, and each read's
block trace (blktrace's binary format) replayed through the real ftl-sim, as rule
ftl_replay_phase replays it."""

import csv
import json

import pytest

from block_traces import DEVICE, write_blktrace
from conftest import FTL_SIM, write_snapshot
from mobifrag.model import ftl
from mobifrag.tables.ars import main

MIB = 1024 * 1024
SECTORS = 8 * MIB // 512

pytestmark = pytest.mark.skipif(not FTL_SIM.is_file(), reason="ftl-sim is not built")


def read_requests(pieces, run=1):
    """A cold read of the 8 MiB file as `pieces` requests of equal size, each where
    the file's next extent lies (a fragmented file: one request per extent, apart)."""
    size = SECTORS // pieces
    return [(i * 1000 * run, "R", i * (size + 64), size) for i in range(pieces)]


def job_output(folder, extents_by_case, ns_by_case, pieces_by_case=None):
    """A jobs/ars-*.sh output folder: reads.tsv, one snapshot of file.db per case and a
    blktrace folder per read (read-<case>-<run>)."""
    folder.mkdir(parents=True)
    lines = ["file\trun\tbytes\tns"]
    for case, times in ns_by_case.items():
        lines += [f"{case}\t{run}\t{8 * MIB}\t{ns}" for run, ns in enumerate(times, 1)]
        for run in range(1, len(times) + 1):
            pieces = (pieces_by_case or {}).get(case, 1)
            write_blktrace(folder / "blktrace" / f"read-{case}-{run}", read_requests(pieces, run))
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


def model_args(tmp_path, run):
    """--model arguments of every read's replay, each summary written as the rule does."""
    args = []
    traces = (run / "blktrace").iterdir() if (run / "blktrace").is_dir() else []
    for trace in sorted(t for t in traces if t.is_dir()):
        summary = tmp_path / "model" / run.name / f"{trace.name}.json"
        summary.parent.mkdir(parents=True, exist_ok=True)
        summary.write_text(json.dumps(ftl.replay_phase(FTL_SIM, DEVICE, trace)))
        args += ["--model", str(run), trace.name, str(summary)]
    return args


def table(tmp_path, label, run):
    out = tmp_path / "motivation.csv"
    args = ["--case", "file", "--run", label, str(run), "--out", str(out)]
    return main([*args, *model_args(tmp_path, run)]), out


def test_one_row_per_scheme_and_case(tmp_path):
    run = job_output(
        tmp_path / "f2fs",
        {"continuous": 1, "fragmented": 6},
        {"continuous": [100_000_000, 100_000_000], "fragmented": [400_000_000]},
        {"continuous": 16, "fragmented": 512},
    )
    status, out = table(tmp_path, "scheme=f2fs", run)
    assert status == 0
    rows = {r["file"]: r for r in read_csv(out)}
    assert rows["continuous"]["scheme"] == "f2fs"
    assert rows["continuous"]["fragments"] == "1"
    assert rows["fragmented"]["fragments"] == "6"
    assert rows["continuous"]["read_runs"] == "2"
    # the emulator's wall time, kept as the secondary series
    assert float(rows["continuous"]["wall_mib_s"]) == 80.0
    assert float(rows["fragmented"]["wall_ms"]) == 400.0
    # the device model: the same 8 MiB in 16 or in 512 requests
    continuous, fragmented = rows["continuous"], rows["fragmented"]
    assert (continuous["requests"], fragmented["requests"]) == ("16", "512")
    assert continuous["read_bytes"] == fragmented["read_bytes"] == str(8 * MIB)
    assert continuous["write_bytes"] == "0" and continuous["flushes"] == "0"
    assert float(continuous["modeled_ms"]) > float(continuous["device_ms"]) > 0
    modeled_mib_s = 8 / (float(continuous["modeled_ms"]) / 1000)
    assert float(continuous["modeled_mib_s"]) == pytest.approx(modeled_mib_s, rel=1e-5)
    # more, smaller requests cost the host overhead and the device's command overhead
    assert float(fragmented["modeled_mib_s"]) < float(continuous["modeled_mib_s"])


def test_modeled_read_is_the_median_run(tmp_path):
    run = job_output(tmp_path / "ars", {"continuous": 1}, {"continuous": [1000, 1000, 1000]})
    for number, pieces in ((1, 4), (2, 64), (3, 512)):
        folder = run / "blktrace" / f"read-continuous-{number}"
        write_blktrace(folder, read_requests(pieces))
    status, out = table(tmp_path, "scheme=ars", run)
    assert status == 0
    assert read_csv(out)[0]["requests"] == "64"


def test_a_read_without_its_replay_is_named(tmp_path, capsys):
    run = job_output(tmp_path / "ars", {"continuous": 1}, {"continuous": [1000, 1000]})
    for path in (run / "blktrace" / "read-continuous-2").iterdir():
        path.unlink()
    (run / "blktrace" / "read-continuous-2").rmdir()
    status, out = table(tmp_path, "scheme=ars", run)
    assert status == 1
    assert "no model replay of read-continuous-2" in capsys.readouterr().err
    assert not out.exists()


def test_a_read_that_never_reached_the_disk_is_named(tmp_path, capsys):
    run = job_output(tmp_path / "ars", {"continuous": 1}, {"continuous": [1000]})
    write_blktrace(run / "blktrace" / "read-continuous-1", [(0, "W", 0, 8)])
    status, _ = table(tmp_path, "scheme=ars", run)
    assert status == 1
    assert "no read requests" in capsys.readouterr().err


def test_a_case_without_snapshot_is_named(tmp_path, capsys):
    run = job_output(tmp_path / "ars", {"continuous": 1}, {"fragmented": [1000]})
    status, out = table(tmp_path, "scheme=ars", run)
    assert status == 1
    assert "snapshot/fragmented" in capsys.readouterr().err
    assert not out.exists()


def test_nonpositive_read_time_is_rejected(tmp_path, capsys):
    run = job_output(tmp_path / "ars", {"continuous": 1}, {"continuous": [0]})
    status, out = table(tmp_path, "scheme=ars", run)
    assert status == 1
    assert "not positive" in capsys.readouterr().err
