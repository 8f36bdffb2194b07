#!/bin/sh
# User-perceived latencies on an aged file system (TMC §5.2, Figs. 10–12), on a copy of
# an aged state's disk: every app of INSTALL_DIR/apps.tsv is installed (its install
# trace replayed: the APK written, then its files extracted, each write then fsync),
# then each app is launched (its APK, compiled code, libraries and databases read cold
# with cat), then TILE_DB is copied in and QUERIES replayed on it cold with sqlite3.
# Each phase runs under blktrace (blktrace/<phase>-<app>/, blktrace/sqlite/); times go
# to latency.tsv (phase, app, nanoseconds), launch sets to launch/<app>.txt, and a
# fragcheck snapshot of the installed files to snapshot/.
#
#   user-latency.sh FS INSTALL_DIR TILE_DB QUERIES SEED
set -eu
. "$MOBIFRAG_ROOT/jobs/lib.sh"
[ $# -eq 5 ] || die "usage: user-latency.sh FS INSTALL_DIR TILE_DB QUERIES SEED"
fs=$1 install_dir=$2 tile_db=$3 queries=$4 seed=$5
mnt=$TMPDIR/fs root=$TMPDIR/fs/data here=$(pwd)
[ -f "$install_dir/apps.tsv" ] || die "no $install_dir/apps.tsv"
[ -f "$tile_db" ] || die "no tile database $tile_db"
[ -f "$queries" ] || die "no query log $queries"
command -v sqlite3 > /dev/null || die "sqlite3 is not installed"

drop_caches() { sync; echo 3 > /proc/sys/vm/drop_caches; }
now() { date +%s%N; }

apps=$(($(wc -l < "$install_dir/apps.tsv") - 1))
progress_plan $((3 + 2 * apps))
progress_step "mount the aged $fs"
mount_fs "$fs" "$mnt"
mkdir -p replay launch
printf 'phase\tapp\tns\n' > latency.tsv.partial

while IFS="$(printf '\t')" read -r app package trace; do
  [ "$app" = app ] && continue
  drop_caches
  progress_step "measured: install $app"
  trace_start "install-$app"
  start=$(now)
  "$MOBIFRAG_AGENT" replay --trace "$install_dir/$trace" --root "$root" --seed "$seed" \
    > "replay/$app.json" < /dev/null || die "installing $app failed"
  sync
  printf 'install\t%s\t%s\n' "$app" $(( $(now) - start )) >> latency.tsv.partial
  trace_stop "install-$app"
done < "$install_dir/apps.tsv"

while IFS="$(printf '\t')" read -r app package trace; do
  [ "$app" = app ] && continue
  (cd "$root" && find "app/$package-1" "data/$package/databases" -type f | sort) \
    > "launch/$app.txt"
  [ -s "launch/$app.txt" ] || die "no installed files of $app"
  drop_caches
  progress_step "measured: launch $app"
  trace_start "launch-$app"
  start=$(now)
  (cd "$root" && xargs cat < "$here/launch/$app.txt" > /dev/null) || die "launching $app failed"
  printf 'launch\t%s\t%s\n' "$app" $(( $(now) - start )) >> latency.tsv.partial
  trace_stop "launch-$app"
done < "$install_dir/apps.tsv"

mkdir -p "$root/tiles"
cp "$tile_db" "$root/tiles/$(basename "$tile_db")"
db=$root/tiles/$(basename "$tile_db")
drop_caches
progress_step "measured: sqlite queries"
trace_start sqlite
start=$(now)
sqlite3 -readonly "$db" < "$queries" > /dev/null || die "sqlite3 queries failed"
printf 'sqlite\ttiles\t%s\n' $(( $(now) - start )) >> latency.tsv.partial
trace_stop sqlite

remount_fs "$fs" "$mnt"
progress_step fragcheck
snapshot "$root" snapshot
umount "$mnt"
mv latency.tsv.partial latency.tsv
