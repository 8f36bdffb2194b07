"""Device profiles (devices/<name>.yaml), validated against devices/schema.yaml.

Every problem is reported as one ProfileError naming the file and the field, before
any work starts.

A board's or phone's own values (its adb serial, its test partition, allow_destructive)
go into a local device file, devices/local/<name>.yaml (git-ignored; MOBIFRAG_LOCAL_DEVICES
names another folder), which sets `platform:` keys over the tracked devices/<name>.yaml:
a run on the board then leaves the checkout clean, and its provenance names no
modified commit. A shipped profile's placeholder serial (CHANGEME...) fails the plan of
a run on that device (rules/common/devices.smk), unless it is a dry run that only prints
the adb commands.
"""

from __future__ import annotations

import argparse
import copy
import math
import os
import re
import subprocess
import sys
from functools import cache, lru_cache
from pathlib import Path

import jsonschema
import yaml

from mobifrag import REPO

DEVICES = REPO / "devices"
SCHEMA = DEVICES / "schema.yaml"
LOCAL_ENV = "MOBIFRAG_LOCAL_DEVICES"
# What a local device file may set over the tracked profile: the platform's values of
# one board or phone. The storage model stays the tracked file's, which the model rules
# read.
LOCAL_KEYS = frozenset({"platform"})
# A value a shipped profile holds until the user gives the real one.
PLACEHOLDER = re.compile(r"CHANGEME", re.IGNORECASE)
# ftl-sim owns the storage model's rules (ftl-sim/src/config.rs): a profile is checked
# by it too, so whatever it would refuse at the model stage stops the plan instead.
FTL_SIM = REPO / "ftl-sim" / "target" / "release" / "ftl-sim"


class ProfileError(ValueError):
    """A device profile that is missing, malformed or invalid."""


# --- fences of the adb platform (also enforced by mobifrag/platform/adb_fence.py) ---

DEVICE_WORKDIR_PARENT = "/data/local/tmp"
# Partitions a test_partition must never be, in any letter case and A/B slot: Android's
# own and the common vendors' firmware, radio and key partitions.
SYSTEM_PARTITIONS = frozenset(
    {
        *("boot", "init_boot", "vendor_boot", "recovery", "system", "system_ext"),
        *("vendor", "vendor_dlkm", "odm", "odm_dlkm", "product", "super", "userdata"),
        *("data", "cache", "metadata", "persist", "modem", "modemst1", "modemst2"),
        *("fsg", "fsc", "efs", "sec_efs", "frp", "misc", "vbmeta", "vbmeta_system"),
        *("vbmeta_vendor", "dtbo", "dtb", "xloader", "fastboot", "bootloader", "aboot"),
        *("abl", "xbl", "xbl_config", "sbl1", "tz", "hyp", "rpm", "keymaster", "keystore"),
        *("devcfg", "dsp", "bluetooth", "radio", "nvram", "nvdata", "nvme", "protect1"),
        *("protect2", "param", "ssd", "splash", "logo", "oem", "ptable", "vrl"),
        *("vrl_backup", "fw_lpm3", "trustfirmware", "teeos", "sensorhub", "fw_hifi"),
        *("hisee_img", "hisee_fs", "reserved"),
    }
)
WHOLE_DISK_NAME = re.compile(
    r"mmcblk\d+(boot\d+|rpmb)?|sd[a-z]+|vd[a-z]+|hd[a-z]+|xvd[a-z]+|nvme\d+n\d+|mtdblock\d+"
)
VIRTUAL_NODE_NAME = re.compile(r"(dm-|zram|ram|ublkb)\d+|(loop|md|nbd)\d+(p\d+)?")


def is_system_partition(name: str) -> bool:
    """`name` (a by-name link or a GPT partition name) is a system partition."""
    unslotted = re.sub(r"_[ab]$", "", name.strip().lower())
    return unslotted in SYSTEM_PARTITIONS


def virtual_node(name: str) -> str | None:
    """What the block node `name` is when it is a virtual one (dm, loop, zram, ...)."""
    if VIRTUAL_NODE_NAME.fullmatch(name.lower()):
        return f"a device-mapper, loop, zram or RAM node ({name}), not a partition"
    return None


def partition_problem(path: str) -> str | None:
    """Why `path` may not be a test partition, judged by its name alone (the runner
    also checks what it resolves to on the device); None when it may."""
    parts = path.split("/")
    name = parts[-1]
    if not path.startswith("/dev/block/"):
        return f"{path} is not under /dev/block/"
    if any(part in ("", ".", "..") for part in parts[1:]):
        return f"{path} has an empty, '.' or '..' component: name the partition plainly"
    if is_system_partition(name):
        return f"{path} names the system partition {name}: jobs must never format it"
    if WHOLE_DISK_NAME.fullmatch(name.lower()):
        return f"{path} names a whole disk ({name}), not a partition of it"
    if virtual := virtual_node(name):
        return f"{path} names {virtual}"
    return None


def workdir_problem(path: str) -> str | None:
    """Why `path` may not be the device workdir (the runner removes and chowns inside it
    as root); None when it is /data/local/tmp/<name>."""
    parent, _, name = path.rpartition("/")
    if parent != DEVICE_WORKDIR_PARENT or name in ("", ".", ".."):
        return (
            f"{path} is not a folder of its own in {DEVICE_WORKDIR_PARENT} (e.g. "
            f"{DEVICE_WORKDIR_PARENT}/mobifrag): the runner deletes and chowns inside it as root"
        )
    return None


def adb_fence_problems(data: dict) -> list[tuple[str, str]]:
    """(field, problem) of every adb platform value of a profile that could aim root
    commands at something other than the test partition and the workdir."""
    platform = data.get("platform")
    if not isinstance(platform, dict) or platform.get("type") != "adb":
        return []
    checks = (("test_partition", partition_problem), ("workdir", workdir_problem))
    problems = []
    for key, problem_of in checks:
        value = platform.get(key)
        problem = problem_of(value) if isinstance(value, str) else None
        if problem:
            problems.append((f"platform.{key}", problem))
    return problems


def profile_path(name: str) -> Path:
    return DEVICES / f"{name}.yaml"


def _field(error: jsonschema.ValidationError) -> str:
    parts = [str(p) for p in error.absolute_path]
    if error.validator == "additionalProperties":
        # The offending key is not in the path; jsonschema names it in the message.
        # A YAML key may be null or a number, so keys are compared as text.
        extra = set(error.instance) - set(error.schema.get("properties", {}))
        parts.append(",".join(sorted(map(str, extra))))
    elif error.validator == "required":
        missing = [k for k in error.validator_value if k not in error.instance]
        parts.append(",".join(missing))
    return ".".join(parts) or "(top level)"


def _defaults(schema: dict, data: dict) -> dict:
    """Fill in the schema's defaults for missing keys, recursively."""
    for key, sub in schema.get("properties", {}).items():
        if key not in data and "default" in sub:
            data[key] = sub["default"]
        if isinstance(data.get(key), dict):
            _defaults(sub, data[key])
    return data


@cache
def _schema() -> dict:
    return yaml.safe_load(SCHEMA.read_text())


def validate_profile(data: object, source: Path, shown: str | None = None) -> dict:
    """The profile with defaults filled in; `shown` names it in messages (a local file
    over the tracked one), `source` is the tracked file."""
    shown = shown or str(source)
    if not isinstance(data, dict):
        raise ProfileError(f"{shown}: a device profile is a mapping, got {type(data).__name__}")
    problems = schema_problems(data) + adb_fence_problems(data) + non_finite(data)
    if not problems and "ftl" in data.get("storage", {}):
        problems = ftl_sim_problems(source)
    if problems:
        problems.sort(key=lambda problem: problem[0])
        lines = [f"{shown}: field {key}: {problem}" for key, problem in problems]
        raise ProfileError("invalid device profile\n" + "\n".join(lines))
    if data["name"] != source.stem:
        raise ProfileError(f"{source}: field name: {data['name']!r} differs from the file name")
    return _defaults(_schema(), data)


def non_finite(value: object, field: str = "") -> list[tuple[str, str]]:
    """Every NaN or infinite number in the profile (YAML's .nan and .inf)."""
    if isinstance(value, dict):
        return [p for k, v in value.items() for p in non_finite(v, f"{field}.{k}".lstrip("."))]
    if isinstance(value, list):
        return [p for i, v in enumerate(value) for p in non_finite(v, f"{field}[{i}]")]
    if isinstance(value, float) and not math.isfinite(value):
        return [(field, f"{value} is not a finite number")]
    return []


def ftl_sim_problems(source: Path) -> list[tuple[str, str]]:
    """What ftl-sim refuses in the profile's storage model (`ftl-sim show`); nothing
    when ftl-sim is not built yet (the bootstrap builds it before any run)."""
    if not FTL_SIM.is_file() or not Path(source).is_file():
        return []
    shown = subprocess.run(
        [str(FTL_SIM), "show", "--device", str(source)], capture_output=True, text=True
    )
    if shown.returncode == 0:
        return []
    message = shown.stderr.strip().splitlines()[-1] if shown.stderr.strip() else "refused"
    return [("storage.ftl", f"ftl-sim refuses it: {message.removeprefix('ftl-sim: ')}")]


def schema_problems(data: dict) -> list[tuple[str, str]]:
    validator = jsonschema.Draft202012Validator(_schema())
    errors = sorted(validator.iter_errors(data), key=lambda e: list(e.absolute_path))
    return [(_field(error), error.message) for error in errors]


def load_profile_file(path: Path) -> dict:
    path = Path(path)
    try:
        text = path.read_text()
    except FileNotFoundError:
        raise ProfileError(f"{path}: no such device profile") from None
    return copy.deepcopy(_validated_profile(str(path), text))


# A workflow's dry run asks for device profiles some ten thousand times; parsing and
# validating each time took most of its minute and a half. Keyed by the file's text, so
# an edited profile is read afresh.
@lru_cache(maxsize=64)
def _validated_profile(path: str, text: str) -> dict:
    return validate_profile(_parsed(path, text), Path(path))


def local_dir() -> Path:
    return Path(os.environ.get(LOCAL_ENV) or DEVICES / "local")


def local_path(name: str) -> Path:
    """The untracked local device file of devices/<name>.yaml."""
    return local_dir() / f"{name}.yaml"


def overlaid(base: dict, local: dict) -> dict:
    """base with local's values, mappings merged key by key."""
    merged = copy.deepcopy(base)
    for key, value in local.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = overlaid(merged[key], value)
        else:
            merged[key] = copy.deepcopy(value)
    return merged


def load_device(name: str) -> dict:
    """The validated profile devices/<name>.yaml, with its local device file's values
    (devices/local/<name>.yaml) over it where there is one, schema defaults filled in."""
    path = profile_path(name)
    if not path.is_file():
        known = ", ".join(sorted(p.stem for p in DEVICES.glob("*.yaml") if p != SCHEMA))
        raise ProfileError(f"{path}: no such device profile (known: {known})")
    local = local_path(name)
    if not local.is_file():
        return load_profile_file(path)
    try:
        texts = path.read_text(), local.read_text()
    except OSError as error:
        raise ProfileError(f"{local}: {error}") from None
    return copy.deepcopy(_validated_overlay(str(path), texts[0], str(local), texts[1]))


@lru_cache(maxsize=16)
def _validated_overlay(path: str, text: str, local: str, local_text: str) -> dict:
    base = _parsed(path, text)
    extra = _parsed(local, local_text)
    if extra is None:
        extra = {}
    if not isinstance(extra, dict) or not isinstance(extra.get("platform", {}), dict):
        raise ProfileError(f"{local}: a local device file is a mapping with a platform: mapping")
    stray = sorted(map(str, set(extra) - LOCAL_KEYS))
    if stray:
        raise ProfileError(
            f"{local}: field {', '.join(stray)}: a local device file sets only platform: keys "
            f"(serial, test_partition, allow_destructive, ...) over {path}"
        )
    merged = overlaid(base, extra) if isinstance(base, dict) else base
    return validate_profile(merged, Path(path), shown=f"{local} over {path}")


def _parsed(path: str, text: str):
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as error:
        raise ProfileError(f"{path}: not valid YAML: {error}") from None


def placeholders(profile: dict) -> list[tuple[str, str]]:
    """(field, value) of each platform value of an adb profile still a placeholder."""
    platform = profile.get("platform") or {}
    if platform.get("type") != "adb":
        return []
    return [
        (f"platform.{key}", value)
        for key, value in platform.items()
        if isinstance(value, str) and PLACEHOLDER.search(value)
    ]


def placeholder_problem(name: str, profile: dict) -> str:
    """Why a run on the device cannot be planned (its serial is still the shipped
    placeholder), or ''."""
    found = placeholders(profile)
    if not found:
        return ""
    fields = ", ".join(f"{key} is the placeholder {value!r}" for key, value in found)
    local = local_path(name)
    shown = local.relative_to(REPO) if local.is_relative_to(REPO) else local
    return (
        f"{profile_path(name).relative_to(REPO)}: field {fields}: give the board's own "
        f"value in {shown} (untracked, so the checkout stays clean), e.g.\n"
        "  platform:\n    serial: <the serial `adb devices` prints>\n"
        "    allow_destructive: true   # once test_partition is a partition you may lose\n"
        "(MOBIFRAG_DRY_RUN=1 plans and prints every adb command without one; docs/hikey960.md)"
    )


def main(argv: list[str] | None = None) -> int:
    """`python -m mobifrag.workflow.profiles FILE...` checks profiles, e.g. a new one."""
    parser = argparse.ArgumentParser(
        prog="python -m mobifrag.workflow.profiles",
        description="Check device profiles against devices/schema.yaml and the adb fences; "
        "every problem is printed with its file and field.",
    )
    parser.add_argument("profiles", nargs="+", type=Path, metavar="FILE", help="a profile")
    args = parser.parse_args(argv)
    status = 0
    for path in args.profiles:
        try:
            profile = check_file(path)
            print(f"{path}: ok")
        except ProfileError as error:
            print(error, file=sys.stderr)
            status = 1
            continue
        problem = placeholder_problem(profile["name"], profile)
        if problem:
            print(f"note: a run on it fails its plan until then: {problem}", file=sys.stderr)
    return status


def check_file(path: Path) -> dict:
    """A profile file, or a local device file over its tracked profile."""
    path = Path(path)
    in_local = path.resolve().parent == local_dir().resolve()
    if in_local and profile_path(path.stem).is_file():
        return load_device(path.stem)
    return load_profile_file(path)


if __name__ == "__main__":
    sys.exit(main())
