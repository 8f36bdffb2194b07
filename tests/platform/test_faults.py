"""Faults of the host under a run, without a guest: a full disk fails the job before it
boots and, under a guest, reaches it as an I/O error; a killed runner or workflow leaves
no guest running on to promote a result."""

import shutil
import subprocess
import sys
import time
from collections import namedtuple
from pathlib import Path

import pytest

from conftest import REPO
from mobifrag.measure.snapshot import SnapshotError, read_snapshot
from mobifrag.platform import emulator
from mobifrag.platform.emulator import EmulatorError, GuestJob

MIB = 1024 * 1024
B4K = 4096
Usage = namedtuple("Usage", "total used free")


def drive_options(command: list[str]) -> dict[str, str]:
    value = command[command.index("-drive") + 1]
    return dict(option.partition("=")[::2] for option in value.split(","))


def test_the_test_disk_reports_host_io_errors_to_the_guest(tmp_path):
    job = GuestJob(kernel=Path("bzImage"), script=Path("jobs/x.sh"))
    disk = tmp_path / "test-disk.img"
    options = drive_options(emulator.qemu_command(job, "tcg", tmp_path, disk))
    assert options["file"] == str(disk)
    assert options["werror"] == "report" and options["rerror"] == "report"


@pytest.fixture
def guest_job(tmp_path, monkeypatch):
    """A job whose runner gets as far as booting; booting fails the test."""
    kernel = tmp_path / "bzImage"
    kernel.write_bytes(b"kernel")
    monkeypatch.setattr(emulator, "require_qemu", lambda: "qemu-system-x86_64")

    def boot(*args, **kwargs):
        raise AssertionError("the guest was booted")

    monkeypatch.setattr(emulator, "run_qemu", boot)
    monkeypatch.setattr(emulator, "choose_accel", lambda kernel, accel: "tcg")
    return GuestJob(kernel=kernel, script=Path("jobs/x.sh"), disk_bytes=256 * MIB)


def test_a_full_host_disk_fails_the_job_before_booting(tmp_path, monkeypatch, guest_job):
    asked = []

    def usage(path):
        asked.append(Path(path))
        return Usage(total=1024 * MIB, used=1024 * MIB - 10 * MIB, free=10 * MIB)

    monkeypatch.setattr(shutil, "disk_usage", usage)
    out = tmp_path / "runs" / "out"
    with pytest.raises(EmulatorError) as error:
        emulator.run_job(guest_job, out, tmp_path / "console.log")
    message = str(error.value)
    folder = out.with_name("out.running")
    assert asked == [folder]
    assert str(folder) in message
    assert f"{256 * MIB} bytes" in message and f"{10 * MIB} bytes are free" in message
    assert not folder.exists() and not out.exists()


def test_a_kept_image_larger_than_the_disk_is_what_must_fit(tmp_path, monkeypatch, guest_job):
    base = tmp_path / "kept.img"
    with open(base, "wb") as image:
        image.truncate(512 * MIB)
    job = GuestJob(
        kernel=guest_job.kernel, script=guest_job.script, disk_bytes=256 * MIB, base_image=base
    )
    monkeypatch.setattr(shutil, "disk_usage", lambda path: Usage(1024 * MIB, 0, 300 * MIB))
    with pytest.raises(EmulatorError, match=f"needs {512 * MIB} bytes"):
        emulator.run_job(job, tmp_path / "out", tmp_path / "console.log")


def test_enough_free_space_goes_on_to_boot(tmp_path, monkeypatch, guest_job):
    monkeypatch.setattr(shutil, "disk_usage", lambda path: Usage(1024 * MIB, 0, 512 * MIB))
    with pytest.raises(AssertionError, match="the guest was booted"):
        emulator.run_job(guest_job, tmp_path / "out", tmp_path / "console.log")


# --- no orphans: a guest dies with its runner, a runner with its parent -------------------


def alive(pid: int) -> bool:
    """The process runs (a zombie waiting for its reaper has ended)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rpartition(")")[2].split()[0] != "Z"


def wait_for_file(path: Path, timeout_s: float = 20) -> int:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        text = path.read_text().strip() if path.exists() else ""
        if text:
            return int(text)
        time.sleep(0.05)
    raise AssertionError(f"{path} was not written within {timeout_s} s")


def ends_within(pid: int, timeout_s: float = 10) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if not alive(pid):
            return True
        time.sleep(0.05)
    return False


# A runner: records its pid, then runs a stand-in guest (a shell that records its pid and
# sleeps; exec keeps both the pid and the parent-death signal) as it runs QEMU.
RUNNER = """
import os, signal, sys
from pathlib import Path
from mobifrag.platform import emulator
runner_pid, guest_pid, console, mode = sys.argv[1:]
if mode == "die-with-parent":  # as `python -m mobifrag.platform.run` does
    emulator.die_with_parent(signal.SIGTERM)
Path(runner_pid).write_text(str(os.getpid()))
guest = ["sh", "-c", f"echo $$ > {guest_pid}; exec sleep 60"]
try:
    emulator.run_qemu(guest, Path(console), timeout_s=60)
except emulator.EmulatorError as error:
    print(error, file=sys.stderr)
    sys.exit(1)
"""


def runner_command(tmp_path, mode):
    files = [tmp_path / name for name in ("runner.pid", "guest.pid", "console.log")]
    return [sys.executable, "-c", RUNNER, *map(str, files), mode]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG is Linux's")
def test_a_guest_dies_when_its_runner_is_killed(tmp_path):
    runner = subprocess.Popen(runner_command(tmp_path, "plain"), cwd=REPO)
    guest = wait_for_file(tmp_path / "guest.pid")
    assert alive(guest)
    runner.kill()  # SIGKILL: the runner has no chance to kill its guest itself
    runner.wait()
    assert ends_within(guest), f"guest {guest} outlived its runner"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG is Linux's")
def test_a_runner_stops_its_guest_when_its_parent_is_killed(tmp_path):
    # The parent stands for Snakemake (or the job shell it runs): killed outright.
    parent_code = "import subprocess, sys; subprocess.run(sys.argv[1:])"
    command = [sys.executable, "-c", parent_code, *runner_command(tmp_path, "die-with-parent")]
    parent = subprocess.Popen(command, cwd=REPO, stderr=subprocess.PIPE, text=True)
    runner = wait_for_file(tmp_path / "runner.pid")
    guest = wait_for_file(tmp_path / "guest.pid")
    parent.kill()
    parent.wait()
    assert ends_within(runner), f"runner {runner} outlived its parent"
    assert ends_within(guest), f"guest {guest} outlived its runner"
    # The runner stopped as on a scheduler's SIGTERM: it killed the guest itself.
    assert "runner stopped by SIGTERM; guest killed" in parent.stderr.read()


# --- figure scripts refuse damaged tables (paper-figures/theme.R's read_table) -----------

READ_TABLE = 'source("paper-figures/theme.R"); t <- read_table(commandArgs(TRUE)[[1]]); cat(dim(t))'


def read_table(path: Path) -> subprocess.CompletedProcess:
    command = ["Rscript", "-e", READ_TABLE, str(path)]
    return subprocess.run(command, cwd=REPO, capture_output=True, text=True)


@pytest.mark.skipif(shutil.which("Rscript") is None, reason="needs R (make bootstrap)")
@pytest.mark.parametrize(
    "text, problem",
    [
        ("", ": empty table"),
        ("path,dof\n", ": the table has a header but no rows"),
        ("path,dof\na.db,2\nb.db\n", ":3: 1 field(s), the header has 2"),
    ],
    ids=["empty", "header only", "cut mid-row"],
)
def test_figure_tables_that_are_empty_or_cut_stop_the_script(tmp_path, text, problem):
    table = tmp_path / "layout.csv"
    table.write_text(text)
    run = read_table(table)
    assert run.returncode != 0
    assert f"{table}{problem}" in run.stderr


@pytest.mark.skipif(shutil.which("Rscript") is None, reason="needs R (make bootstrap)")
def test_a_whole_figure_table_reads(tmp_path):
    table = tmp_path / "layout.csv"
    table.write_text('path,dof\na.db,2\n"b,\nc.db",1\n')
    run = read_table(table)
    assert run.returncode == 0, run.stderr
    assert run.stdout == "2 2"


# --- damaged snapshots: files.tsv's n_extents is checked against extents.tsv -------------


def fragmented_snapshot(make, name="snap"):
    """Two files: a.db in 3 extents, b.db in 1."""
    return make(
        name,
        files=[("a.db", 3 * B4K, 3 * B4K, 3, 12), ("b.db", B4K, B4K, 1, 13)],
        extents=[
            ("a.db", 0, 0, 10 * B4K, B4K, "-"),
            ("a.db", 1, B4K, 30 * B4K, B4K, "-"),
            ("a.db", 2, 2 * B4K, 50 * B4K, B4K, "last"),
            ("b.db", 0, 0, 90 * B4K, B4K, "last"),
        ],
    )


def test_a_whole_snapshot_reads(snapshot_dir):
    snapshot = read_snapshot(fragmented_snapshot(snapshot_dir))
    assert [len(snapshot.extents[p]) for p in ("a.db", "b.db")] == [3, 1]


def test_extents_cut_at_a_row_boundary_are_refused(snapshot_dir):
    snap = fragmented_snapshot(snapshot_dir)
    extents = snap / "extents.tsv"
    extents.write_text("".join(extents.read_text().splitlines(keepends=True)[:3]))
    with pytest.raises(SnapshotError) as error:
        read_snapshot(snap)
    message = str(error.value)
    assert f"{snap / 'files.tsv'}:2:" in message and "'a.db'" in message
    assert "n_extents 3" in message and f"{extents} has 2 rows" in message


def test_a_file_missing_from_extents_is_refused(snapshot_dir):
    snap = fragmented_snapshot(snapshot_dir)
    extents = snap / "extents.tsv"
    extents.write_text("".join(extents.read_text().splitlines(keepends=True)[:4]))
    with pytest.raises(SnapshotError, match=r"files.tsv:3: 'b.db' has n_extents 1, but .* 0 rows"):
        read_snapshot(snap)


def test_extents_of_a_file_files_tsv_lacks_are_refused(snapshot_dir):
    snap = fragmented_snapshot(snapshot_dir)
    files = snap / "files.tsv"
    files.write_text("".join(files.read_text().splitlines(keepends=True)[:2]))
    lacking = r"extents.tsv: 1 rows for 'b.db', which .* does not list"
    with pytest.raises(SnapshotError, match=lacking):
        read_snapshot(snap)
