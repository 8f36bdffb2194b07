#!/usr/bin/env bash
# Install what the pipeline needs, idempotently: Debian packages from one list, the
# Python virtual environment from the hash-locked requirements.lock, and the agent and
# ftl-sim builds. A second run with everything present only checks, which takes a few
# seconds.
#
#   scripts/bootstrap.sh                 install what is missing
#   scripts/bootstrap.sh --python-only   only the Python environment (MOBIFRAG_VENV: where)
#   scripts/bootstrap.sh --lock [ARGS]   re-resolve requirements.lock from requirements.txt
#                                        (ARGS go to `uv pip compile`, e.g. --upgrade)
set -euo pipefail
cd "$(dirname "$0")/.."

# requirements.txt lists the direct dependencies; requirements.lock pins their whole
# closure with hashes, resolved for CPython 3.11 on x86_64 Linux by this uv.
UV_VERSION=0.13.9
LOCK_PYTHON_VERSION=3.11
LOCK_PLATFORM=x86_64-unknown-linux-gnu
VENV=${MOBIFRAG_VENV:-.venv}

die() { echo "bootstrap: $*" >&2; exit 1; }

missing_debian_packages() {
  local pkg
  grep -v '^\s*\(#\|$\)' bootstrap/debian-packages.txt | while read -r pkg; do
    dpkg-query -W -f '${Status}\n' "$pkg" 2>/dev/null | grep -q 'install ok installed' \
      || echo "$pkg"
  done
}

# foreign_architectures "PKG...": dpkg learns every architecture named as pkg:arch.
foreign_architectures() {
  local arch
  # $1 is a space-separated package list, split into words on purpose.
  # shellcheck disable=SC2086
  for arch in $(printf '%s\n' $1 | sed -n 's/.*:\([a-z0-9]*\)$/\1/p' | sort -u); do
    dpkg --print-foreign-architectures | grep -qx "$arch" || dpkg --add-architecture "$arch"
  done
}

install_debian_packages() {
  command -v dpkg-query >/dev/null || {
    echo "bootstrap: not a Debian system; use the Nix shell ('nix develop') for the tools"
    return 0
  }
  local missing
  missing=$(missing_debian_packages | tr '\n' ' ')
  [ -n "$missing" ] || return 0
  if [ "$(id -u)" -ne 0 ]; then
    die "missing Debian packages: $missing— install them with: sudo apt-get install $missing"
  fi
  echo "bootstrap: installing Debian packages: $missing"
  foreign_architectures "$missing"
  apt-get update -qq
  # shellcheck disable=SC2086
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing
}

# normalized_pins FILE: "name==version" of every pinned line, names as PEP 503 spells them.
normalized_pins() {
  sed -n 's/^\([A-Za-z0-9][A-Za-z0-9._-]*\)==\([^ ;#\\]*\).*/\1 \2/p' "$1" \
    | awk '{ name = tolower($1); gsub(/[._-]+/, "-", name); print name "==" $2 }' | sort -u
}

# The lock must pin every direct dependency at requirements.txt's version.
check_lock_covers_requirements() {
  [ -f requirements.lock ] || die "requirements.lock is missing: run scripts/bootstrap.sh --lock"
  local stale
  stale=$(comm -23 <(normalized_pins requirements.txt) <(normalized_pins requirements.lock))
  [ -z "$stale" ] || die "requirements.lock does not pin $(echo "$stale" | tr '\n' ' ')\
— requirements.txt changed: run scripts/bootstrap.sh --lock"
}

# venv_ready DIR WANT: DIR is a whole venv of the lock whose checksum is WANT: its stamp
# matches and its python runs pip (a folder holding only the stamp is not a venv).
venv_ready() {
  [ -f "$1/requirements.lock.sha256" ] && [ "$(cat "$1/requirements.lock.sha256")" = "$2" ] \
    && "$1/bin/python" -m pip --version > /dev/null 2>&1
}

# sed_literal TEXT: TEXT escaped for either side of a sed s|||.
sed_literal() { printf '%s' "$1" | sed 's/[][\.*^$|&/]/\\&/g'; }

# retarget DIR FROM TO: a venv built at FROM names TO as its home instead (its scripts'
# shebangs, its activate files and pyvenv.cfg hold its absolute path).
retarget() {
  local from to file
  from=$(sed_literal "$2")
  to=$(sed_literal "$3")
  grep -rlIF -- "$2" "$1/bin" "$1/pyvenv.cfg" | while read -r file; do
    sed -i "s|$from|$to|g" "$file"
  done
}

# build_venv PYTHON DIR TARGET WANT: a venv of requirements.lock in DIR, to be moved to
# TARGET; the stamp is written last.
build_venv() {
  local python=$1 dir=$2 target=$3 want=$4
  "$python" -m venv "$dir" || die "cannot create a venv with $python"
  # The venv's own pip installs the lock; nothing outside it (pip itself included) is
  # upgraded, so what is installed is exactly what the lock names.
  "$dir/bin/python" -m pip install --quiet --disable-pip-version-check --require-hashes \
    --no-deps -r requirements.lock
  retarget "$dir" "$dir" "$target"
  echo "$want" > "$dir/requirements.lock.sha256"
}

# The venv is built aside ($VENV.new) and moved into place whole, so an interrupted
# bootstrap leaves the previous venv (or none), never a half-built one; a lock
# ($VENV.lock) makes a second bootstrap of the same venv wait for the first.
python_environment() {
  local python=${PYTHON:-python3}
  local venv want new
  check_lock_covers_requirements
  want=$(sha256sum requirements.lock | cut -d' ' -f1)
  venv_ready "$VENV" "$want" && return 0
  command -v "$python" >/dev/null || die "$python not found: install Python 3.11 or newer"
  command -v flock >/dev/null || die "flock not found: install util-linux"
  # a venv that is a symbolic link (a worktree sharing one) is rebuilt where it points
  venv=$(readlink -f -- "$VENV")
  new=$venv.new
  exec 9> "$venv.lock"
  if ! flock -n 9; then
    echo "bootstrap: waiting for another bootstrap of $VENV ($venv.lock)"
    flock 9
  fi
  if venv_ready "$venv" "$want"; then
    exec 9>&-
    return 0
  fi
  echo "bootstrap: installing $VENV from requirements.lock (hashes required)"
  rm -rf "$new" "$venv.old"
  # shellcheck disable=SC2064  # expand $new now: it is local to this function
  trap "rm -rf '$new'" EXIT
  build_venv "$python" "$new" "$venv" "$want"
  if [ -e "$venv" ]; then
    mv -T "$venv" "$venv.old"
  fi
  mv -T "$new" "$venv"
  trap - EXIT
  rm -rf "$venv.old"
  exec 9>&-
}

# lock_requirements [ARGS]: requirements.lock re-resolved from requirements.txt by a pinned
# uv in a throwaway venv; versions already in the lock are kept unless ARGS say otherwise.
lock_requirements() {
  local python=${PYTHON:-python3} tmp
  tmp=$(mktemp -d)
  # shellcheck disable=SC2064  # expand $tmp now: it is local to this function
  trap "rm -rf '$tmp'" EXIT
  "$python" -m venv "$tmp/venv"
  "$tmp/venv/bin/python" -m pip install --quiet --disable-pip-version-check "uv==$UV_VERSION"
  "$tmp/venv/bin/uv" pip compile requirements.txt --quiet --generate-hashes \
    --python-version "$LOCK_PYTHON_VERSION" --python-platform "$LOCK_PLATFORM" \
    --custom-compile-command "scripts/bootstrap.sh --lock" -o requirements.lock "$@"
  echo "bootstrap: requirements.lock pins $(grep -c '^[a-z0-9]' requirements.lock) packages"
}

# rust_version: the least Rust ftl-sim builds with (its Cargo.toml's rust-version).
rust_version() {
  sed -n 's/^rust-version *= *"\([0-9.]*\)"/\1/p' ftl-sim/Cargo.toml
}

# version_at_least HAVE NEED: true when dotted version HAVE >= NEED.
version_at_least() {
  [ "$(printf '%s\n%s\n' "$2" "$1" | sort -V | head -n 1)" = "$2" ]
}

# rust_toolchain: cargo at ftl-sim's rust-version; on Debian, as root and with no cargo
# on PATH, Debian 12's newer Rust (bootstrap/debian-rust-packages.txt).
rust_toolchain() {
  local need have packages
  need=$(rust_version)
  if ! command -v cargo >/dev/null; then
    if ! command -v apt-get >/dev/null || [ "$(id -u)" -ne 0 ]; then
      die "cargo not found: install Rust $need or later (as root on Debian 12 this script" \
        "installs bootstrap/debian-rust-packages.txt; else rustup or 'nix develop')"
    fi
    packages=$(grep -v '^\s*\(#\|$\)' bootstrap/debian-rust-packages.txt | tr '\n' ' ')
    echo "bootstrap: no cargo on PATH; installing Debian's Rust: $packages"
    apt-get update -qq
    # shellcheck disable=SC2086  # one word per package
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $packages
  fi
  have=$(cargo --version | awk '{print $2}')
  version_at_least "$have" "$need" \
    || die "cargo $have at $(command -v cargo) is older than ftl-sim's rust-version $need:" \
      "install a newer Rust (rustup, Debian 12's cargo-web, or 'nix develop')"
}

native_builds() {
  make -s -C agent
  if [ -f ftl-sim/Cargo.toml ]; then
    rust_toolchain
    cargo build --quiet --release --locked --manifest-path ftl-sim/Cargo.toml
  fi
}

case "${1:-}" in
  --lock)
    shift
    lock_requirements "$@"
    ;;
  --python-only)
    python_environment
    ;;
  "")
    install_debian_packages
    python_environment
    native_builds
    echo "bootstrap: ready"
    ;;
  *) die "unknown option $1 (--lock, --python-only or none)" ;;
esac
