"""The fences around every root command the adb runner sends: before any adb command
(dry runs included) the profile's test_partition and workdir must pass
mobifrag.workflow.profiles' checks, nothing destructive runs unless the profile sets
allow_destructive: true, and every `rm -rf` and `chown -R` names only paths inside the
workdir (fenced()).
"""

from __future__ import annotations

import shlex

from mobifrag.platform.adb import DeviceError
from mobifrag.workflow.profiles import adb_fence_problems, workdir_problem


def check_fences(profile: dict) -> None:
    """The profile's test_partition and workdir pass mobifrag.workflow.profiles' checks (a profile
    built in code never went through the profile checker)."""
    problems = adb_fence_problems(profile)
    if problems:
        raise DeviceError(
            "; ".join(
                f"devices/{profile['name']}.yaml: field {key}: {why}" for key, why in problems
            )
        )


def check_destructive(profile: dict, what: str) -> None:
    if not profile["platform"]["allow_destructive"]:
        raise DeviceError(
            f"devices/{profile['name']}.yaml: platform.allow_destructive is false, and {what}; "
            f"set it to true in the board's local device file devices/local/{profile['name']}"
            ".yaml to allow this (docs/hikey960.md)"
        )


def fenced(workdir: str, path: str) -> str:
    """`path`, quoted for a root shell, once it is shown to be the workdir or inside it;
    every `rm -rf` and `chown -R` of the runner names its paths through here."""
    if problem := workdir_problem(workdir):
        raise DeviceError(f"refusing a root command outside the workdir: {problem}")
    inside = path == workdir or path.startswith(workdir + "/")
    components = path.removeprefix(workdir).split("/")[1:]
    if not inside or any(part in ("", ".", "..") for part in components):
        raise DeviceError(f"refusing a root command on {path}: it is not inside {workdir}")
    return shlex.quote(path)


def remove_command(workdir: str, *names: str) -> str:
    return "rm -rf " + " ".join(fenced(workdir, f"{workdir}/{name}") for name in names)


def chown_command(workdir: str) -> str:
    return f"chown -R shell:shell {fenced(workdir, workdir)}"
