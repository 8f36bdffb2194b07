#!/bin/sh
# Replay a multi-day workload (TMC §4.1.1 AutoAge and the §4.3 procedures): every
# TRACE_DIR/*.iotrace in name order on one fresh file system, with a fragcheck snapshot
# and the free-space histogram after each trace.
#
#   replay-days.sh FS "MKFS_OPTIONS" TRACE_DIR SEED
set -eu
. "$MOBIFRAG_ROOT/jobs/lib.sh"
[ $# -eq 4 ] || die "usage: replay-days.sh FS MKFS_OPTIONS TRACE_DIR SEED"
fs=$1 mkfs_options=$2 trace_dir=$3 seed=$4
mnt=$TMPDIR/fs
ls "$trace_dir"/*.iotrace > /dev/null 2>&1 || die "no .iotrace files in $trace_dir"

make_fs "$fs" "$mkfs_options"
mount_fs "$fs" "$mnt"
mkdir -p "$mnt/data" replay snapshots freespace
for trace in "$trace_dir"/*.iotrace; do
  day=$(basename "$trace" .iotrace)
  "$MOBIFRAG_AGENT" replay --trace "$trace" --root "$mnt/data" --seed "$seed" \
    > "replay/$day.json" || die "replay of $day failed"
  remount_fs "$fs" "$mnt"
  snapshot "$mnt/data" "snapshots/$day"
  free_space_histogram "$fs" > "freespace/$day.txt"
done
umount "$mnt"
