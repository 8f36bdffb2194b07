"""Progress while guests run: the phase lines of jobs/lib.sh, the runner's parser of
them, its heartbeat (driven by a fake clock), the ETA from a previous benchmark file,
and job_times' estimate of what a run has left. The last test boots a real guest."""

import io
import json
import os
import subprocess
import sys

import pytest

from conftest import REPO
from mobifrag.platform import run
from mobifrag.platform.phase_line import Phase, parse_phase
from mobifrag.platform.progress import (
    HEARTBEAT_ENV,
    HEARTBEAT_INTERVAL_S,
    Progress,
    heartbeat_interval,
    wait_with_heartbeat,
)
from mobifrag.report import job_times

LIB = REPO / "jobs" / "lib.sh"
MIB = 1024 * 1024


def test_the_heartbeat_interval_meets_the_issue():
    assert 0 < HEARTBEAT_INTERVAL_S <= 30
    assert heartbeat_interval({}) == HEARTBEAT_INTERVAL_S
    assert heartbeat_interval({"MOBIFRAG_HEARTBEAT_S": "0.5"}) == 0.5
    for bad in ("", "soon", "0", "-1", "600"):
        assert heartbeat_interval({"MOBIFRAG_HEARTBEAT_S": bad}) == HEARTBEAT_INTERVAL_S


@pytest.mark.parametrize(
    "line, phase",
    [
        (
            "mobifrag-phase: replay-traces step 3/25 replay day-02 written=1048576",
            Phase("replay-traces", 3, 25, "replay day-02", MIB),
        ),
        (
            "\r[   12.3] random: crng initmobifrag-phase: age-image step 1/3 mkfs and mount"
            " ext4 written=0\r\n",
            Phase("age-image", 1, 3, "mkfs and mount ext4", 0),
        ),
        ("mobifrag-phase: x step 2/2 fragcheck written=-", Phase("x", 2, 2, "fragcheck", None)),
    ],
    ids=["plain", "after console noise", "unknown bytes"],
)
def test_phase_lines_parse(line, phase):
    assert parse_phase(line) == phase


@pytest.mark.parametrize(
    "line",
    [
        "mobifrag-guest: job exited with status 0",
        "mobifrag-phase: replay-traces step three/25 replay written=1",
        "mobifrag-phase: replay-traces step 3/25 replay",
        "phase mkfs at 12 ms",
    ],
)
def test_other_lines_are_no_phase(line):
    assert parse_phase(line) is None


def lib_sh(body: str, **env) -> subprocess.CompletedProcess:
    script = f'. "{LIB}"; {body}'
    return subprocess.run(
        ["sh", "-c", script, "job-x.sh"],
        env={"PATH": os.environ["PATH"], **env},
        capture_output=True,
        text=True,
        timeout=30,
    )


def test_lib_sh_writes_the_format_the_runner_parses(tmp_path):
    out = tmp_path / "console"
    body = 'progress_plan 2; progress_step "mkfs and mount ext4"; progress_step fragcheck; '
    body += "progress_step one more"
    done = lib_sh(body, MOBIFRAG_PHASE_OUT=str(out))
    assert done.returncode == 0, done.stderr
    phases = [parse_phase(line) for line in done.stdout.splitlines()]
    assert phases == [
        Phase("job-x", 1, 2, "mkfs and mount ext4", None),
        Phase("job-x", 2, 2, "fragcheck", None),
        Phase("job-x", 3, 3, "one more", None),  # more steps than planned: n follows
    ]
    assert out.read_text() == done.stdout


def test_a_phase_output_that_cannot_be_written_fails_nothing():
    done = lib_sh("progress_plan 1; progress_step x; echo went on", MOBIFRAG_PHASE_OUT="/no/such")
    assert done.returncode == 0 and done.stderr == ""
    assert done.stdout.splitlines()[-1] == "went on"


def test_heartbeats_come_on_a_steady_grid_with_the_last_phase():
    stream = io.StringIO()
    progress = Progress("autoage-ext4", start=100.0, interval=20.0, stream=stream)
    assert progress.beat(119.9) is None
    first = progress.beat(120.0)
    assert first == "mobifrag-heartbeat: autoage-ext4: 20s elapsed; no phase yet"
    progress.feed("boot noise\nmobifrag-phase: replay-traces step 2/9 replay da")
    progress.feed("y-01 written=3145728\r\nmore noise\n")
    assert progress.beat(139.0) is None
    late = progress.beat(165.0)  # a late beat: the next is still due at 180
    assert late == (
        "mobifrag-heartbeat: autoage-ext4: 1m05s elapsed; step 2/9 replay day-01, 3.0 MiB written"
    )
    assert progress.next_due == 180.0
    assert stream.getvalue().splitlines() == [first, late]
    assert progress.beats == 2 and progress.phases == 1


def test_the_heartbeat_says_how_long_is_left_and_the_disk_image_size(tmp_path):
    disk = tmp_path / "test-disk.img"
    with open(disk, "wb") as image:
        image.truncate(64 * MIB)
        image.write(b"x" * MIB)
    progress = Progress("job", start=0.0, interval=10.0, expect_seconds=300.0, disk=disk)
    line = progress.line(90.0)
    assert "1m30s elapsed; about 3m30s left (previous run 5m00s); no phase yet" in line
    assert line.endswith("; disk image 1.0 MiB")
    assert "2m00s over the previous run 5m00s" in progress.line(420.0)


class FakeProcess:
    """Ends when the fake clock reaches `ends_at`; wait() advances the clock."""

    def __init__(self, clock, ends_at):
        self.clock, self.ends_at = clock, ends_at

    def wait(self, timeout):
        if self.clock.now + timeout >= self.ends_at:
            self.clock.now = self.ends_at
            return 0
        self.clock.now += timeout
        raise subprocess.TimeoutExpired("qemu", timeout)


class Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


def test_waiting_beats_at_every_interval_and_stops_when_the_guest_ends():
    clock = Clock()
    stream = io.StringIO()
    progress = Progress("job", start=0.0, interval=20.0, stream=stream)
    fed = iter(["mobifrag-phase: j step 1/2 mkfs written=0\n", "", ""])
    finished = wait_with_heartbeat(
        FakeProcess(clock, 65.0), 3600, progress, lambda: next(fed), clock
    )
    assert finished and clock.now == 65.0
    beats = stream.getvalue().splitlines()
    assert [line.split(": ")[2].split(";")[0] for line in beats] == [
        "20s elapsed",
        "40s elapsed",
        "1m00s elapsed",
    ]
    assert all("step 1/2 mkfs" in line for line in beats)


def test_waiting_still_times_out_between_beats():
    clock = Clock()
    progress = Progress("job", start=0.0, interval=20.0, stream=io.StringIO())
    assert not wait_with_heartbeat(FakeProcess(clock, 1000.0), 50, progress, lambda: "", clock)
    assert clock.now == 50.0 and progress.beats == 2


def test_a_broken_heartbeat_stream_does_not_stop_the_wait():
    class Broken(io.StringIO):
        def write(self, text):
            raise OSError("stderr is gone")

    clock = Clock()
    progress = Progress("job", start=0.0, interval=20.0, stream=Broken())
    assert wait_with_heartbeat(FakeProcess(clock, 100.0), 3600, progress, lambda: "", clock)


def test_the_previous_benchmark_gives_the_expected_seconds(tmp_path):
    bench = tmp_path / "autoage_replay-ext4.tsv"
    bench.write_text("s\th:m:s\tmax_rss\n281.5\t0:04:41\t812.3\n")
    assert run.previous_seconds(bench) == 281.5
    assert run.previous_seconds(tmp_path / "none.tsv") is None
    assert run.previous_seconds(None) is None
    bench.write_text("s\th:m:s\n")
    assert run.previous_seconds(bench) is None


DRY_RUN = """Building DAG of jobs...
Job stats:
job                     count
--------------------  -------
all                         1
autoage_replay              2
concurrent_appenders        6
render_figure               3
total                      12

Reasons:
"""


def test_planned_jobs_of_a_dry_run():
    assert job_times.planned_jobs(DRY_RUN) == {
        "all": 1,
        "autoage_replay": 2,
        "concurrent_appenders": 6,
        "render_figure": 3,
    }


def test_eta_from_previous_benchmarks(tmp_path, capsys):
    folder = tmp_path / "results" / "platform" / "qemu-x86_64-abc" / "quick" / "benchmarks"
    folder.mkdir(parents=True)
    (folder / "autoage_replay-ext4.tsv").write_text("s\n600\n")
    (folder / "autoage_replay-f2fs.tsv").write_text("s\n300\n")
    (folder / "concurrent_appenders-ext4-writers-1-rep-1.tsv").write_text("s\n60\n")
    dry_run = tmp_path / "dry-run.txt"
    dry_run.write_text(DRY_RUN)
    argv = ["quick", "--results", str(tmp_path / "results"), "--eta", str(dry_run)]
    assert job_times.main(argv) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[1:3] == ["autoage_replay\t2\t7.5\t15.0", "concurrent_appenders\t6\t1.0\t6.0"]
    assert lines[-1] == (
        "# 12 jobs left: about 21.0 job-min, at least 10.5 min on 2 cores; "
        "4 jobs of rules without a benchmark file not counted"
    )


# --- a real guest ---------------------------------------------------------------------------

GUEST_JOB = """set -eu
. "$MOBIFRAG_ROOT/jobs/lib.sh"
progress_plan 3
progress_step "mkfs and mount ext4"
# The guest's entropy is ready at once (a read that would wait fails instead): without it,
# each mkfs slept 4.5 s in libuuid.
dd if=/dev/random of=/dev/null bs=16 count=1 iflag=nonblock 2> /dev/null
make_fs ext4 ""
mount_fs ext4 "$TMPDIR/fs"
progress_step "write 4 MiB"
dd if=/dev/zero of="$TMPDIR/fs/f" bs=1M count=4 conv=fsync 2> /dev/null
sleep 3
progress_step fragcheck
umount "$TMPDIR/fs"
"""


@pytest.mark.emulator
def test_a_guest_job_streams_phase_lines_and_heartbeats(tmp_path, emulator_kernel):
    script = tmp_path / "progress-job.sh"
    script.write_text(GUEST_JOB)
    bench = tmp_path / "previous.tsv"
    bench.write_text("s\th:m:s\n100\t0:01:40\n")
    console = tmp_path / "logs" / "progress-job.console.log"
    command = [sys.executable, "-m", "mobifrag.platform.run", "--device", "emulator-emmc"]
    command += ["--kernel", str(emulator_kernel), "--script", str(script), "--disk-mib", "32"]
    command += ["--out", str(tmp_path / "out"), "--console", str(console), "--timeout", "600"]
    command += ["--previous-benchmark", str(bench)]
    env = {**os.environ, HEARTBEAT_ENV: "1"}
    done = subprocess.run(command, cwd=REPO, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    in_console = [p for line in console.read_text().splitlines() if (p := parse_phase(line))]
    assert [(p.step, p.steps, p.what) for p in in_console] == [
        (1, 3, "mkfs and mount ext4"),
        (2, 3, "write 4 MiB"),
        (3, 3, "fragcheck"),
    ]
    assert in_console[-1].written >= 4 * MIB  # the 4 MiB reached the test disk
    job_log = (tmp_path / "out" / "job.log").read_text()
    assert len([line for line in job_log.splitlines() if parse_phase(line)]) == 3
    beats = [line for line in done.stderr.splitlines() if line.startswith("mobifrag-heartbeat:")]
    assert beats, done.stderr
    assert all(line.startswith("mobifrag-heartbeat: progress-job: ") for line in beats)
    assert any("previous run 1m40s" in line for line in beats)
    record = json.loads((tmp_path / "out" / "platform-run.json").read_text())
    phases = {phase["what"]: phase for phase in record["phases"]}
    assert list(phases) == ["boot", "mkfs and mount ext4", "write 4 MiB", "fragcheck"]
    # The job's 3-s sleep is wall time in which the guest idles.
    assert phases["write 4 MiB"]["seconds"] >= 3 and phases["write 4 MiB"]["cpu_seconds"] < 2
