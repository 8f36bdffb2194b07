"""What a job needs on the device, and putting it there. Under the profile's workdir W:

    W/bin/mobifrag-agent     the static aarch64 agent (pushed)
    W/jobs/                  the repository's jobs/ folder (pushed; MOBIFRAG_ROOT=W)
    W/inputs/<k>-<name>      inputs named by the job's arguments (pushed, see below)
    W/run/run.sh             the wrapper (mobifrag/platform/adb_wrapper.py)
    W/run/out/               the job's working directory, pulled back as the outputs
    W/run/tmp/               TMPDIR

Inputs: an argument that is an absolute path to an existing file or folder inside the
working directory or the repository (e.g. `$(realpath results/.../traces)`) is pushed
to W/inputs/<k>-<basename> and the argument is rewritten to that device path; k is the
argument's position, so two inputs never collide. Any other absolute host path that
exists is refused (it would not exist on the device); every other argument is passed
unchanged.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from mobifrag import REPO
from mobifrag.platform.adb import DeviceError, Tool
from mobifrag.platform.adb_fence import chown_command, fenced, remove_command
from mobifrag.workflow.profiles import workdir_problem

JOBS = REPO / "jobs"
AGENT_NAME = "mobifrag-agent"
ELF_MACHINE_AARCH64 = 183


@dataclass(frozen=True)
class DevicePlan:
    """The device paths of one job and what gets pushed there."""

    workdir: str
    script: str
    args: tuple[str, ...]
    pushes: tuple[tuple[Path, str], ...]

    @property
    def run_dir(self) -> str:
        return f"{self.workdir}/run"

    @property
    def out_dir(self) -> str:
        return f"{self.workdir}/run/out"

    @property
    def agent(self) -> str:
        return f"{self.workdir}/bin/{AGENT_NAME}"


def _within(path: Path, roots: tuple[Path, ...]) -> bool:
    return any(path == root or root in path.parents for root in roots)


def device_argument(arg: str, position: int, workdir: str, roots: tuple[Path, ...]):
    """(device argument, push) for one job argument; push is None when nothing moves."""
    if not os.path.isabs(arg) or not os.path.exists(arg):
        return arg, None
    host = Path(arg).resolve()
    if not _within(host, roots):
        raise DeviceError(
            f"job argument {arg} is a host path outside the working directory and the "
            "repository: it cannot be pushed to the device"
        )
    target = f"{workdir}/inputs/{position}-{host.name}"
    return target, (host, target)


def plan_job(platform: dict, script: Path, args: tuple[str, ...]) -> DevicePlan:
    workdir = platform["workdir"]
    if problem := workdir_problem(workdir):
        raise DeviceError(f"platform.workdir: {problem}")
    roots = (Path.cwd().resolve(), REPO)
    device_args, pushes = [], []
    for position, arg in enumerate(args):
        device_arg, push = device_argument(arg, position, workdir, roots)
        device_args.append(device_arg)
        if push is not None:
            pushes.append(push)
    return DevicePlan(
        workdir=workdir,
        script=f"{workdir}/jobs/{script.name}",
        args=tuple(device_args),
        pushes=tuple(pushes),
    )


def check_script(script: Path) -> None:
    if script.resolve().parent != JOBS:
        raise DeviceError(f"job script {script} is not in {JOBS}: only jobs/ is pushed")


def check_agent(agent: Path | None) -> Path:
    """The agent must exist and be built for aarch64 (the host's would not run)."""
    if agent is None:
        raise DeviceError("no agent given: the device needs the static aarch64 agent")
    try:
        header = agent.read_bytes()[:20]
    except OSError:
        raise DeviceError(
            f"agent binary {agent} does not exist: build it with "
            "'snakemake agent/build/aarch64/mobifrag-agent'"
        ) from None
    if header[:4] != b"\x7fELF" or int.from_bytes(header[18:20], "little") != ELF_MACHINE_AARCH64:
        raise DeviceError(
            f"agent binary {agent} is not an aarch64 executable: the device needs "
            "agent/build/aarch64/mobifrag-agent (rules/infra/device.smk)"
        )
    return agent


def layout_script(plan: DevicePlan, chown_shell: bool) -> str:
    """A fresh workdir, once it is shown to resolve to itself (no link out of
    /data/local/tmp); exits 5 (cannot create) or 6 (resolves elsewhere)."""
    w = fenced(plan.workdir, plan.workdir)
    lines = [
        f"mkdir -p {w} || exit 5",
        f'resolved=$(readlink -f {w}); [ "$resolved" = {w} ] || {{ echo "mobifrag: workdir '
        f'{plan.workdir} resolves to $resolved: refusing to delete in it"; exit 6; }}',
        remove_command(plan.workdir, "run", "inputs", "jobs"),
        f"mkdir -p {w}/run/out {w}/run/tmp {w}/inputs {w}/bin || exit 5",
    ]
    if chown_shell:
        lines.append(chown_command(plan.workdir))
    return "; ".join(lines)


def push_all(adb: Tool, plan: DevicePlan, agent: Path, wrapper: Path) -> None:
    adb.run("pushing the agent", "push", str(agent), plan.agent)
    adb.run("pushing the job scripts", "push", str(JOBS), f"{plan.workdir}/jobs")
    for host, target in plan.pushes:
        adb.run(f"pushing input {host}", "push", str(host), target)
    adb.run("pushing the job wrapper", "push", str(wrapper), f"{plan.run_dir}/run.sh")
