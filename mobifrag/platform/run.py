"""Run one job script on the device a profile names: the only place that knows which
runner (emulator or device) serves which platform type.

    python -m mobifrag.platform.run --device NAME --kernel IMAGE --agent AGENT \
        --script jobs/x.sh --disk-mib N --out DIR --console LOG \
        [--previous-benchmark TSV | --expect-seconds S] -- ARGS...

Every runner follows one contract (jobs/lib.sh): the job script runs with its working
directory as the output folder, finds its test disk in MOBIFRAG_DISK and the agent in
MOBIFRAG_AGENT, and succeeds when it exits 0; then, and only then, its outputs appear in
--out.

While the job runs, its phase lines reach --console and a heartbeat line goes to stderr
(mobifrag/platform/progress.py, Progress); with the job's Snakemake benchmark file of
an earlier run (--previous-benchmark; a missing one is no error) or --expect-seconds,
the heartbeat also says about how long is left.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import signal
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from mobifrag import REPO
from mobifrag.platform import adb_runner, emulator
from mobifrag.workflow.profiles import ProfileError, load_device

# The most vCPUs --cpus gives a guest: the emulator kernel's CONFIG_NR_CPUS
# (kernel-patches/configs/emulator.config); the guest would leave more offline.
MAX_VCPUS = 8


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
    expect_seconds: float | None = None
    # vCPUs of this job's guest in place of the profile's, taking turns on one host
    # thread under TCG (config `guest_cpus`: the phone's cores); None: the profile's.
    cpus: int | None = None
    # Those vCPUs on a host thread each (multi-threaded TCG) instead: for probes of
    # where the guest's scheduler puts its threads, not for the study's jobs.
    own_vcpu_threads: bool = False


def parse_env(pairs: list[str]) -> tuple[tuple[str, str], ...]:
    env = []
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise PlatformError(f"--env {pair!r}: expected NAME=VALUE")
        env.append((key, value))
    return tuple(env)


def previous_seconds(benchmark: Path | None) -> float | None:
    """The wall seconds of a Snakemake benchmark file (its `s` column, rows added up),
    or None when there is no such file or it holds no number."""
    if benchmark is None:
        return None
    try:
        with open(benchmark, encoding="utf-8", newline="") as handle:
            rows = list(csv.DictReader(handle, delimiter="\t"))
        seconds = sum(float(row["s"]) for row in rows)
    except (OSError, KeyError, TypeError, ValueError):
        return None
    return seconds if rows and seconds > 0 else None


def check_host_cores(profile: dict, host_cores: int | None) -> None:
    """A guest may not have more vCPUs than the host has cores: under TCG each vCPU is a
    host thread, and guests whose vCPUs outnumber the cores run several times slower
    (README, Determinism), so a profile asking for more is refused before booting."""
    cpus = profile["platform"]["cpus"]
    if host_cores is not None and cpus > host_cores:
        raise PlatformError(
            f"device {profile['name']}: platform.cpus is {cpus}, more vCPUs than this"
            f" host's {host_cores} cores; lower platform.cpus in its profile"
        )


def repo_relative(path: Path) -> str:
    """A job script as the workflow names it (jobs/<job>.sh) when it is the checkout's."""
    try:
        return Path(path).resolve().relative_to(REPO).as_posix()
    except ValueError:
        return str(path)


def run_in_emulator(profile: dict, spec: JobSpec, out: Path, console: Path) -> str:
    platform = profile["platform"]
    if spec.cpus is None:
        check_host_cores(profile, os.cpu_count())
    cpus = platform["cpus"] if spec.cpus is None else spec.cpus
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
        cpus=cpus,
        vcpus_share_a_thread=spec.cpus is not None and not spec.own_vcpu_threads,
        memory_mib=platform["memory_mib"],
        timeout_s=spec.timeout_s or platform["job_timeout_s"],
        base_image=spec.disk_from,
        keep_disk=spec.keep_disk,
        expect_seconds=spec.expect_seconds,
    )
    try:
        result = emulator.run_job(job, out, console, accel=platform["accel"])
    except emulator.EmulatorError as error:
        raise PlatformError(str(error)) from None
    record = {
        "platform": "qemu",
        "accel": result.accel,
        "vcpus": cpus,
        "host_threads": emulator.host_threads(job, result.accel),
        "emulator_wall_seconds": round(result.wall_seconds, 3),
        "emulator_cpu_seconds": round(result.cpu_seconds, 3),
        "kernel": str(spec.kernel),
        "script": repo_relative(spec.script),
        "phases": [span.record() for span in result.phases],
    }
    (out / "platform-run.json").write_text(json.dumps(record, indent=2) + "\n")
    return (
        f"{spec.script.name} finished in {result.wall_seconds:.1f} s "
        f"(emulator wall time, accel={result.accel})"
    )


def run_on_device(profile: dict, spec: JobSpec, out: Path, console: Path) -> str:
    if spec.cpus is not None:
        raise PlatformError(
            f"device {profile['name']}: --cpus is for emulated guests; a real device runs"
            " its jobs on its own cores"
        )
    try:
        return adb_runner.run_job(profile, spec, out, console)
    except adb_runner.DeviceError as error:
        raise PlatformError(str(error)) from None


@dataclass(frozen=True)
class Runner:
    """A platform type's runner and what the workflow plans around it: the rules ask
    these (rules/common/guest.smk, devices.smk, paths.smk), never the type's name."""

    run: Callable[[dict, JobSpec, Path, Path], str]
    # Each job formats the device's one test partition, so one job runs at a time
    # (the run's resource adb_jobs=1).
    exclusive_device: bool
    # The guest's vCPUs are host threads: a job holds host cores (resource host_load),
    # and an experiment may give its guests vCPUs of their own (config guest_cpus).
    holds_host_cpu: bool
    # What a figure calls the wall time measured where the runs ran.
    wall_series_label: str
    # The platform boots a kernel image the workflow builds (rules/infra/kernel.smk);
    # else the device's own kernel, flashed where its profile says flash_kernel.
    boots_built_kernel: bool
    # Real hardware, whose runs vary more: config repeated_on_hardware repeats.
    on_hardware: bool


RUNNERS = {
    "qemu": Runner(
        run=run_in_emulator,
        exclusive_device=False,
        holds_host_cpu=True,
        wall_series_label="emulator wall",
        boots_built_kernel=True,
        on_hardware=False,
    ),
    "adb": Runner(
        run=run_on_device,
        exclusive_device=True,
        holds_host_cpu=False,
        wall_series_label="phone wall",
        boots_built_kernel=False,
        on_hardware=True,
    ),
}


def runner_of(profile: dict) -> Runner:
    """The runner of a loaded device profile's platform type."""
    kind = profile["platform"]["type"]
    if kind not in RUNNERS:
        raise PlatformError(f"device {profile['name']}: no runner for platform type {kind!r}")
    return RUNNERS[kind]


def run(device: str, spec: JobSpec, out: Path, console: Path) -> str:
    profile = load_device(device)
    return runner_of(profile).run(profile, spec, out, console)


def positive_cpus(text: str) -> int:
    """A --cpus value: 1 to MAX_VCPUS."""
    try:
        cpus = int(text)
    except ValueError:
        cpus = 0
    if not 1 <= cpus <= MAX_VCPUS:
        raise argparse.ArgumentTypeError(f"{text!r} is not a vCPU count from 1 to {MAX_VCPUS}")
    return cpus


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
    parser.add_argument(
        "--previous-benchmark",
        type=Path,
        metavar="TSV",
        help="the job's benchmark file from an earlier run, for the heartbeat's time left",
    )
    parser.add_argument(
        "--expect-seconds",
        type=float,
        help="the job's expected seconds (beats --previous-benchmark)",
    )
    parser.add_argument(
        "--cpus",
        type=positive_cpus,
        help="vCPUs of this job's guest in place of the profile's; under TCG they take"
        " turns on one host thread",
    )
    parser.add_argument(
        "--vcpu-threads",
        choices=("shared", "own"),
        default="shared",
        help="with --cpus: the vCPUs share one host thread (the study's jobs) or each has"
        " its own (multi-threaded TCG, a probe; more threads than host cores are allowed)",
    )
    parser.add_argument("args", nargs="*", help="arguments of the job script")
    args = parser.parse_args(argv)
    if args.vcpu_threads == "own" and args.cpus is None:
        parser.error("--vcpu-threads own needs --cpus (a profile's vCPUs already own a thread)")
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
            expect_seconds=args.expect_seconds or previous_seconds(args.previous_benchmark),
            cpus=args.cpus,
            own_vcpu_threads=args.vcpu_threads == "own",
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
