#!/bin/sh
# Ext4 tuning for Android (seed 004, §4.1–4.3): one configuration of mkfs and mount
# options. A fresh ext4 with MKFS_OPTIONS is mounted with MOUNT_OPTIONS, aged by the
# create/delete trace (256 KB files to half full), then every benchmark runs after the
# page cache is dropped: IOzone's four tests (run by IOZONE: Debian's iozone3 at the
# pinned version, rule iozone_fetch), Debian's postmark, and FFSB's four tests in
# filebench (benchmarks/filebench/ffsb-<mix>.f, run by FILEBENCH: the binary the workflow
# built from filebench's pinned source, rule filebench_build). Writes mkfs.txt (dumpe2fs
# -h), mount.txt, aging.json, df.txt, iozone/<test>.txt (IOzone's report of each test),
# postmark.cfg, postmark.txt, postmark-wall-ns.txt, filebench/<mix>.f (the workload as
# run) and filebench/<mix>.txt (filebench's output, its summary), and
# async-commit-probe.txt when the options ask for journal_async_commit, and
# auto-da-alloc.tsv (auto_da_alloc's calls per measured phase). Every measured
# run is traced: blktrace/iozone-<test>/ for each IOzone test, blktrace/postmark/,
# blktrace/filebench-<mix>/ for each filebench mix.
#
# IOzone (the paper: sequential write and read with 256 KB records, random write and read
# with 4 KB records, one 32 MB file, the buffer cache cleared before each): each test is
# one IOzone invocation on the same file (-w keeps it; the sequential write creates it),
# so the cache is dropped and the trace switched between the tests by the job, not inside
# IOzone. IOzone's own random test (-i 2) reads then writes in one invocation with no
# point to clear the cache between; its random-mix test (-i 8) in throughput mode runs
# each process as either its random reader or its random writer by the read percentage
# (-+p 100: reads only, -+p 0: writes only; IOzone prints "Percent read ... is 1" for 0,
# and its one process still only writes, which tests/platform/test_iozone_fetch.py checks), every
# 4 KB record once in a shuffled order. So all four tests run in throughput mode with one
# process (-t 1), each reporting its own rate ("Children see throughput"), the same timing
# for all: -e puts the writes' fsync in it, -+n skips the re-tests:
#   seq-write   -i 0 -r 256k          (IOzone's initial writers)
#   seq-read    -i 1 -r 256k          (readers)
#   rand-write  -i 8 -+p 0 -r 4k      (mixed workload: its one process a random writer)
#   rand-read   -i 8 -+p 100 -r 4k    (mixed workload: its one process a random reader)
#
#   ext4tune-bench.sh "MKFS_OPTIONS" "MOUNT_OPTIONS" TRACE SEED IOZONE_MIB \
#       FFSB_THREADS FFSB_LARGE_MIB FFSB_SMALL_FILES POSTMARK_FILES POSTMARK_TRANSACTIONS \
#       IOZONE FILEBENCH "FILEBENCH_MIXES"
set -eu
. "$MOBIFRAG_ROOT/jobs/lib.sh"
[ $# -eq 13 ] || die "usage: ext4tune-bench.sh MKFS_OPTIONS MOUNT_OPTIONS TRACE SEED" \
  "IOZONE_MIB FFSB_THREADS FFSB_LARGE_MIB FFSB_SMALL_FILES POSTMARK_FILES" \
  "POSTMARK_TRANSACTIONS IOZONE FILEBENCH FILEBENCH_MIXES"
mkfs_options=$1 mount_options=$2 trace=$3 seed=$4
iozone_mib=$5 ffsb_threads=$6 ffsb_large_mib=$7 ffsb_small_files=$8
postmark_files=$9 postmark_transactions=${10} iozone=${11} filebench=${12}
filebench_mixes=${13}
mnt=$TMPDIR/fs
benchmarks=$MOBIFRAG_ROOT/benchmarks
[ -f "$trace" ] || die "no trace $trace"
command -v postmark > /dev/null || die "postmark is not installed (apt-get install postmark)"
[ -x "$iozone" ] || die "no IOzone at $iozone (rule iozone_fetch fetches it)"
[ -x "$filebench" ] || die "no filebench at $filebench (rule filebench_build builds it)"

# phase NAME: when each phase starts, in milliseconds since the job did (job.log).
job_start=$(date +%s%N)
phase() {
  echo "phase $1 at $(( ($(date +%s%N) - job_start) / 1000000 )) ms"
  [ "$1" = 'done' ] || progress_step "$1"
}
progress_plan 11

drop_caches() {
  sync
  echo 3 > /proc/sys/vm/drop_caches
}

# Linux refuses journal_async_commit in data=ordered mode (the default): record what
# this kernel says when asked for it alone, so the data=writeback it needs is documented.
probe_async_commit() {
  case ",$mount_options," in *,journal_async_commit,*) ;; *) return 0 ;; esac
  mkdir -p "$mnt"
  if mount -t ext4 -o journal_async_commit "$MOBIFRAG_DISK" "$mnt" 2> probe.err; then
    echo "journal_async_commit alone: mounted" > async-commit-probe.txt
    umount "$mnt"
  else
    { echo "journal_async_commit alone: refused"; cat probe.err
      dmesg | grep -i "journal_async_commit" | tail -1; } > async-commit-probe.txt
  fi
  rm -f probe.err
}

# IOZONE_TESTS: IOzone's four tests in the order they run (the reads read what the
# writes wrote); iozone_options TEST: the options of its invocation (header above).
IOZONE_TESTS='seq-write seq-read rand-write rand-read'
iozone_options() {
  case $1 in
    seq-write) echo '-i 0 -r 256k' ;;
    seq-read) echo '-i 1 -r 256k' ;;
    rand-write) echo '-i 8 -+p 0 -r 4k' ;;
    rand-read) echo '-i 8 -+p 100 -r 4k' ;;
    *) die "no IOzone test $1" ;;
  esac
}

# auto_da_alloc (on by default; Ext4 tuning §4.2's noauto_da_alloc turns it off): ext4
# allocates a file's delayed blocks at once when a rename replaces the file or when a
# file truncated to zero is closed, each time through ext4_alloc_da_blocks, whose
# tracepoint is counted per traced phase into ./auto-da-alloc.tsv (PHASE, calls). A
# benchmark that neither renames over nor truncates files triggers it 0 times, and then
# the option cannot change what it does.
TRACING=/sys/kernel/tracing
DA_EVENT=$TRACING/events/ext4/ext4_alloc_da_blocks/enable
da_alloc_setup() {
  [ -d "$TRACING/events" ] || mount -t tracefs tracefs "$TRACING" \
    || die "cannot mount tracefs on $TRACING"
  [ -f "$DA_EVENT" ] || die "the kernel has no ext4_alloc_da_blocks tracepoint ($DA_EVENT)"
  echo 1 > "$DA_EVENT"
  : > auto-da-alloc.tsv
}

da_alloc_start() {
  : > "$TRACING/trace"  # empties the ring buffer and its per-CPU counts
}

# da_alloc_stop PHASE: the events the ring buffer holds and those it overwrote.
da_alloc_stop() {
  calls=$(cat "$TRACING"/per_cpu/cpu*/stats \
    | awk '/^(entries|overrun):/ { n += $2 } END { print n + 0 }')
  printf '%s\t%s\n' "$1" "$calls" >> auto-da-alloc.tsv
}

# run_iozone_test TEST: one IOzone test on $mnt/bench/iozone.tmp as a traced phase of its
# own (blktrace/iozone-TEST/) after the page cache is dropped; its report in
# iozone/TEST.txt.
run_iozone_test() {
  options=$(iozone_options "$1")
  drop_caches
  trace_start "iozone-$1"
  da_alloc_start
  # shellcheck disable=SC2086 # the options are words
  "$iozone" -t 1 $options -s "${iozone_mib}m" -e -w -+n -F "$mnt/bench/iozone.tmp" \
    > "iozone/$1.txt" 2>&1 || die "IOzone $1 failed: $(tail -n 3 "iozone/$1.txt")"
  grep -q 'Children see throughput' "iozone/$1.txt" || die "IOzone $1: no throughput"
  sync  # what the test left in the page cache reaches the device inside its phase
  da_alloc_stop "iozone-$1"
  trace_stop "iozone-$1"
}

run_iozone() {
  mkdir -p iozone
  for test in $IOZONE_TESTS; do
    phase "iozone-$test"
    run_iozone_test "$test"
  done
}

run_postmark() {
  mkdir -p "$mnt/postmark"
  cat > postmark.cfg <<CFG
set location $mnt/postmark
set size 4096 4096
set number $postmark_files
set transactions $postmark_transactions
set seed $seed
run
quit
CFG
  drop_caches
  trace_start postmark
  da_alloc_start
  start=$(date +%s%N)
  postmark postmark.cfg > postmark.txt || die "postmark failed"
  sync  # the run's writes reach the device within the timed span
  echo $(( $(date +%s%N) - start )) > postmark-wall-ns.txt
  da_alloc_stop postmark
  trace_stop postmark
}

# FFSB's four tests in filebench, each a traced phase of its own (blktrace/filebench-<mix>/)
# after the page cache is dropped: the writes first, then the reads of the files they
# wrote. The workload files' placeholders take the config's FFSB values; the workload as
# run is kept beside filebench's output. filebench maps its shared memory from a file in
# /tmp, which the guest's root (the host's, read-only) lacks: in the study's guest a
# tmpfs of the guest's own is mounted there when /tmp is not writable. Its workers are
# forked and exec'd at the same addresses as the master, so address-space randomisation is off for it (setarch
# -R, as filebench itself asks). A mix that outlives its bound is a failure.
FILEBENCH_TIMEOUT=3600
run_filebench_mix() {
  mix=$1
  sed -e "s|@DIR@|$mnt/filebench|" -e "s|@THREADS@|$ffsb_threads|g" \
    -e "s|@LARGE@|${ffsb_large_mib}m|g" -e "s|@FILES@|$ffsb_small_files|g" \
    -e "s|@ENTRIES@|$((ffsb_threads * ffsb_small_files))|g" \
    -e "s|@TIMEOUT@|$FILEBENCH_TIMEOUT|g" \
    "$benchmarks/filebench/ffsb-$mix.f" > "filebench/$mix.f"
  ! grep -q '@[A-Z]*@' "filebench/$mix.f" || die "filebench/$mix.f: a placeholder is left"
  drop_caches
  trace_start "filebench-$mix"
  da_alloc_start
  timeout $((FILEBENCH_TIMEOUT + 60)) setarch "$(uname -m)" -R "$filebench" -f "filebench/$mix.f" \
    > "filebench/$mix.txt" 2>&1 || die "filebench $mix failed: $(tail -n 3 "filebench/$mix.txt")"
  grep -q 'IO Summary:' "filebench/$mix.txt" || die "filebench $mix: no IO Summary"
  sync  # what the mix left in the page cache reaches the device inside its phase
  da_alloc_stop "filebench-$mix"
  trace_stop "filebench-$mix"
}

# shm_tmp PATH...: a tmpfs of the guest's own over /tmp, with the folders of the host's
# /tmp that hold the PATHs bound back at their paths (a checkout under /tmp keeps its
# workloads and binaries). Only those: binding back every folder of a host's /tmp, with
# its 50 test and build leftovers, took 10 s of a 100-s run (docs/measurements.md).
shm_tmp() {
  mkdir -p "$TMPDIR/host-tmp"
  mount --bind /tmp "$TMPDIR/host-tmp" || die "cannot keep the host's /tmp"
  mount -t tmpfs -o size=256m filebench-shm /tmp || die "cannot mount a tmpfs on /tmp"
  for path in "$@"; do
    case $path in /tmp/?*) ;; *) continue ;; esac
    name=${path#/tmp/}
    name=${name%%/*}
    if [ -d "/tmp/$name" ] || [ ! -d "$TMPDIR/host-tmp/$name" ]; then continue; fi
    mkdir "/tmp/$name" || die "cannot make /tmp/$name"
    mount --bind "$TMPDIR/host-tmp/$name" "/tmp/$name" ||
      die "cannot bind the host's /tmp/$name back"
  done
}

run_filebench() {
  if [ ! -w /tmp ]; then
    in_study_guest || die "filebench needs a writable /tmp for its shared memory"
    shm_tmp "$MOBIFRAG_ROOT" "$filebench"
  fi
  mkdir -p "$mnt/filebench" filebench
  for mix in $filebench_mixes; do
    phase "filebench-$mix"
    run_filebench_mix "$mix"
  done
}

phase mkfs
make_fs ext4 "$mkfs_options"
dumpe2fs -h "$MOBIFRAG_DISK" > mkfs.txt 2> /dev/null
probe_async_commit
mount_fs ext4 "$mnt" "$mount_options"
grep " $mnt " /proc/mounts > mount.txt
mkdir -p "$mnt/aging" "$mnt/bench"
da_alloc_setup
phase aging
"$MOBIFRAG_AGENT" replay --trace "$trace" --root "$mnt/aging" --seed "$seed" \
  > aging.json || die "aging replay failed"
sync
df -k "$mnt" > df.txt

run_iozone
phase postmark
run_postmark
run_filebench
umount "$mnt"
phase 'done'
