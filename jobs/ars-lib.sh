# shellcheck shell=sh
# Helpers of the ARS job scripts (kernel-patches/README.md, "ARS"): on top of lib.sh.

# ars_mark PATH [SIZE]: create PATH if missing and give it the user.ars xattr (the
# per-file switch of the ARS patch; the guest has no setfattr, Python's os.setxattr does
# it). With SIZE, the (sparse) file is extended to SIZE bytes: fio unlinks and recreates
# a file it has to extend, which would drop the xattr.
ars_mark() {
  : >> "$1"
  python3 -c 'import os, sys; os.setxattr(sys.argv[1], "user.ars", b"1")' "$1" \
    || die "cannot set user.ars on $1"
  [ -z "${2:-}" ] || truncate -s "$2" "$1" || die "cannot extend $1"
}

# ars_sysfs NAME: an ARS knob or counter of the mounted test disk.
ars_sysfs() {
  cat "/sys/fs/f2fs/$(basename "$MOBIFRAG_DISK")/$1" || die "no F2FS sysfs entry $1 (ARS kernel?)"
}

ars_set() {
  echo "$2" > "/sys/fs/f2fs/$(basename "$MOBIFRAG_DISK")/$1" || die "cannot set $1=$2"
}

# f2fs_utilization: F2FS's own space utilization in percent (valid user blocks over
# user blocks, the figure the ARS thresholds compare with), from its debugfs status.
f2fs_utilization() {
  sed -n 's/^Utilization: \([0-9]*\)%.*/\1/p' /sys/kernel/debug/f2fs/status | head -n1
}

# utilization_before STATE WORKLOAD: F2FS's utilization before WORKLOAD runs, a row of
# ./utilization.tsv (state, workload, percent). At Moderate, one at or above the
# reservation threshold fails the job: the workload's files could reserve nothing, where
# the paper's benchmark "fills file system up to 70% for reserved files to work" (ARS
# §V.B).
utilization_before() {
  [ -s utilization.tsv ] || printf 'state\tworkload\tutilization\n' > utilization.tsv
  ub_util=$(f2fs_utilization)
  printf '%s\t%s\t%s\n' "$1" "$2" "$ub_util" >> utilization.tsv
  ub_threshold=$(ars_sysfs ars_reserve_util)
  if [ "$1" = moderate ] && [ "$ub_util" -ge "$ub_threshold" ]; then
    die "Moderate is at ${ub_util}% utilization before $2, not below ars_reserve_util" \
      "(${ub_threshold}%): lower ars_eval.moderate_fill_percent"
  fi
}

# f2fs_fsck NAME: fsck.f2fs of the unmounted test disk, read-only; its output goes to
# ./NAME.fsck.log and any failed check fails the job.
f2fs_fsck() {
  status=0
  fsck.f2fs --dry-run -f "$MOBIFRAG_DISK" > "$1.fsck.log" 2>&1 || status=$?
  if [ "$status" -ne 0 ] || grep -q '\[Fail\]' "$1.fsck.log"; then
    die "fsck.f2fs found errors after $1 (status $status): see $1.fsck.log"
  fi
  echo "$1 clean" >> fsck.txt
}

# ars_scheme_mount SCHEME: mount options and ipu_policy of the four schemes compared
# (ARS §V): baseline F2FS, IPU (F2FS_IPU_FSYNC), ARS, ARS with IPU.
scheme_mount_options() {
  case "$1" in
    f2fs|ipu) echo "" ;;
    ars|ars-ipu) echo "ars" ;;
    *) die "unknown scheme $1 (expected f2fs, ipu, ars or ars-ipu)" ;;
  esac
}

# F2FS_IPU_FSYNC is bit 4 of ipu_policy (fs/f2fs/segment.h); 0 turns in-place updates off.
scheme_ipu_policy() {
  case "$1" in
    ipu|ars-ipu) echo 16 ;;
    *) echo 0 ;;
  esac
}

# scheme_mount SCHEME DIR: a fresh F2FS on the test disk, mounted for SCHEME.
scheme_mount() {
  make_fs f2fs ""
  mount_fs f2fs "$2" "$(scheme_mount_options "$1")"
  scheme_settings "$1"
}

# scheme_remount SCHEME DIR: remount_fs for SCHEME: a plain remount would drop the `ars`
# mount option and reset ipu_policy to F2FS's default (F2FS_IPU_FSYNC).
scheme_remount() {
  sync
  umount "$2" || die "cannot unmount $2"
  mount_fs f2fs "$2" "$(scheme_mount_options "$1")"
  scheme_settings "$1"
}

# settle: everything written reaches the disk and the page, inode and dentry caches are
# dropped, without unmounting: the ARS patch holds a file's reserved sections in memory
# and gives them back at unmount, which a phone does not do between aging and use
# (kernel-patches/README.md, "Giving sections back"); a section given back with a
# quarter of its blocks valid would be the GC pass's first victim.
settle() {
  sync
  echo 3 > /proc/sys/vm/drop_caches
}

# scheme_settings SCHEME: what every mount of the test disk sets through sysfs: SCHEME's
# ipu_policy, and F2FS's own I/O statistics (CONFIG_F2FS_IOSTAT; off at every mount,
# counting from when they are turned on) for f2fs_state's iostat.txt.
scheme_settings() {
  ars_set ipu_policy "$(scheme_ipu_policy "$1")"
  ars_set iostat_enable 1
}

# ARS evaluation (ARS §V; rules/experiments/ars_eval.smk). ars_guest runs jobs/ars-guest.py under
# the guest's python3 (timed creates of reserved files, marks, patterns).
ars_guest() {
  python3 "$MOBIFRAG_ROOT/jobs/ars-guest.py" "$@" || die "ars-guest.py $1 failed"
}

# phase NAME: the guest's clock at the start of a job phase, into ./phases.tsv.
phase() {
  printf '%s\t%s\n' "$1" "$(date +%s.%N)" >> phases.tsv
  [ "$1" = end ] || progress_step "$1"
}

# traced NAME COMMAND...: COMMAND as one measured phase under blktrace (lib.sh), into
# ./blktrace/NAME/. Whatever is dirty before it is synced first, so the trace holds the
# phase's own requests, and it ends with a sync, so the write-back the phase left behind
# (metadata, a checkpoint) counts toward it; the tables replay the trace through the
# device model. What the phase itself times (its wall time) excludes both syncs.
# Its status is COMMAND's (a caller's `|| die` sees a failure).
traced() {
  traced_name=$1 traced_status=0
  shift
  sync
  trace_start "$traced_name"
  "$@" || traced_status=$?
  sync
  trace_stop "$traced_name"
  return "$traced_status"
}

# cold_reads CASE PATH RUNS BYTES: RUNS cold reads of PATH (BYTES long), each with the
# caches dropped before its trace (blktrace/read-CASE-N/); one line per read appended to
# ./reads.tsv: CASE, run, BYTES and the read's wall time in ns.
cold_reads() {
  for run in $(seq "$3"); do
    sync
    echo 3 > /proc/sys/vm/drop_caches
    trace_start "read-$1-$run"
    ns=$(cold_read "$2")
    sync
    trace_stop "read-$1-$run"
    printf '%s\t%s\t%s\t%s\n' "$1" "$run" "$4" "$ns" >> reads.tsv
  done
}

# fragbench DIR FILL START MIN NAME: the fragmentation benchmark (ARS §V.A) in DIR/fragbench
# (the agent's `fragbench`; under TCG the guest kernel, not the loop, takes most of its time);
# its summary goes to ./fragbench-NAME.json.
fragbench() {
  "$MOBIFRAG_AGENT" fragbench --dir "$1/fragbench" --fill "$2" --start "$3" --min "$4" \
    > "fragbench-$5.json" || die "the fragmentation benchmark failed in $1"
}

# gc_pass SLEEP_MS: Android's GC pass (AOSP system/extras checkpoint_gc.sh): F2FS's GC
# thread collects every SLEEP_MS ms whether or not the disk is idle (gc_urgent=1, "high")
# until the dirty segments stop falling (three polls 2 s apart) or 10 minutes pass; then
# GC is as F2FS has it again. Background GC only re-dirties the blocks it moves, so each
# poll syncs first: a victim counts as cleaned once its blocks are written and a
# checkpoint frees it. ./gc-pass.tsv: seconds waited, dirty segments.
gc_pass() {
  ars_set gc_urgent_sleep_time "$1"
  ars_set gc_urgent 1
  gc_last=$(ars_sysfs dirty_segments) gc_still=0 gc_waited=0
  printf '0\t%s\n' "$gc_last" > gc-pass.tsv
  while [ "$gc_still" -lt 3 ] && [ "$gc_waited" -lt 600 ]; do
    sleep 2
    gc_waited=$((gc_waited + 2))
    sync
    gc_now=$(ars_sysfs dirty_segments)
    printf '%s\t%s\n' "$gc_waited" "$gc_now" >> gc-pass.tsv
    if [ "$gc_now" -lt "$gc_last" ]; then gc_still=0; else gc_still=$((gc_still + 1)); fi
    gc_last=$gc_now
  done
  ars_set gc_urgent 0
}

# f2fs_state NAME: what F2FS reports of the mounted test disk into ./state/NAME/: its
# debugfs status (GC calls, moved blocks, utilization), the valid-block bitmap of every
# main-area segment (/proc/fs/f2fs/<dev>/segment_bits: the free-space map), its I/O
# statistics since the mount (/proc/fs/f2fs/<dev>/iostat_info: bytes by origin, GC's
# own among them), the disk's block-layer counters (/sys/block/<dev>/stat), the ARS
# counters (name value).
f2fs_state() {
  dev=$(basename "$MOBIFRAG_DISK")
  mkdir -p "state/$1"
  for name in ars_reservations ars_refused ars_no_space ars_reclaimed_blocks \
    ars_held_sections ars_held_blocks; do
    echo "$name $(ars_sysfs "$name")"
  done > "state/$1/ars.txt"
  cat /sys/kernel/debug/f2fs/status > "state/$1/status.txt" || die "no F2FS debugfs status"
  cat "/proc/fs/f2fs/$dev/segment_bits" > "state/$1/segment_bits.txt" \
    || die "no /proc/fs/f2fs/$dev/segment_bits"
  cat "/proc/fs/f2fs/$dev/iostat_info" > "state/$1/iostat.txt" \
    || die "no /proc/fs/f2fs/$dev/iostat_info (a kernel without CONFIG_F2FS_IOSTAT)"
  cat "/sys/block/$dev/stat" > "state/$1/diskstat.txt" || die "no /sys/block/$dev/stat"
}

# reserved_files DIR COUNT FILE WRITERS: COUNT user.ars files of FILE bytes in DIR
# (file-00 ...; their names in DIR.list), created by ars_guest create (timed, workload
# "synthetic"; traced as phase create-synthetic), then all written at once, each by
# WRITERS concurrent 4 KiB fsync writers with a slice each (ARS Fig. 1's fragmented
# file; one fio run, as fio starts slowly in TCG; traced as phase write-reserved).
# Prints the files as one fio filename list.
reserved_files() {
  dir=$1 count=$2 size=$3 writers=$4
  for i in $(seq -w 0 $(( count - 1 ))); do echo "file-$i"; done > "$dir.list"
  mkdir -p "$dir"
  traced create-synthetic ars_guest create "$dir" "$dir.list" synthetic
  names=""
  set --
  while read -r name; do
    set -- "$@" --name="$name" --filename="$dir/$name"
    names="$names${names:+:}$dir/$name"
  done < "$dir.list"
  # ars_guest create gave each its user.ars; extended to SIZE now, so that fio does not
  # recreate them (dropping the mark). One truncate for all: a program run costs a TCG
  # guest about 0.1 s of host CPU, and ars_mark's Python about 0.8 s a file.
  (
    IFS=:
    # shellcheck disable=SC2086 # the names split at the colons, made of file-NN only
    truncate -s "$size" $names
  ) || die "cannot extend the reserved files of $dir"
  # Traced: the device model places the files' pages as these writers wrote them.
  traced write-reserved fio --rw=write --bs=4k --size=$(( size / writers )) \
    --offset_increment=$(( size / writers )) --numjobs="$writers" --ioengine=psync \
    --fsync=1 --fallocate=none --thread --output=/dev/null "$@" \
    || die "fio (writers of the reserved files) failed"
  echo "$names"
}

# fio_measure NAME FILES SEQ_BS RAND_BS: sequential and random reads and writes over
# the files of the fio filename list FILES (their whole size; writes fsync'd, reads
# cold: the page cache is dropped before each run, as the guest kernel has no fadvise
# for fio's own invalidation); fio's JSON into ./fio/NAME-RW.json, each run's blktrace
# into ./blktrace/NAME-RW/.
fio_measure() {
  mkdir -p fio
  for rw in read write randread randwrite; do
    case "$rw" in
      rand*) bs=$4 service=random ;;
      *) bs=$3 service=sequential ;;
    esac
    sync
    echo 3 > /proc/sys/vm/drop_caches
    traced "$1-$rw" fio --name="$rw" --filename="$2" --rw="$rw" --bs="$bs" --ioengine=psync \
      --fsync="$([ "${rw#*write}" != "$rw" ] && echo 1 || echo 0)" --fallocate=none \
      --file_service_type="$service" --randrepeat=1 --thread --invalidate=0 \
      --output-format=json \
      --output="fio/$1-$rw.json" || die "fio ($1 $rw) failed"
  done
}
