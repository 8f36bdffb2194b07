"""Run one job script on the device a profile names: the only place that knows which
runner (emulator or device) serves which platform type.

    python -m mobifrag.platform.run --device NAME --kernel IMAGE --agent AGENT \
        --script jobs/x.sh --disk-mib N --out DIR --console LOG -- ARGS...

Every runner follows one contract (jobs/lib.sh): the job script runs with its working
directory as the output folder, finds its test disk in MOBIFRAG_DISK and the agent in
MOBIFRAG_AGENT, and succeeds when it exits 0; then, and only then, its outputs appear in
--out.
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
from dataclasses import dataclass
from pathlib import Path

from mobifrag.platform import adb_runner, emulator
from mobifrag.workflow.profiles import ProfileError, load_device


class PlatformError(RuntimeError):
    """A job that could not run or did not succeed; the message says why."""


@dataclass(frozen=True)
class JobSpec:
    """A job as the rules describe it, independent of where it runs."""

    script: Path
    args: tuple[str, ...]
    env: tuple[tuple[str, str], ...]
    agent: Path | None
    kernel: Path
    disk_mib: int
    timeout_s: float | None
    disk_from: Path | None = None
    keep_disk: bool = False


def parse_env(pairs: list[str]) -> tuple[tuple[str, str], ...]:
    env = []
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise PlatformError(f"--env {pair!r}: expected NAME=VALUE")
        env.append((key, value))
    return tuple(env)


def run_in_emulator(profile: dict, spec: JobSpec, out: Path, console: Path) -> str:
    platform = profile["platform"]
    env = spec.env
    if spec.agent is not None:
        if not spec.agent.is_file():
            raise PlatformError(f"agent binary {spec.agent} does not exist: run 'make -C agent'")
        env += (("MOBIFRAG_AGENT", str(spec.agent.resolve())),)
    job = emulator.GuestJob(
        kernel=spec.kernel,
        script=spec.script,
        args=spec.args,
        env=env,
        disk_bytes=spec.disk_mib * 1024 * 1024,
        cpus=platform["cpus"],
        memory_mib=platform["memory_mib"],
        timeout_s=spec.timeout_s or platform["job_timeout_s"],
        base_image=spec.disk_from,
        keep_disk=spec.keep_disk,
    )
    try:
        result = emulator.run_job(job, out, console, accel=platform["accel"])
    except emulator.EmulatorError as error:
        raise PlatformError(str(error)) from None
    record = {
        "platform": "qemu",
        "accel": result.accel,
        "emulator_wall_seconds": round(result.wall_seconds, 3),
        "kernel": str(spec.kernel),
    }
    (out / "platform-run.json").write_text(json.dumps(record, indent=2) + "\n")
    return (
        f"{spec.script.name} finished in {result.wall_seconds:.1f} s "
        f"(emulator wall time, accel={result.accel})"
    )


def run_on_device(profile: dict, spec: JobSpec, out: Path, console: Path) -> str:
    try:
        return adb_runner.run_job(profile, spec, out, console)
    except adb_runner.DeviceError as error:
        raise PlatformError(str(error)) from None


RUNNERS = {"qemu": run_in_emulator, "adb": run_on_device}


def run(device: str, spec: JobSpec, out: Path, console: Path) -> str:
    profile = load_device(device)
    kind = profile["platform"]["type"]
    if kind not in RUNNERS:
        raise PlatformError(f"device {device}: no runner for platform type {kind!r}")
    return RUNNERS[kind](profile, spec, out, console)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Run a job script on a device profile.")
    parser.add_argument("--device", required=True, help="device profile name")
    parser.add_argument("--kernel", required=True, type=Path)
    parser.add_argument("--script", required=True, type=Path)
    parser.add_argument("--agent", type=Path, help="agent binary (MOBIFRAG_AGENT)")
    parser.add_argument("--out", required=True, type=Path, help="folder for the outputs")
    parser.add_argument("--console", required=True, type=Path, help="console/session log")
    parser.add_argument("--disk-mib", type=int, default=256)
    parser.add_argument("--disk-from", type=Path, help="start from a copy of this kept disk")
    parser.add_argument("--keep-disk", action="store_true", help="keep the disk as OUT/disk.img")
    parser.add_argument("--timeout", type=float, help="seconds; default from the profile")
    parser.add_argument("--env", action="append", default=[], metavar="NAME=VALUE")
    parser.add_argument("args", nargs="*", help="arguments of the job script")
    args = parser.parse_args(argv)
    try:
        spec = JobSpec(
            script=args.script,
            args=tuple(args.args),
            env=parse_env(args.env),
            agent=args.agent,
            kernel=args.kernel,
            disk_mib=args.disk_mib,
            timeout_s=args.timeout,
            disk_from=args.disk_from,
            keep_disk=args.keep_disk,
        )
        message = run(args.device, spec, args.out, args.console)
    except (PlatformError, ProfileError) as error:
        print(f"platform: {error}", file=sys.stderr)
        return 1
    print(f"platform: {message}")
    return 0


if __name__ == "__main__":
    # A runner whose parent is gone (a killed Snakemake, or the job shell it killed)
    # stops as on a scheduler's SIGTERM: the guest is killed, nothing is promoted.
    emulator.die_with_parent(signal.SIGTERM)
    sys.exit(main())
