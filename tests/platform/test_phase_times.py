"""Each phase of a guest's job timed from its console lines: wall and CPU seconds."""

import os
import subprocess

from mobifrag.platform.emulator import run_qemu
from mobifrag.platform.phase_line import phase_step
from mobifrag.platform.phase_times import BOOT, PhaseTimer, process_cpu_seconds


def line(step: int, what: str) -> str:
    return f"mobifrag-phase: scan step {step}/3 {what} written=0\n"


def test_a_run_is_cut_at_each_phase_line_with_the_boot_first():
    timer = PhaseTimer(100.0, phase_step)
    timer.feed("Booting from ROM..\n", 101.0, 1.0)
    timer.feed(line(1, "mkfs"), 103.0, 2.5)
    # A line that arrives in two pieces counts when its end comes.
    timer.feed(line(2, "replay holes")[:20], 104.0, 3.0)
    timer.feed(line(2, "replay holes")[20:] + line(3, "fragcheck"), 110.0, 9.0)
    spans = timer.spans(112.0, 10.0)
    assert [(s.step, s.what) for s in spans] == [
        (0, BOOT),
        (1, "mkfs"),
        (2, "replay holes"),
        (3, "fragcheck"),
    ]
    assert [s.seconds for s in spans] == [3.0, 7.0, 0.0, 2.0]
    assert [s.cpu_seconds for s in spans] == [2.5, 6.5, 0.0, 1.0]
    assert sum(s.seconds for s in spans) == 12.0


def test_a_mark_without_cpu_charges_the_phase_before_nothing_more():
    timer = PhaseTimer(0.0, phase_step)
    timer.feed(line(1, "mkfs"), 1.0, 0.5)
    timer.feed(line(2, "replay"), 5.0, None)
    spans = timer.spans(6.0, 4.0)
    assert [s.cpu_seconds for s in spans] == [0.5, 0.0, 3.5]


def test_a_job_without_phase_lines_is_all_boot():
    timer = PhaseTimer(0.0, phase_step)
    timer.feed("no phases here\n", 2.0, 1.0)
    (span,) = timer.spans(3.0, 1.5)
    assert (span.what, span.seconds, span.cpu_seconds) == (BOOT, 3.0, 1.5)


def test_the_cpu_of_a_live_process_and_of_none():
    busy = subprocess.Popen(["sh", "-c", "i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done"])
    busy.wait()
    assert process_cpu_seconds(os.getpid()) > 0
    assert process_cpu_seconds(busy.pid) is None  # reaped: gone


def test_run_qemu_times_the_phases_a_command_prints(tmp_path):
    script = (
        f"printf '{line(1, 'sleep').strip()}\\n'; sleep 1; "
        f"printf '{line(2, 'spin').strip()}\\n'; "
        "i=0; while [ $i -lt 1000000 ]; do i=$((i + 1)); done"
    )
    run = run_qemu(["sh", "-c", script], tmp_path / "console.log", timeout_s=60)
    boot, sleeping, spinning = run.phases
    # Each line is read at the next poll, a quarter of a second at most after it came.
    assert boot.what == BOOT and boot.seconds < 0.5
    assert sleeping.what == "sleep" and 0.7 < sleeping.seconds < 1.5
    assert sleeping.cpu_seconds < 0.3
    assert spinning.what == "spin" and spinning.cpu_seconds > 0.5
    assert abs(sum(s.seconds for s in run.phases) - run.wall_seconds) < 0.01
