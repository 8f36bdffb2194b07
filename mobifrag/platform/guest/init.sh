#!/bin/sh
# PID 1 of the emulator guest. The root file system is the host's root, read-only over
# 9p, so every host tool runs here unchanged. Scratch space lives under /run (a tmpfs in
# the guest) rather than /tmp, because the checkout itself may live under the host's /tmp.
#
# The job contract (shared with device runners): the job runs as `sh job.sh` in
# $MOBIFRAG_OUT, writes its results there, and its exit status is written to
# $MOBIFRAG_OUT/exit-status. The host reads nothing else to decide success.
# PATH: the guest's system directories until the host's PATH is known (below).
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/run/mobifrag/home

# guest_path HOST_PATH FALLBACK: the absolute directories of HOST_PATH that exist in this
# guest's view, in order, then those of FALLBACK not already listed; colon-separated.
# The root is the host's, so a host directory (a Nix store path, ~/.cargo/bin) is here
# too, except under /run, /proc, /sys and /dev, which are the guest's own.
guest_path() {
  set -f
  guest_path_ifs=$IFS
  IFS=:
  guest_path_out=
  for guest_path_dir in $1; do
    case "$guest_path_dir" in /*) ;; *) continue ;; esac
    [ -d "$guest_path_dir" ] || continue
    case ":$guest_path_out:" in *":$guest_path_dir:"*) continue ;; esac
    guest_path_out=${guest_path_out:+$guest_path_out:}$guest_path_dir
  done
  for guest_path_dir in $2; do
    case ":$guest_path_out:" in *":$guest_path_dir:"*) continue ;; esac
    guest_path_out=${guest_path_out:+$guest_path_out:}$guest_path_dir
  done
  IFS=$guest_path_ifs
  set +f
  printf '%s\n' "$guest_path_out"
}

# Files are read with the shell's `read`, not cat: under TCG every program started is
# an exec over 9p of 0.1-0.15 s, paid by every job's boot (docs/measurements.md).
mount -a -T "${0%/*}/fstab"
mkdir -p /run/mobifrag/out /run/mobifrag/tmp "$HOME"
# The mark jobs/lib.sh looks for before it formats anything: this boot's id, on the
# guest's own tmpfs (a host never has it).
read -r boot_id < /proc/sys/kernel/random/boot_id && echo "$boot_id" > /run/mobifrag/guest
mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 out /run/mobifrag/out

export MOBIFRAG_OUT=/run/mobifrag/out
export TMPDIR=/run/mobifrag/tmp
# The job's PATH follows the host environment that launched the guest: the runner hands
# its PATH over in the share (host-path), and its directories the guest sees come after
# the system directories, so a tool only a Nix shell provides is found while a host venv
# never replaces the system's python3; without it, the system directories alone.
if [ -f "$MOBIFRAG_OUT/host-path" ]; then
  read -r host_path < "$MOBIFRAG_OUT/host-path"
  PATH=$(guest_path "$PATH:$host_path" "$PATH")
  rm -f "$MOBIFRAG_OUT/host-path"
fi

# The job's phase lines (jobs/lib.sh, progress_step) go to the console too, which the
# runner on the host streams into the rule's log and reads for its heartbeat.
export MOBIFRAG_PHASE_OUT=/dev/console
read -r release < /proc/sys/kernel/osrelease
read -r cpus < /sys/devices/system/cpu/online
echo "mobifrag-guest: kernel $release, cpus $cpus online, job starting"
cd "$MOBIFRAG_OUT" && sh ./job.sh > job.log 2>&1
status=$?
echo "$status" > "$MOBIFRAG_OUT/exit-status"
sync
cd / && umount "$MOBIFRAG_OUT"
echo "mobifrag-guest: job exited with status $status"
# QEMU runs with -no-reboot, so a reboot request ends the emulator.
echo b > /proc/sysrq-trigger
