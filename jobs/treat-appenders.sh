#!/bin/sh
# Concurrent appenders on an aged file system (TMC §6.1.1, Fig. 14; §6.2.1, Fig. 17a):
# THREADS threads each append RECORD bytes with fsync to their own SQLite-named file
# until it holds FILE bytes, reserving space in units of UNIT bytes with
# fallocate(KEEP_SIZE) when a file outgrows its reservation (0 = no preallocation).
# The disk already holds the aged file system (a copy of age-image.sh's disk).
# Snapshot of the files as they lie on disk in ./snapshot/.
# With `defrag`: the appends run under blktrace (./blktrace/append/: where the FTL put
# the files' pages, for janusdP's DoF_P), then the real e4defrag on those files under
# blktrace (./blktrace/e4defrag/, e4defrag.log) and a second snapshot in ./after/.
#
#   treat-appenders.sh FS THREADS RECORD FILE UNIT [defrag]
set -eu
. "$MOBIFRAG_ROOT/jobs/lib.sh"
[ $# -eq 5 ] || [ $# -eq 6 ] || die "usage: treat-appenders.sh FS THREADS RECORD FILE UNIT [defrag]"
fs=$1 threads=$2 record=$3 file=$4 unit=$5 defrag=${6:-}
mnt=$TMPDIR/fs
dir=$mnt/data/treat

if [ "$defrag" = defrag ]; then progress_plan 5; else progress_plan 3; fi
progress_step "mount the aged $fs"
mount_fs "$fs" "$mnt"
mkdir -p "$dir"
df -k "$mnt" > df-before.txt
progress_step "append: $threads threads, prealloc unit $unit"
if [ "$defrag" = defrag ]; then trace_start append; fi
"$MOBIFRAG_AGENT" append --dir "$dir" --threads "$threads" --record-size "$record" \
  --file-size "$file" --prefix writer --suffix .db --sync fsync --prealloc "$unit" \
  --continue-on-enospc > append.json
remount_fs "$fs" "$mnt"
if [ "$defrag" = defrag ]; then trace_stop append; fi
progress_step fragcheck
snapshot "$dir" snapshot
if [ "$defrag" = defrag ]; then
  command -v e4defrag > /dev/null || die "e4defrag is not installed"
  progress_step "measured: e4defrag"
  trace_start e4defrag
  e4defrag -v "$dir" > e4defrag.log 2>&1 || echo "e4defrag exited $?" >> e4defrag.log
  sync
  trace_stop e4defrag
  remount_fs "$fs" "$mnt"
  progress_step "fragcheck after e4defrag"
  snapshot "$dir" after
elif [ -n "$defrag" ]; then
  die "unknown step $defrag (expected defrag)"
fi
umount "$mnt"
