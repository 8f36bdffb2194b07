#!/usr/bin/env bash
# README's set-up on a bare Debian 12: a minimal bookworm root (debootstrap's minbase
# with git, make and ca-certificates, nothing else), this repository cloned inside it
# from its committed HEAD, then README's steps run in the root with chroot, each timed.
# It shows that the repository's own files install everything the two commands need.
#
#   scripts/bare-debian-check.sh ROOT [STEP...]   make ROOT (or reuse one it made), run STEPs
#   scripts/bare-debian-check.sh --remove ROOT    delete a ROOT this script made
#   scripts/bare-debian-check.sh --mirror         print the archive debootstrap would use
#
# STEPs, in the order given (default: bootstrap lint test-fast):
#   bootstrap   make bootstrap            (Debian packages, .venv, agent, ftl-sim)
#   lint        make lint
#   test-fast   nice -n 19 make test-fast (the tests that boot no guest)
#   emulator    one guest boot of tests/emulator/test_emulator.py (builds the kernel first)
#   test        nice -n 19 make test      (about 45 min on 2 cores)
#   reproduce   nice -n 19 make reproduce (about 2 h on 2 cores)
# Environment: MIRROR, Debian's archive to debootstrap from (default: the bookworm source
# of this host's apt configuration, read from APT_ETC, default /etc/apt); SHARED, the folder mounted read-only as ../shared
# beside the clone, where the pinned outside inputs are looked for (default: ../shared
# beside this repository, if there is one); LOCAL_CA=0 leaves out the host's own
# certificate authorities (below). Needs root, debootstrap and chroot.
#
# Where this host trusts certificate authorities of its own (files in
# /usr/local/share/ca-certificates/, as on a network that inspects TLS), they are added
# to the root's store and pip is pointed at it (PIP_CERT); a bare Debian 12 on an open
# network needs neither, and the report says when it was done.
#
# What it touches: ROOT only. ROOT must not exist (or be empty) and is marked as made here
# by ROOT/.bare-debian-check; a ROOT without that mark is refused. The host's /proc, /sys
# and /dev, this repository and SHARED are mounted inside ROOT (the repository and SHARED
# read-only) for the steps and unmounted when the script ends, however it ends. --remove
# deletes ROOT only if it carries the mark and nothing is mounted below it. The steps'
# logs and the timings (report.txt) are under ROOT/check/.
set -euo pipefail

SUITE=bookworm
MARK=.bare-debian-check
CLONE=/check/mobifrag

say() { echo "bare-debian-check: $*" >&2; }
die() {
    say "$*"
    exit 1
}

usage() {
    sed -n '7,9p' "$0" | sed 's/^# *//' >&2
    exit 2
}

# absolute PATH: PATH made absolute without resolving a missing last part.
absolute() {
    local parent
    parent=$(cd "$(dirname -- "$1")" && pwd -P) || die "no folder $(dirname -- "$1")"
    printf '%s/%s\n' "${parent%/}" "$(basename -- "$1")"
}

# mounted_below DIR: every mount point at or below DIR (from /proc/self/mountinfo).
mounted_below() {
    awk -v dir="$1" '$5 == dir || index($5, dir "/") == 1 { print $5 }' /proc/self/mountinfo
}

# host_mirror: the URI of the host's apt source for $SUITE's main component, from the
# one-line lists and the deb822 stanzas under APT_ETC.
host_mirror() {
    local etc=${APT_ETC:-/etc/apt} file
    for file in "$etc/sources.list" "$etc"/sources.list.d/*.list; do
        [ -f "$file" ] || continue
        awk -v suite="$SUITE" '$1 == "deb" {
            i = 2; if ($i ~ /^\[/) { while ($i !~ /\]$/) i++; i++ }
            if ($(i + 1) == suite) { print $i; exit }
        }' "$file"
    done
    for file in "$etc"/sources.list.d/*.sources; do
        [ -f "$file" ] || continue
        # stanzas are separated by blank lines; a field's words are compared whole, so
        # "Types: deb" matches and "Types: deb-src" does not, whatever line follows
        awk -v suite="$SUITE" 'BEGIN { RS = ""; FS = "\n" }
            function has(line, word) { return (" " line " ") ~ (" " word " ") }
            {
                uris = ""; deb = 0; ok = 0
                for (i = 1; i <= NF; i++) {
                    field = $i; sub(/^[A-Za-z-]+:[ \t]*/, "", field); gsub(/\t/, " ", field)
                    if ($i ~ /^Types:/ && has(field, "deb")) deb = 1
                    if ($i ~ /^URIs:/) { uris = field; sub(/ .*/, "", uris) }
                    if ($i ~ /^Suites:/ && has(field, suite)) ok = 1
                }
                if (deb && ok && uris != "") { print uris; exit }
            }' "$file"
    done
}

remove_root() {
    local root
    root=$(absolute "$1")
    [ -f "$root/$MARK" ] || die "$root carries no $MARK: not made by this script, left alone"
    [ -z "$(mounted_below "$root")" ] || die "something is still mounted below $root"
    rm -rf --one-file-system -- "$root"
    say "removed $root"
}

# The mounts this run made, unmounted in reverse order when it ends.
MOUNTS=()
# shellcheck disable=SC2317  # called by the EXIT trap
unmount_all() {
    local i
    for ((i = ${#MOUNTS[@]} - 1; i >= 0; i--)); do
        umount -R "${MOUNTS[i]}" 2> /dev/null || umount -R -l "${MOUNTS[i]}" || true
    done
    MOUNTS=()
}

# bind FROM TO [ro]: FROM mounted at TO (a folder made inside ROOT), recursively.
bind() {
    mkdir -p "$2"
    mount --rbind "$1" "$2"
    mount --make-rslave "$2"
    MOUNTS+=("$2")
    if [ "${3:-}" = ro ]; then
        mount -o remount,bind,ro "$2"
    fi
}

# make_root ROOT: a fresh minbase bookworm in ROOT, with the host's mirror for its apt.
make_root() {
    local root=$1 mirror start
    mirror=${MIRROR:-$(host_mirror | head -n 1)}
    [ -n "$mirror" ] || die "no $SUITE source in ${APT_ETC:-/etc/apt}: name Debian's archive with MIRROR="
    command -v debootstrap > /dev/null || die "needs debootstrap (apt-get install debootstrap)"
    mkdir -p "$root"
    touch "$root/$MARK"
    mkdir -p "$root/check/logs"
    say "debootstrap --variant=minbase --include=git,make,ca-certificates $SUITE $root $mirror"
    start=$(date +%s)
    nice -n 19 ionice -c3 debootstrap --variant=minbase --include=git,make,ca-certificates \
        "$SUITE" "$root" "$mirror" > "$root/check/logs/debootstrap.log" 2>&1 \
        || die "debootstrap failed (log: $root/check/logs/debootstrap.log)"
    record debootstrap "$start" 0
    # the updates and security suites, as an installed Debian 12 has them
    cat > "$root/etc/apt/sources.list" << EOF
deb $mirror $SUITE main
deb $mirror $SUITE-updates main
deb ${MIRROR_SECURITY:-${mirror%/debian}/debian-security} $SUITE-security main
EOF
}

# record STEP START STATUS: one line of ROOT/check/report.txt.
record() {
    local seconds
    seconds=$(($(date +%s) - $2))
    printf '%-12s %4d min %02d s  %s\n' "$1" $((seconds / 60)) $((seconds % 60)) \
        "$([ "$3" -eq 0 ] && echo ok || echo "failed ($3)")" | tee -a "$ROOT/check/report.txt"
}

# in_root COMMAND: COMMAND run by bash in the clone inside ROOT, with a clean environment
# (and PIP_CERT where the host's own certificate authorities were added).
EXTRA_ENV=()
in_root() {
    chroot "$ROOT" /usr/bin/env -i HOME=/root LANG=C.UTF-8 TERM=dumb \
        PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin "${EXTRA_ENV[@]}" \
        /bin/bash -c "cd $CLONE && $1"
}

# local_ca: the host's own certificate authorities into the root's store.
local_ca() {
    local found
    found=$(find /usr/local/share/ca-certificates -name '*.crt' 2> /dev/null | head -n 1)
    [ "${LOCAL_CA:-1}" != 0 ] && [ -n "$found" ] || return 0
    mkdir -p "$ROOT/usr/local/share/ca-certificates"
    cp -r /usr/local/share/ca-certificates/. "$ROOT/usr/local/share/ca-certificates/"
    chroot "$ROOT" update-ca-certificates > /dev/null
    EXTRA_ENV=(PIP_CERT=/etc/ssl/certs/ca-certificates.crt)
    echo "host CAs     added: $(find /usr/local/share/ca-certificates -name '*.crt' \
        -printf '%f ')" | tee -a "$ROOT/check/report.txt"
}

step_command() {
    case $1 in
        bootstrap) echo "make bootstrap" ;;
        lint) echo "make lint" ;;
        test-fast) echo "nice -n 19 make test-fast" ;;
        emulator)
            echo "nice -n 19 .venv/bin/python -m pytest -q tests/emulator/test_emulator.py" \
                "-k job_outputs_and_disk_reach_the_host"
            ;;
        test) echo "nice -n 19 make test" ;;
        reproduce) echo "nice -n 19 make reproduce" ;;
        *) return 1 ;;
    esac
}

[ $# -ge 1 ] || usage
if [ "$1" = --remove ]; then
    [ $# -eq 2 ] || usage
    remove_root "$2"
    exit 0
fi
if [ "$1" = --mirror ]; then
    [ $# -eq 1 ] || usage
    mirror=${MIRROR:-$(host_mirror | head -n 1)}
    [ -n "$mirror" ] || die "no $SUITE source in ${APT_ETC:-/etc/apt}: name Debian's archive with MIRROR="
    echo "$mirror"
    exit 0
fi
[ "$(id -u)" -eq 0 ] || die "needs root (debootstrap, mount, chroot)"
ROOT=$(absolute "$1")
shift
STEPS=("$@")
[ ${#STEPS[@]} -gt 0 ] || STEPS=(bootstrap lint test-fast)
for step in "${STEPS[@]}"; do
    step_command "$step" > /dev/null || die "unknown step $step"
done
[ "$ROOT" != / ] || die "ROOT cannot be /"

REPO=$(git -C "$(dirname "$0")/.." rev-parse --show-toplevel)
COMMON=$(cd "$REPO" && cd "$(git rev-parse --git-common-dir)" && pwd -P)
case $REPO/ in "$ROOT"/*) die "ROOT cannot hold the repository" ;; esac
SHARED=${SHARED:-$REPO/../shared}

if [ -e "$ROOT" ] && [ ! -f "$ROOT/$MARK" ]; then
    if [ ! -d "$ROOT" ] || [ -n "$(ls -A "$ROOT")" ]; then
        die "$ROOT exists and was not made by this script: name a new folder"
    fi
fi
[ -z "$(mounted_below "$ROOT")" ] || die "something is mounted below $ROOT already"
trap unmount_all EXIT
trap 'exit 130' INT TERM
if [ ! -f "$ROOT/etc/debian_version" ]; then
    make_root "$ROOT"
else
    say "reusing $ROOT (made earlier by this script)"
fi
cp /etc/resolv.conf "$ROOT/etc/resolv.conf" 2> /dev/null || true
local_ca

bind /proc "$ROOT/proc"
bind /sys "$ROOT/sys"
bind /dev "$ROOT/dev"
# the repository at its own path (and its git folder, for a worktree), read-only
bind "$REPO" "$ROOT$REPO" ro
case $COMMON/ in "$REPO"/*) ;; *) bind "$COMMON" "$ROOT$COMMON" ro ;; esac
if [ -d "$SHARED" ]; then
    bind "$(cd "$SHARED" && pwd -P)" "$ROOT$(dirname "$CLONE")/shared" ro
fi

# the host names an installed Debian 12 resolves (its installer writes /etc/hosts;
# debootstrap leaves none, and MariaDB's install refuses a localhost it cannot look up)
if [ ! -e "$ROOT/etc/hosts" ]; then
    printf '127.0.0.1\tlocalhost\n127.0.1.1\t%s\n::1\tlocalhost ip6-localhost ip6-loopback\n' \
        "$(hostname)" > "$ROOT/etc/hosts"
fi

if [ ! -d "$ROOT$CLONE/.git" ]; then
    start=$(date +%s)
    status=0
    chroot "$ROOT" git clone -q "$REPO" "$CLONE" > "$ROOT/check/logs/clone.log" 2>&1 \
        || status=$?
    record clone "$start" "$status"
    [ "$status" -eq 0 ] || die "git clone failed (log: $ROOT/check/logs/clone.log)"
else
    # a clone made by an earlier run takes this repository's newer commits (from the
    # repository the script runs from, which may not be the one the clone came from)
    chroot "$ROOT" git -C "$CLONE" pull -q --ff-only "$REPO" HEAD \
        || die "cannot bring $ROOT$CLONE up to this repository's HEAD"
fi
say "the clone is at $(in_root 'git log -1 --format="%h %s"' | cut -c1-72)"

failed=0
for step in "${STEPS[@]}"; do
    say "$step: $(step_command "$step") (log: $ROOT/check/logs/$step.log)"
    start=$(date +%s)
    status=0
    in_root "$(step_command "$step")" > "$ROOT/check/logs/$step.log" 2>&1 || status=$?
    record "$step" "$start" "$status"
    if [ "$status" -ne 0 ]; then
        tail -n 20 "$ROOT/check/logs/$step.log" >&2
        failed=1
        break
    fi
done
say "times: $ROOT/check/report.txt"
exit "$failed"
