#!/bin/sh
# Workload traces each replayed on a pristine file system (TMC §6.1.2, Fig. 15: the
# insert benchmark per thread count; §6.1.1, Fig. 16: app scenarios per SQLite
# preallocation unit): for every TRACE_DIR/*.iotrace and every UNIT (bytes, 0 = none),
# a fresh file system, the replay with --sqlite-prealloc UNIT, then a fragcheck
# snapshot in ./snapshots/<trace>/unit-<UNIT>/ and the replay summary in ./replay/.
#
#   treat-replays.sh FS "MKFS_OPTIONS" TRACE_DIR SEED UNIT...
set -eu
. "$MOBIFRAG_ROOT/jobs/lib.sh"
[ $# -ge 5 ] || die "usage: treat-replays.sh FS MKFS_OPTIONS TRACE_DIR SEED UNIT..."
fs=$1 mkfs_options=$2 trace_dir=$3 seed=$4
shift 4
mnt=$TMPDIR/fs
ls "$trace_dir"/*.iotrace > /dev/null 2>&1 || die "no .iotrace files in $trace_dir"

traces=$(count "$trace_dir"/*.iotrace)
progress_plan $((3 * traces * $#))
mkdir -p replay snapshots
for trace in "$trace_dir"/*.iotrace; do
  name=$(basename "$trace" .iotrace)
  for unit in "$@"; do
    progress_step "mkfs and mount $fs for $name, unit $unit"
    make_fs "$fs" "$mkfs_options"
    mount_fs "$fs" "$mnt"
    mkdir -p "$mnt/data"
    progress_step "replay $name"
    "$MOBIFRAG_AGENT" replay --trace "$trace" --root "$mnt/data" --seed "$seed" \
      --sqlite-prealloc "$unit" > "replay/$name-unit-$unit.json" \
      || die "replay of $name with unit $unit failed"
    remount_fs "$fs" "$mnt"
    progress_step "fragcheck $name, unit $unit"
    snapshot "$mnt/data" "snapshots/$name/unit-$unit"
    umount "$mnt"
  done
done
