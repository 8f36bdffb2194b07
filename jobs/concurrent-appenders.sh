#!/bin/sh
# Concurrent appenders (TMC §4.2, Fig. 6; §6.1.1): WRITERS threads each append RECORD
# bytes with fsync to their own SQLite-named file until it holds FILE bytes, on a fresh
# file system; then a fragcheck snapshot of the files as they lie on disk.
#
#   concurrent-appenders.sh FS "MKFS_OPTIONS" WRITERS RECORD FILE
set -eu
. "$MOBIFRAG_ROOT/jobs/lib.sh"
[ $# -eq 5 ] || die "usage: concurrent-appenders.sh FS MKFS_OPTIONS WRITERS RECORD FILE"
fs=$1 mkfs_options=$2 writers=$3 record=$4 file=$5
mnt=$TMPDIR/fs

progress_plan 3
progress_step "mkfs and mount $fs"
make_fs "$fs" "$mkfs_options"
mount_fs "$fs" "$mnt"
mkdir "$mnt/data"
progress_step "append: $writers writers"
"$MOBIFRAG_AGENT" append --dir "$mnt/data" --threads "$writers" --record-size "$record" \
  --file-size "$file" --prefix writer --suffix .db --sync fsync > append.json
remount_fs "$fs" "$mnt"
progress_step fragcheck
snapshot "$mnt/data" snapshot
umount "$mnt"
