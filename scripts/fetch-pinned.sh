#!/bin/sh
# Fetch a third-party tool's pinned source, verify its checksum and unpack it under the
# build folder (git-ignored; the tool's code never enters the repository). Called by
# each tool's own fetch.sh (model/flashsim/, benchmarks/filebench/).
#
#   scripts/fetch-pinned.sh TOOL UPSTREAM_ENV MARKER [BUILD_DIR]
#
# UPSTREAM_ENV pins the source in shell syntax: <PREFIX>_REPO, <PREFIX>_COMMIT and
# <PREFIX>_SHA256, PREFIX being TOOL in capitals; the SHA256 is that of `git archive
# --format=tar.gz --prefix=<tool>-<commit's first 7>/ <commit>`, the tarball
# ../shared/vendor/ keeps. MARKER is a file the unpacked source must hold. BUILD_DIR
# defaults to build/<tool> under the repository's root.
#
# Where the tarball comes from, in order: a verified copy already in BUILD_DIR; upstream
# (git fetch of the pinned commit, then `git archive` as the checksum expects), where the
# network reaches GitHub (skipped with <PREFIX>_OFFLINE=1); the folder MOBIFRAG_VENDOR
# names, by default the checkout's own vendor/ where it has one (a source archive of
# `make dist` does), else ../shared/vendor/ beside the repository's root. Every copy is
# checked against the pinned SHA256 before it is unpacked. Prints the source folder.
set -eu
[ $# -ge 3 ] || { echo "usage: fetch-pinned.sh TOOL UPSTREAM_ENV MARKER [BUILD_DIR]" >&2; exit 2; }
tool=$1 env_file=$2 marker=$3
root=$(cd "$(dirname "$0")/.." && pwd)
prefix=$(printf %s "$tool" | tr '[:lower:]' '[:upper:]')
repo='' commit='' sha256='' offline=0
# shellcheck source=/dev/null
. "$env_file"
# the pins are named after the tool: <PREFIX>_REPO etc.
eval "repo=\${${prefix}_REPO:?$env_file sets no ${prefix}_REPO}"
eval "commit=\${${prefix}_COMMIT:?$env_file sets no ${prefix}_COMMIT}"
eval "sha256=\${${prefix}_SHA256:?$env_file sets no ${prefix}_SHA256}"
eval "offline=\${${prefix}_OFFLINE:-0}"
build=${4:-$root/build/$tool}
short=$(printf %s "$commit" | cut -c1-7)
name=$tool-$short
tarball=$build/$name.tar.gz
vendor_dir=$root/../shared/vendor
[ -d "$root/vendor" ] && vendor_dir=$root/vendor
vendor=${MOBIFRAG_VENDOR:-$vendor_dir}/$name.tar.gz

say() { echo "$tool fetch: $*" >&2; }

sha256_of() { sha256sum "$1" | cut -d' ' -f1; }

verified() { [ -f "$1" ] && [ "$(sha256_of "$1")" = "$sha256" ]; }

from_upstream() {
  [ "$offline" = 1 ] && return 1
  command -v git > /dev/null || return 1
  scratch=$(mktemp -d "${TMPDIR:-/tmp}/$tool-git.XXXXXX")
  if GIT_TERMINAL_PROMPT=0 git -C "$scratch" init -q \
    && GIT_TERMINAL_PROMPT=0 timeout 300 git -C "$scratch" fetch -q --depth 1 \
      "$repo" "$commit" 2> "$scratch.log" \
    && git -C "$scratch" archive --format=tar.gz --prefix="$name/" "$commit" \
      > "$tarball.partial"; then
    rm -rf "$scratch" "$scratch.log"
    return 0
  fi
  say "upstream not reachable: $(tail -n 1 "$scratch.log" 2> /dev/null || echo 'git failed')"
  rm -rf "$scratch" "$scratch.log" "$tarball.partial"
  return 1
}

mkdir -p "$build"
if ! verified "$tarball"; then
  rm -f "$tarball"
  if from_upstream; then
    if verified "$tarball.partial"; then
      mv "$tarball.partial" "$tarball"
      say "fetched $repo at $commit"
    else
      say "the archive of $commit from upstream has sha256 $(sha256_of "$tarball.partial"),"
      say "not the pinned $sha256 (another git's gzip?); trying $vendor"
      rm -f "$tarball.partial"
    fi
  fi
fi
if ! verified "$tarball"; then
  if [ -f "$vendor" ]; then
    if ! verified "$vendor"; then
      say "$vendor has sha256 $(sha256_of "$vendor"), not the pinned $sha256: refusing it"
      exit 1
    fi
    cp "$vendor" "$tarball.partial"
    mv "$tarball.partial" "$tarball"
    say "copied $vendor"
  else
    say "cannot get $tool: upstream is not reachable (or ${prefix}_OFFLINE=1) and"
    say "$vendor is missing."
    say "Fetch $repo at commit $commit and make the tarball with"
    say "  git archive --format=tar.gz --prefix=$name/ $commit > $tarball"
    say "(sha256 $sha256), or put that file at $vendor"
    say "(MOBIFRAG_VENDOR names another folder than $(dirname "$vendor"))."
    exit 1
  fi
fi
src=$build/$name
if [ ! -f "$src/.verified" ] || [ "$(cat "$src/.verified")" != "$sha256" ]; then
  rm -rf "$src"
  tar -xzf "$tarball" -C "$build"
  [ -f "$src/$marker" ] || { say "$tarball does not unpack to $src/$marker"; exit 1; }
  echo "$sha256" > "$src/.verified"
fi
echo "$src"
