#!/bin/sh
# Fetch filebench's pinned source (upstream.env), verify its checksum and unpack it into
# build/filebench/ (scripts/fetch-pinned.sh says where the tarball comes from).
#
#   benchmarks/filebench/fetch.sh [BUILD_DIR]     (default: build/filebench under the repo root)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
exec "$here/../../scripts/fetch-pinned.sh" filebench "$here/upstream.env" configure.ac "$@"
