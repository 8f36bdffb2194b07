#!/bin/sh
# Replay workload traces on one fresh file system (AutoAge days, fill/delete aging then
# app scenarios, ...): every TRACE_DIR/*.iotrace in name order, with a fragcheck snapshot,
# the free-space histogram (freespace/NAME.txt) and df -k (freespace/NAME.df) after each
# trace, named after the trace. MKFS_OPTIONS
# "aged" replays on the file system the disk already holds (a copy of a kept disk,
# platform --disk-from) instead of a fresh one.
#
#   replay-traces.sh FS "MKFS_OPTIONS"|aged TRACE_DIR SEED
set -eu
. "$MOBIFRAG_ROOT/jobs/lib.sh"
[ $# -eq 4 ] || die "usage: replay-traces.sh FS MKFS_OPTIONS|aged TRACE_DIR SEED"
fs=$1 mkfs_options=$2 trace_dir=$3 seed=$4
mnt=$TMPDIR/fs
ls "$trace_dir"/*.iotrace > /dev/null 2>&1 || die "no .iotrace files in $trace_dir"

traces=$(count "$trace_dir"/*.iotrace)
progress_plan $((1 + 2 * traces))
if [ "$mkfs_options" = aged ]; then
  progress_step "mount the aged $fs"
else
  progress_step "mkfs and mount $fs"
  make_fs "$fs" "$mkfs_options"
fi
mount_fs "$fs" "$mnt"
mkdir -p "$mnt/data" replay snapshots freespace
for trace in "$trace_dir"/*.iotrace; do
  name=$(basename "$trace" .iotrace)
  progress_step "replay $name"
  "$MOBIFRAG_AGENT" replay --trace "$trace" --root "$mnt/data" --seed "$seed" \
    > "replay/$name.json" || die "replay of $name failed"
  remount_fs "$fs" "$mnt"
  progress_step "fragcheck $name"
  snapshot "$mnt/data" "snapshots/$name"
  free_space_histogram "$fs" > "freespace/$name.txt"
  df -k "$mnt" > "freespace/$name.df"
done
umount "$mnt"
