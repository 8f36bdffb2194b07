#!/bin/sh
# Fetch one of Mobibench's app traces (`mobigen.out.<APP>`) at the pinned commit
# (upstream.env), verify its checksum and put it at OUT.
#
#   traces/mobibench/fetch.sh APP OUT       (APP: facebook or twitter)
#
# Where the file comes from, in order: a verified copy already at OUT; upstream (git
# fetch of the pinned commit, then the file of MOBIBENCH_DIR at it), where the network
# reaches GitHub (skipped with MOBIBENCH_OFFLINE=1); mobibench-<short>/ in the folder
# MOBIFRAG_VENDOR names, by default the checkout's vendor/ where it has one, else
# ../shared/vendor/ beside the repository's root.
# Every copy is checked against MOBIBENCH_SHA256_<APP> before it is used. Mobibench's code never enters the repository; the traces are data
# and land only under the run's folders.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
# shellcheck source=/dev/null
. "$here/upstream.env"
[ $# -eq 2 ] || { echo "usage: fetch.sh APP OUT" >&2; exit 2; }
app=$1 out=$2
# shellcheck disable=SC2154 # set by upstream.env
case $app in
  facebook) want=$MOBIBENCH_SHA256_facebook ;;
  twitter) want=$MOBIBENCH_SHA256_twitter ;;
  *) echo "mobibench fetch: no pinned trace for app '$app' (upstream.env)" >&2; exit 2 ;;
esac
name=mobigen.out.$app
short=$(printf %s "$MOBIBENCH_COMMIT" | cut -c1-7)
vendor_dir=$root/../shared/vendor
[ -d "$root/vendor" ] && vendor_dir=$root/vendor
vendor=${MOBIFRAG_VENDOR:-$vendor_dir}/mobibench-$short/$name

say() { echo "mobibench fetch: $*" >&2; }

sha256_of() { sha256sum "$1" | cut -d' ' -f1; }

verified() { [ -f "$1" ] && [ "$(sha256_of "$1")" = "$want" ]; }

from_upstream() {
  [ "${MOBIBENCH_OFFLINE:-0}" = 1 ] && return 1
  command -v git > /dev/null || return 1
  scratch=$(mktemp -d "${TMPDIR:-/tmp}/mobibench-git.XXXXXX")
  if GIT_TERMINAL_PROMPT=0 git -C "$scratch" init -q \
    && GIT_TERMINAL_PROMPT=0 timeout 300 git -C "$scratch" fetch -q --depth 1 \
      "$MOBIBENCH_REPO" "$MOBIBENCH_COMMIT" 2> "$scratch.log" \
    && git -C "$scratch" show "$MOBIBENCH_COMMIT:$MOBIBENCH_DIR/$name" > "$out.partial"; then
    rm -rf "$scratch" "$scratch.log"
    return 0
  fi
  say "upstream not reachable: $(tail -n 1 "$scratch.log" 2> /dev/null || echo 'git failed')"
  rm -rf "$scratch" "$scratch.log" "$out.partial"
  return 1
}

mkdir -p "$(dirname "$out")"
if verified "$out"; then
  say "$out already verified"
  exit 0
fi
rm -f "$out"
if from_upstream; then
  if verified "$out.partial"; then
    mv "$out.partial" "$out"
    say "fetched $name from $MOBIBENCH_REPO at $MOBIBENCH_COMMIT"
    exit 0
  fi
  say "$name of $MOBIBENCH_COMMIT from upstream has sha256 $(sha256_of "$out.partial"),"
  say "not the pinned $want; trying $vendor"
  rm -f "$out.partial"
fi
if [ ! -f "$vendor" ]; then
  say "cannot get $name: upstream is not reachable (or MOBIBENCH_OFFLINE=1) and"
  say "$vendor is missing."
  say "Fetch $MOBIBENCH_REPO at commit $MOBIBENCH_COMMIT and take $MOBIBENCH_DIR/$name"
  say "(sha256 $want), or put that file at $vendor"
  say "(MOBIFRAG_VENDOR names another folder than $(dirname "$(dirname "$vendor")"))."
  exit 1
fi
if ! verified "$vendor"; then
  say "$vendor has sha256 $(sha256_of "$vendor"), not the pinned $want: refusing it"
  exit 1
fi
cp "$vendor" "$out.partial"
mv "$out.partial" "$out"
say "copied $vendor"
