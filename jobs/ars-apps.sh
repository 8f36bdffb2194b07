#!/bin/sh
# ARS Fig. 7 (§V.C) under one scheme (f2fs, ipu, ars, ars-ipu): per state, a fresh F2FS
# (Low: pristine; Moderate: the fragmentation benchmark fills to FILL %), then per app of
# APPS in order, the app's reserved files (SELECTION/<app>/reserved.txt) are created
# with user.ars and the app's traces (TRACES/<app>/traces/*.iotrace) are replayed with
# the same list as --mark-list. The traces are Mobibench's real ones, imported; config
# ars_eval.apps_traces picks the list: their written-many files, or the ARS selection's
# decision-tree list learned from the same traces (rules/experiments/ars_eval.smk). Each app
# starts from the state as aged: the app before it is deleted (and a sync lets F2FS free
# its sections), so every app meets the state's utilization, which at Moderate must be
# below ars_reserve_util (ARS §V.B: the benchmark "fills file system up to 70% for
# reserved files to work"); ./utilization.tsv holds F2FS's utilization before each app
# (jobs/ars-lib.sh utilization_before). A reserved file the trace (or SQLite) deletes
# and recreates gets user.ars again before its first write. Outputs:
# ./replay/<state>-<app>.json (the agent's seconds) with the app's blktrace in
# ./blktrace/<state>-<app>/ (its reserved files' creation in
# ./blktrace/create-apps-<state>-<app>/), ./marked-<state>-<app>.json, ./create.tsv,
# ./fragbench-moderate.json, ./state/<state>-<app>/ (after the app), fsck.f2fs per state.
#
#   ars-apps.sh SCHEME FILL START MIN SELECTION TRACES "APPS" SEED
set -eu
. "$MOBIFRAG_ROOT/jobs/lib.sh"
. "$MOBIFRAG_ROOT/jobs/ars-lib.sh"
[ $# -eq 8 ] || die "usage: ars-apps.sh SCHEME FILL START MIN SELECTION TRACES APPS SEED"
scheme=$1 fill=$2 start=$3 min=$4 selection=$5 traces=$6 apps=$7 seed=$8
mnt=$TMPDIR/fs
: > fsck.txt
: > create.tsv
: > phases.tsv
mkdir -p replay
progress_plan 4

# replay_app APP STATE: the app's traces, one after the other.
replay_app() {
  for trace in "$traces/$1/traces"/*.iotrace; do
    "$MOBIFRAG_AGENT" replay --trace "$trace" --root "$mnt/data" --seed "$seed" \
      --mark-list "$selection/$1/reserved.txt" \
      > "replay/$2-$1.json" || die "replay of $1 ($2) failed"
  done
}

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
    utilization_before "$state" "$app"
    traced "create-apps-$state-$app" \
      ars_guest create "$mnt/data" "$selection/$app/reserved.txt" apps
    traced "$state-$app" replay_app "$app" "$state"
    ars_guest marked "$mnt/data" "$selection/$app/reserved.txt" > "marked-$state-$app.json"
    sync
    f2fs_state "$state-$app"
    rm -rf "$mnt/data"
    mkdir "$mnt/data"
    sync
  done
  umount "$mnt"
  f2fs_fsck "$state"
done
phase end
