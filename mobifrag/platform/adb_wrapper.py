"""run.sh, the job's wrapper on the device: it runs as root with the job's environment
(the emulator's contract, jobs/lib.sh), puts shims on PATH for tools Android names
differently, mounts debugfs for the jobs' block traces, runs the job and
leaves its exit status in out/exit-status. MOBIFRAG_DISK is the checked test partition
(mobifrag/platform/adb_partition.py), and MOBIFRAG_DEVICE_CHECKED_DISK its device
number, the opt-in jobs/lib.sh requires before it formats.
"""

from __future__ import annotations

import shlex

from mobifrag.platform.adb_partition import CheckedDisk
from mobifrag.platform.adb_staging import DevicePlan

CHECKED_DISK_ENV = "MOBIFRAG_DEVICE_CHECKED_DISK"


def wrapper_script(plan: DevicePlan, disk: CheckedDisk, env: tuple[tuple[str, str], ...]) -> str:
    """run.sh: the job's environment, tool shims, debugfs for blktrace, the job, and
    its exit status in out/exit-status (the only thing read to decide success). The
    disk and its checked device number come last, so no job setting overrides them."""
    w = plan.workdir
    exports = {
        "MOBIFRAG_ROOT": w,
        "MOBIFRAG_AGENT": plan.agent,
        "MOBIFRAG_OUT": plan.out_dir,
        "TMPDIR": f"{plan.run_dir}/tmp",
        **dict(env),
        "MOBIFRAG_PLATFORM": "adb",
        "MOBIFRAG_DISK": disk.node,
        CHECKED_DISK_ENV: disk.number,
    }
    job = shlex.join(["sh", plan.script, *plan.args])
    return "\n".join(
        [
            "# written by mobifrag.platform.adb_runner; runs as root on the device",
            f'export PATH="{w}/bin:$PATH"',
            *(f"export {key}={shlex.quote(value)}" for key, value in sorted(exports.items())),
            'chmod 755 "$MOBIFRAG_AGENT"',
            SHIMS,
            'cd "$MOBIFRAG_OUT" || exit 1',
            # The job's phase lines also go to this session's output, which the runner
            # streams into the console log (a write that fails there is dropped).
            'export MOBIFRAG_PHASE_OUT="/proc/$$/fd/1"',
            BLKTRACE_CHECK,
            f"{job} > job.log 2>&1 &",
            "job=$!",
            f"echo $job > {shlex.quote(plan.run_dir)}/job.pid",
            'wait "$job"',
            "status=$?",
            'echo "$status" > exit-status',
            "sync",
            "",
        ]
    )


# Android names some tools differently; a shim on PATH keeps the job scripts unchanged.
SHIMS = """\
shim() {  # shim NAME COMMAND...: NAME runs COMMAND when the device has no NAME
  name=$1; shift
  command -v "$name" > /dev/null 2>&1 && return 0
  printf '#!%s\\n%s "$@"\\n' "$(command -v sh)" "$*" > "$MOBIFRAG_ROOT/bin/$name"
  chmod 755 "$MOBIFRAG_ROOT/bin/$name"
}
command -v mke2fs > /dev/null 2>&1 && shim mkfs.ext4 exec mke2fs -t ext4
command -v make_f2fs > /dev/null 2>&1 && shim mkfs.f2fs exec make_f2fs
shim e2freefrag echo 'e2freefrag: not present on this device, no free-space histogram of'"""

# The jobs trace their measured phases themselves (jobs/lib.sh trace_start), as in the
# emulator; the kernel allows one block trace per device at a time, so a trace of the
# whole job here would make every phase's blktrace fail (EBUSY). The wrapper mounts
# debugfs for them and records whether the device has blktrace.
BLKTRACE_CHECK = """\
if command -v blktrace > /dev/null 2>&1; then
  grep -q ' /sys/kernel/debug ' /proc/mounts || mount -t debugfs debugfs /sys/kernel/debug
  echo "blktrace: present; the job traces its measured phases into blktrace/" \\
    > blktrace-status.txt
else
  echo "blktrace: not present on the device; a job that traces a phase stops there" \\
    > blktrace-status.txt
fi"""
