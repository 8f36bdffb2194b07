#!/bin/sh
# ARS Figs. 4–5 (§V.A) under one scheme (f2fs, ipu, ars, ars-ipu), on one fresh F2FS:
# NFILES user.ars files of FILE bytes (each written by WRITERS concurrent 4 KiB fsync
# writers) are measured with fio at Low (pristine), then the fragmentation benchmark
# (fill to FILL %, delete every other file, halve the size from START down to MIN bytes)
# ages the file system to High and they are measured again. ./fio/<state>-<rw>.json
# with each fio run's blktrace in ./blktrace/<state>-<rw>/ (the reserved files' creation
# in ./blktrace/create-synthetic/, their writing in ./blktrace/write-reserved/),
# ./snapshot/<state>/ (the reserved files after each state's measurements),
# ./state/<aged|collected|measured>/ (F2FS status, free-space map, F2FS's and the disk's
# I/O counters after the aging, after the GC pass, after the High measurements),
# ./fragbench-high.json, ./create.tsv, fsck.f2fs at the end. With GC_MS above 0,
# Android's GC pass (gc_pass: urgent GC every GC_MS ms, ./gc-pass.tsv) runs between the
# aging and the High measurements; the measurement window of the GC counters (ARS §V.A,
# GC "at High") starts after it: `collected` is taken once the pass's write-back is on
# disk, so the pass's cleaning of the benchmark's debris, alike under every scheme,
# stays out of it.
# The file system stays mounted from the reserved files' creation to the High
# measurements (settle drops the caches instead): ARS's reservations live as long as
# the mount.
#
#   ars-fragbench.sh SCHEME FILE WRITERS NFILES FILL START MIN SEQ_BS RAND_BS GC_MS
set -eu
. "$MOBIFRAG_ROOT/jobs/lib.sh"
. "$MOBIFRAG_ROOT/jobs/ars-lib.sh"
[ $# -eq 10 ] || die "usage: ars-fragbench.sh SCHEME FILE WRITERS NFILES FILL START MIN SEQ_BS RAND_BS GC_MS"
scheme=$1 file=$2 writers=$3 nfiles=$4 fill=$5 start=$6 min=$7 seq_bs=$8 rand_bs=$9 gc_ms=${10}
mnt=$TMPDIR/fs
: > fsck.txt
: > create.tsv
: > phases.tsv
progress_plan 6

phase reserved-files
scheme_mount "$scheme" "$mnt"
files=$(reserved_files "$mnt/reserved" "$nfiles" "$file" "$writers")
settle
phase measure-low
fio_measure low "$files" "$seq_bs" "$rand_bs"
settle
snapshot "$mnt/reserved" snapshot/low

phase fragbench
fragbench "$mnt" "$fill" "$start" "$min" high
settle
f2fs_state aged
phase gc-pass
[ "$gc_ms" -eq 0 ] || gc_pass "$gc_ms"
sync
f2fs_state collected
phase measure-high
fio_measure high "$files" "$seq_bs" "$rand_bs"
sync
f2fs_state measured
scheme_remount "$scheme" "$mnt"
snapshot "$mnt/reserved" snapshot/high
umount "$mnt"
phase fsck
f2fs_fsck fragbench
phase end
