#!/bin/sh
# ARS Fig. 7 (§V.C) under one scheme (f2fs, ipu, ars, ars-ipu): per state, a fresh F2FS
# (Low: pristine; Moderate: the fragmentation benchmark fills to FILL %), then per app of
# APPS in order, the decision tree's reserved files (SELECTION/<app>/reserved.txt) are
# created with user.ars and the app's scenario trace (SELECTION/<app>/traces/*.iotrace)
# is replayed with the same list as --mark-list, so a reserved file the trace (or SQLite)
# deletes and recreates gets user.ars again before its first write. Outputs:
# ./replay/<state>-<app>.json (the agent's seconds), ./marked-<state>-<app>.json,
# ./create.tsv, ./fragbench-moderate.json, ./state/<state>/, fsck.f2fs per state.
#
#   ars-apps.sh SCHEME FILL START MIN SELECTION "APPS" SEED
set -eu
. "$MOBIFRAG_ROOT/jobs/lib.sh"
. "$MOBIFRAG_ROOT/jobs/ars-lib.sh"
[ $# -eq 7 ] || die "usage: ars-apps.sh SCHEME FILL START MIN SELECTION APPS SEED"
scheme=$1 fill=$2 start=$3 min=$4 selection=$5 apps=$6 seed=$7
mnt=$TMPDIR/fs
: > fsck.txt
: > create.tsv
: > phases.tsv
mkdir -p replay

for state in low moderate; do
  phase "$state-prepare"
  scheme_mount "$scheme" "$mnt"
  if [ "$state" = moderate ]; then
    fragbench "$mnt" "$fill" "$start" "$min" moderate
    scheme_remount "$scheme" "$mnt"
  fi
  mkdir -p "$mnt/data"
  phase "$state-replay"
  for app in $apps; do
    ars_guest create "$mnt/data" "$selection/$app/reserved.txt" apps
    for trace in "$selection/$app/traces"/*.iotrace; do
      "$MOBIFRAG_AGENT" replay --trace "$trace" --root "$mnt/data" --seed "$seed" \
        --mark-list "$selection/$app/reserved.txt" \
        > "replay/$state-$app.json" || die "replay of $app ($state) failed"
    done
    ars_guest marked "$mnt/data" "$selection/$app/reserved.txt" > "marked-$state-$app.json"
  done
  sync
  f2fs_state "$state"
  umount "$mnt"
  f2fs_fsck "$state"
done
phase end
