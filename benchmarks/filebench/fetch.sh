#!/bin/sh
# Fetch filebench's pinned source (upstream.env), verify its checksum and unpack it into
# build/filebench/ (git-ignored; filebench's code never enters the repository).
#
#   benchmarks/filebench/fetch.sh [BUILD_DIR]     (default: build/filebench under the repo root)
#
# Where the tarball comes from, in order: a verified copy already in BUILD_DIR; upstream
# (git fetch of the pinned commit, then `git archive` as the checksum expects), where the
# network reaches GitHub (skipped with FILEBENCH_OFFLINE=1); ../shared/vendor/ from the
# repository's root. Every copy is checked against FILEBENCH_SHA256 before it is
# unpacked. Prints the source folder.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
# shellcheck source=/dev/null
. "$here/upstream.env"
build=${1:-$root/build/filebench}
short=$(printf %s "$FILEBENCH_COMMIT" | cut -c1-7)
name=filebench-$short
tarball=$build/$name.tar.gz
vendor=$root/../shared/vendor/$name.tar.gz

say() { echo "filebench fetch: $*" >&2; }

sha256_of() { sha256sum "$1" | cut -d' ' -f1; }

verified() { [ -f "$1" ] && [ "$(sha256_of "$1")" = "$FILEBENCH_SHA256" ]; }

from_upstream() {
  [ "${FILEBENCH_OFFLINE:-0}" = 1 ] && return 1
  command -v git > /dev/null || return 1
  scratch=$(mktemp -d "${TMPDIR:-/tmp}/filebench-git.XXXXXX")
  if GIT_TERMINAL_PROMPT=0 git -C "$scratch" init -q \
    && GIT_TERMINAL_PROMPT=0 timeout 300 git -C "$scratch" fetch -q --depth 1 \
      "$FILEBENCH_REPO" "$FILEBENCH_COMMIT" 2> "$scratch.log" \
    && git -C "$scratch" archive --format=tar.gz --prefix="$name/" "$FILEBENCH_COMMIT" \
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
      say "fetched $FILEBENCH_REPO at $FILEBENCH_COMMIT"
    else
      say "the archive of $FILEBENCH_COMMIT from upstream has sha256 $(sha256_of "$tarball.partial"),"
      say "not the pinned $FILEBENCH_SHA256 (another git's gzip?); trying $vendor"
      rm -f "$tarball.partial"
    fi
  fi
fi
if ! verified "$tarball"; then
  if [ -f "$vendor" ]; then
    if ! verified "$vendor"; then
      say "$vendor has sha256 $(sha256_of "$vendor"), not the pinned $FILEBENCH_SHA256: refusing it"
      exit 1
    fi
    cp "$vendor" "$tarball.partial"
    mv "$tarball.partial" "$tarball"
    say "copied $vendor"
  else
    say "cannot get filebench: upstream is not reachable (or FILEBENCH_OFFLINE=1) and"
    say "$vendor is missing."
    say "Fetch $FILEBENCH_REPO at commit $FILEBENCH_COMMIT and make the tarball with"
    say "  git archive --format=tar.gz --prefix=$name/ $FILEBENCH_COMMIT > $tarball"
    say "(sha256 $FILEBENCH_SHA256), or put that file at $vendor."
    exit 1
  fi
fi
src=$build/$name
if [ ! -f "$src/.verified" ] || [ "$(cat "$src/.verified")" != "$FILEBENCH_SHA256" ]; then
  rm -rf "$src"
  tar -xzf "$tarball" -C "$build"
  [ -f "$src/configure.ac" ] || { say "$tarball does not unpack to $src/configure.ac"; exit 1; }
  echo "$FILEBENCH_SHA256" > "$src/.verified"
fi
echo "$src"
