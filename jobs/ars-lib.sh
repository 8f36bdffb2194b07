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
  ars_set ipu_policy "$(scheme_ipu_policy "$1")"
}
