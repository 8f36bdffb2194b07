# shellcheck shell=sh
# Shared helpers of job scripts. A job runs with its working directory = $MOBIFRAG_OUT
# (the results it writes there are pulled back by the platform runner) and finds:
#   MOBIFRAG_DISK   the test disk the runner created for this job (the only disk it may format)
#   MOBIFRAG_AGENT  the agent binary
#   TMPDIR          scratch space
# The same scripts run in the emulator and on a device; only the runner differs.

die() { echo "job: $*" >&2; exit 1; }

# Progress: one phase line at each natural step of a job (file system made, each replay
# or aging step, each measured phase, each fragcheck), in the one format the runners
# parse (mobifrag/platform/phase_line.py, parse_phase) and stream into the rule's log:
#   mobifrag-phase: <experiment> step <i>/<n> <what> written=<bytes>
# <experiment> is the job script's name (or MOBIFRAG_EXPERIMENT), <n> what
# progress_plan announced (raised to <i> if a job takes more steps), <bytes> what the
# test disk has had written to it since boot (its /sys/class/block/<disk>/stat), or -
# where that is unknown. The line goes to the job's log (stdout) and, where the runner
# names one, to MOBIFRAG_PHASE_OUT (in the emulator, the guest's console).
PROGRESS_STEP=0
PROGRESS_STEPS=0

# count ARGS...: how many arguments (e.g. the files a glob matched)
count() { echo $#; }

# progress_plan N: the job will take N steps.
progress_plan() {
  PROGRESS_STEPS=$1
  PROGRESS_STEP=0
}

# disk_written: DISK_WRITTEN set to the bytes written to the test disk since boot, or -.
# The stat file's path is found once per disk and the shell reads it, in this shell (no
# command substitution): a step runs no program, each of which costs a TCG guest about
# 0.1 s of host CPU. disk_written_bytes prints the same.
disk_written() {
  if [ "${PROGRESS_DISK-unset}" != "${MOBIFRAG_DISK:-}" ]; then
    PROGRESS_DISK=${MOBIFRAG_DISK:-}
    progress_dev=$(readlink -f "${MOBIFRAG_DISK:-/nonexistent}" 2> /dev/null) || progress_dev=
    PROGRESS_STAT=/sys/class/block/${progress_dev##*/}/stat
  fi
  # shellcheck disable=SC2034 # the fields around the sectors written are not used
  if read -r _r1 _r2 _r3 _r4 _w1 _w2 progress_sectors _rest 2> /dev/null < "$PROGRESS_STAT"; then
    DISK_WRITTEN=$((progress_sectors * 512))
  else
    DISK_WRITTEN=-
  fi
}

disk_written_bytes() {
  disk_written
  echo "$DISK_WRITTEN"
}

# progress_step WHAT...: the next step begins.
progress_step() {
  PROGRESS_STEP=$((PROGRESS_STEP + 1))
  [ "$PROGRESS_STEP" -le "$PROGRESS_STEPS" ] || PROGRESS_STEPS=$PROGRESS_STEP
  progress_job=${0##*/}
  progress_line="mobifrag-phase: ${MOBIFRAG_EXPERIMENT:-${progress_job%.sh}}"
  progress_line="$progress_line step $PROGRESS_STEP/$PROGRESS_STEPS $*"
  disk_written
  progress_line="$progress_line written=$DISK_WRITTEN"
  echo "$progress_line"
  if [ -n "${MOBIFRAG_PHASE_OUT:-}" ]; then
    { echo "$progress_line" >> "$MOBIFRAG_PHASE_OUT"; } 2> /dev/null || true
  fi
}

# Formatting is fenced: only inside the study's emulator guest (its init writes
# GUEST_MARKER, holding that boot's id, on the guest's own tmpfs) or in a job the adb
# runner opted in after checking the disk on the device (it exports the disk's device
# number as MOBIFRAG_DEVICE_CHECKED_DISK). Disks are compared by device number, never by
# path, so an alias of a mounted disk is still seen as mounted.
GUEST_MARKER=/run/mobifrag/guest

# (The fence's checks read with the shell and test with case where they can: every
# program run costs a TCG guest about 0.1 s of host CPU, and each mkfs runs the fence.)
in_study_guest() {
  guest_boot_id='' guest_marked=''
  # (read fails at a last line without its newline, having read it all the same)
  read -r guest_boot_id 2> /dev/null < /proc/sys/kernel/random/boot_id || true
  read -r guest_marked 2> /dev/null < "$GUEST_MARKER" || true
  [ -n "$guest_boot_id" ] && [ "$guest_marked" = "$guest_boot_id" ]
}

# device_number PATH: major:minor of the block device PATH (or its link target), in hex
device_number() {
  stat -L -c '%t:%T' "$1" 2> /dev/null
}

# hex_device_number < sysfs dev file ("8:17" decimal) prints it as device_number does
hex_device_number() {
  IFS=: read -r major minor && printf '%x:%x\n' "$major" "$minor"
}

opted_in_device_job() {
  [ "${MOBIFRAG_PLATFORM:-}" = adb ] && [ -n "${MOBIFRAG_DEVICE_CHECKED_DISK:-}" ] &&
    [ "$(device_number "${MOBIFRAG_DISK:-}")" = "$MOBIFRAG_DEVICE_CHECKED_DISK" ]
}

# in_use_device_numbers: every mounted file system's device, and every mount or swap
# source that is a block device. One awk per list: under the emulator each process
# costs tens of milliseconds, and a loop of pipes over mountinfo took a second.
in_use_device_numbers() {
  awk '{ split($3, devno, ":"); printf "%x:%x\n", devno[1], devno[2] }' /proc/self/mountinfo
  awk 'FILENAME == "/proc/mounts" || FNR > 1 { print $1 }' /proc/mounts /proc/swaps \
    2> /dev/null | while read -r source; do
    if [ -b "$source" ]; then device_number "$source"; fi
  done
}

# disk_device_numbers DISK: DISK's device number and those of its partitions
disk_device_numbers() {
  device_number "$1"
  sys=$(readlink -f "$1")
  sys=/sys/class/block/${sys##*/}
  for part in "$sys"/*/partition; do
    if [ -r "${part%/partition}/dev" ]; then hex_device_number < "${part%/partition}/dev"; fi
  done
}

# disk_holders DISK: what is stacked on DISK (device-mapper, md), if anything
disk_holders() {
  holders=$(readlink -f "$1")
  for holder in "/sys/class/block/${holders##*/}/holders"/*; do
    if [ -e "$holder" ]; then printf '%s ' "${holder##*/}"; fi
  done
}

require_test_disk() {
  in_study_guest || opted_in_device_job ||
    die "not inside the study's guest (no $GUEST_MARKER of this boot) nor an adb job the" \
      "runner opted in: refusing to format ${MOBIFRAG_DISK:-anything}"
  [ -n "${MOBIFRAG_DISK:-}" ] || die "MOBIFRAG_DISK is not set: refusing to format anything"
  [ -b "$MOBIFRAG_DISK" ] || die "$MOBIFRAG_DISK is not a block device"
  # Without awk the list of mounted devices would be empty, and the check would pass.
  command -v awk > /dev/null || die "awk is not installed: cannot tell whether" \
    "$MOBIFRAG_DISK is mounted, refusing to format it"
  in_use_numbers=$(in_use_device_numbers)
  for disk_number in $(disk_device_numbers "$MOBIFRAG_DISK"); do
    case "
$in_use_numbers
" in
      *"
$disk_number
"*)
        die "$MOBIFRAG_DISK (device $disk_number, or a partition of it) is mounted:" \
          "refusing to format it"
        ;;
    esac
  done
  disk_users=$(disk_holders "$MOBIFRAG_DISK")
  [ -z "$disk_users" ] || die "$MOBIFRAG_DISK is in use by $disk_users: refusing to format it"
}

# make_fs FS OPTIONS: a fresh file system on the test disk.
make_fs() {
  require_test_disk
  # OPTIONS is a list of mkfs arguments, split into words on purpose.
  # shellcheck disable=SC2086
  case "$1" in
    ext4) mkfs.ext4 -F -q $2 "$MOBIFRAG_DISK" ;;
    f2fs) mkfs.f2fs -f -q $2 "$MOBIFRAG_DISK" > /dev/null ;;
    *) die "unknown file system $1" ;;
  esac
}

# mount_fs FS DIR [OPTIONS]
mount_fs() {
  mkdir -p "$2"
  mount -t "$1" ${3:+-o "$3"} "$MOBIFRAG_DISK" "$2" || die "cannot mount $1 on $MOBIFRAG_DISK"
}

# remount_fs FS DIR: drop every cached state so the snapshot shows what is on disk.
remount_fs() {
  sync
  umount "$2" || die "cannot unmount $2"
  mount_fs "$1" "$2"
}

# snapshot DIR NAME: fragcheck tables of DIR into ./NAME/
snapshot() {
  mkdir -p "$2"
  "$MOBIFRAG_AGENT" fragcheck --root "$1" --files "$2/files.tsv" \
    --extents "$2/extents.tsv" --fs "$2/fs.tsv" || die "fragcheck of $1 failed"
}

# free_space_histogram FS: free-space extents by size (ext4: e2freefrag; F2FS: the
# segment summary from its debugfs status file).
free_space_histogram() {
  case "$1" in
    ext4) e2freefrag "$MOBIFRAG_DISK" ;;
    f2fs) cat /sys/kernel/debug/f2fs/status 2>/dev/null || echo "f2fs status unavailable" ;;
  esac
}

# trace_start NAME: blktrace of the test disk into guest tmpfs (blktrace cannot write
# into a 9p share), its log (its summary counts the events and says how many it dropped)
# straight into ./blktrace/NAME/blktrace.log; returns once the kernel's trace runs.
# blktrace creates its per-CPU files before it starts the trace, so a workload begun when
# they appear could lose its first requests (a 64-page file of the janusd test once
# replayed with 63): the agent's trace-wait returns only when the trace records events.
# trace_stop NAME stops it and moves the per-CPU files beside the log; a blktrace that
# exits with an error fails the job, its log kept. Every exec costs a TCG guest about
# 0.1 s of host CPU and a study traces about 600 phases, so the pair runs four programs
# in all (mkdir, blktrace, trace-wait, mv; docs/measurements.md, 2026-12-03). Each NAME
# is appended to ./blktrace/order: the device model replays a phase after the writes of
# the phases before it (mobifrag.model.phase_history).
trace_start() {
  command -v blktrace > /dev/null || die "blktrace is not installed"
  mkdir -p "$TMPDIR/blktrace/$1" "blktrace/$1"
  printf '%s\n' "$1" >> blktrace/order
  blktrace -d "$MOBIFRAG_DISK" -D "$TMPDIR/blktrace/$1" -o trace \
    > "blktrace/$1/blktrace.log" 2>&1 &
  BLKTRACE_PID=$!
  "$MOBIFRAG_AGENT" trace-wait --device "$MOBIFRAG_DISK" --pid "$BLKTRACE_PID" && return 0
  cat "blktrace/$1/blktrace.log" >&2
  die "blktrace did not start (its log: blktrace/$1/blktrace.log)"
}

trace_stop() {
  kill -INT "$BLKTRACE_PID" 2> /dev/null || true  # (one that already ended has its status)
  blktrace_status=0
  wait "$BLKTRACE_PID" || blktrace_status=$?
  [ "$blktrace_status" -eq 0 ] \
    || die "blktrace of $1 exited with status $blktrace_status (its log: blktrace/$1/blktrace.log)"
  mv "$TMPDIR/blktrace/$1"/trace.blktrace.* "blktrace/$1/" || die "cannot keep the trace of $1"
}

# cold_read PATH: drop the page cache, then read PATH once; prints the nanoseconds taken.
cold_read() {
  sync
  echo 3 > /proc/sys/vm/drop_caches
  start=$(date +%s%N)
  cat "$1" > /dev/null || die "cannot read $1"
  echo $(( $(date +%s%N) - start ))
}
