#!/bin/sh
# Fetch FlashSim's pinned source (upstream.env), verify its checksum and unpack it into
# build/flashsim/ (scripts/fetch-pinned.sh says where the tarball comes from).
#
#   model/flashsim/fetch.sh [BUILD_DIR]     (default: build/flashsim under the repo root)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
exec "$here/../../scripts/fetch-pinned.sh" flashsim "$here/upstream.env" ssd.h "$@"
