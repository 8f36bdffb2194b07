"""A new experiment is added in files of its own: its rules, its config and schema, its
claims, its figure and its guest job, and no shared file needs an edit (the Snakefile
includes rules/experiments/*.smk; mobifrag/workflow/study_config.py, claim_tables.py
and figure_registry.py add config/experiments/<experiment>.* to the shared files).

The example experiment is written into a copy of the repository's tracked files; a dry
run of its check and its figure plans its guest job (derived from rule guest_job), its
table and the figure.
"""

import shutil
import subprocess
import sys
import textwrap

import pytest

from conftest import REPO, local_env, planned_jobs, repo_copy
from mobifrag.workflow.claim_tables import ClaimsError, checks_of, read_claims_file
from mobifrag.workflow.figure_registry import RegistryError, read_registry
from mobifrag.workflow.study_config import EXPERIMENTS

# At most this many files, each new and named after the experiment.
MOST_FILES = 7
NAME = "example"

RULES = """\
# An example experiment: one file written on a fresh file system in the guest, its
# fragments counted (mobifrag/tables/fragments.py).
example_runs = lambda w: {
    f"fs={fs}": on_platform(f"example/{fs}", w) for fs in config["example"]["filesystems"]
}


use rule guest_job as example_run with:
    input:
        unpack(guest_inputs("jobs/example.sh")),
    output:
        out=directory(platform_runs("example/{fs}")),
    log:
        platform_runs("logs/example-{fs}.console.log"),
    benchmark:
        platform_runs("benchmarks/example_run-{fs}.tsv")
    wildcard_constraints:
        fs="ext4|f2fs",
    params:
        **guest_job_args(
            "{wildcards.fs} {mkfs} {file}",
            mkfs=lambda w: mkfs_options(w.fs),
            file=config["example"]["file_kib"] * 1024,
        ),
        disk_mib=lambda w: scale_params(w.scale)["example"]["disk_mib"],


rule example_table:
    input:
        lambda w: example_runs(w).values(),
        code=python_sources("mobifrag.tables.fragments"),
    output:
        results("example/dof.csv"),
    log:
        results("logs/example-table.log"),
    localrule: True
    params:
        python=PYTHON,
        runs=lambda w: " ".join(
            f"--run fs={fs} {run}/snapshot"
            for fs, run in zip(config["example"]["filesystems"], example_runs(w).values())
        ),
    shell:
        "{params.python} -m mobifrag.tables.fragments {params.runs} --dof {output} 2> {log}"
"""

CONFIG = """\
example:
  filesystems: [ext4]
  file_kib: 256
scales:
  test: {example: {disk_mib: 64}}
  quick: {example: {disk_mib: 128}}
  paper: {example: {disk_mib: 1024}}
"""

SCHEMA = """\
required: [example]
properties:
  example:
    type: object
    additionalProperties: false
    required: [filesystems, file_kib]
    properties:
      filesystems: {type: array, minItems: 1, items: {enum: [ext4, f2fs]}}
      file_kib: {type: integer, minimum: 4}
definitions:
  scale:
    required: [example]
    properties:
      example:
        type: object
        additionalProperties: false
        required: [disk_mib]
        properties:
          disk_mib: {type: integer, minimum: 32}
"""

CLAIMS = """\
checks:
  example: [example-one-writer-one-piece]
claims:
  - id: example-one-writer-one-piece
    figure: example-fig01-dof
    source: Example §1
    basis: layout
    kind: evidence
    claim: A file written alone on a fresh file system lies in one piece
    paper_value: 1
    band: one piece, a second one allowed for the allocator's first preallocation
    measure: {table: example/dof.csv, column: dof, stat: mean}
    reproduced_if: {between: [1, 2]}
"""

FIGURES = """\
example-fig01-dof:
  tables: [example/dof.csv]
  caption: >-
    Example Fig. 1: the DoF of a file written alone on a fresh file system.
"""

FIGURE_SCRIPT = """\
# Example Fig. 1: the DoF of each file (paper-figures/theme.R draws and stamps it).
args <- commandArgs(trailingOnly = TRUE)
dof <- read.csv(args[3])
pdf(args[1])
barplot(dof$dof)
invisible(dev.off())
png(args[2])
barplot(dof$dof)
invisible(dev.off())
"""

JOB = """\
#!/bin/sh
# Example: one file of FILE bytes written on a fresh FS, then a fragcheck snapshot.
#
#   example.sh FS "MKFS_OPTIONS" FILE
set -eu
. "$MOBIFRAG_ROOT/jobs/lib.sh"
[ $# -eq 3 ] || die "usage: example.sh FS MKFS_OPTIONS FILE"
fs=$1 mkfs_options=$2 file=$3
mnt=$TMPDIR/fs
make_fs "$fs" "$mkfs_options"
mount_fs "$fs" "$mnt"
mkdir "$mnt/data"
"$MOBIFRAG_AGENT" append --dir "$mnt/data" --threads 1 --record-size 4096 \\
  --file-size "$file" --prefix file --suffix .db --sync fsync > append.json
remount_fs "$fs" "$mnt"
snapshot "$mnt/data" snapshot
umount "$mnt"
"""

EXAMPLE = {
    "rules/experiments/example.smk": RULES,
    "config/experiments/example.yaml": CONFIG,
    "config/experiments/example.schema.yaml": SCHEMA,
    "config/experiments/example.claims.yaml": CLAIMS,
    "paper-figures/example-fig01-dof.R": FIGURE_SCRIPT,
    "config/experiments/example.figures.yaml": FIGURES,
    "jobs/example.sh": JOB,
}


def add_example(repo):
    """Write the example's files; each must be new and named after the experiment."""
    for name, text in EXAMPLE.items():
        path = repo / name
        assert not path.exists(), f"{name}: the example would edit a file it does not own"
        assert path.name.startswith(NAME), name
        path.write_text(textwrap.dedent(text))


def test_an_example_experiment_plans_from_files_of_its_own(tmp_path):
    assert len(EXAMPLE) <= MOST_FILES
    repo = repo_copy(tmp_path / "repo")
    add_example(repo)
    targets = [
        "results/emulator-emmc/test/checks/example.md",
        "paper-figures/emulator-emmc/test/example-fig01-dof.png",
    ]
    command = [sys.executable, "-m", "snakemake", "--cores", "2", "-n", "-p", "--forceall"]
    command += ["--config", "scale=test", "--", *targets]
    run = subprocess.run(command, cwd=repo, env=local_env(), capture_output=True, text=True)
    output = run.stdout + run.stderr
    assert run.returncode == 0, output[-3000:]
    jobs = planned_jobs(output)
    assert (jobs["example_run"], jobs["example_table"]) == (1, 1)
    assert (jobs["check"], jobs["figure"]) == (1, 1)
    # the guest job runs the example's script on the runner of the base rule guest_job
    assert "-m mobifrag.platform.run" in output and "--script jobs/example.sh" in output
    assert " -- ext4 " in output and " 262144" in output


def test_an_experiments_claims_and_check_join_the_claims_file(tmp_path):
    shutil.copy(REPO / "config" / "claims.yaml", tmp_path / "claims.yaml")
    (tmp_path / EXPERIMENTS).mkdir()
    own = tmp_path / EXPERIMENTS / "example.claims.yaml"
    own.write_text(CLAIMS)
    data = read_claims_file(tmp_path / "claims.yaml")
    shared = read_claims_file(REPO / "config" / "claims.yaml")
    assert data["claims"][: len(shared["claims"])] == shared["claims"]
    assert data["claims"][-1]["id"] == "example-one-writer-one-piece"
    checks = checks_of(data, tmp_path / "claims.yaml")
    assert [c["id"] for c in checks["example"]] == ["example-one-writer-one-piece"]
    assert set(checks) - {"example"} == set(shared["checks"])
    # a check or a claim id the claims file has already is refused, naming the file
    own.write_text(CLAIMS.replace("  example: [", "  aging: ["))
    with pytest.raises(ClaimsError, match="example.claims.yaml: check aging"):
        read_claims_file(tmp_path / "claims.yaml")
    own.write_text(CLAIMS.replace("example-one-writer-one-piece", shared["claims"][0]["id"]))
    with pytest.raises(ClaimsError, match="duplicate claim ids"):
        read_claims_file(tmp_path / "claims.yaml")


def test_an_experiments_figures_join_the_registry_once(tmp_path):
    (tmp_path / "example.figures.yaml").write_text(FIGURES)
    registry = read_registry(REPO / "paper-figures" / "registry.yaml", tmp_path)
    assert registry == {**read_registry(), "example-fig01-dof": registry["example-fig01-dof"]}
    (tmp_path / "example.figures.yaml").write_text("tmc-fig06-layout: {tables: [], caption: x}\n")
    with pytest.raises(RegistryError, match="tmc-fig06-layout already registered"):
        read_registry(REPO / "paper-figures" / "registry.yaml", tmp_path)
