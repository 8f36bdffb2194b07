# Shared by the guest benchmarks (sourced from the repository's root): the venv's
# Python, the config's emulator kernel and ext4 mkfs options, and a builder of missing
# workflow outputs.
# shellcheck shell=sh disable=SC2034  # the variables are for the scripts that source it
python=.venv/bin/python
config() { "$python" -c "from mobifrag.workflow.study_config import load_config; c = load_config(); $1"; }
kernel=$(config "from pathlib import Path; from mobifrag.platform.kernel import kernel_dir
print(kernel_dir(Path(c['kernel']['source']), Path(c['kernel']['series']), 'emulator').relative_to(Path.cwd()))")/bzImage
mkfs=$(config "print(c['filesystems']['ext4_mkfs'])")

# build_missing NAME TARGET...: each missing TARGET through the workflow (test scale).
build_missing() {
  name=$1
  shift
  for target in "$@"; do
    [ -e "$target" ] || .venv/bin/snakemake --cores all --config scale=test -- "$target" \
      > /dev/null 2>&1 || { echo "$name: cannot build $target" >&2; exit 1; }
  done
}
