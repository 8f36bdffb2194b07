"""mobifrag.measure.f2fs_state and mobifrag.tables.ars_eval on synthetic job outputs (the formats
of F2FS 6.1's segment_bits and debugfs status, fio's JSON, the agent's replay JSON, and
each measured phase's block trace in blktrace's binary format, replayed through the real
ftl-sim on the eMMC profile by mobifrag.model.run_phases, as rule ftl_replay_run does)."""

import csv
import json

import pytest

from block_traces import DEVICE, write_blktrace
from conftest import FTL_SIM, write_snapshot
from mobifrag.measure import f2fs_state
from mobifrag.model import run_phases
from mobifrag.tables import ars_eval
from mobifrag.tables.ars_eval import MODELED_KINDS, main

# How each job's reports name its phases (rules/experiments/ars_eval.smk, RUN_PHASE_DEPTHS).
DEPTHS = {
    "throughput": ["--fio", "{report}"],
    "create": ["--fio", "{report}"],
    "sqlite": ["--replay", "sqlite-{report}"],
    "apps": ["--replay", "{report}"],
}
needs_ftl_sim = pytest.mark.skipif(not FTL_SIM.is_file(), reason="ftl-sim is not built")

BOUNDS = [4, 8, 16, 32, 64, 128]


def segment_line(segno, bitmap, seg_type=1):
    valid = sum(bin(b).count("1") for b in bitmap)
    return f"{segno:<10d}{seg_type}|{valid:<3d}|" + "".join(f" {b:02x}" for b in bitmap)


def segment_bits(bitmaps):
    head = "format: segment_type|valid_blocks|bitmaps\nsegment_type(0:HD, 1:WD, 2:CD)\n"
    return head + "\n".join(segment_line(i, b) for i, b in enumerate(bitmaps)) + "\n"


def status(gc_calls=3, moved=40, utilization=84):
    return f"""
=====[ partition info(vdb). #0, RW, CP: Good]=====
[SBI: fs_dirty]
Utilization: {utilization}% (20000 valid blocks, 0 discard blocks)
CP calls: 9 (BG: 0)
GC calls: {gc_calls} (BG: 1)
  - data segments : 2 (1)
  - node segments : 1 (0)
  - Reclaimed segs : Normal (3), Idle CB (0), Idle Greedy (0), Idle AT (0)
Try to move {moved} blocks (BG: 5)
  - data blocks : {moved - 4} (5)
  - node blocks : 4 (0)
BG skip : IO: 0, Other: 0
IPU: 7 blocks
SSR: 11 blocks in 2 segments
LFS: 900 blocks in 3 segments
"""


def iostat(gc_data_write=0, gc_node_write=0, gc_data_read=0, fs_data_write=0):
    """An iostat_info dump in Linux 6.1's layout (fs/f2fs/iostat.c), counts in blocks
    (the file gives bytes)."""
    write = {
        "app buffered data": 3,
        "app direct data": 0,
        "app mapped data": 0,
        "app buffered cdata": 0,
        "app mapped cdata": 0,
        "fs data": fs_data_write,
        "fs cdata": 0,
        "fs node": 5,
        "fs meta": 2,
        "fs gc data": gc_data_write,
        "fs gc node": gc_node_write,
        "fs cp data": 1,
        "fs cp node": 1,
        "fs cp meta": 4,
    }
    read = {
        "app buffered data": 7,
        "app direct data": 0,
        "app mapped data": 0,
        "app buffered cdata": 0,
        "app mapped cdata": 0,
        "fs data": 9,
        "fs gc data": gc_data_read,
        "fs cdata": 0,
        "fs node": 6,
        "fs meta": 1,
    }

    def lines(counts):
        return "".join(f"{name}:\t\t{4096 * n:<16d}\n" for name, n in counts.items())

    return (
        f"time:\t\t{1764650000:<16d}\n[WRITE]\n{lines(write)}[READ]\n{lines(read)}"
        f"[OTHER]\nfs discard:\t\t{8192:<16d}\n"
    )


def test_free_runs_follow_f2fs_bit_order_across_segments():
    # Segment 0: blocks 0-7 valid (byte ff), block 8 free, 9-15 valid (7f: bit 7 clear
    # is block 8), rest free; segment 1: first 2 blocks free, then all valid.
    seg0 = bytes([0xFF, 0x7F] + [0] * 62)
    seg1 = bytes([0x3F] + [0xFF] * 63)
    runs = f2fs_state.free_runs(f2fs_state.segment_bitmaps(segment_bits([seg0, seg1])))
    assert runs == [1, 62 * 8 + 2]


def test_levels_put_4k_in_l1_and_above_128k_in_l7():
    counts = f2fs_state.level_counts([1, 1, 2, 3, 32, 33, 512], BOUNDS)
    assert counts == {"L1": 2, "L2": 1, "L3": 1, "L4": 0, "L5": 0, "L6": 1, "L7": 2}


def test_a_bitmap_disagreeing_with_its_count_is_rejected():
    text = segment_bits([bytes([0xFF] + [0] * 63)]).replace("|8  |", "|9  |")
    with pytest.raises(f2fs_state.StateError, match="disagrees"):
        f2fs_state.segment_bitmaps(text)


def test_status_counters_of_the_first_partition():
    values = f2fs_state.status_counters(status() + status(gc_calls=99))
    assert values["gc_calls"] == 3 and values["gc_bg_calls"] == 1
    assert values["gc_moved_blocks"] == 40 and values["gc_data_blocks"] == 36
    assert values["utilization_percent"] == 84 and values["ipu_blocks"] == 7
    with pytest.raises(f2fs_state.StateError, match="no F2FS"):
        f2fs_state.status_counters("nothing mounted\n")


def test_iostat_gives_gcs_own_reads_and_writes_in_blocks():
    text = iostat(gc_data_write=30, gc_node_write=4, gc_data_read=2, fs_data_write=500)
    assert f2fs_state.iostat_gc_blocks(text) == {
        "gc_data_write_blocks": 30,
        "gc_node_write_blocks": 4,
        "gc_read_blocks": 2,
        "gc_write_blocks": 34,
    }
    # the same line name in another section is another counter
    assert f2fs_state.iostat_bytes(text)[("WRITE", "fs data")] == 500 * 4096


def test_iostat_turned_off_or_damaged_is_named():
    # iostat_info prints nothing while F2FS's iostat_enable is off
    with pytest.raises(f2fs_state.StateError, match="iostat_enable was off"):
        f2fs_state.iostat_gc_blocks("")
    with pytest.raises(f2fs_state.StateError, match=r"no \[WRITE\] 'fs gc node'"):
        f2fs_state.iostat_gc_blocks(iostat().replace("fs gc node", "fs gc nodes"))
    with pytest.raises(f2fs_state.StateError, match="line 3 is not"):
        f2fs_state.iostat_gc_blocks(iostat().replace("app buffered data:", "app buffered data", 1))
    with pytest.raises(f2fs_state.StateError, match="not whole blocks"):
        f2fs_state.iostat_gc_blocks(iostat(gc_node_write=1).replace("4096 ", "4095 ", 1))


def fio_json(path, direction, mib_s, io_bytes=4 * 2**20):
    other = "write" if direction == "read" else "read"
    job = {"jobname": "x", "error": 0}
    job[direction] = {"bw_bytes": int(mib_s * 2**20), "io_bytes": io_bytes}
    job[other] = {"bw_bytes": 0, "io_bytes": 0}
    path.parent.mkdir(parents=True, exist_ok=True)
    notice = "fio: cache invalidation of /x/file-00 failed: Function not implemented\n"
    path.write_text(notice + json.dumps({"fio version": "fio-3.33", "jobs": [job]}, indent=1))


def phase_trace(op, pieces, fsync=False):
    """4 MiB read or written in `pieces` requests, each write followed by a flush when
    fsync'd (what a fio phase's blktrace holds)."""
    sectors, requests = 8192 // pieces, []
    for i in range(pieces):
        requests.append((i * 1000, op, i * (sectors + 64), sectors))
        if fsync:
            requests.append((i * 1000 + 500, "F", 0, 0))
    return requests


def fragbench_run(folder, speed, extents, gc_calls, pieces=8):
    """A jobs/ars-fragbench.sh output folder whose bandwidths scale with `speed`, each
    fio run's trace moving its 4 MiB in `pieces` requests (×4 at High)."""
    for state, factor in (("low", 1.0), ("high", 0.5)):
        for rw, direction in (("read", "read"), ("write", "write"), ("randread", "read")):
            fio_json(folder / "fio" / f"{state}-{rw}.json", direction, 100 * speed * factor)
        fio_json(folder / "fio" / f"{state}-randwrite.json", "write", 10 * speed * factor)
        for rw in ("read", "write", "randread", "randwrite"):
            op = "W" if "write" in rw else "R"
            n = pieces * (4 if state == "high" else 1)
            write_blktrace(folder / "blktrace" / f"{state}-{rw}", phase_trace(op, n, op == "W"))
        rows = [(f"file-{i}", 8192, 8192, extents, 10 + i) for i in range(2)]
        ext = [
            (f"file-{i}", e, e * 4096, (1000 * i + 3 * e) * 4096, 4096, "")
            for i in range(2)
            for e in range(extents)
        ]
        write_snapshot(
            folder / "snapshot" / state,
            files=rows,
            extents=ext,
            fs=("f2fs", 4096, 32768, 4000, "/dev/vdb"),
        )
    # The GC pass (aged → collected) cleans the benchmark's debris with 50 GC calls under
    # every scheme; the High measurements (collected → measured) make gc_calls more.
    for phase, calls in (("aged", 2), ("collected", 52), ("measured", 52 + gc_calls)):
        state = folder / "state" / phase
        state.mkdir(parents=True)
        (state / "status.txt").write_text(status(gc_calls=calls, moved=10 * calls))
        (state / "iostat.txt").write_text(
            iostat(gc_data_write=3 * calls, gc_node_write=calls, gc_data_read=calls)
        )
        (state / "segment_bits.txt").write_text(
            segment_bits([bytes([0xAA] * 8 + [0xFF] * 56), bytes(64)])
        )
        (state / "ars.txt").write_text(f"ars_reservations {calls}\nars_refused 0\n")
        (state / "diskstat.txt").write_text(f" {100 * calls} 0 800 5 {50 * calls} 0 400 9 0 1 2\n")
    (folder / "fragbench-high.json").write_text(
        json.dumps({"rounds": 6, "created": 900, "live": 500, "used_percent": 90.1})
    )
    (folder / "create.tsv").write_text("synthetic\tfile-0\t2000\nsynthetic\tfile-1\t4000\n")
    create = [(0, "W", 64, 8), (10, "F", 0, 0), (20, "W", 128, 8), (30, "F", 0, 0)]
    write_blktrace(folder / "blktrace" / "create-synthetic", create)
    return folder


def modeled(kind, runs):
    """--model options of a modeled table: every run's phases replayed, as rule
    ftl_replay_run does; none for a table that reads no model."""
    if kind not in MODELED_KINDS:
        return []
    args = []
    for folder in runs.values():
        index = folder / "model" / "phases.json"
        sim = ["--device", str(DEVICE), "--ftl-sim", str(FTL_SIM)]
        assert run_phases.main([str(folder), *sim, *DEPTHS[kind], "-o", str(index)]) == 0
        args += ["--model", str(index)]
    return args


def table_args(kind, runs, out):
    args = [kind, "--out", str(out), "--bounds-kib", *map(str, BOUNDS), *modeled(kind, runs)]
    for label, folder in runs.items():
        args += ["--run", label, str(folder)]
    return args


def table(tmp_path, kind, runs):
    out = tmp_path / f"{kind}.csv"
    assert main(table_args(kind, runs, out)) == 0
    with open(out, newline="") as handle:
        return list(csv.DictReader(handle))


@pytest.fixture
def runs(tmp_path):
    return {
        "scheme=f2fs": fragbench_run(tmp_path / "f2fs", 1.0, 6, gc_calls=4, pieces=64),
        "scheme=ars": fragbench_run(tmp_path / "ars", 1.5, 1, gc_calls=1, pieces=4),
    }


@needs_ftl_sim
def test_throughput_is_relative_to_f2fs_at_low(tmp_path, runs):
    rows = table(tmp_path, "throughput", runs)
    assert len(rows) == 2 * 2 * 4
    by = {(r["scheme"], r["state"], r["workload"]): float(r["wall_relative"]) for r in rows}
    assert by[("f2fs", "low", "seq-read")] == 1
    assert by[("f2fs", "high", "rand-write")] == pytest.approx(0.5)
    assert by[("ars", "high", "seq-write")] == pytest.approx(0.75)


@needs_ftl_sim
def test_throughput_on_the_device_model(tmp_path, runs):
    rows = {
        (r["scheme"], r["state"], r["workload"]): r for r in table(tmp_path, "throughput", runs)
    }
    write = rows[("f2fs", "low", "seq-write")]
    assert write["workload_bytes"] == str(4 * 2**20)
    assert write["requests"] == "64" and write["flushes"] == "64"
    assert write["write_bytes"] == str(4 * 2**20) and write["read_bytes"] == "0"
    modeled_mib_s = 4 / (float(write["modeled_ms"]) / 1000)
    assert float(write["modeled_mib_s"]) == pytest.approx(modeled_mib_s, rel=1e-5)
    assert write["modeled_relative"] == "1"
    # The same bytes in fewer, larger requests (ARS's whole files) model faster; more,
    # smaller ones (High) slower, whatever the emulator's wall time said.
    for workload in ("seq-read", "seq-write", "rand-read", "rand-write"):
        ars, f2fs = rows[("ars", "low", workload)], rows[("f2fs", "low", workload)]
        assert float(ars["modeled_relative"]) > 1, workload
        assert float(rows[("f2fs", "high", workload)]["modeled_relative"]) < 1, workload
        assert float(f2fs["modeled_mib_s"]) > 0 and float(f2fs["device_ms"]) > 0


@needs_ftl_sim
def test_a_fio_run_without_trace_is_named(tmp_path, runs, capsys):
    for path in (runs["scheme=ars"] / "blktrace" / "high-randread").iterdir():
        path.unlink()
    (runs["scheme=ars"] / "blktrace" / "high-randread").rmdir()
    order = runs["scheme=ars"] / "blktrace" / "order"
    kept = [p for p in order.read_text().splitlines() if p != "high-randread"]
    order.write_text("".join(f"{p}\n" for p in kept))
    assert main(table_args("throughput", runs, tmp_path / "t.csv")) == 1
    assert "no phase high-randread (the job did not trace it)" in capsys.readouterr().err


def test_a_modeled_table_needs_the_device_model(tmp_path, runs, capsys):
    with pytest.raises(SystemExit):
        main(["sqlite", "--run", "scheme=f2fs", str(runs["scheme=f2fs"]), "--out", "x.csv"])
    assert "it needs --model per run" in capsys.readouterr().err


def test_extents_count_every_reserved_file(tmp_path, runs):
    rows = {(r["scheme"], r["state"]): r for r in table(tmp_path, "extents", runs)}
    assert rows[("f2fs", "high")]["extents"] == "12"
    assert rows[("f2fs", "high")]["extents_max"] == "6"
    assert rows[("ars", "low")]["extents_mean"] == "1"


def test_freespace_levels_and_shares(tmp_path, runs):
    rows = [r for r in table(tmp_path, "freespace", runs) if r["scheme"] == "ars"]
    measured = {r["level"]: r for r in rows if r["phase"] == "measured"}
    # 0xAA: every other block free in the first 64 blocks (32 L1 fragments); the free
    # second segment is one fragment of 2 MiB (L7).
    assert measured["L1"]["fragments"] == "32" and measured["L7"]["fragments"] == "1"
    assert float(measured["L1"]["share"]) == pytest.approx(32 / 33)


def test_gc_counters_are_deltas_over_the_measurements(tmp_path, runs):
    rows = {(r["scheme"], r["counter"]): r for r in table(tmp_path, "gc", runs)}
    # the window opens after the GC pass: its 50 calls are the pass's, not the window's
    assert rows[("f2fs", "gc_calls")]["delta"] == "4"
    assert rows[("f2fs", "gc_calls")]["pass_delta"] == "50"
    assert rows[("ars", "gc_calls")]["delta"] == "1"
    assert rows[("ars", "gc_calls")]["collected"] == "52"
    assert rows[("f2fs", "gc_moved_blocks")]["delta"] == "40"
    assert rows[("f2fs", "read_ios")]["delta"] == "400"
    assert rows[("ars", "ars_reservations")]["measured"] == "53"


def test_gc_table_has_gcs_own_io_from_f2fs_iostat(tmp_path, runs):
    rows = {(r["scheme"], r["counter"]): r for r in table(tmp_path, "gc", runs)}
    f2fs, ars = "f2fs", "ars"
    assert rows[(f2fs, "gc_write_blocks")]["delta"] == str(4 * 4)
    assert rows[(f2fs, "gc_data_write_blocks")]["delta"] == str(3 * 4)
    assert rows[(ars, "gc_node_write_blocks")]["delta"] == "1"
    assert rows[(f2fs, "gc_read_blocks")]["delta"] == "4"
    # the disk's counters stay beside F2FS's own
    assert rows[(ars, "write_ios")]["delta"] == "50"


def test_a_state_without_iostat_is_named(tmp_path, runs, capsys):
    (runs["scheme=ars"] / "state" / "collected" / "iostat.txt").write_text("")
    assert main(table_args("gc", runs, tmp_path / "gc.csv")) == 1
    error = capsys.readouterr().err
    assert "collected/iostat.txt: iostat: empty" in error


@needs_ftl_sim
def test_create_times_relative_to_f2fs(tmp_path, runs):
    rows = {r["scheme"]: r for r in table(tmp_path, "create", runs)}
    assert rows["f2fs"]["wall_mean_us"] == "3" and rows["ars"]["wall_relative"] == "1"
    f2fs = rows["f2fs"]
    assert (f2fs["files"], f2fs["requests"], f2fs["flushes"]) == ("2", "2", "2")
    modeled_mean_us = float(f2fs["modeled_ms"]) * 1000 / 2
    assert float(f2fs["modeled_mean_us"]) == pytest.approx(modeled_mean_us, rel=1e-5)
    assert rows["ars"]["modeled_relative"] == "1"


@needs_ftl_sim
def test_create_adds_up_every_creation_phase_of_a_workload(tmp_path, runs):
    folder = runs["scheme=ars"]
    (folder / "create.tsv").write_text("apps\ta\t1000\napps\tb\t1000\napps\tc\t1000\n")
    for phase in ("create-apps-low-facebook", "create-apps-low-twitter"):
        write_blktrace(folder / "blktrace" / phase, [(0, "W", 64, 8), (10, "F", 0, 0)])
    rows = table(tmp_path, "create", {"scheme=ars": folder})
    assert (rows[0]["workload"], rows[0]["files"], rows[0]["requests"]) == ("apps", "3", "2")
    (folder / "create.tsv").write_text("sqlite\ta\t1000\n")
    assert main(table_args("create", {"scheme=ars": folder}, tmp_path / "c.csv")) == 1


def replay(path, sql=0, seconds=1.0, errors=0, other=None, threads=1, pieces=None):
    """The agent's replay JSON, and the phase's block trace (blktrace/<job's name>/) of
    `pieces` fsync'd 4 KiB writes when given."""
    ops = {"sql": sql, **(other or {})}
    path.parent.mkdir(parents=True, exist_ok=True)
    document = {
        "ops": ops,
        "errors": {k: (errors if k == "sql" else 0) for k in ops},
        "seconds": seconds,
        "marks_set": 5,
        "mark_errors": 0,
        "threads": threads,
    }
    path.write_text(json.dumps(document))
    if pieces:
        phase = path.stem if path.stem[0].isalpha() else f"sqlite-{path.stem}"
        requests = [(i * 100, "W", i * 64, 8) for i in range(pieces)]
        requests += [(i * 100 + 50, "F", 0, 0) for i in range(pieces)]
        write_blktrace(path.parent.parent / "blktrace" / phase, sorted(requests))


@needs_ftl_sim
def test_sqlite_tps_and_ratio(tmp_path):
    runs = {}
    for scheme, seconds, pieces in (("f2fs", 2.0, 400), ("ars", 1.0, 200)):
        folder = tmp_path / scheme
        replay(folder / "replay" / "1-insert.json", 100, seconds, threads=2, pieces=pieces)
        replay(folder / "replay" / "2-update.json", 100, seconds, 10, threads=2, pieces=pieces)
        runs[f"scheme={scheme}"] = folder
    rows = {(r["scheme"], r["kind"]): r for r in table(tmp_path, "sqlite", runs)}
    assert rows[("f2fs", "insert")]["wall_tps"] == "50"
    ars = rows[("ars", "update")]
    assert ars["wall_tps"] == "90" and ars["wall_relative"] == "2"
    # on the device model: 90 transactions over the modeled time of half the writes
    assert ars["queue_depth"] == "2" and ars["requests"] == "200" and ars["flushes"] == "200"
    assert float(ars["modeled_tps"]) == pytest.approx(90 / (float(ars["modeled_ms"]) / 1000))
    assert 1.5 < float(ars["modeled_relative"]) < 2.5


@needs_ftl_sim
def test_sqlite_without_transactions_fails(tmp_path):
    replay(tmp_path / "f2fs" / "replay" / "1-insert.json", sql=5, errors=5, pieces=2)
    assert main(table_args("sqlite", {"scheme=f2fs": tmp_path / "f2fs"}, "x.csv")) == 1


@needs_ftl_sim
def test_a_phase_that_never_reached_the_disk_is_named(tmp_path, capsys):
    replay(tmp_path / "f2fs" / "replay" / "1-insert.json", sql=5, pieces=1)
    write_blktrace(tmp_path / "f2fs" / "blktrace" / "sqlite-1-insert", [])
    assert main(table_args("sqlite", {"scheme=f2fs": tmp_path / "f2fs"}, "x.csv")) == 1
    assert "never reached the disk" in capsys.readouterr().err


@needs_ftl_sim
def test_apps_running_time_relative_to_f2fs_per_state(tmp_path):
    runs = {}
    for scheme, seconds, pieces in (("f2fs", 4.0, 100), ("ars", 3.0, 50)):
        folder = tmp_path / scheme
        for state in ("low", "moderate"):
            replay(
                folder / "replay" / f"{state}-facebook.json",
                seconds=seconds,
                other={"write": 7},
                pieces=pieces,
            )
            (folder / f"marked-{state}-facebook.json").write_text(
                json.dumps({"listed": 3, "present": 3, "marked": 2})
            )
        runs[f"scheme={scheme}"] = folder
    rows = {(r["scheme"], r["state"]): r for r in table(tmp_path, "apps", runs)}
    assert rows[("ars", "moderate")]["wall_relative"] == "0.75"
    assert rows[("ars", "moderate")]["wall_seconds"] == "3.0"
    assert rows[("ars", "low")]["reserved_marked"] == "2"
    assert rows[("f2fs", "low")]["ops"] == "7"
    assert rows[("ars", "low")]["marks_set"] == "5" and rows[("ars", "low")]["mark_errors"] == "0"
    ars = rows[("ars", "moderate")]
    assert ars["queue_depth"] == "1" and ars["requests"] == "50"
    assert float(ars["modeled_seconds"]) == pytest.approx(float(ars["modeled_ms"]) / 1000)
    assert 0.4 < float(ars["modeled_relative"]) < 0.6


def test_sqlite_traces_of_each_kind_and_their_reserved_files():
    from mobifrag.workloads import insert_benchmark

    ops = insert_benchmark.insert_ops(2, "truncate", 3, 100, kind="delete")
    assert sum(1 for op in ops if op.op == "sql" and op.args[1] == "delete") == 6
    assert insert_benchmark.reserved_files(2, "truncate") == [
        "mobibench/db-0.db",
        "mobibench/db-0.db-journal",
        "mobibench/db-1.db",
        "mobibench/db-1.db-journal",
    ]
    assert insert_benchmark.reserved_files(1, "wal")[1] == "mobibench/db-0.db-wal"
    with pytest.raises(ValueError, match="kind"):
        insert_benchmark.insert_ops(1, "truncate", 1, 1, kind="select")


def test_freespace_without_bounds_names_the_missing_option(tmp_path, capsys):
    with pytest.raises(SystemExit):
        main(["freespace", "--run", "scheme=f2fs", str(tmp_path), "--out", "x.csv"])
    assert "--bounds-kib" in capsys.readouterr().err


def test_ratios_pair_rows_of_one_repetition():
    rows = [
        {"scheme": "f2fs", "rep": "1", "kind": "insert", "tps": "100"},
        {"scheme": "f2fs", "rep": "2", "kind": "insert", "tps": "50"},
        {"scheme": "ars", "rep": "1", "kind": "insert", "tps": "150"},
        {"scheme": "ars", "rep": "2", "kind": "insert", "tps": "150"},
    ]
    ars_eval.ratios(rows, "tps", lambda r: r["kind"])
    assert [r["relative"] for r in rows] == ["1", "1", "1.5", "3"]


def test_fig4_normalizes_to_f2fs_at_low_in_the_same_repetition():
    rows = [
        {"scheme": s, "rep": rep, "state": state, "workload": "seq-read", "mib_s": v}
        for s, rep, state, v in (
            ("f2fs", "1", "low", "10"),
            ("f2fs", "2", "low", "20"),
            ("ars", "1", "high", "5"),
            ("ars", "2", "high", "5"),
        )
    ]
    ars_eval.relative_to_low(rows, "mib_s", "relative")
    assert [r["relative"] for r in rows] == ["1", "1", "0.5", "0.25"]
