"""Create/delete aging of the Ext4 tuning study (seed 004, §4.1): 256 KB files created
and deleted at random until the live ones hold half the disk."""

import pytest

from mobifrag.workloads.__main__ import main
from mobifrag.workloads.filldelete import CHURN_DIR, create_delete
from mobifrag.workloads.iotrace import read_trace, trace_lines

MIB, KIB = 1024 * 1024, 1024


def live_files(ops):
    live, sizes = set(), {}
    for op in ops:
        if op.op == "create":
            live.add(op.path)
            sizes[op.path] = 0
        elif op.op == "append":
            sizes[op.path] += op.args[0]
        elif op.op == "unlink":
            assert op.path in live, f"{op.path} deleted while not live"
            live.remove(op.path)
    return live, sizes


def test_live_files_fill_the_target_share_of_the_disk():
    ops = create_delete(64 * MIB, 50, 256 * KIB, 0.6, seed=4)
    live, sizes = live_files(ops)
    assert len(live) * 256 * KIB == 32 * MIB
    assert set(sizes.values()) == {256 * KIB}
    assert all(p.startswith(f"{CHURN_DIR}/") for p in sizes)
    # then random live files go until the file system itself is at the target
    last = ops[-1]
    assert (last.op, last.path, last.args[:2], last.args[3]) == (
        "reclaim",
        CHURN_DIR,
        (50, 0),
        "file-*",
    )


def test_files_are_both_created_and_deleted_and_every_file_is_synced():
    ops = create_delete(64 * MIB, 50, 256 * KIB, 0.6, seed=4)
    creates = [op.path for op in ops if op.op == "create"]
    unlinks = [op.path for op in ops if op.op == "unlink"]
    fsyncs = {op.path for op in ops if op.op == "fsync"}
    assert len(unlinks) > 0.3 * len(creates)
    assert set(creates) == fsyncs
    # random victims: not simply the oldest files first
    assert unlinks != sorted(unlinks)


def test_only_creates_when_create_share_is_one():
    ops = create_delete(16 * MIB, 50, 256 * KIB, 1.0, seed=1)
    assert not [op for op in ops if op.op == "unlink"]
    assert sum(op.op == "create" for op in ops) == 32


def test_is_deterministic_per_seed():
    lines = lambda seed: list(trace_lines(create_delete(16 * MIB, 50, 256 * KIB, 0.6, seed)))  # noqa: E731
    assert lines(1) == lines(1)
    assert lines(1) != lines(2)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((64 * MIB, 0, 256 * KIB, 0.6), "is not in 1..99"),
        ((64 * MIB, 50, 256 * KIB, 0.5), "create share 0.5 must be above 0.5"),
        ((64 * MIB, 50, 1000, 0.6), "not a positive multiple of 4 KiB"),
    ],
)
def test_bad_arguments_are_named(args, message):
    with pytest.raises(ValueError, match=message):
        create_delete(*args, seed=1)


def test_cli_writes_a_trace_the_reader_accepts(tmp_path, capsys):
    out = tmp_path / "aging.iotrace"
    argv = ["createdelete", "--disk-bytes", "32M", "--target", "50", "--file-bytes", "256K"]
    argv += ["--create-share", "0.6", "--seed", "7", "--out", str(out)]
    assert main(argv) == 0
    assert '"unlinks"' in capsys.readouterr().out
    live, _ = live_files(read_trace(out))
    assert len(live) == 64


def test_cli_rejects_a_bad_share(tmp_path, capsys):
    out = tmp_path / "x.iotrace"
    argv = ["createdelete", "--disk-bytes", "32M", "--target", "50", "--file-bytes", "256K"]
    assert main([*argv, "--create-share", "0.4", "--seed", "1", "--out", str(out)]) == 65
    assert "create share" in capsys.readouterr().err
    assert not out.exists()
