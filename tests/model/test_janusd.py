"""janusd's plan → REMAP conversion, its trace, janusdP's selection (model.janusd_remap)."""

import csv

import pytest

from mobifrag.measure.fragmentation import Extent
from mobifrag.measure.snapshot import Snapshot, read_snapshot
from mobifrag.model import janusd_remap as janusd
from mobifrag.model.janusd_remap import JanusdError, Remap, Request
from mobifrag.tables import janusd as janusd_tables
from mobifrag.tables.fragments import dof_rows

B = 4096  # block size
S = B // 512  # sectors per block


def snap(extents):
    """A Snapshot of files given as path → [(file block, device block, blocks)]."""
    files = {
        path: [Extent(lb * B, pb * B, n * B) for lb, pb, n in runs]
        for path, runs in extents.items()
    }
    s = Snapshot("ext4", B, 10000, 5000)
    s.extents = files
    return s


def test_moved_blocks_become_remaps_of_runs_that_move_together():
    before = snap({"a.db": [(0, 10, 4), (4, 30, 2)], "same.db": [(0, 70, 3)]})
    after = snap({"a.db": [(0, 50, 6)], "same.db": [(0, 70, 3)]})
    assert janusd.relocation_plan(before, after) == {
        "a.db": [Remap(10 * B, 50 * B, 4 * B), Remap(30 * B, 54 * B, 2 * B)]
    }


def test_interleaved_blocks_are_not_merged_across_the_file_order():
    # File blocks 0, 1, 2 sit at 100, 200, 101: 100 and 101 are adjacent on disk but not
    # in the file, so each block is its own remap.
    before = snap({"a.db": [(0, 100, 1), (1, 200, 1), (2, 101, 1)]})
    after = snap({"a.db": [(0, 500, 3)]})
    plan = janusd.relocation_plan(before, after)["a.db"]
    assert [(r.src // B, r.dst // B, r.length // B) for r in plan] == [
        (100, 500, 1),
        (200, 501, 1),
        (101, 502, 1),
    ]


def test_blocks_that_stay_are_not_remapped():
    before = snap({"a.db": [(0, 10, 2), (2, 40, 2)]})
    after = snap({"a.db": [(0, 10, 2), (2, 12, 2)]})
    assert janusd.relocation_plan(before, after) == {"a.db": [Remap(40 * B, 12 * B, 2 * B)]}


def test_applying_the_remaps_gives_e4defrags_layout_and_dof():
    before = snap({"a.db": [(0, 10, 1), (1, 30, 1), (2, 11, 2)], "b.db": [(0, 90, 2)]})
    after = snap({"a.db": [(0, 50, 4)], "b.db": [(0, 90, 2)]})
    plan = janusd.relocation_plan(before, after)
    remapped = janusd.remapped_snapshot(before, plan)
    assert remapped.extents["a.db"] == [Extent(0, 50 * B, 4 * B)]
    for s in (before, after, remapped):
        s.files = [
            type("F", (), {"path": p, "size_bytes": 0, "allocated_bytes": 0})() for p in s.extents
        ]
    dof = {r["path"]: r["dof"] for r in dof_rows(remapped)}
    assert dof == {r["path"]: r["dof"] for r in dof_rows(after)}
    assert {r["path"]: r["dof"] for r in dof_rows(before)}["a.db"] == "3"


def test_a_file_whose_blocks_differ_after_the_defrag_is_an_error():
    before = snap({"a.db": [(0, 10, 4)]})
    with pytest.raises(JanusdError, match="a.db: 4 blocks before the defrag but 3 after"):
        janusd.relocation_plan(before, snap({"a.db": [(0, 50, 3)]}))
    with pytest.raises(JanusdError, match="a.db: in the snapshot before the defrag but not"):
        janusd.relocation_plan(before, snap({}))


def test_trace_drops_data_copies_keeps_metadata_and_issues_remaps_in_e4defrag_order():
    plan = {
        "a.db": [Remap(10 * B, 50 * B, 2 * B)],
        "b.db": [Remap(20 * B, 60 * B, B)],
    }
    trace = [
        Request(100, "write", 5 * S, S),  # metadata (journal): kept
        Request(200, "read", 20 * S, S),  # b's old data: e4defrag moves b first
        Request(300, "read", 10 * S, 2 * S),  # a's old data
        Request(400, "write", 59 * S, 3 * S),  # block 59 is metadata, 60 b's new data
        Request(500, "write", 50 * S, 2 * S),  # a's new data
        Request(600, "flush", 0, 0),
    ]
    out, rows = janusd.logical_trace(trace, plan, B)
    assert [(p, n, t) for p, n, t, _ in rows] == [("b.db", 0, 200), ("a.db", 1, 300)]
    assert out == [
        Request(100, "write", 5 * S, S),
        Request(200, "remap", 20 * S, S, 60 * S),
        Request(300, "remap", 10 * S, 2 * S, 50 * S),
        Request(400, "write", 59 * S, S),
        Request(400, "write", 61 * S, S),
        Request(600, "flush", 0, 0),
    ]


def test_remap_order_that_would_overwrite_unmoved_data_is_refused():
    # b moves into a's old blocks, but the trace shows b handled before a.
    plan = {"a.db": [Remap(10 * B, 50 * B, B)], "b.db": [Remap(20 * B, 10 * B, B)]}
    trace = [Request(1, "read", 20 * S, S), Request(2, "read", 10 * S, S)]
    with pytest.raises(JanusdError, match="b.db: .* would overwrite data of a.db"):
        janusd.logical_trace(trace, plan, B)
    # In e4defrag's real order (a first, its blocks freed, then b) it is fine.
    trace = [Request(1, "read", 10 * S, S), Request(2, "read", 20 * S, S)]
    out, _ = janusd.logical_trace(trace, plan, B)
    assert [r.op for r in out] == ["remap", "remap"]


def test_janusdp_selects_files_above_the_threshold():
    dof_p = {"a.db": 0.75, "b.db": 0.5, "c.db": 0.1}
    assert janusd.select_physical(dof_p, 0.5) == ["a.db"]
    assert janusd.select_physical(dof_p, 0.0) == ["a.db", "b.db", "c.db"]
    with pytest.raises(JanusdError, match="threshold 1.0 is not in"):
        janusd.select_physical(dof_p, 1.0)


def test_janusdp_reads_then_rewrites_the_file_in_file_order():
    s = snap({"a.db": [(130, 900, 2), (0, 100, 130)], "b.db": [(0, 5, 1)]})
    reqs = janusd.copy_trace(s, ["a.db"])
    chunk = janusd.COPY_CHUNK_BYTES // 512
    expected = [(100 * S, chunk), (100 * S + chunk, 130 * S - chunk), (900 * S, 2 * S)]
    assert [(r.sector, r.sectors) for r in reqs if r.op == "read"] == expected
    assert [(r.sector, r.sectors) for r in reqs if r.op == "write"] == expected
    assert [r.op for r in reqs] == ["read"] * 3 + ["write"] * 3
    assert [r.time_ns for r in reqs] == sorted(r.time_ns for r in reqs)


def test_logical_command_writes_plan_trace_and_snapshot(snapshot_dir, tmp_path):
    files = [("a.db", 3 * B, 3 * B, 2, 12), ("b.db", B, B, 1, 13)]
    before = snapshot_dir(
        "before",
        files=files,
        extents=[
            ("a.db", 0, 0, 10 * B, 2 * B, "-"),
            ("a.db", 1, 2 * B, 30 * B, B, "last"),
            ("b.db", 0, 0, 90 * B, B, "last"),
        ],
    )
    after = snapshot_dir(
        "after",
        files=[("a.db", 3 * B, 3 * B, 1, 12), ("b.db", B, B, 1, 13)],
        extents=[("a.db", 0, 0, 50 * B, 3 * B, "last"), ("b.db", 0, 0, 90 * B, B, "last")],
    )
    trace = tmp_path / "e4defrag.csv"
    trace.write_text("time_ns,op,sector,sectors,dst_sector\n7,read,80,16\n9,write,400,24\n")
    out = tmp_path / "janusdl"
    assert (
        janusd.main(
            ["logical", "--before", str(before), "--after", str(after)]
            + ["--trace", str(trace), "--out", str(out)]
        )
        == 0
    )
    with open(out / "plan.csv") as handle:
        plan = list(csv.DictReader(handle))
    assert [(r["path"], r["order"], r["time_ns"], r["length_bytes"]) for r in plan] == [
        ("a.db", "0", "7", str(2 * B)),
        ("a.db", "0", "7", str(B)),
    ]
    assert janusd.read_trace(out / "janusdl.csv") == [
        Request(7, "remap", 10 * S, 2 * S, 50 * S),
        Request(7, "remap", 30 * S, S, 52 * S),
    ]
    remapped, real = read_snapshot(out / "after"), read_snapshot(after)
    assert dof_rows(remapped) == dof_rows(real)


def test_a_trace_that_is_not_ftl_sims_csv_is_named(tmp_path, capsys):
    bad = tmp_path / "bad.csv"
    bad.write_text("a,b\n1,2\n")
    with pytest.raises(JanusdError, match="bad.csv: header"):
        janusd.read_trace(bad)
    bad.write_text("time_ns,op,sector,sectors\n1,write,x,8\n")
    with pytest.raises(JanusdError, match="bad.csv:2: not a trace row"):
        janusd.read_trace(bad)


def ftl_summary(write_bytes, flash_bytes, remapped):
    return {
        "requests": {"write": {"count": 2, "bytes": write_bytes}},
        "flash": {
            "bytes_written": flash_bytes,
            "page_programs": flash_bytes // B,
            "waf": 1.0,
            "remapped_pages": remapped,
        },
        "translation": {"page_writes": 1},
    }


def test_recurring_table_has_a_row_per_day_and_method(tmp_path):
    import json

    from conftest import write_snapshot

    defrags = tmp_path / "defrags"
    for day, moved in (("day-01", 3), ("day-02", 1)):
        folder = defrags / day
        (folder / "janusdl").mkdir(parents=True)
        # janusdL's `after` keeps the file system's fs.tsv: 262,144 blocks of 4 KiB
        write_snapshot(
            folder / "janusdl" / "after", [], [], fs=("ext4", B, 262144, 1000, "/dev/vdb")
        )
        plan = ["path,order,time_ns,src_bytes,dst_bytes,length_bytes"]
        plan += [f"f{i}.db,{i},0,0,{B},{B}" for i in range(moved)]
        (folder / "janusdl" / "plan.csv").write_text("\n".join(plan) + "\n")
        summaries = {"e4defrag": ftl_summary(moved * B + B, moved * B + 2 * B, 0)}
        summaries["janusdl"] = ftl_summary(B, 2 * B, moved)
        for name, data in summaries.items():
            (folder / f"ftl-{name}.json").write_text(json.dumps(data))
    out = tmp_path / "copies.csv"
    run = ["--run", "interval_days=1", str(defrags)]
    assert janusd_tables.main(["recurring", *run, "--out", str(out)]) == 0
    with open(out) as handle:
        rows = list(csv.DictReader(handle))
    assert [(r["interval_days"], r["day"], r["method"], r["files_moved"]) for r in rows] == [
        ("1", "1", "e4defrag", "3"),
        ("1", "1", "janusdL", "3"),
        ("1", "2", "e4defrag", "1"),
        ("1", "2", "janusdL", "1"),
    ]
    assert rows[0]["moved_bytes"] == str(3 * B)
    assert {r["fs_bytes"] for r in rows} == {str(262144 * B)}
    assert rows[1]["host_write_bytes"] == str(B) and rows[1]["remapped_pages"] == "3"


def test_recurring_table_without_defragmentations_is_an_error(tmp_path, capsys):
    (tmp_path / "empty").mkdir()
    run = ["--run", "interval_days=7", str(tmp_path / "empty")]
    status = janusd_tables.main(["recurring", *run, "--out", str(tmp_path / "o.csv")])
    assert status == 1
    assert "no day-NN defragmentations" in capsys.readouterr().err


def test_launch_reads_every_file_of_the_app_once_piece_by_piece():
    s = snap(
        {
            "app/com.x-1/base.apk": [(0, 100, 130)],  # one piece, over two requests
            "data/com.x/db/a.db": [(0, 10, 1), (1, 11, 1), (2, 40, 1)],  # two pieces
            "data/com.xy/other.db": [(0, 500, 1)],  # another app
            "fill/filler.bin": [(0, 600, 8)],
        }
    )
    assert janusd.app_files(s, "com.x") == ["app/com.x-1/base.apk", "data/com.x/db/a.db"]
    reads = janusd.launch_trace(s, "com.x")
    chunk = janusd.COPY_CHUNK_BYTES // 512
    assert [(r.op, r.sector, r.sectors) for r in reads] == [
        ("read", 100 * S, chunk),
        ("read", 100 * S + chunk, 130 * S - chunk),
        ("read", 10 * S, 2 * S),
        ("read", 40 * S, S),
    ]
    assert janusd.launch_trace(s, "com.absent") == []


def test_launch_command_writes_reads_and_address_ordered_writes(snapshot_dir, tmp_path):
    snap_dir = snapshot_dir(
        files=[("data/com.x/a.db", 2 * B, 2 * B, 2, 5)],
        extents=[
            ("data/com.x/a.db", 0, 0, 70 * B, B, "-"),
            ("data/com.x/a.db", 1, B, 20 * B, B, "last"),
        ],
    )
    out = tmp_path / "launch"
    assert (
        janusd.main(
            ["launch", "--snapshot", str(snap_dir), "--package", "com.x"] + ["--out", str(out)]
        )
        == 0
    )
    reads = janusd.read_trace(out / "reads.csv")
    writes = janusd.read_trace(out / "writes.csv")
    assert [r.sector for r in reads] == [70 * S, 20 * S]
    assert [(r.op, r.sector) for r in writes] == [("write", 20 * S), ("write", 70 * S)]


def test_dof_lp_pairs_each_files_dof_with_its_dof_p(snapshot_dir, tmp_path):
    folder = tmp_path / "threads-2"
    files = [("writer0.db", 2 * B, 2 * B, 2, 5), ("writer1.db", 2 * B, 2 * B, 1, 6)]
    snapshot_dir(
        "threads-2/run/snapshot",
        files=files,
        extents=[
            ("writer0.db", 0, 0, 10 * B, B, "-"),
            ("writer0.db", 1, B, 20 * B, B, "last"),
            ("writer1.db", 0, 0, 30 * B, 2 * B, "last"),
        ],
    )
    dop = "file,pages,mapped_pages,avg_parallelism,dop,dof_p\n"
    dop += "writer0.db,2,2,2,0.25,0.75\nwriter1.db,2,2,1,0.125,0.875\n"
    (folder / "ftl-append.dop.csv").write_text(dop)
    out = tmp_path / "lp.csv"
    assert (
        janusd_tables.main(
            [
                *("dof-lp", "--run", "level=low,threads=2"),
                *(str(folder / "run/snapshot"), str(folder / "ftl-append.dop.csv")),
                *("--out", str(out)),
            ]
        )
        == 0
    )
    with open(out) as handle:
        rows = [(r["path"], r["dof"], r["dof_p"], r["level"]) for r in csv.DictReader(handle)]
    assert rows == [("writer0.db", "2", "0.75", "low"), ("writer1.db", "1", "0.875", "low")]
    (folder / "ftl-append.dop.csv").write_text(dop.splitlines()[0] + "\n")
    with pytest.raises(JanusdError, match="writer0.db of .* has no DoF_P"):
        janusd_tables.dof_lp_rows({}, folder / "run/snapshot", folder / "ftl-append.dop.csv")


TWITTER, CHROME = "com.twitter.android", "com.android.chrome"
MIB = 1024 * 1024
# 256 MiB in two 128 MiB pieces: two extents are the fewest it needs, DoF 1
ODEX = [(0, 1000 * MIB, 128 * MIB), (128 * MIB, 0, 128 * MIB)]


def recurring_snapshot(folder, files):
    """A fragcheck snapshot (files.tsv, extents.tsv, fs.tsv as the agent writes them) of
    files given as path → [(file byte, device byte, bytes)]."""
    from conftest import write_snapshot

    rows, extents = [], []
    for inode, (path, runs) in enumerate(files.items(), start=12):
        size = sum(n for _, _, n in runs)
        rows.append((path, size, size, len(runs), inode))
        extents += [(path, i, lb, pb, n, "-") for i, (lb, pb, n) in enumerate(runs)]
    return write_snapshot(folder, rows, extents, fs=("ext4", B, 262144, 1000, "/dev/vdb"))


def test_recurring_dof_is_the_mean_dof_of_each_apps_files(tmp_path, capsys):
    run = tmp_path / "every-7d" / "run"
    recurring_snapshot(
        run / "defrag/day-07/before",
        {
            # two pieces: blocks 0-3 at 100, 4-5 at 300
            f"app/{TWITTER}-1/base.apk": [(0, 100 * B, 4 * B), (4 * B, 300 * B, 2 * B)],
            # three extents, the first two adjacent on disk: two pieces
            f"data/{TWITTER}/databases/a.db": [(0, 10 * B, B), (B, 11 * B, B), (2 * B, 40 * B, B)],
            f"app/{TWITTER}-1/oat/base.odex": ODEX,
            f"data/{CHROME}/cache/c": [(0, 500 * B, 3 * B)],
            "fill/filler.bin": [(0, 600 * B, 8 * B), (8 * B, 700 * B, 8 * B)],  # no app's
        },
    )  # fmt: skip
    recurring_snapshot(
        run / "defrag/day-07/after",
        {
            f"app/{TWITTER}-1/base.apk": [(0, 800 * B, 6 * B)],
            f"data/{TWITTER}/databases/a.db": [(0, 810 * B, 3 * B)],
            f"app/{TWITTER}-1/oat/base.odex": ODEX,
            f"data/{CHROME}/cache/c": [(0, 500 * B, 3 * B)],
        },
    )  # fmt: skip
    out = tmp_path / "dof.csv"
    args = ["recurring-dof", "--run", "interval_days=7", str(run)]
    args += ["--packages", TWITTER, CHROME, "com.facebook.orca", "--out", str(out)]
    assert janusd_tables.main(args) == 0, capsys.readouterr().err
    with open(out) as handle:
        reader = csv.DictReader(handle)
        assert tuple(reader.fieldnames) == ("interval_days",) + janusd_tables.RECURRING_DOF_COLUMNS
        rows = [tuple(r.values()) for r in reader]
    # Messenger is not installed yet: no row. Twitter before: DoF 2, 2 and 1 (6 pieces).
    assert rows == [
        ("7", "7", "before_defrag", TWITTER, "3", "6", "1.66667"),
        ("7", "7", "before_defrag", CHROME, "1", "1", "1"),
        ("7", "7", "after_defrag", TWITTER, "3", "4", "1"),
        ("7", "7", "after_defrag", CHROME, "1", "1", "1"),
    ]


def test_recurring_dof_needs_the_runs_snapshots(tmp_path, capsys):
    run = tmp_path / "run"
    recurring_snapshot(run / "defrag/day-01/before", {f"data/{TWITTER}/a.db": [(0, 0, B)]})
    args = ["recurring-dof", "--run", "interval_days=1", str(run), "--packages", TWITTER]
    assert janusd_tables.main([*args, "--out", str(tmp_path / "o.csv")]) == 1
    assert f"{run / 'defrag/day-01/after/fs.tsv'}" in capsys.readouterr().err
    (tmp_path / "empty").mkdir()
    args[3] = str(tmp_path / "empty")
    assert janusd_tables.main([*args, "--out", str(tmp_path / "o.csv")]) == 1
    assert "empty: no defrag/day-NN snapshots" in capsys.readouterr().err


def test_recurring_runs_start_from_images_aged_to_70_and_90_percent():
    # janusd §2.3-2.4: the phones at 70 % and 90 %, Twitter updated every 7 days; the
    # aged images hold only holes (fill/delete, checked), not AutoAge's sequential fill
    from conftest import planned_jobs, snakemake

    target = "results/emulator-emmc/test/janusd/recurring/dof.csv"
    run = snakemake("-n", "-p", "--forceall", target, "--config", "scale=test")
    out = run.stdout + run.stderr
    jobs = planned_jobs(out)
    assert jobs["janusd_recurring_age"] == 2 and jobs["janusd_recurring_free_space"] == 1
    assert jobs["janusd_recurring"] == 3  # weekly at 70 and 90 %, daily at 90 %
    commands = [line for line in out.splitlines() if "mobifrag." in line]
    aging = sorted(c for c in commands if "workloads filldelete" in c)
    assert [c.split("--target ")[1].split()[0] for c in aging] == ["70", "90"]
    assert all("--hole-limit 524288" in c for c in aging)
    (traces,) = [c for c in commands if "workloads autoage" in c]
    assert "--aged" in traces and "--update-every twitter=7" in traces
    runs = [c for c in commands if "--script jobs/janusd-recurring.sh" in c]
    assert len(runs) == 3
    for command in runs:
        utilization = command.split("/janusd/recurring/util-")[1].split("/")[0]
        assert f"--disk-from {command.split('--out ')[1].split('/janusd/')[0]}" in command
        assert f"/janusd/recurring/aged/util-{utilization}/disk.img" in command
        assert " -- ext4 aged " in command
    (check,) = [c for c in commands if "tables.free_space" in c]
    assert "--state util-70 " in check and "utilization_near=70" in check
    assert "--state util-90 " in check and "utilization_near=90" in check


def test_unwritten_extents_move_without_a_remap():
    # An aged image's fill rest is fallocated (unwritten): e4defrag swaps its extents
    # without I/O, and a.db took its old blocks first; remapping it would order nothing
    # and map a.db's data twice, so only a.db's data is remapped.
    before = snap({"a.db": [(0, 10, 2)]})
    before.extents["rest.bin"] = [Extent(0, 30 * B, 2 * B, frozenset({"unwritten"}))]
    after = snap({"a.db": [(0, 30, 2)], "rest.bin": [(0, 50, 2)]})
    plan = janusd.relocation_plan(before, after)
    assert set(plan) == {"a.db", "rest.bin"}
    assert janusd.data_plan(before, plan) == {"a.db": [Remap(10 * B, 30 * B, 2 * B)]}
    # in e4defrag's order rest.bin has no request and would come last: a.db's remap onto
    # its blocks is refused with the whole plan, accepted with the data's
    trace = [Request(5, "read", 10 * S, 2 * S), Request(6, "write", 30 * S, 2 * S)]
    with pytest.raises(JanusdError, match="would overwrite data of rest.bin"):
        janusd.logical_trace(trace, plan, B)
    requests, rows = janusd.logical_trace(trace, janusd.data_plan(before, plan), B)
    assert [r.op for r in requests] == ["remap"]
    assert [row[0] for row in rows] == ["a.db"]
