#!/bin/sh
# Where concurrent writers' blocks come from: Fig. 6's job (jobs/concurrent-appenders.sh,
# WRITERS writers appending 4 KiB records with fsync to 512 KiB files on a fresh ext4) in
# guests of 4 and 8 vCPUs, the vCPUs sharing one host thread (round-robin TCG, as the
# study's jobs) or each on its own (multi-threaded TCG). Prints, for every run, the mean
# DoF of its files and each file's DoF (mobifrag.tables.fragments).
#
#   benchmarks/guests/writers-cpus.sh [REPS] [WRITERS]    (default: 3 runs of 5 writers)
#
# Needs the agent (make test or make reproduce builds it); builds the config's emulator
# kernel if it is missing.
set -eu
cd "$(dirname "$0")/../.."
reps=${1:-3} writers=${2:-5}
. benchmarks/guests/lib.sh
build_missing writers-cpus.sh "$kernel"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

run() { # run CPUS THREADS REP: one job; prints its row
  out=$work/$1-$2-$3
  "$python" -m mobifrag.platform.run --device emulator-emmc --kernel "$kernel" \
    --agent agent/build/mobifrag-agent --script jobs/concurrent-appenders.sh \
    --disk-mib 256 --cpus "$1" --vcpu-threads "$2" --out "$out" --console "$out.log" \
    -- ext4 "$mkfs" "$writers" 4096 524288 > /dev/null
  "$python" -m mobifrag.tables.fragments --run "run=$3" "$out/snapshot" \
    --dof "$out/dof.csv" --layout "$out/layout.csv"
  "$python" -c "import csv, statistics, sys
dof = [float(r['dof']) for r in csv.DictReader(open(sys.argv[1]))]
print(f'{statistics.mean(dof):.1f}\t' + ' '.join(f'{d:g}' for d in dof))" "$out/dof.csv"
}

printf 'vcpus\tvcpu_threads\trep\tmean_dof\tfile_dofs\n'
for cpus in 4 8; do
  for threads in shared own; do
    rep=1
    while [ "$rep" -le "$reps" ]; do
      printf '%s\t%s\t%s\t%s\n' "$cpus" "$threads" "$rep" "$(run "$cpus" "$threads" "$rep")"
      rep=$((rep + 1))
    done
  done
done
