#!/bin/sh
# Checks of the ARS kernel patch (ARS §IV.B–C), on fresh F2FS file systems:
#  layout/   per mount (plain, ars): an unreserved file written by one deterministic
#            4 KiB fsync writer (its layout must not depend on the patch), then a
#            user.ars file written by WRITERS concurrent 4 KiB fsync writers of FILE
#            bytes; fragcheck snapshots in ./layout/<mount>/.
#  policy    one ars mount: a reservation below 70 %, the 70–80 % band (entered by
#            lowering ars_reserve_util), then a fill above 80 %: refused reservations
#            and reclaimed reserved space; ./policy.tsv (step, name, value).
#  truncate  one ars mount: a reserved file cut, regrown through a gap and extended
#            (nothing it held before the cut may read back), then cut to zero and
#            rewritten as SQLite's TRUNCATE journal is at every commit (its section
#            must be reused, not a new one reserved); rows in ./policy.tsv, and a
#            fragcheck snapshot of a marked inline file cut alike in ./truncate-inline/;
#            then a reserved file whose newest data was never written back, cut and regrown
#            by ftruncate and a write past EOF: the regrown range must read as zeros, from
#            the page cache and from the disk (rows regrown/*, regrown_cold/*).
# fsck.f2fs after every part (./fsck.txt, ./*.fsck.log).
#
#   ars-checks.sh FILE WRITERS
set -eu
. "$MOBIFRAG_ROOT/jobs/lib.sh"
. "$MOBIFRAG_ROOT/jobs/ars-lib.sh"
[ $# -eq 2 ] || die "usage: ars-checks.sh FILE WRITERS"
file=$1 writers=$2
mnt=$TMPDIR/fs
: > fsck.txt
printf 'step\tname\tvalue\n' > policy.tsv

record() { printf '%s\t%s\t%s\n' "$1" "$2" "$3" >> policy.tsv; }
blocks_of() { stat -c %b "$1"; }  # 512-byte sectors allocated

# unsynced_pattern PATH OFFSET LENGTH BYTE: like `ars_guest pattern`, without the fsync
# (the bytes stay dirty in the page cache).
unsynced_pattern() {
  python3 -c 'import os, sys
fd = os.open(sys.argv[1], os.O_WRONLY)
os.pwrite(fd, bytes([int(sys.argv[4], 0)]) * int(sys.argv[3]), int(sys.argv[2]))
os.close(fd)' "$@" || die "cannot write $4 into $1"
}

# regrown_bytes STEP PATH: what the regrown file holds, as rows of policy.tsv: its size,
# its zero bytes from byte 1000 on, its 0x5A bytes (the regrowth's write) and its 0xC3
# bytes (the newest data before the cut).
regrown_bytes() {
  record "$1" size "$(stat -c %s "$2")"
  record "$1" zeros "$(ars_guest count "$2" 1000 0)"
  record "$1" new_bytes "$(ars_guest count "$2" 0 0x5A)"
  record "$1" kept_bytes "$(ars_guest count "$2" 0 0xC3)"
}

# One writer, fixed seed: the same requests in the same order on both mounts.
unreserved_writer() {
  fio --name=unreserved --filename="$1" --rw=randwrite --bs=4k --size=1m \
    --ioengine=psync --fsync=1 --fallocate=none --randrepeat=1 --randseed=7 \
    --output=/dev/null || die "fio (unreserved) failed"
}

concurrent_writers() {
  fio --name=writers --filename="$1" --rw=write --bs=4k --size=$(( file / writers )) \
    --offset_increment=$(( file / writers )) --numjobs="$writers" --ioengine=psync \
    --fsync=1 --fallocate=none --output=/dev/null || die "fio (concurrent) failed"
}

for mount in plain ars; do
  make_fs f2fs ""
  mount_fs f2fs "$mnt" "$(if [ "$mount" = ars ]; then echo ars; fi)"
  mkdir "$mnt/unreserved" "$mnt/reserved"
  unreserved_writer "$mnt/unreserved/file"
  ars_mark "$mnt/reserved/file.db" "$file"
  concurrent_writers "$mnt/reserved/file.db"
  remount_fs f2fs "$mnt"
  snapshot "$mnt/unreserved" "layout/$mount/unreserved"
  snapshot "$mnt/reserved" "layout/$mount/reserved"
  umount "$mnt"
  f2fs_fsck "layout-$mount"
done

# Truncation keeps a reserved file's blocks, zeroed. 64 KiB of 0xA5 cut to 1000 bytes,
# 4 KiB of 0x5A written at 40 KiB, the size extended to 60 KiB: after a remount, no 0xA5
# may follow byte 1000 (the cut tail of the last page, the gap, the extension).
make_fs f2fs ""
mount_fs f2fs "$mnt" ars
journal=$mnt/t.db-journal
ars_mark "$journal"
ars_guest pattern "$journal" 0 65536 0xA5
# A marked file small enough to stay inline in its inode holds no section to keep.
mkdir "$mnt/inline"
inline=$mnt/inline/small.db
ars_mark "$inline"
ars_guest pattern "$inline" 0 100 0xA5
record truncate reservations "$(ars_sysfs ars_reservations)"
truncate -s 1000 "$journal"
record truncate cut_sectors "$(blocks_of "$journal")"
ars_guest pattern "$journal" 40960 4096 0x5A
truncate -s 61440 "$journal"
sync
umount "$mnt" || die "cannot unmount $mnt"
mount_fs f2fs "$mnt" ars
record truncate old_bytes "$(ars_guest count "$journal" 1000 0xA5)"
record truncate new_bytes "$(ars_guest count "$journal" 0 0x5A)"
record truncate size "$(stat -c %s "$journal")"
# A remount forgets reservations and resets the counters; a marked file counts as
# reserved from its next write, so the journal's cuts keep its section, and the inline
# file's cut frees as usual.
ars_guest pattern "$inline" 0 50 0x5A
truncate -s 10 "$inline"
record inline size "$(stat -c %s "$inline")"
record inline new_bytes "$(ars_guest count "$inline" 0 0x5A)"
snapshot "$mnt/inline" truncate-inline
ars_guest pattern "$journal" 0 4096 0xA5
i=0
while [ "$i" -lt 20 ]; do
  truncate -s 0 "$journal"
  ars_guest pattern "$journal" 0 16384 0xA5
  i=$(( i + 1 ))
done
record regrow reservations "$(ars_sysfs ars_reservations)"
record regrow kept_truncates "$(ars_sysfs ars_kept_truncates)"
record regrow sectors "$(blocks_of "$journal")"
# Regrown ranges read as zeros. 64 KiB of 0xA5 written and fsync'd into a fresh reserved
# file, then 0xC3 over all of it left dirty in the page cache (the cut drops it unwritten,
# so the disk still holds the 0xA5), cut to 1000 bytes, regrown by ftruncate to 20 KiB,
# 100 bytes of 0x5A written at 30000 (inside a page wholly past EOF: not read first) and
# ftruncate to 64 KiB. Past byte 1000 only the 100 new bytes may be other than zero: read
# at once, then after a sync and dropping the caches (what the disk holds).
regrown=$mnt/regrown.db-journal
ars_mark "$regrown"
ars_guest pattern "$regrown" 0 65536 0xA5
unsynced_pattern "$regrown" 0 65536 0xC3
truncate -s 1000 "$regrown"
truncate -s 20480 "$regrown"
unsynced_pattern "$regrown" 30000 100 0x5A
truncate -s 65536 "$regrown"
record regrown kept_truncates "$(ars_sysfs ars_kept_truncates)"
regrown_bytes regrown "$regrown"
sync
echo 3 > /proc/sys/vm/drop_caches
regrown_bytes regrown_cold "$regrown"
umount "$mnt"
f2fs_fsck truncate

make_fs f2fs ""
mount_fs f2fs "$mnt" ars
record start utilization "$(f2fs_utilization)"
ars_mark "$mnt/a.db"
dd if=/dev/zero of="$mnt/a.db" bs=4k count=1 conv=notrunc,fsync 2> /dev/null
record reserve reservations "$(ars_sysfs ars_reservations)"
record reserve a_sectors "$(blocks_of "$mnt/a.db")"

# 70–80 %: a file holding a reservation gets another section, a new one none.
ars_set ars_reserve_util 0
dd if=/dev/zero of="$mnt/a.db" bs=4k count=1 seek=512 conv=notrunc,fsync 2> /dev/null
ars_mark "$mnt/b.db"
dd if=/dev/zero of="$mnt/b.db" bs=4k count=1 conv=notrunc,fsync 2> /dev/null
record band reservations "$(ars_sysfs ars_reservations)"
record band refused "$(ars_sysfs ars_refused)"
record band a_sectors "$(blocks_of "$mnt/a.db")"
record band b_sectors "$(blocks_of "$mnt/b.db")"
ars_set ars_reserve_util 70

# Above 80 %: an unreserved file fills the disk, then a new user.ars file writes.
i=0
while [ "$(f2fs_utilization)" -le 82 ]; do
  dd if=/dev/zero of="$mnt/fill" bs=1M count=4 seek=$(( i * 4 )) conv=notrunc,fsync \
    2> /dev/null || break
  i=$(( i + 1 ))
done
record full utilization "$(f2fs_utilization)"
record full a_sectors "$(blocks_of "$mnt/a.db")"
ars_mark "$mnt/c.db"
dd if=/dev/zero of="$mnt/c.db" bs=4k count=1 conv=notrunc,fsync 2> /dev/null
record high reservations "$(ars_sysfs ars_reservations)"
record high refused "$(ars_sysfs ars_refused)"
record high reclaimed_blocks "$(ars_sysfs ars_reclaimed_blocks)"
record high a_sectors "$(blocks_of "$mnt/a.db")"
record high c_sectors "$(blocks_of "$mnt/c.db")"
record high utilization "$(f2fs_utilization)"
umount "$mnt"
f2fs_fsck policy
