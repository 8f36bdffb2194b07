#!/bin/sh
# Recurring defragmentation under app installs and updates (janusd §2.5, Fig. 5): replay
# AutoAge day traces (TRACE_DIR/day-NN.iotrace, in name order) on one file system and
# every INTERVAL days run the real e4defrag on all files under blktrace. MKFS_OPTIONS
# "aged" replays on the file system the disk already holds (a copy of age-image.sh's
# aged image, platform --disk-from: janusd's 70 % and 90 % states), anything else makes
# a fresh one with those options. Per
# defragmentation day NN: ./defrag/day-NN/{before,after}/ (fragcheck snapshots around
# e4defrag), ./blktrace/day-NN/ and ./defrag/day-NN/e4defrag.log.
#
#   janusd-recurring.sh FS "MKFS_OPTIONS"|aged TRACE_DIR SEED INTERVAL
set -eu
. "$MOBIFRAG_ROOT/jobs/lib.sh"
[ $# -eq 5 ] || die "usage: janusd-recurring.sh FS MKFS_OPTIONS|aged TRACE_DIR SEED INTERVAL"
fs=$1 mkfs_options=$2 trace_dir=$3 seed=$4 interval=$5
mnt=$TMPDIR/fs
ls "$trace_dir"/day-*.iotrace > /dev/null 2>&1 || die "no day-NN.iotrace files in $trace_dir"
[ "$interval" -ge 1 ] 2> /dev/null || die "interval $interval is not a number of days >= 1"
command -v e4defrag > /dev/null || die "e4defrag is not installed"

days=0 defrags=0
for trace in "$trace_dir"/day-*.iotrace; do
  day=$(basename "$trace" .iotrace | sed 's/^day-0*//')
  days=$((days + 1))
  if [ -n "$day" ] && [ $((day % interval)) -eq 0 ]; then defrags=$((defrags + 1)); fi
done
progress_plan $((1 + days + 3 * defrags))
if [ "$mkfs_options" = aged ]; then
  progress_step "mount the aged $fs"
else
  progress_step "mkfs and mount $fs"
  make_fs "$fs" "$mkfs_options"
fi
mount_fs "$fs" "$mnt"
mkdir -p "$mnt/data" replay defrag
for trace in "$trace_dir"/day-*.iotrace; do
  name=$(basename "$trace" .iotrace)
  day=$(echo "${name#day-}" | sed 's/^0*//')
  progress_step "replay $name"
  "$MOBIFRAG_AGENT" replay --trace "$trace" --root "$mnt/data" --seed "$seed" \
    > "replay/$name.json" || die "replay of $name failed"
  if [ -z "$day" ] || [ $((day % interval)) -ne 0 ]; then continue; fi
  remount_fs "$fs" "$mnt"
  progress_step "fragcheck before e4defrag ($name)"
  snapshot "$mnt/data" "defrag/$name/before"
  progress_step "measured: e4defrag ($name)"
  trace_start "$name"
  e4defrag -v "$mnt/data" > "defrag/$name/e4defrag.log" 2>&1 \
    || echo "e4defrag exited $?" >> "defrag/$name/e4defrag.log"
  sync
  trace_stop "$name"
  remount_fs "$fs" "$mnt"
  progress_step "fragcheck after e4defrag ($name)"
  snapshot "$mnt/data" "defrag/$name/after"
done
umount "$mnt"
