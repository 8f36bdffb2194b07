#!/usr/bin/env bash
# Build a kernel from a Debian linux-source tarball, a quilt-style patch series and
# a config fragment merged onto a base config.
#
#   build-kernel.sh --source TARBALL --series SERIES --fragment FRAGMENT \
#                   --base tinyconfig --arch x86_64 --image bzImage --out OUTDIR \
#                   [--prepare-only]
#
# --prepare-only stops after patching and configuring, keeping the tree in OUTDIR/src.
# OUTDIR receives the kernel image, the final .config and provenance.json. The build tree
# lives in OUTDIR/src and is removed on success unless KEEP_KERNEL_TREE=1.
set -euo pipefail

die() { echo "build-kernel: $*" >&2; exit 1; }

source_tarball="" series="" fragment="" base="tinyconfig" arch="x86_64" image="bzImage"
out="" cross="" prepare_only=0
while [ $# -gt 0 ]; do
  case "$1" in
    --source) source_tarball=$2; shift 2 ;;
    --series) series=$2; shift 2 ;;
    --fragment) fragment=$2; shift 2 ;;
    --base) base=$2; shift 2 ;;
    --arch) arch=$2; shift 2 ;;
    --image) image=$2; shift 2 ;;
    --cross-compile) cross=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --prepare-only) prepare_only=1; shift ;;
    *) die "unknown argument: $1" ;;
  esac
done
[ -n "$out" ] || die "--out is required"
[ -f "$source_tarball" ] || die "kernel source $source_tarball not found: install it with 'apt-get install linux-source-6.1'"
[ -f "$series" ] || die "patch series $series not found"
[ -f "$fragment" ] || die "config fragment $fragment not found"
for tool in make gcc flex bison bc xz patch; do
  command -v "$tool" >/dev/null || die "$tool is missing: run 'make bootstrap'"
done

series_dir=$(cd "$(dirname "$series")" && pwd)
fragment=$(cd "$(dirname "$fragment")" && pwd)/$(basename "$fragment")
mkdir -p "$out"
out=$(cd "$out" && pwd)
tree="$out/src"
rm -rf "$tree"
mkdir -p "$tree"

echo "build-kernel: extracting $source_tarball"
tar -xf "$source_tarball" -C "$tree" --strip-components=1

# Patches are applied in series order; a line may carry a comment after '#'.
applied=()
while IFS= read -r line || [ -n "$line" ]; do
  name=${line%%#*}
  name=$(echo "$name" | xargs)
  [ -n "$name" ] || continue
  [ -f "$series_dir/$name" ] || die "patch $name listed in $series does not exist"
  echo "build-kernel: applying $name"
  patch -d "$tree" -p1 --forward --batch --quiet < "$series_dir/$name" \
    || die "patch $name does not apply to $(basename "$source_tarball")"
  applied+=("$name")
done < "$series"

case "$arch" in
  x86_64) karch=x86 ;;
  arm64|aarch64) karch=arm64 ;;
  *) die "unsupported architecture $arch" ;;
esac
kmake=(make -C "$tree" ARCH="$karch" -j"$(nproc)")
[ -n "$cross" ] && kmake+=(CROSS_COMPILE="$cross")

"${kmake[@]}" "$base" >/dev/null
(cd "$tree" && ARCH="$karch" scripts/kconfig/merge_config.sh -m .config "$fragment" >/dev/null)
"${kmake[@]}" olddefconfig >/dev/null

# A fragment option that Kconfig silently dropped (missing dependency) is a build error:
# the guest would boot without the feature the study needs.
missing=0
while IFS= read -r opt; do
  case "$opt" in CONFIG_*=*) ;; *) continue ;; esac
  grep -qxF "$opt" "$tree/.config" || { echo "build-kernel: $opt did not survive olddefconfig" >&2; missing=1; }
done < "$fragment"
[ "$missing" -eq 0 ] || die "config fragment $(basename "$fragment") has options whose dependencies are not met"
if [ "$prepare_only" = 1 ]; then
  echo "build-kernel: prepared $tree (${#applied[@]} patches applied)"
  exit 0
fi

echo "build-kernel: building $image with $(nproc) jobs"
"${kmake[@]}" "$image" > "$out/build.log" 2>&1 || { tail -n 40 "$out/build.log" >&2; die "kernel build failed, see $out/build.log"; }

case "$karch" in
  x86) cp "$tree/arch/x86/boot/$image" "$out/$image" ;;
  arm64) cp "$tree/arch/arm64/boot/$image" "$out/$image" ;;
esac
cp "$tree/.config" "$out/config"
release=$(cat "$tree/include/config/kernel.release")

{
  echo "{"
  echo "  \"kernel_release\": \"$release\","
  echo "  \"source\": \"$(basename "$source_tarball")\","
  echo "  \"source_sha256\": \"$(sha256sum "$source_tarball" | cut -d' ' -f1)\","
  echo "  \"arch\": \"$arch\","
  echo "  \"base_config\": \"$base\","
  echo "  \"fragment\": \"$(basename "$fragment")\","
  echo "  \"fragment_sha256\": \"$(sha256sum "$fragment" | cut -d' ' -f1)\","
  echo "  \"config_sha256\": \"$(sha256sum "$out/config" | cut -d' ' -f1)\","
  echo "  \"patches\": ["
  sep=""
  for name in "${applied[@]+"${applied[@]}"}"; do
    printf '%s    {"name": "%s", "sha256": "%s"}' "$sep" "$name" "$(sha256sum "$series_dir/$name" | cut -d' ' -f1)"
    sep=$',\n'
  done
  [ -n "$sep" ] && echo
  echo "  ],"
  echo "  \"compiler\": \"$("${cross}gcc" --version | head -n1)\""
  echo "}"
} > "$out/provenance.json"

[ "${KEEP_KERNEL_TREE:-0}" = 1 ] || rm -rf "$tree"
echo "build-kernel: $out/$image ($release)"
