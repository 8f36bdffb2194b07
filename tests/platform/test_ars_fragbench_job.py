"""jobs/ars-fragbench.sh's order of steps, run from a host shell over stand-ins for the
guest's helpers (jobs/lib.sh, jobs/ars-lib.sh) that only log their calls: where the
snapshots of F2FS's counters fall around Android's GC pass and the High measurements
(ARS §V.A: GC measured at High). The emulator run (tests/emulator/test_ars_eval.py) checks the
same job on a real F2FS."""

import subprocess

import pytest

from conftest import REPO

JOB = REPO / "jobs" / "ars-fragbench.sh"
LOGGED = [
    "progress_plan",
    "scheme_mount",
    "reserved_files",
    "scheme_remount",
    "settle",
    "fio_measure",
    "snapshot",
    "fragbench",
    "f2fs_state",
    "gc_pass",
    "sync",
    "umount",
    "f2fs_fsck",
    "phase",
]


def stand_ins(root):
    """MOBIFRAG_ROOT whose jobs/lib.sh defines every helper the job calls as a logger."""
    (root / "jobs").mkdir(parents=True)
    helpers = ['die() { echo "die: $*" >&2; exit 1; }']
    helpers += [f'{name}() {{ echo "{name} $*" >> "$STEPS"; }}' for name in LOGGED]
    (root / "jobs" / "lib.sh").write_text("\n".join(helpers) + "\n")
    (root / "jobs" / "ars-lib.sh").write_text("")


def steps(tmp_path, gc_ms):
    """The helpers the job called, in order, with their arguments."""
    root, work, log = tmp_path / "root", tmp_path / "work", tmp_path / "steps.log"
    stand_ins(root)
    work.mkdir()
    args = ["f2fs", "2097152", "8", "11", "90", "131072", "4096", "131072", "4096", str(gc_ms)]
    env = {"PATH": "/usr/bin:/bin", "MOBIFRAG_ROOT": str(root), "TMPDIR": str(tmp_path)}
    done = subprocess.run(
        ["sh", str(JOB), *args],
        cwd=work,
        env={**env, "STEPS": str(log)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    # each call by its helper and first argument
    return [" ".join(line.split()[:2]) for line in log.read_text().splitlines()]


def at(order, call):
    """Where the first call of a helper (with that first argument, if given) is."""
    return next(i for i, step in enumerate(order) if f"{step} ".startswith(f"{call} "))


@pytest.mark.parametrize("gc_ms", [50, 0])
def test_the_gc_window_opens_after_the_pass_is_on_disk(tmp_path, gc_ms):
    order = steps(tmp_path, gc_ms)
    aged, collected = at(order, "f2fs_state aged"), at(order, "f2fs_state collected")
    high, measured = at(order, "fio_measure high"), at(order, "f2fs_state measured")
    assert at(order, "fragbench") < aged < collected < high < measured
    between = order[aged + 1 : collected]
    # the pass (when on) runs before the window's first snapshot, and its write-back
    # is synced first, so what the pass moved is not counted in the window
    assert between[-1] == "sync"
    assert ("gc_pass " + str(gc_ms) in between) == (gc_ms > 0)
    assert "fio_measure" not in " ".join(between)


def test_the_file_system_stays_mounted_while_ars_holds_sections(tmp_path):
    # ARS's held sections live as long as the mount: from the reserved files' creation
    # to the High measurements the job drops caches (settle) instead of remounting
    order = steps(tmp_path, 50)
    kept = order[at(order, "reserved_files") : at(order, "f2fs_state measured")]
    assert not [step for step in kept if step.split()[0] in ("scheme_remount", "umount")]
    assert [step for step in kept if step == "settle"] == ["settle"] * 3
