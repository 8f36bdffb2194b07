#!/bin/sh
# Utilization level of the treatment experiments (TMC §6.1.1, §6.2.1; levels of §4.3):
# a fresh file system aged by one fill/delete trace (empty for Low, the pristine
# state), left on the test disk for the runs that start from a copy of it
# (platform --keep-disk / --disk-from). Writes replay.json, df.txt, freespace.txt.
#
#   treat-age.sh FS "MKFS_OPTIONS" TRACE SEED
set -eu
. "$MOBIFRAG_ROOT/jobs/lib.sh"
[ $# -eq 4 ] || die "usage: treat-age.sh FS MKFS_OPTIONS TRACE SEED"
fs=$1 mkfs_options=$2 trace=$3 seed=$4
mnt=$TMPDIR/fs
[ -f "$trace" ] || die "no trace $trace"

make_fs "$fs" "$mkfs_options"
mount_fs "$fs" "$mnt"
mkdir -p "$mnt/data"
"$MOBIFRAG_AGENT" replay --trace "$trace" --root "$mnt/data" --seed "$seed" \
  > replay.json || die "aging replay failed"
sync
df -k "$mnt" > df.txt
umount "$mnt"
free_space_histogram "$fs" > freespace.txt
