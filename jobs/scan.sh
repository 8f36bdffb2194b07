#!/bin/sh
# Scan time of a file vs its DoF (TMC §5.1, Fig. 9; §5.3.1): for every aging trace in
# TRACE_DIR (free space made of holes of one size, or no aging), on a fresh file system:
# age it, write one FILE-byte file sequentially, then read it cold with cat under
# blktrace. Writes scan.tsv (trace, nanoseconds), snapshots/<trace>/, blktrace/<trace>/.
#
#   scan.sh FS "MKFS_OPTIONS" TRACE_DIR FILE SEED
set -eu
. "$MOBIFRAG_ROOT/jobs/lib.sh"
[ $# -eq 5 ] || die "usage: scan.sh FS MKFS_OPTIONS TRACE_DIR FILE SEED"
fs=$1 mkfs_options=$2 trace_dir=$3 file=$4 seed=$5
mnt=$TMPDIR/fs
ls "$trace_dir"/*.iotrace > /dev/null 2>&1 || die "no .iotrace files in $trace_dir"

traces=$(count "$trace_dir"/*.iotrace)
progress_plan $((5 * traces))
printf 'trace\tread_ns\n' > scan.tsv.partial
mkdir -p replay snapshots
for trace in "$trace_dir"/*.iotrace; do
  name=$(basename "$trace" .iotrace)
  progress_step "mkfs and mount $fs for $name"
  make_fs "$fs" "$mkfs_options"
  mount_fs "$fs" "$mnt"
  mkdir -p "$mnt/data/target"
  progress_step "replay $name"
  "$MOBIFRAG_AGENT" replay --trace "$trace" --root "$mnt/data" --seed "$seed" \
    > "replay/$name.json" || die "aging $name failed"
  progress_step "write the scanned file"
  "$MOBIFRAG_AGENT" append --dir "$mnt/data/target" --threads 1 --record-size 1M \
    --file-size "$file" --prefix scanned --suffix .bin --sync none > "replay/$name-write.json" \
    || die "writing the scanned file after $name failed (disk full?)"
  remount_fs "$fs" "$mnt"
  progress_step "fragcheck $name"
  snapshot "$mnt/data/target" "snapshots/$name"
  progress_step "measured: cold read after $name"
  trace_start "$name"
  ns=$(cold_read "$mnt/data/target/scanned0.bin")
  trace_stop "$name"
  printf '%s\t%s\n' "$name" "$ns" >> scan.tsv.partial
  umount "$mnt"
done
mv scan.tsv.partial scan.tsv
