import re
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))


def squeezed(text: str) -> str:
    """Markdown with every run of spaces made one: a table's rows compared by their cells,
    not by the padding that aligns its columns."""
    return re.sub(" {2,}", " ", text)


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


FTL_SIM = REPO / "ftl-sim" / "target" / "release" / "ftl-sim"
needs_ftl_sim = pytest.mark.skipif(not FTL_SIM.is_file(), reason="ftl-sim is not built")


def empty_trace_summary(folder: Path) -> Path:
    """ftl-sim's own summary of a phase whose per-CPU blktrace file is empty (blktrace
    recorded nothing): it exits 0 with a warning and every count 0."""
    import json

    from mobifrag.model import ftl

    trace = folder / "blktrace" / "empty-phase"
    trace.mkdir(parents=True)
    (trace / "trace.blktrace.0").write_bytes(b"")
    summary = ftl.replay_phase(FTL_SIM, REPO / "devices" / "emulator-emmc.yaml", trace)
    assert summary["replay"]["requests"] == 0 and summary["replay"]["warnings"]
    path = folder / "empty-phase.json"
    path.write_text(json.dumps(summary))
    return path


BOARD_SERIAL = "TESTSERIAL01"


def local_device_files(folder: Path) -> dict[str, str]:
    """Local device files giving every shipped adb profile a serial (what a user puts in
    devices/local/), in `folder`; the environment that makes the workflow read them."""
    import yaml

    folder.mkdir(parents=True, exist_ok=True)
    for path in sorted((REPO / "devices").glob("*.yaml")):
        data = yaml.safe_load(path.read_text())
        if path.name != "schema.yaml" and data["platform"]["type"] == "adb":
            (folder / path.name).write_text(f"platform:\n  serial: {BOARD_SERIAL}\n")
    return {"MOBIFRAG_LOCAL_DEVICES": str(folder)}


def repo_copy(target: Path) -> Path:
    """The tracked files of the working tree (no results or builds) in `target`, with the
    repo's venv: a run there writes nothing into the repo."""
    import shutil
    import subprocess

    files = subprocess.run(
        ["git", "ls-files", "-z"], cwd=REPO, capture_output=True, check=True
    ).stdout.split(b"\0")
    for name in filter(None, (f.decode() for f in files)):
        source = REPO / name
        if source.is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)
    (target / ".venv").symlink_to(REPO / ".venv")
    return target


@pytest.fixture
def board_serials(tmp_path, monkeypatch):
    """Every Snakemake run of the test reads local device files with a board serial."""
    for key, value in local_device_files(tmp_path / "local-devices").items():
        monkeypatch.setenv(key, value)


@pytest.fixture
def snapshot_dir(tmp_path):
    def make(name="snap", **kwargs):
        return write_snapshot(tmp_path / name, **kwargs)

    return make


def local_env(env=None) -> dict[str, str]:
    """The environment of a Snakemake run that executes locally. Snakemake's SLURM
    executor plugin asks `scontrol show config` for the cluster's settings whenever
    Snakemake starts; where SLURM's tools are installed but no controller answers (a
    machine after tests/emulator/test_slurm.py), that takes 9-10 s per run. An empty SLURM
    configuration makes `scontrol` fail at once, and a local run needs none."""
    import os

    return {**(os.environ if env is None else env), "SLURM_CONF": os.devnull}


def may_write(args) -> bool:
    """Whether a Snakemake run with these arguments may write in the checkout."""
    return not {"-n", "--dry-run", "--lint"} & set(args)


def snakemake_command(*args, cores=2) -> list[str]:
    """The workflow's snakemake (from the venv running the tests) with these arguments."""
    return [sys.executable, "-m", "snakemake", "--cores", str(cores), *args]


def snakemake(*args, check=True, cores=2):
    """Run the workflow's snakemake (from the venv running the tests) in the repo. A run
    that may write waits for the emulator tests' joint run, which holds the repo's lock;
    dry runs and the linter read only, and go on beside it."""
    import subprocess

    if may_write(args):
        JointRun.wait_for_running()
    command = snakemake_command(*args, cores=cores)
    run = subprocess.run(command, cwd=REPO, capture_output=True, text=True, env=local_env())
    if check and run.returncode != 0:
        raise AssertionError(
            f"{' '.join(command)} failed:\n{run.stdout[-3000:]}\n{run.stderr[-3000:]}"
        )
    return run


@pytest.fixture(scope="session")
def emulator_kernel():
    """The emulator kernel of the default config, built through the workflow if needed."""
    from mobifrag.platform.kernel import kernel_dir
    from mobifrag.workflow.study_config import load_config

    config = load_config()
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
    from mobifrag.platform.kernel import kernel_dir
    from mobifrag.workflow.profiles import load_device
    from mobifrag.workflow.stages import PLATFORM_RUNS, platform_key
    from mobifrag.workflow.study_config import load_config

    config = load_config()
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


def fresh_runs_of(items) -> list[FreshRun]:
    """The FRESH_RUN of every module whose selected tests use the fresh_runs fixture."""
    runs = []
    for item in items:
        run = getattr(getattr(item, "module", None), "FRESH_RUN", None)
        if "fresh_runs" in item.fixturenames and run is not None and run not in runs:
            runs.append(run)
    return runs


class JointRun:
    """The one Snakemake run that makes every selected module's FRESH_RUN (two guests keep
    both host cores busy, where one module after another left one idle through each
    serial chain of guest jobs). It starts in the background once the session's tests are
    collected, the kernel build first; the tests that neither boot a guest nor run the
    workflow for real go first, beside it, on the core time its guests leave while they
    wait on their disks (docs/measurements.md)."""

    running: "JointRun | None" = None

    def __init__(self, runs: list[FreshRun], log: Path):
        import subprocess

        for run in runs:
            run.clear()
        self.runs = runs
        self.log = log
        with log.open("w") as out:
            self.process = subprocess.Popen(
                snakemake_command(*joint_run(runs), cores=JOINT_CORES),
                cwd=REPO,
                stdout=out,
                stderr=subprocess.STDOUT,
                env=local_env(),
            )
        JointRun.running = self

    def wait(self) -> int:
        # the first caller prints a failure's tail; the process's status stays
        if self.process.returncode is None and self.process.wait() != 0:
            tail = self.log.read_text(errors="replace")[-3000:]
            print(f"the joint run of {len(self.runs)} modules failed ({self.log}):\n{tail}")
        return self.process.returncode

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=120)

    @classmethod
    def wait_for_running(cls) -> None:
        if cls.running is not None:
            cls.running.wait()


def runs_workflow(item) -> bool:
    """Whether a test boots a guest or runs the workflow for real in the checkout: it
    waits for the joint run, so it goes after the tests that do neither."""
    uses = {"emulator_kernel", "fresh_runs"} & set(item.fixturenames)
    return bool(uses) or any(
        item.get_closest_marker(name) for name in ("emulator", "slurm", "workflow")
    )


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(items):
    items.sort(key=runs_workflow)  # stable: each group keeps its order


def pytest_collection_finish(session):
    runs = fresh_runs_of(session.items)
    if runs and not session.config.option.collectonly:
        import tempfile

        cache = session.config.cache
        folder = cache.mkdir("joint-run") if cache else Path(tempfile.mkdtemp())
        JointRun(runs, folder / "snakemake.log")


def pytest_unconfigure(config):
    if JointRun.running is not None:
        JointRun.running.stop()


@pytest.fixture(scope="session")
def fresh_runs(emulator_kernel):
    """The function a module's fixture calls with its own FRESH_RUN: nothing to do after
    a joint run that made it; otherwise the module's own run, which fails with its error."""
    joint = JointRun.running
    status = joint.wait() if joint is not None else None

    def made(run: FreshRun) -> None:
        if joint is None or run not in joint.runs:
            run.clear()
            run.make()
        elif status != 0:
            run.make()

    return made
