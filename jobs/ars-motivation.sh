#!/bin/sh
# ARS Fig. 1 (§III, repeated in §V.A): under one scheme (f2fs, ipu, ars, ars-ipu), a
# continuous file written by one sequential 4 KiB fsync writer and a fragmented file of
# the same size written by WRITERS concurrent 4 KiB fsync writers (each its own slice),
# both user.ars files, each on a fresh F2FS; then a fragcheck snapshot and READS cold
# sequential reads of each file. ./reads.tsv: file, run, bytes, ns; ./snapshot/<file>/;
# each file's writing traced in ./blktrace/write-<file>/ (the device model places its
# pages as they were written) and each read's in ./blktrace/read-<file>-<run>/ (from
# after the page cache is dropped to after a sync that follows the read).
#
#   ars-motivation.sh SCHEME FILE WRITERS READS
set -eu
. "$MOBIFRAG_ROOT/jobs/lib.sh"
. "$MOBIFRAG_ROOT/jobs/ars-lib.sh"
[ $# -eq 4 ] || die "usage: ars-motivation.sh SCHEME FILE WRITERS READS"
scheme=$1 file=$2 writers=$3 reads=$4
mnt=$TMPDIR/fs
printf 'file\trun\tbytes\tns\n' > reads.tsv
: > fsck.txt
progress_plan 6

for kind in continuous fragmented; do
  jobs=1
  [ "$kind" = fragmented ] && jobs=$writers
  progress_step "mkfs, mount and write the $kind file ($jobs writers)"
  scheme_mount "$scheme" "$mnt"
  mkdir "$mnt/$kind"
  ars_mark "$mnt/$kind/file.db" "$file"
  traced "write-$kind" fio --name="$kind" --filename="$mnt/$kind/file.db" --rw=write \
    --bs=4k --size=$(( file / jobs )) --offset_increment=$(( file / jobs )) \
    --numjobs="$jobs" --ioengine=psync --fsync=1 --fallocate=none --output=/dev/null \
    || die "fio ($kind) failed"
  remount_fs f2fs "$mnt"
  progress_step "fragcheck $kind"
  snapshot "$mnt/$kind" "snapshot/$kind"
  progress_step "measured: $reads cold reads of the $kind file"
  cold_reads "$kind" "$mnt/$kind/file.db" "$reads" "$file"
  umount "$mnt"
  f2fs_fsck "$kind"
done
