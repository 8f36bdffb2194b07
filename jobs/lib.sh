# Shared helpers of job scripts. A job runs with its working directory = $MOBIFRAG_OUT
# (the results it writes there are pulled back by the platform runner) and finds:
#   MOBIFRAG_DISK   the test disk the runner created for this job (the only disk it may format)
#   MOBIFRAG_AGENT  the agent binary
#   TMPDIR          scratch space
# The same scripts run in the emulator and on a device; only the runner differs.

die() { echo "job: $*" >&2; exit 1; }

require_test_disk() {
  [ -n "${MOBIFRAG_DISK:-}" ] || die "MOBIFRAG_DISK is not set: refusing to format anything"
  [ -b "$MOBIFRAG_DISK" ] || die "$MOBIFRAG_DISK is not a block device"
  if grep -q "^$MOBIFRAG_DISK " /proc/mounts; then
    die "$MOBIFRAG_DISK is mounted: refusing to format it"
  fi
}

# make_fs FS OPTIONS: a fresh file system on the test disk.
make_fs() {
  require_test_disk
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
# into a 9p share); returns once tracing is armed. trace_stop NAME copies the per-CPU
# files to ./blktrace/NAME/.
trace_start() {
  command -v blktrace > /dev/null || die "blktrace is not installed"
  mkdir -p "$TMPDIR/blktrace/$1"
  blktrace -d "$MOBIFRAG_DISK" -D "$TMPDIR/blktrace/$1" -o trace \
    > "$TMPDIR/blktrace/$1.log" 2>&1 &
  BLKTRACE_PID=$!
  for _ in $(seq 100); do
    ls "$TMPDIR/blktrace/$1"/trace.blktrace.* > /dev/null 2>&1 && return 0
    kill -0 "$BLKTRACE_PID" 2> /dev/null || break
    sleep 0.1
  done
  cat "$TMPDIR/blktrace/$1.log" >&2
  die "blktrace did not start"
}

trace_stop() {
  kill -INT "$BLKTRACE_PID"
  wait "$BLKTRACE_PID" || true
  mkdir -p "blktrace/$1"
  cp "$TMPDIR/blktrace/$1"/trace.blktrace.* "blktrace/$1/"
  rm -rf "$TMPDIR/blktrace/$1"
}

# cold_read PATH: drop the page cache, then read PATH once; prints the nanoseconds taken.
cold_read() {
  sync
  echo 3 > /proc/sys/vm/drop_caches
  start=$(date +%s%N)
  cat "$1" > /dev/null || die "cannot read $1"
  echo $(( $(date +%s%N) - start ))
}
