#!/bin/sh
# ARS Fig. 2 (§III): under one scheme (f2fs, ipu, ars, ars-ipu), a user.ars file of FILE
# bytes written once at random offsets in requests of each size in BLOCK_SIZES (bytes,
# space-separated), each fsync'd, on a fresh F2FS per size; then a fragcheck snapshot
# and READS cold sequential reads. ./reads.tsv: block_size, run, bytes, ns;
# ./snapshot/<bytes>/; each read's blktrace in ./blktrace/read-<bytes>-<run>/ (from
# after the page cache is dropped to after a sync that follows the read).
#
#   ars-blocksize.sh SCHEME FILE "BLOCK_SIZES" READS
set -eu
. "$MOBIFRAG_ROOT/jobs/lib.sh"
. "$MOBIFRAG_ROOT/jobs/ars-lib.sh"
[ $# -eq 4 ] || die "usage: ars-blocksize.sh SCHEME FILE BLOCK_SIZES READS"
scheme=$1 file=$2 sizes=$3 reads=$4
mnt=$TMPDIR/fs
printf 'block_size\trun\tbytes\tns\n' > reads.tsv
: > fsck.txt
progress_plan $((3 * $(echo "$sizes" | wc -w)))

for bs in $sizes; do
  progress_step "mkfs, mount and write with $bs-byte requests"
  scheme_mount "$scheme" "$mnt"
  mkdir "$mnt/bs-$bs"
  ars_mark "$mnt/bs-$bs/file.db" "$file"
  fio --name="bs-$bs" --filename="$mnt/bs-$bs/file.db" --rw=randwrite --bs="$bs" \
    --size="$file" --ioengine=psync --fsync=1 --fallocate=none --randrepeat=1 \
    --output=/dev/null || die "fio (bs $bs) failed"
  remount_fs f2fs "$mnt"
  progress_step "fragcheck $bs"
  snapshot "$mnt/bs-$bs" "snapshot/$bs"
  progress_step "measured: $reads cold reads ($bs)"
  cold_reads "$bs" "$mnt/bs-$bs/file.db" "$reads" "$file"
  umount "$mnt"
  f2fs_fsck "bs-$bs"
done
