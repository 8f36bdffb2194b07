#!/bin/sh
# Fetch IOzone, the benchmark the Ext4-tuning study runs (jobs/ext4tune-bench.sh): Debian's
# package at the version upstream.env pins, its SHA-256 checked, its binary unpacked to
# BUILD_DIR/bin/iozone. Prints that path.
#
#   benchmarks/iozone/fetch.sh [BUILD_DIR]     (default: build/iozone under the repo root)
#
# IOzone is not free software (its own licence; Debian ships it in non-free). It is
# downloaded for local use into the git-ignored build folder, never committed or copied
# into the repository. apt-get runs with a configuration of its own under BUILD_DIR/apt
# (sources, lists, cache): the system's apt sources are neither read nor changed, and apt
# checks the suite's Release signature against Debian's archive keyring as usual.
# Where the mirror is not reachable (or IOZONE_OFFLINE=1), the .deb is taken from the
# folder MOBIFRAG_VENDOR names (`make fetch` fills one), by default the checkout's vendor/
# where it has one, else ../shared/vendor/. Every copy is checked against IOZONE_SHA256.
# Needs apt-get, dpkg-deb and sha256sum (Debian has them).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
IOZONE_PACKAGE='' IOZONE_VERSION='' IOZONE_ARCH='' IOZONE_MIRROR='' IOZONE_SUITE=''
IOZONE_COMPONENT='' IOZONE_KEYRING='' IOZONE_SHA256=''
# shellcheck source=/dev/null
. "$here/upstream.env"
package=$IOZONE_PACKAGE version=$IOZONE_VERSION arch=$IOZONE_ARCH
mkdir -p "${1:-$root/build/iozone}"
build=$(cd "${1:-$root/build/iozone}" && pwd)  # apt takes its paths absolute
apt=$build/apt
deb=$apt/${package}_${version}_${arch}.deb
binary=$build/bin/iozone
vendor_dir=$root/../shared/vendor
[ -d "$root/vendor" ] && vendor_dir=$root/vendor
vendor=${MOBIFRAG_VENDOR:-$vendor_dir}/$(basename "$deb")

say() { echo "iozone fetch: $*" >&2; }
fail() { say "$@"; exit 1; }

for tool in dpkg-deb sha256sum; do
  command -v "$tool" > /dev/null || fail "needs $tool (Debian's apt and dpkg)"
done

sha256_of() { sha256sum "$1" | cut -d' ' -f1; }

# apt-get with every path it writes or reads sources from under $apt
private_apt() {
  apt-get -q -o Dir::Etc::SourceList="$apt/sources.list" \
    -o Dir::Etc::SourceParts="$apt/sources.list.d" \
    -o Dir::Etc::Preferences=/dev/null -o Dir::Etc::PreferencesParts="$apt/preferences.d" \
    -o Dir::State::Lists="$apt/lists" -o Dir::Cache="$apt/cache" \
    -o APT::Architecture="$arch" -o APT::Sandbox::User=root "$@"
}

# download: the .deb from the mirror; fails (saying why) where it cannot.
download() {
  [ "${IOZONE_OFFLINE:-0}" = 1 ] && { say "IOZONE_OFFLINE=1: not asking $IOZONE_MIRROR"; return 1; }
  command -v apt-get > /dev/null || { say "needs apt-get to download $package"; return 1; }
  [ -f "$IOZONE_KEYRING" ] \
    || { say "no $IOZONE_KEYRING (apt-get install debian-archive-keyring)"; return 1; }
  mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial" "$apt/preferences.d" \
    "$apt/sources.list.d"
  echo "deb [signed-by=$IOZONE_KEYRING] $IOZONE_MIRROR $IOZONE_SUITE $IOZONE_COMPONENT" \
    > "$apt/sources.list"
  if ! private_apt update > "$apt/update.log" 2>&1 \
    || grep -q '^\(Err\|W\|E\):' "$apt/update.log"; then
    say "cannot get $package $version: the mirror $IOZONE_MIRROR ($IOZONE_SUITE" \
      "$IOZONE_COMPONENT) is not reachable or not signed:" \
      "$(grep '^\(Err\|W\|E\):' "$apt/update.log" | head -n 2 | tr '\n' ' ')" \
      "(log: $apt/update.log)"
    return 1
  fi
  if ! (cd "$apt" && private_apt download "$package=$version") > "$apt/download.log" 2>&1; then
    say "$IOZONE_MIRROR ($IOZONE_SUITE $IOZONE_COMPONENT) has no $package $version:" \
      "$(tail -n 1 "$apt/download.log")"
    return 1
  fi
  say "downloaded $package $version from $IOZONE_MIRROR"
}

# from_vendor: the vendor folder's copy, if it has the pinned checksum.
from_vendor() {
  if [ ! -f "$vendor" ]; then
    fail "cannot get $package $version: the mirror is not reachable and $vendor is" \
      "missing; put $(basename "$deb") (sha256 $IOZONE_SHA256, from $IOZONE_MIRROR" \
      "$IOZONE_SUITE $IOZONE_COMPONENT) there, or name its folder with MOBIFRAG_VENDOR"
  fi
  [ "$(sha256_of "$vendor")" = "$IOZONE_SHA256" ] \
    || fail "$vendor has sha256 $(sha256_of "$vendor"), not the pinned $IOZONE_SHA256: refusing it"
  cp "$vendor" "$deb.partial"
  mv "$deb.partial" "$deb"
  say "copied $vendor"
}

if [ ! -f "$deb" ] || [ "$(sha256_of "$deb")" != "$IOZONE_SHA256" ]; then
  rm -f "$deb"
  mkdir -p "$apt"
  download || from_vendor
fi
got=$(sha256_of "$deb")
if [ "$got" != "$IOZONE_SHA256" ]; then
  rm -f "$deb"
  fail "$package $version: the .deb has sha256 $got, expected $IOZONE_SHA256 (upstream.env)"
fi
rm -rf "$build/root"
dpkg-deb -x "$deb" "$build/root"
[ -f "$build/root/usr/bin/iozone" ] || fail "$deb holds no usr/bin/iozone"
mkdir -p "$build/bin"
cp "$build/root/usr/bin/iozone" "$binary.partial"
chmod 755 "$binary.partial"
mv "$binary.partial" "$binary"
echo "$binary"
