"""What decides a claim's verdict besides the claim itself: the config keys and scale
presets its experiment reads, the repository files they name and the device profile.

The experiment is found from the result tables a claim measures (their folder under
results/<device>/<scale>/); EXPERIMENT_INPUTS names, per experiment, the config keys its
rules read (rules/experiments/<experiment>.smk) and its scale preset's sections; an
experiment it does not name reads its own key and preset section. Only the
presets whose verdicts are reported (quick, paper) are part of it: `test` is the
integration tests' scale.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from functools import lru_cache
from pathlib import Path

import yaml

from mobifrag.workflow.claim_tables import measure_tables
from mobifrag.workflow.yaml_file import LOADER

# The claim's own fields that decide its verdict (prose, figure, history and the
# diagnosis of a miss do not: a diagnosis may be rewritten after any run).
DECIDING_FIELDS = (
    "kind",
    "basis",
    "on_hardware",
    "paper_value",
    "band",
    "measure",
    "reproduced_if",
    "regime",
    "platform_limit",
)

# Every experiment reads these keys and scale-preset entries.
COMMON_KEYS = (
    "device",
    "seed",
    "filesystems",
    "reference_disk_gib",
    "repeated",
    "repeated_on_hardware",
)
COMMON_SCALE_KEYS = ("repetitions", "repetitions_of", "disk_mib")
JUDGED_SCALES = ("quick", "paper")

# The fill/delete keys an aged state's fullness and free-space check read (treat and
# user latency age as fill/delete does; mobifrag/workflow/free_space_targets.py).
AGED_FREE_SPACE = (
    "filldelete.levels",
    "filldelete.hole_limit_kib",
    "filldelete.mean_hole_limit_kb",
)

# Results folder → (config keys, scale-preset sections, repository paths) it reads;
# a dotted key is one entry of a section. The ARS experiments run the ARS kernel patch.
ARS_PATCH = "kernel-patches/6.1"
EXPERIMENT_INPUTS: dict[str, tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]] = {
    "ars": (("ars",), ("ars",), (ARS_PATCH,)),
    "ars/eval": (("ars", "ars_eval", "ars_selection"), ("ars_eval",), (ARS_PATCH,)),
    "ars/selection": (("ars_selection", "autoage.models"), ("ars_selection",), ()),
    "autoage": (("autoage", "guest_cpus.autoage"), ("autoage",), ()),
    "capacity": (("capacity", "autoage.models", "guest_cpus.capacity"), ("capacity",), ()),
    "concurrent-appenders": (
        ("concurrent_appenders", "guest_cpus.concurrent-appenders"),
        ("concurrent_appenders",),
        (),
    ),
    "dispersed": (("dispersed",), ("dispersed",), ()),
    "ext4tune": (("ext4tune",), ("ext4tune",), ()),
    "filldelete": (("filldelete", "autoage.models", "guest_cpus.filldelete"), ("filldelete",), ()),
    "janusd": (
        ("janusd", "treat", "autoage", *AGED_FREE_SPACE),
        ("autoage", "treat"),
        (),
    ),
    "scan": (("scan",), ("scan",), ()),
    "treat": (("treat", *AGED_FREE_SPACE, "autoage.models", "guest_cpus.treat"), ("treat",), ()),
    "user-latency": (
        ("user_latency", *AGED_FREE_SPACE, "autoage.models"),
        ("user_latency",),
        (),
    ),
}


class InputsError(ValueError):
    """A claim whose experiment's inputs are unknown; the message names it."""


def claim_tables(claim: dict) -> list[str]:
    found = list(measure_tables(claim["measure"]))
    for key in ("regime", "platform_limit"):
        if key in claim:
            found += measure_tables(claim[key]["measure"])
    return found


def experiment_of(table: str) -> str:
    """The longest results folder of EXPERIMENT_INPUTS that holds the table, else the
    table's first folder (an experiment that reads only its own keys)."""
    folders = [f for f in EXPERIMENT_INPUTS if table.startswith(f + "/")]
    if not folders:
        if "/" not in table:
            raise InputsError(f"table {table}: in no experiment's results folder")
        return table.split("/", 1)[0]
    return max(folders, key=len)


def inputs_of(experiment: str) -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    """(config keys, scale-preset sections, repository paths) an experiment reads: those
    EXPERIMENT_INPUTS names, or, for an experiment not named there, its own key and
    preset section (its results folder with `_` for `-`: config/experiments/<key>.yaml)
    and its guests' vCPUs."""
    if experiment in EXPERIMENT_INPUTS:
        return EXPERIMENT_INPUTS[experiment]
    key = experiment.replace("-", "_")
    return (key, f"guest_cpus.{experiment}"), (key,), ()


def path_hash(path: Path) -> str:
    """A hash of a file's bytes, or of every file under a folder with its name."""
    files = [path] if path.is_file() else sorted(p for p in path.rglob("*") if p.is_file())
    signature = tuple((str(f), f.stat().st_mtime_ns, f.stat().st_size) for f in files)
    return files_hash(path, signature)


@lru_cache(maxsize=64)
def files_hash(path: Path, signature: tuple) -> str:
    """path_hash's work, kept while no file's time or size changes (a claim file's 150
    claims name the same few folders)."""
    sha = hashlib.sha256()
    for name, _, _ in signature:
        file = Path(name)
        sha.update(str(file.relative_to(path.parent)).encode())
        sha.update(file.read_bytes())
    return sha.hexdigest()[:16]


def with_files(value, root: Path):
    """The value with each repository path it names paired with its content's hash, so
    a change of a scenario model or a query file changes the part."""
    if isinstance(value, dict):
        return {k: with_files(v, root) for k, v in value.items()}
    if isinstance(value, list):
        return [with_files(v, root) for v in value]
    if isinstance(value, str) and "/" in value and not value.startswith("/"):
        path = root / value
        if path.exists():
            return {"path": value, "content": path_hash(path)}
    return value


def lookup(config: dict, dotted: str):
    value = config
    for key in dotted.split("."):
        value = value.get(key) if isinstance(value, dict) else None
    return value


def device_profile(config: dict, root: Path) -> dict:
    path = root / "devices" / f"{config['device']}.yaml"
    try:
        return parsed(path.read_text())
    except (OSError, yaml.YAMLError) as error:
        raise InputsError(f"{path}: {error}") from None


@lru_cache(maxsize=8)
def parsed(text: str) -> dict:
    return yaml.load(text, Loader=LOADER)


def claim_parts(claim: dict, config: dict, root: Path) -> Iterator[tuple[str, object]]:
    """(part name, value) of everything that decides the claim's verdict."""
    yield "claim", {f: claim[f] for f in DECIDING_FIELDS if f in claim}
    experiments = sorted({experiment_of(t) for t in claim_tables(claim)})
    keys, sections, paths = set(COMMON_KEYS), set(COMMON_SCALE_KEYS), set()
    for experiment in experiments:
        exp_keys, exp_sections, exp_paths = inputs_of(experiment)
        keys |= set(exp_keys)
        sections |= set(exp_sections)
        paths |= set(exp_paths)
    for key in sorted(keys):
        yield f"config.{key}", with_files(lookup(config, key), root)
    for scale in JUDGED_SCALES:
        for section in sorted(sections):
            yield f"config.scales.{scale}.{section}", lookup(config, f"scales.{scale}.{section}")
    profile = device_profile(config, root)
    yield f"device.{config['device']}", profile
    kernel_config = f"kernel-patches/configs/{profile['platform']['kernel']}.config"
    for path in sorted({*paths, kernel_config}):
        yield f"file.{path}", path_hash(root / path) if (root / path).exists() else None
