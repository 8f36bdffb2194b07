from statistics import fmean

import pytest

from mobifrag.workloads.__main__ import main
from mobifrag.workloads.filldelete import LARGE_BYTES, SMALL_BYTES, fill_delete, holes
from mobifrag.workloads.iotrace import trace_lines

MIB = 1024 * 1024


def file_sizes(ops, folder):
    sizes = {}
    for op in ops:
        if op.op == "append" and op.path.startswith(folder):
            sizes[op.path] = sizes.get(op.path, 0) + op.args[0]
    return sizes


def test_fill_delete_overfills_then_thins_down_to_target():
    ops = fill_delete(256 * MIB, 90, seed=3, hole_limit=512 * 1024)
    large, small = file_sizes(ops, "aging/large"), file_sizes(ops, "aging/small")
    assert sum(large.values()) + sum(small.values()) >= 256 * MIB
    assert all(LARGE_BYTES[0] - 4096 <= s <= LARGE_BYTES[1] for s in large.values())
    assert all(4096 <= s <= SMALL_BYTES[1] for s in small.values())
    assert 0.8 < sum(small.values()) / sum(large.values()) < 1.05
    rest, last = ops[-2], ops[-1]
    # every block the files left is taken before small files are deleted
    assert (rest.op, rest.path, rest.args) == ("fill", "aging/large/rest.bin", (100,))
    assert (last.op, last.path, last.args) == ("thin", "aging/small", (90, 3, "small-*", 524288))


def test_small_files_average_near_the_holes_of_the_papers_full_state():
    # TMC §4.3 fn. 4: pieces of 88 KB; log-uniform 4-500 KiB averages about 103 KiB,
    # where uniform sizes averaged 252 KiB
    small = file_sizes(fill_delete(256 * MIB, 90, seed=3), "aging/small")
    assert 80 * 1024 < fmean(small.values()) < 130 * 1024
    below_64k = sum(s < 64 * 1024 for s in small.values()) / len(small)
    assert 0.45 < below_64k < 0.65  # log-uniform: ln(16) / ln(125) = 0.57


def test_small_files_are_synced_by_batch_before_the_next_large_file():
    ops = fill_delete(64 * MIB, 90, seed=3)
    kinds = [(op.op, op.path.split("/")[1]) for op in ops if op.op in ("fsync", "syncfs")]
    # large file fsynced, then its batch of small files synced at once, alternating
    assert kinds[:4] == [("fsync", "large"), ("syncfs", "small")] * 2
    assert kinds[-1] == ("syncfs", "small")
    assert [op.op for op in ops[-3:]] == ["syncfs", "fill", "thin"]
    assert not any(op.op == "fsync" and op.path.startswith("aging/small") for op in ops)


def test_fill_delete_scales_its_files_with_the_apps():
    ops = fill_delete(64 * MIB, 97, seed=3, size_scale=1 / 32)
    large, small = file_sizes(ops, "aging/large"), file_sizes(ops, "aging/small")
    assert sum(large.values()) + sum(small.values()) >= 64 * MIB
    assert all(LARGE_BYTES[0] // 32 - 4096 <= s <= LARGE_BYTES[1] // 32 for s in large.values())
    # whole blocks: the smallest files are one block, the largest a 32nd of 500 KB
    assert all(4096 <= s <= SMALL_BYTES[1] // 32 for s in small.values())
    assert min(small.values()) == 4096


@pytest.mark.parametrize("scale", [0, -1, 1.5])
def test_fill_delete_refuses_a_size_scale_outside_zero_to_one(scale):
    with pytest.raises(ValueError, match="size scale"):
        fill_delete(64 * MIB, 90, seed=1, size_scale=scale)


def test_fill_delete_is_deterministic_per_seed():
    lines = lambda seed: list(trace_lines(fill_delete(64 * MIB, 75, seed)))  # noqa: E731
    assert lines(1) == lines(1)
    assert lines(1) != lines(2)


def test_holes_are_every_other_file_of_a_comb():
    ops = holes(256 * MIB, 90, 8 * 1024, 16 * MIB, seed=1)
    comb = file_sizes(ops, "aging/comb")
    assert set(comb.values()) == {8 * 1024}
    holes_made = [p for p in comb if "/hole-" in p]
    assert len(holes_made) * 8 * 1024 == 16 * MIB
    assert len(comb) == 2 * len(holes_made)
    order = [op.path for op in ops if op.op == "create" and op.path.startswith("aging/comb")]
    assert all(("hole-" in p) == (i % 2 == 1) for i, p in enumerate(order))
    fill = next(op for op in ops if op.op == "fill")
    assert fill.args == (100,)  # the holes are the only free space
    assert ops.index(fill) > max(i for i, op in enumerate(ops) if op.path.startswith("aging/comb/"))
    # the whole comb is written back before the filler can take blocks between its files
    synced = ops[ops.index(fill) - 1]
    assert (synced.op, synced.path) == ("syncfs", "aging/comb")
    assert not any(op.op == "fsync" for op in ops)
    last = ops[-1]
    assert (last.op, last.args[0], last.args[3]) == ("reclaim", 0, "hole-*")
    assert last.args[1] >= 16 * MIB


def test_no_state_has_no_holes():
    ops = holes(128 * MIB, 90, 64 * 1024, 0, seed=1)
    assert file_sizes(ops, "aging/comb") == {}
    assert ops[-1].op == "fill" and ops[-1].args == (90,)


def test_target_zero_is_the_pristine_state():
    assert fill_delete(64 * MIB, 0, seed=1) == []


@pytest.mark.parametrize("target", [100, 120])
def test_bad_target_is_rejected_by_the_cli(tmp_path, target, capsys):
    out = tmp_path / "x.iotrace"
    argv = ["filldelete", "--disk-bytes", "64M", "--target", str(target), "--seed", "1"]
    assert main([*argv, "--out", str(out)]) == 65
    assert "is not in 0..99" in capsys.readouterr().err
    assert not out.exists()


def test_the_fill_and_the_reclaim_make_the_whole_procedure():
    whole = fill_delete(64 * MIB, 90, seed=2, size_scale=0.5)
    parts = [fill_delete(64 * MIB, 90, 2, 0.5, part) for part in ("fill", "reclaim")]
    assert parts[0] + parts[1] == whole
    assert parts[0] == fill_delete(64 * MIB, 75, 2, 0.5, "fill")  # the fill ignores the target
    assert [op.op for op in parts[1]] == ["thin"]
    assert fill_delete(64 * MIB, 0, 2, 0.5, "reclaim") == []


def test_hole_limit_goes_to_the_thin_and_the_cli(tmp_path):
    assert fill_delete(64 * MIB, 90, 2, 0.5, "reclaim")[0].args[-1] == 0
    out = tmp_path / "high.iotrace"
    argv = ["filldelete", "--disk-bytes", "64M", "--target", "90", "--seed", "1"]
    assert main([*argv, "--part", "reclaim", "--hole-limit", "16K", "--out", str(out)]) == 0
    assert out.read_text().splitlines()[-1].endswith("\tthin\taging/small\t90\t1\tsmall-*\t16384")
    with pytest.raises(ValueError, match="hole limit -1"):
        fill_delete(64 * MIB, 90, 1, hole_limit=-1)


def test_unknown_part_is_named():
    with pytest.raises(ValueError, match="part 'half'"):
        fill_delete(64 * MIB, 90, 1, 1.0, "half")
