import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))


def write_snapshot(directory: Path, files, extents, fs=("ext4", 4096, 16384, 8000, "/dev/vda")):
    """A fragcheck snapshot directory from rows (tuples) of each table."""
    directory.mkdir(parents=True, exist_ok=True)
    tables = {
        "files.tsv": (("path", "size_bytes", "allocated_bytes", "n_extents", "inode"), files),
        "extents.tsv": (
            ("path", "extent", "logical_bytes", "physical_bytes", "length_bytes", "flags"),
            extents,
        ),
        "fs.tsv": (("fs_type", "block_size", "total_blocks", "free_blocks", "device"), [fs]),
    }
    for name, (header, rows) in tables.items():
        lines = ["\t".join(header)] + ["\t".join(str(v) for v in row) for row in rows]
        (directory / name).write_text("\n".join(lines) + "\n")
    return directory


@pytest.fixture
def snapshot_dir(tmp_path):
    def make(name="snap", **kwargs):
        return write_snapshot(tmp_path / name, **kwargs)

    return make


def local_env(env=None) -> dict[str, str]:
    """The environment of a Snakemake run that executes locally. Snakemake's SLURM
    executor plugin asks `scontrol show config` for the cluster's settings whenever
    Snakemake starts; where SLURM's tools are installed but no controller answers (a
    machine after tests/test_slurm.py), that takes 9-10 s per run. An empty SLURM
    configuration makes `scontrol` fail at once, and a local run needs none."""
    import os

    return {**(os.environ if env is None else env), "SLURM_CONF": os.devnull}


def snakemake(*args, check=True, cores=2):
    """Run the workflow's snakemake (from the venv running the tests) in the repo."""
    import subprocess

    command = [sys.executable, "-m", "snakemake", "--cores", str(cores), *args]
    run = subprocess.run(command, cwd=REPO, capture_output=True, text=True, env=local_env())
    if check and run.returncode != 0:
        raise AssertionError(
            f"{' '.join(command)} failed:\n{run.stdout[-3000:]}\n{run.stderr[-3000:]}"
        )
    return run


@pytest.fixture(scope="session")
def emulator_kernel():
    """The emulator kernel of the default config, built through the workflow if needed."""
    import yaml

    from mobifrag.platform.kernel import kernel_dir

    config = yaml.safe_load((REPO / "config" / "config.yaml").read_text())
    image = (
        kernel_dir(Path(config["kernel"]["source"]), REPO / config["kernel"]["series"], "emulator")
        / "bzImage"
    )
    snakemake(str(image.relative_to(REPO)))
    return image


def planned_jobs(output: str) -> dict[str, int]:
    """Rule → job count from the 'Job stats' table of a snakemake (dry) run."""
    jobs: dict[str, int] = {}
    in_table = False
    for line in output.splitlines():
        if line.startswith("job ") and "count" in line:
            in_table = True
            continue
        if in_table:
            parts = line.split()
            if not parts or parts[0] == "total":
                break
            if len(parts) == 2 and parts[1].isdigit():
                jobs[parts[0]] = int(parts[1])
    return jobs


def emulator_platform_run(scale: str, device: str = "emulator-emmc") -> Path:
    """The platform-run folder (mobifrag/workflow/stages.py) of a device's emulator at a scale."""
    import yaml

    from mobifrag.platform.kernel import kernel_dir
    from mobifrag.workflow.profiles import load_device
    from mobifrag.workflow.stages import PLATFORM_RUNS, platform_key

    config = yaml.safe_load((REPO / "config" / "config.yaml").read_text())
    platform = load_device(device)["platform"]
    kernel = kernel_dir(
        Path(config["kernel"]["source"]), REPO / config["kernel"]["series"], platform["kernel"]
    )
    key = platform_key(platform, kernel.name)
    return REPO / PLATFORM_RUNS.format(platform=key, scale=scale)


def clear_results(scale: str, experiment: str = "", device: str = "emulator-emmc") -> None:
    """Remove an experiment's (or a scale's) outputs from every stage, so the next run
    is a fresh real one: results of an earlier run must not stand in for it."""
    import shutil

    from mobifrag.workflow.stages import RESULTS, WORKLOADS

    for root in (
        REPO / RESULTS.format(device=device, scale=scale),
        REPO / WORKLOADS.format(scale=scale),
        emulator_platform_run(scale, device),
    ):
        shutil.rmtree(root / experiment if experiment else root, ignore_errors=True)


@dataclass(frozen=True)
class FreshRun:
    """The test-scale workflow outputs a test module reads, always made afresh: results of
    an earlier session must not stand in for them. `experiments` are cleared at the test
    scale ("" clears all of it), `paths` (relative to the repo) are removed."""

    targets: tuple[str, ...]
    experiments: tuple[str, ...] = ()
    paths: tuple[str, ...] = ()

    def clear(self) -> None:
        import shutil

        for experiment in self.experiments:
            clear_results("test", experiment)
        for path in map(REPO.joinpath, self.paths):
            if path.is_dir():
                shutil.rmtree(path)
            else:
                path.unlink(missing_ok=True)

    def make(self) -> None:
        snakemake(*self.targets, "--config", "scale=test")


# Two jobs at once, Snakemake's default job selector: 145 jobs in 17.5 min in a fresh
# clone. As `make reproduce` runs (greedy, two busy guests, host jobs beside them) the
# same run had done 79 of 144 steps after 16 min (docs/measurements.md).
JOINT_CORES = 2


def joint_run(runs) -> list[str]:
    """The arguments of the one Snakemake run that makes every FRESH_RUN's targets. The
    targets come first: --config takes every word up to the next option."""
    targets = dict.fromkeys(target for run in runs for target in run.targets)
    return [*targets, "--keep-going", "--config", "scale=test"]


@pytest.fixture(scope="session")
def fresh_runs(request, emulator_kernel):
    """Clears the FRESH_RUN of every module whose selected tests need it, then makes all
    of them in one Snakemake run, in which two guests keep both host cores busy (one
    module after another left one idle through each serial chain of guest jobs). Returns
    the function a module's fixture calls with its own FRESH_RUN: nothing to do after a
    joint run that succeeded; otherwise the module's own run, which fails with its error."""
    runs = []
    for item in request.session.items:
        run = getattr(getattr(item, "module", None), "FRESH_RUN", None)
        if "fresh_runs" in item.fixturenames and run is not None and run not in runs:
            runs.append(run)
    for run in runs:
        run.clear()
    joint = snakemake(*joint_run(runs), check=False, cores=JOINT_CORES)
    if joint.returncode != 0:
        print(f"the joint run of {len(runs)} modules failed:\n{joint.stderr[-3000:]}")

    def made(run: FreshRun) -> None:
        if run not in runs:
            run.clear()
        if run not in runs or joint.returncode != 0:
            run.make()

    return made
