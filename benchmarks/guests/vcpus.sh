#!/bin/sh
# How many vCPUs a guest should have when guests share the host's cores (README,
# Determinism): the same AutoAge replay (jobs/replay-traces.sh on ext4) run in one guest
# alone, then in two guests at once, for guests of 1 and of 2 vCPUs. Prints the wall
# seconds of each guest.
#
#   benchmarks/guests/vcpus.sh [TRACE_DIR]    (default: the test scale's AutoAge traces)
#
# Needs the agent (make test or make reproduce builds it); builds the traces and the
# config's emulator kernel if they are missing.
set -eu
cd "$(dirname "$0")/../.."
. benchmarks/guests/lib.sh
traces=${1:-$("$python" -c "from mobifrag.workflow.stages import WORKLOADS
print(WORKLOADS.format(scale='test') + '/autoage/traces')")}
build_missing vcpus.sh "$kernel" "$traces"
work=$(mktemp -d)
profiles=""
trap 'rm -rf "$work" $profiles' EXIT

guest() { # guest CPUS NAME: one replay in a guest of CPUS vCPUs; prints its wall seconds
  "$python" -m mobifrag.platform.run --device "bench-vcpus-$1" --kernel "$kernel" \
    --agent agent/build/mobifrag-agent --script jobs/replay-traces.sh --disk-mib 256 \
    --out "$work/$2" --console "$work/$2.log" \
    -- ext4 "$mkfs" "$(realpath "$traces")" 1 > /dev/null
  sed -n 's/.*"emulator_wall_seconds": \([0-9.]*\).*/\1/p' "$work/$2/platform-run.json"
}

printf 'vcpus\tguests_at_once\tguest_wall_s\n'
for cpus in 1 2; do
  profile=devices/bench-vcpus-$cpus.yaml
  profiles="$profiles $profile"
  sed "s/^name: .*/name: bench-vcpus-$cpus/; s/^  cpus: .*/  cpus: $cpus/" \
    devices/emulator-emmc.yaml > "$profile"
  printf '%s\t1\t%s\n' "$cpus" "$(guest "$cpus" alone-$cpus)"
  guest "$cpus" a-$cpus > "$work/a-$cpus.s" &
  guest "$cpus" b-$cpus > "$work/b-$cpus.s"
  wait
  printf '%s\t2\t%s %s\n' "$cpus" "$(cat "$work/a-$cpus.s")" "$(cat "$work/b-$cpus.s")"
done
