#!/bin/sh
# Ext4 tuning for Android (seed 004, §4.1–4.3): one configuration of mkfs and mount
# options. A fresh ext4 with MKFS_OPTIONS is mounted with MOUNT_OPTIONS, aged by the
# create/delete trace (256 KB files to half full), then every benchmark runs after the
# page cache is dropped: fio standing in for IOzone (benchmarks/fio/iozone.fio), Debian's
# postmark, and FFSB's four tests in filebench (benchmarks/filebench/ffsb-<mix>.f, run
# by FILEBENCH: the binary the workflow built from filebench's pinned source, rule
# filebench_build). Writes mkfs.txt (dumpe2fs -h), mount.txt, aging.json, df.txt,
# fio/iozone.json, postmark.cfg, postmark.txt, postmark-wall-ns.txt, filebench/<mix>.f
# (the workload as run) and filebench/<mix>.txt (filebench's output, its summary), and
# async-commit-probe.txt when the options ask for journal_async_commit. Every measured
# run is traced: blktrace/iozone-<section>/ for each fio section, blktrace/postmark/,
# blktrace/filebench-<mix>/ for each filebench mix.
#
#   ext4tune-bench.sh "MKFS_OPTIONS" "MOUNT_OPTIONS" TRACE SEED IOZONE_MIB \
#       FFSB_THREADS FFSB_LARGE_MIB FFSB_SMALL_FILES POSTMARK_FILES POSTMARK_TRANSACTIONS \
#       FILEBENCH "FILEBENCH_MIXES"
set -eu
. "$MOBIFRAG_ROOT/jobs/lib.sh"
[ $# -eq 12 ] || die "usage: ext4tune-bench.sh MKFS_OPTIONS MOUNT_OPTIONS TRACE SEED" \
  "IOZONE_MIB FFSB_THREADS FFSB_LARGE_MIB FFSB_SMALL_FILES POSTMARK_FILES" \
  "POSTMARK_TRANSACTIONS FILEBENCH FILEBENCH_MIXES"
mkfs_options=$1 mount_options=$2 trace=$3 seed=$4
iozone_mib=$5 ffsb_threads=$6 ffsb_large_mib=$7 ffsb_small_files=$8
postmark_files=$9 postmark_transactions=${10} filebench=${11} filebench_mixes=${12}
mnt=$TMPDIR/fs
benchmarks=$MOBIFRAG_ROOT/benchmarks
[ -f "$trace" ] || die "no trace $trace"
command -v fio > /dev/null || die "fio is not installed"
command -v postmark > /dev/null || die "postmark is not installed (apt-get install postmark)"
[ -x "$filebench" ] || die "no filebench at $filebench (rule filebench_build builds it)"

# phase NAME: when each phase starts, in milliseconds since the job did (job.log).
job_start=$(date +%s%N)
phase() {
  echo "phase $1 at $(( ($(date +%s%N) - job_start) / 1000000 )) ms"
  [ "$1" = 'done' ] || progress_step "$1"
}
progress_plan 8

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

# Each fio section is a traced phase of its own, ./blktrace/<stem>-<section>/. The
# sections run in one fio process, so the drop-before-* job that precedes each (its
# exec_prerun runs $DROP_CACHES_SCRIPT) switches the trace: it syncs, so the write-back
# the section before left behind counts toward it, stops that section's blktrace, drops
# the page cache and starts the next section's, named in order from the job file's
# drop-before-* jobs ($SECTION_QUEUE). That blktrace outlives the hook's shell, so its
# pid and name are kept in $SECTION_STATE and its end is awaited through /proc.
SECTION_QUEUE=$TMPDIR/section-queue SECTION_STATE=$TMPDIR/section-trace JOB_OUT=$(pwd)
export SECTION_QUEUE SECTION_STATE JOB_OUT
: > "$SECTION_STATE"
cat > "$TMPDIR/section-trace.sh" <<'LIB'
# section_trace_stop: sync, then stop the running section's blktrace, if any, and keep
# its per-CPU files in $JOB_OUT/blktrace/NAME/.
section_trace_stop() {
  sync
  [ -s "$SECTION_STATE" ] || return 0
  read -r section_pid section_name < "$SECTION_STATE"
  kill -INT "$section_pid" || die "blktrace of $section_name is gone"
  while [ -d "/proc/$section_pid" ] && ! grep -q '^State:[[:space:]]*Z' \
    "/proc/$section_pid/status" 2> /dev/null; do
    sleep 0.1
  done
  mkdir -p "$JOB_OUT/blktrace/$section_name"
  cp "$TMPDIR/blktrace/$section_name"/trace.blktrace.* "$JOB_OUT/blktrace/$section_name/"
  rm -rf "$TMPDIR/blktrace/$section_name"
  : > "$SECTION_STATE"
}
LIB
cat > "$TMPDIR/drop-caches.sh" <<'HOOK'
set -eu
. "$MOBIFRAG_ROOT/jobs/lib.sh"
. "$TMPDIR/section-trace.sh"
section_trace_stop
echo 3 > /proc/sys/vm/drop_caches
section_name=$(head -n 1 "$SECTION_QUEUE")
[ -n "$section_name" ] || die "fio ran more sections than its drop-before-* jobs name"
sed -i 1d "$SECTION_QUEUE"
trace_start "$section_name"
echo "$BLKTRACE_PID $section_name" > "$SECTION_STATE"
HOOK
# shellcheck source=/dev/null
. "$TMPDIR/section-trace.sh"

# run_fio FILE: every section of a job file in one fio process (each start of Debian's
# fio loads 84 MB of libraries over the 9p root, 10-30 s in TCG); the file's
# drop-before-* jobs run drop-caches.sh before each section, which also switches the
# section traces. fio/<stem>.json, and the drop jobs' output in fio/.
run_fio() {
  stem=$(basename "$1" .fio)
  sed -n "s/^\[drop-before-\(.*\)\]\$/$stem-\1/p" "$1" > "$SECTION_QUEUE"
  (cd fio && fio --output-format=json --output="$stem.json" "$1") || die "fio $1 failed"
  section_trace_stop
  [ ! -s "$SECTION_QUEUE" ] || die "fio $1 never ran sections $(tr '\n' ' ' < "$SECTION_QUEUE")"
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
  start=$(date +%s%N)
  postmark postmark.cfg > postmark.txt || die "postmark failed"
  sync  # the run's writes reach the device within the timed span
  echo $(( $(date +%s%N) - start )) > postmark-wall-ns.txt
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
  timeout $((FILEBENCH_TIMEOUT + 60)) setarch "$(uname -m)" -R "$filebench" -f "filebench/$mix.f" \
    > "filebench/$mix.txt" 2>&1 || die "filebench $mix failed: $(tail -n 3 "filebench/$mix.txt")"
  grep -q 'IO Summary:' "filebench/$mix.txt" || die "filebench $mix: no IO Summary"
  sync  # what the mix left in the page cache reaches the device inside its phase
  trace_stop "filebench-$mix"
}

run_filebench() {
  if [ ! -w /tmp ]; then
    in_study_guest || die "filebench needs a writable /tmp for its shared memory"
    mount -t tmpfs -o size=256m filebench-shm /tmp || die "cannot mount a tmpfs on /tmp"
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
mkdir -p "$mnt/aging" "$mnt/bench" fio
phase aging
"$MOBIFRAG_AGENT" replay --trace "$trace" --root "$mnt/aging" --seed "$seed" \
  > aging.json || die "aging replay failed"
sync
df -k "$mnt" > df.txt

export DROP_CACHES_SCRIPT="$TMPDIR/drop-caches.sh" BENCH_DIR="$mnt/bench" IOZONE_SIZE="${iozone_mib}m"
phase iozone
run_fio "$benchmarks/fio/iozone.fio"
phase postmark
run_postmark
run_filebench
umount "$mnt"
phase 'done'
