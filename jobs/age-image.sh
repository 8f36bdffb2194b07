#!/bin/sh
# An aged image kept for later runs: a fresh file system aged by one trace (a treatment's
# utilization level, TMC §4.3 / §6.1.1; a No / Moderate / Severe state, TMC §5.2), left on
# the test disk (platform --keep-disk) so every run starts from a copy of it
# (--disk-from). Writes replay.json, snapshot/ (fragcheck of every file), df.txt,
# freespace.txt.
#
#   age-image.sh FS "MKFS_OPTIONS" TRACE SEED
set -eu
. "$MOBIFRAG_ROOT/jobs/lib.sh"
[ $# -eq 4 ] || die "usage: age-image.sh FS MKFS_OPTIONS TRACE SEED"
fs=$1 mkfs_options=$2 trace=$3 seed=$4
mnt=$TMPDIR/fs
[ -f "$trace" ] || die "no trace $trace"

progress_plan 3
progress_step "mkfs and mount $fs"
make_fs "$fs" "$mkfs_options"
mount_fs "$fs" "$mnt"
mkdir -p "$mnt/data"
progress_step "replay $(basename "$trace" .iotrace)"
"$MOBIFRAG_AGENT" replay --trace "$trace" --root "$mnt/data" --seed "$seed" \
  > replay.json || die "aging replay failed"
remount_fs "$fs" "$mnt"
progress_step fragcheck
snapshot "$mnt/data" snapshot
df -k "$mnt" > df.txt
umount "$mnt"
free_space_histogram "$fs" > freespace.txt
