#!/usr/bin/env bash
# Before the first guest: every pinned outside input of the study (FlashSim, filebench,
# IOzone, Mobibench's Facebook and Twitter traces) can be had and has its pinned
# checksum. Each tool's own fetch script is asked (upstream, the folder MOBIFRAG_VENDOR
# names or ../shared/vendor/, or the verified copy already under build/), all at once;
# each missing input is named with its checksum and the ways to provide it, and the
# script fails, so a study without them stops in seconds instead of losing its
# verdicts after an hour. The copies land in build/, where the rules find them.
#
#   scripts/preflight.sh          (PREFLIGHT_BUILD: where the copies go, default build)
set -u
cd "$(dirname "$0")/.." || exit 2
logs=$(mktemp -d "${TMPDIR:-/tmp}/preflight.XXXXXX")
trap 'rm -rf "$logs"' EXIT

# NAME COMMAND...: run one fetch with a bound on its time, its stderr kept.
fetch() {
  local name=$1
  shift
  if ! timeout "${PREFLIGHT_TIMEOUT_S:-120}" "$@" > /dev/null 2> "$logs/$name.log"; then
    touch "$logs/$name.failed"
  fi
}

build=${PREFLIGHT_BUILD:-build}
fetch flashsim model/flashsim/fetch.sh "$build/flashsim" &
fetch filebench benchmarks/filebench/fetch.sh "$build/filebench" &
fetch iozone benchmarks/iozone/fetch.sh "$build/iozone" &
mkdir -p "$build/mobibench"
for app in facebook twitter; do
  fetch "mobibench-$app" traces/mobibench/fetch.sh "$app" "$build/mobibench/mobigen.out.$app" &
done
wait

failed=$(find "$logs" -name '*.failed' | sort)
if [ -z "$failed" ]; then
  echo "preflight: every pinned outside input is here ($build/)" >&2
  exit 0
fi
echo "preflight: $(echo "$failed" | wc -l) pinned outside input(s) cannot be had:" >&2
for marker in $failed; do
  name=$(basename "$marker" .failed)
  echo "--- $name" >&2
  cat "$logs/$name.log" >&2
done
echo "preflight: provide them as said above (MOBIFRAG_VENDOR=<folder> names a folder of" >&2
echo "the pinned inputs laid out as ../shared/vendor/, such as the .cache/vendor/ that" >&2
echo "\`make fetch\` fills on a connected machine), then run again." >&2
exit 1
