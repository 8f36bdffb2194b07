#!/bin/sh
# Checks of the ARS kernel patch (ARS §IV.B–C), on fresh F2FS file systems:
#  layout/   per mount (plain, ars): an unreserved file written by one deterministic
#            4 KiB fsync writer (its layout must not depend on the patch), then a
#            user.ars file written by WRITERS concurrent 4 KiB fsync writers of FILE
#            bytes; fragcheck snapshots in ./layout/<mount>/.
#  nozero    one ars mount without discard, over a disk an unmarked file filled with
#            0xA5 and left: the bytes the disk has written for a reservation and for a
#            cut, against the same on an unmarked file (reserving and cutting must write
#            no zeros), and a reserved file's blocks never written: the disk under them
#            still holds 0xA5, the file reads zeros there, from the page cache, from the
#            disk and after a remount (rows nozero*, cut*, regrown_cut*).
#  policy    one ars mount: a reservation below 70 %, the 70–80 % band (entered by
#            lowering ars_reserve_util), then a fill above 80 %: refused reservations
#            and reclaimed reserved space; ./policy.tsv (step, name, value).
#  truncate  one ars mount: a reserved file cut, regrown through a gap and extended
#            (nothing it held before the cut may read back), then cut to zero and
#            rewritten as SQLite's TRUNCATE journal is at every commit (its blocks
#            must be written again where they were, not in a new section); rows in
#            ./policy.tsv, and a fragcheck snapshot of a marked inline file cut alike in
#            ./truncate-inline/; then a reserved file whose newest data was never
#            written back, cut and regrown by ftruncate and a write past EOF: the
#            regrown range must read as zeros, from the page cache and from the disk
#            (rows regrown/*, regrown_cold/*).
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
progress_plan 5

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

# written_by STEP NAME COMMAND...: COMMAND, then a sync; the bytes the test disk had
# written meanwhile (its block-layer counter: data, metadata and the checkpoint) as a row.
written_by() {
  written_step=$1 written_name=$2
  shift 2
  sync
  written_before=$(disk_written_bytes)
  "$@" || die "$* failed"
  sync
  record "$written_step" "$written_name" "$(( $(disk_written_bytes) - written_before ))"
}

# at STEP NAME PATH OFFSET: where the block holding byte OFFSET of PATH lies, in bytes
# from the reserved section's start ($section), as a row.
at() {
  record "$1" "$2" "$(( $(ars_guest physical "$3" "$4") - section ))"
}

# reserved_bytes STEP PATH: what a file over a section that held 0xA5 reads, as rows:
# its size, its zero bytes, its 0x5A bytes (written), its 0xC3 bytes (written and cut)
# and its 0xA5 bytes (the old file's, which must never come back).
reserved_bytes() {
  record "$1" size "$(stat -c %s "$2")"
  record "$1" zeros "$(ars_guest count "$2" 0 0)"
  record "$1" new_bytes "$(ars_guest count "$2" 0 0x5A)"
  record "$1" cut_bytes "$(ars_guest count "$2" 0 0xC3)"
  record "$1" old_bytes "$(ars_guest count "$2" 0 0xA5)"
}

cold_caches() {
  sync
  echo 3 > /proc/sys/vm/drop_caches
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
  progress_step "layout-$mount"
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

# Reserving writes nothing, and a reserved block reads zeros until written. Without
# discard (the emulator's disk would turn discarded blocks into zeros by itself), an
# unmarked file of 0xA5 fills the disk and is deleted, so the sections a reservation can
# take hold its old data. One 4 KiB fsync'd write into an unmarked and into a marked
# file: the disk writes for the marked one what it writes for the other (the
# reservation's 2 MiB are not written); the rest of the section still holds 0xA5 on disk
# while the file, extended over it, reads zeros there.
progress_step nozero
make_fs f2fs ""
mount_fs f2fs "$mnt" ars,nodiscard
ars_guest fill "$mnt/old" 0xA5 > /dev/null
rm "$mnt/old"
plain=$mnt/plain.db reserved=$mnt/reserved.db
: > "$plain"
ars_mark "$reserved"
written_by nozero plain_write_bytes ars_guest pattern "$plain" 0 4096 0x5A
written_by nozero reserve_write_bytes ars_guest pattern "$reserved" 0 4096 0x5A
record nozero reservations "$(ars_sysfs ars_reservations)"
record nozero held_sections "$(ars_sysfs ars_held_sections)"
record nozero held_blocks "$(ars_sysfs ars_held_blocks)"
record nozero file_sectors "$(blocks_of "$reserved")"
section=$(ars_guest physical "$reserved" 0)
cold_caches
record nozero old_on_disk \
  "$(ars_guest rawcount "$MOBIFRAG_DISK" $(( section + 4096 )) $(( 2097152 - 4096 )) 0xA5)"
# Extended over the whole section, then 100 bytes written into the middle of a page no
# write had touched (F2FS reads such a page before writing into it, if it has an address).
truncate -s 2097152 "$reserved"
unsynced_pattern "$reserved" 1048586 100 0x5A
reserved_bytes nozero_cached "$reserved"
cold_caches
reserved_bytes nozero_cold "$reserved"
at nozero_cold partial_at "$reserved" 1048586
# A cut writes no zeros either: 1 MiB of 0xC3 in each file, both cut to nothing. The
# reserved file keeps its section: written again, its first block lands where it was.
ars_guest pattern "$plain" 0 1048576 0xC3
ars_guest pattern "$reserved" 0 1048576 0xC3
written_by cut plain_bytes truncate -s 0 "$plain"
written_by cut reserve_bytes truncate -s 0 "$reserved"
record cut file_sectors "$(blocks_of "$reserved")"
record cut held_sections "$(ars_sysfs ars_held_sections)"
ars_guest pattern "$reserved" 0 4096 0x5A
at regrown_cut first_at "$reserved" 0
record regrown_cut reservations "$(ars_sysfs ars_reservations)"
truncate -s 2097152 "$reserved"
cold_caches
reserved_bytes regrown_cut "$reserved"
umount "$mnt"
mount_fs f2fs "$mnt" ars,nodiscard
reserved_bytes remounted "$reserved"
umount "$mnt"
f2fs_fsck nozero

# A cut reserved file keeps its section. 64 KiB of 0xA5 cut to 1000 bytes, 4 KiB of 0x5A
# written at 40 KiB, the size extended to 60 KiB: after a remount, no 0xA5 may follow
# byte 1000 (the cut tail of the last page, the gap, the extension).
progress_step truncate
make_fs f2fs ""
mount_fs f2fs "$mnt" ars
journal=$mnt/t.db-journal
ars_mark "$journal"
ars_guest pattern "$journal" 0 65536 0xA5
# A marked file small enough to stay inline in its inode holds no section.
mkdir "$mnt/inline"
inline=$mnt/inline/small.db
ars_mark "$inline"
ars_guest pattern "$inline" 0 100 0xA5
record truncate reservations "$(ars_sysfs ars_reservations)"
truncate -s 1000 "$journal"
record truncate cut_sectors "$(blocks_of "$journal")"
record truncate held_sections "$(ars_sysfs ars_held_sections)"
ars_guest pattern "$journal" 40960 4096 0x5A
truncate -s 61440 "$journal"
sync
umount "$mnt" || die "cannot unmount $mnt"
mount_fs f2fs "$mnt" ars
record truncate old_bytes "$(ars_guest count "$journal" 1000 0xA5)"
record truncate new_bytes "$(ars_guest count "$journal" 0 0x5A)"
record truncate size "$(stat -c %s "$journal")"
# A remount forgets reservations and resets the counters; a marked file counts as
# reserved from its next write. The journal's first commit reserves a section, the
# other 19 write their blocks again where the first put them; the inline file's cut
# frees as usual.
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
  [ "$i" -gt 0 ] || record regrow first_block "$(ars_guest physical "$journal" 0)"
  i=$(( i + 1 ))
done
record regrow last_block "$(ars_guest physical "$journal" 0)"
record regrow reservations "$(ars_sysfs ars_reservations)"
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
record regrown reservations "$(ars_sysfs ars_reservations)"
regrown_bytes regrown "$regrown"
sync
echo 3 > /proc/sys/vm/drop_caches
regrown_bytes regrown_cold "$regrown"
umount "$mnt"
f2fs_fsck truncate

progress_step policy
make_fs f2fs ""
mount_fs f2fs "$mnt" ars
record start utilization "$(f2fs_utilization)"
ars_mark "$mnt/a.db"
dd if=/dev/zero of="$mnt/a.db" bs=4k count=1 conv=notrunc,fsync 2> /dev/null
record reserve reservations "$(ars_sysfs ars_reservations)"
record reserve held_blocks "$(ars_sysfs ars_held_blocks)"
record reserve a_sectors "$(blocks_of "$mnt/a.db")"

# 70–80 %: a file holding a reservation gets another section, a new one none.
ars_set ars_reserve_util 0
dd if=/dev/zero of="$mnt/a.db" bs=4k count=1 seek=512 conv=notrunc,fsync 2> /dev/null
ars_mark "$mnt/b.db"
dd if=/dev/zero of="$mnt/b.db" bs=4k count=1 conv=notrunc,fsync 2> /dev/null
record band reservations "$(ars_sysfs ars_reservations)"
record band refused "$(ars_sysfs ars_refused)"
record band held_sections "$(ars_sysfs ars_held_sections)"
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
record full held_blocks "$(ars_sysfs ars_held_blocks)"
ars_mark "$mnt/c.db"
dd if=/dev/zero of="$mnt/c.db" bs=4k count=1 conv=notrunc,fsync 2> /dev/null
record high reservations "$(ars_sysfs ars_reservations)"
record high refused "$(ars_sysfs ars_refused)"
record high reclaimed_blocks "$(ars_sysfs ars_reclaimed_blocks)"
record high a_sectors "$(blocks_of "$mnt/a.db")"
record high c_sectors "$(blocks_of "$mnt/c.db")"
record high held_sections "$(ars_sysfs ars_held_sections)"
record high held_blocks "$(ars_sysfs ars_held_blocks)"
record high utilization "$(f2fs_utilization)"
umount "$mnt"
f2fs_fsck policy
