#!/bin/sh
# Dispersed I/O (TMC §5.3.2, Fig. 13): one FILE-byte file written sequentially on a
# fresh file system, then IOS synchronous 4 KiB writes, and IOS direct 4 KiB reads, at
# random offsets within the first REGION MiB of it, for every REGION, each under
# blktrace; fio's JSON report per phase in fio/, block traces in blktrace/<op>-<MiB>/.
#
#   dispersed.sh FS "MKFS_OPTIONS" FILE IOS "REGION_MIB..." SEED
set -eu
. "$MOBIFRAG_ROOT/jobs/lib.sh"
[ $# -eq 6 ] || die "usage: dispersed.sh FS MKFS_OPTIONS FILE IOS REGION_MIB... SEED"
fs=$1 mkfs_options=$2 file=$3 ios=$4 regions=$5 seed=$6
mnt=$TMPDIR/fs
command -v fio > /dev/null || die "fio is not installed"

progress_plan $((3 + 2 * $(echo "$regions" | wc -w)))
progress_step "mkfs and mount $fs"
make_fs "$fs" "$mkfs_options"
mount_fs "$fs" "$mnt"
mkdir -p "$mnt/data" fio
progress_step "write the file"
"$MOBIFRAG_AGENT" append --dir "$mnt/data" --threads 1 --record-size 1M --file-size "$file" \
  --prefix large --suffix .bin --sync none > large-file.json || die "cannot write the file"
remount_fs "$fs" "$mnt"
progress_step fragcheck
snapshot "$mnt/data" snapshot

for region in $regions; do
  for op in write read; do
    case $op in
      write) mode="--rw=randwrite --sync=1" ;;
      read) mode="--rw=randread --direct=1" ;;
    esac
    progress_step "measured: $op in $region MiB"
    sync
    echo 3 > /proc/sys/vm/drop_caches
    trace_start "$op-$region"
    # io_size: IOS requests even where the region holds fewer blocks (fio wraps around).
    # Caches were dropped above; fio's own invalidation fails (ENOSYS) in the guest.
    # shellcheck disable=SC2086
    fio --name="$op-$region" --filename="$mnt/data/large0.bin" $mode --bs=4k \
      --offset=0 --size="${region}M" --io_size="$((ios * 4))k" --ioengine=psync --thread \
      --randrepeat=0 --randseed="$seed" --norandommap --invalidate=0 --output-format=json \
      --output="fio/$op-$region.json" || die "fio $op in $region MiB failed"
    trace_stop "$op-$region"
  done
done
umount "$mnt"
