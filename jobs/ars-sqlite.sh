#!/bin/sh
# ARS Fig. 6 (§V.B) under one scheme (f2fs, ipu, ars, ars-ipu), on one fresh F2FS: the
# fragmentation benchmark fills to FILL % (Moderate), the files of TRACE_DIR/reserved.txt
# (the databases and their journals) are created with user.ars, then the SQLite traces
# TRACE_DIR/*.iotrace run in name order (insert, update, delete), with the same list as
# the agent's --mark-list (a recreated journal gets user.ars again). ./replay/<name>.json
# (the agent's counts and seconds) with each trace's blktrace in ./blktrace/sqlite-<name>/
# (the files' creation in ./blktrace/create-sqlite/), ./marked.json, ./create.tsv,
# ./fragbench-moderate.json, ./utilization.tsv (jobs/ars-lib.sh utilization_before: F2FS's
# utilization before SQLite, which must be below ars_reserve_util), ./state/end/, fsck.f2fs
# at the end.
#
#   ars-sqlite.sh SCHEME FILL START MIN TRACE_DIR SEED
set -eu
. "$MOBIFRAG_ROOT/jobs/lib.sh"
. "$MOBIFRAG_ROOT/jobs/ars-lib.sh"
[ $# -eq 6 ] || die "usage: ars-sqlite.sh SCHEME FILL START MIN TRACE_DIR SEED"
scheme=$1 fill=$2 start=$3 min=$4 trace_dir=$5 seed=$6
mnt=$TMPDIR/fs
: > fsck.txt
: > create.tsv
: > phases.tsv
progress_plan 3

phase fragbench
scheme_mount "$scheme" "$mnt"
fragbench "$mnt" "$fill" "$start" "$min" moderate
scheme_remount "$scheme" "$mnt"
mkdir -p "$mnt/data" replay
phase sqlite
utilization_before moderate sqlite
traced create-sqlite ars_guest create "$mnt/data" "$trace_dir/reserved.txt" sqlite
for trace in "$trace_dir"/*.iotrace; do
  name=$(basename "$trace" .iotrace)
  traced "sqlite-$name" "$MOBIFRAG_AGENT" replay --trace "$trace" --root "$mnt/data" \
    --seed "$seed" --mark-list "$trace_dir/reserved.txt" \
    > "replay/$name.json" || die "replay of $name failed"
done
ars_guest marked "$mnt/data" "$trace_dir/reserved.txt" > marked.json
sync
f2fs_state end
umount "$mnt"
phase fsck
f2fs_fsck sqlite
phase end
