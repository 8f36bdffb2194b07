#!/usr/bin/env bash
# Install what the pipeline needs, idempotently: Debian packages from one list, the
# Python virtual environment from pinned requirements, and the agent and ftl-sim builds.
# A second run with everything present only checks, which takes a few seconds.
set -euo pipefail
cd "$(dirname "$0")/.."

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

python_environment() {
  local python=${PYTHON:-python3}
  local stamp=.venv/requirements.sha256
  local want
  want=$(sha256sum requirements.txt | cut -d' ' -f1)
  [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && return 0
  command -v "$python" >/dev/null || die "$python not found: install Python 3.11 or newer"
  echo "bootstrap: creating .venv from requirements.txt"
  [ -x .venv/bin/python ] || "$python" -m venv .venv || die "cannot create a venv with $python"
  .venv/bin/python -m pip install --quiet --upgrade pip
  .venv/bin/python -m pip install --quiet -r requirements.txt
  echo "$want" > "$stamp"
}

native_builds() {
  make -s -C agent
  if [ -f ftl-sim/Cargo.toml ]; then
    command -v cargo >/dev/null || die "cargo not found: install a Rust toolchain (rustup or 'nix develop')"
    cargo build --quiet --release --locked --manifest-path ftl-sim/Cargo.toml
  fi
}

install_debian_packages
python_environment
native_builds
echo "bootstrap: ready"
