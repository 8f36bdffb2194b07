#!/bin/sh
# Replay workload traces on one fresh file system (AutoAge days, fill/delete aging then
# app scenarios, ...): every TRACE_DIR/*.iotrace in name order, with a fragcheck snapshot,
# the free-space histogram (freespace/NAME.txt) and df -k (freespace/NAME.df) after each
# trace, named after the trace. MKFS_OPTIONS
# "aged" replays on the file system the disk already holds (a copy of a kept disk,
# platform --disk-from) instead of a fresh one. PACE "pace" replays each operation at
# its TIME_US (agent replay --pace), as Mobibench's replayer does; "fast" (the default)
# as fast as the threads go.
#
#   replay-traces.sh FS "MKFS_OPTIONS"|aged TRACE_DIR SEED [fast|pace]
set -eu
. "$MOBIFRAG_ROOT/jobs/lib.sh"
[ $# -eq 4 ] || [ $# -eq 5 ] \
  || die "usage: replay-traces.sh FS MKFS_OPTIONS|aged TRACE_DIR SEED [fast|pace]"
fs=$1 mkfs_options=$2 trace_dir=$3 seed=$4 pace=${5:-fast}
case $pace in
  fast) pace_option= ;;
  pace) pace_option=--pace ;;
  *) die "replay-traces.sh: PACE is fast or pace, not '$pace'" ;;
esac
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
  # shellcheck disable=SC2086 # an empty option is no word
  "$MOBIFRAG_AGENT" replay --trace "$trace" --root "$mnt/data" --seed "$seed" $pace_option \
    > "replay/$name.json" || die "replay of $name failed"
  remount_fs "$fs" "$mnt"
  progress_step "fragcheck $name"
  snapshot "$mnt/data" "snapshots/$name"
  free_space_histogram "$fs" > "freespace/$name.txt"
  df -k "$mnt" > "freespace/$name.df"
done
umount "$mnt"
