"""Where each stage of the study keeps its outputs: the one definition of the results
layout, shared by the workflow (rules/common/paths.smk), the report modules that walk a
run's folders (mobifrag/report/job_times.py) and the tests.

Generated workloads depend on the scale only, platform runs (guest or phone outputs,
block traces, snapshots) on the platform and scale, and everything the device model
touches (tables, ftl-sim outputs, figures, claims) on the device profile, so swapping
two profiles that share a platform reruns only the model stage and what follows it.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

# The folder every stage but the figures writes below.
ROOT = "results"
WORKLOADS = f"{ROOT}/workloads/{{scale}}"
PLATFORM_RUNS = f"{ROOT}/platform/{{platform}}/{{scale}}"
RESULTS = f"{ROOT}/{{device}}/{{scale}}"
FIGURES = "paper-figures/{device}/{scale}"
# Each stage folder's Snakemake benchmark files (`benchmark:` of its rules).
BENCHMARKS = "benchmarks"
# The output of the rule every guest job derives from (rules/infra/guest.smk): a
# hidden folder no job asks for, so the base rule never runs and no derived rule's
# files are ambiguous with it.
GUEST_JOB_BASE = f"{ROOT}/.guest-job/{{platform}}/{{scale}}/never-requested"
# A run's committed reference verdicts (mobifrag/report/reference.py).
REFERENCES = "docs/reference"
REFERENCE = "{device}-{scale}.csv"
# The same run's job-minutes per rule (mobifrag/report/job_times.py), beside its verdicts.
REFERENCE_JOB_TIMES = "{device}-{scale}-job-times.tsv"

# A platform key: type, architecture and a hash of what defines the platform.
PLATFORM_KEY_PATTERN = r"[a-z]+-[a-z0-9_]+-[0-9a-f]{10}"


def platform_key(platform: dict, kernel: str) -> str:
    """The key of a profile's `platform` block booting `kernel` (the kernel build's
    folder name, which carries its hash, or what stands for a phone's own kernel)."""
    defined = json.dumps({"platform": platform, "kernel": kernel}, sort_keys=True)
    digest = hashlib.sha256(defined.encode()).hexdigest()[:10]
    return f"{platform['type']}-{platform['arch']}-{digest}"


def below_root(pattern: str) -> str:
    """A stage's pattern relative to ROOT (a `--results` folder stands for ROOT)."""
    return pattern.removeprefix(f"{ROOT}/")


def as_glob(pattern: str, **values: str | None) -> str:
    """A pattern with the named wildcards filled in and every other (or a None) as `*`."""
    return re.sub(r"\{(\w+)\}", lambda m: values.get(m.group(1)) or "*", pattern)


def stage_glob(root: Path, pattern: str, **values: str | None) -> Path:
    """A stage's pattern below `root`, a results folder, as a glob (as_glob)."""
    return Path(root) / as_glob(below_root(pattern), **values)


def as_prose(pattern: str, **values: str) -> str:
    """A pattern as prose names it: `results/<device>/<scale>`, wildcards given in
    `values` filled in."""
    return re.sub(r"\{(\w+)\}", lambda m: values.get(m.group(1), f"<{m.group(1)}>"), pattern)


# A device's folder is a sibling of the other stages' top folders below ROOT.
_SIBLING_STAGES = {below_root(p).split("/")[0] for p in (WORKLOADS, PLATFORM_RUNS)}


def stage_folders(root: Path, pattern: str, **values: str | None) -> list[Path]:
    """The folders of one stage (WORKLOADS, PLATFORM_RUNS or RESULTS) below `root`, a
    results folder: the named wildcards as given, the others (or a None) any."""
    found = Path(root).glob(as_glob(below_root(pattern), **values))
    if pattern == RESULTS:
        found = (f for f in found if f.relative_to(root).parts[0] not in _SIBLING_STAGES)
    return sorted(found)


def run_of(folder: Path) -> tuple[str, str]:
    """(device, scale) of a run's results folder (RESULTS)."""
    folder = Path(folder)
    return folder.parent.name, folder.name


def reference_file(device: str, scale: str) -> str:
    """The committed reference verdicts of a device and scale, from the checkout."""
    return f"{REFERENCES}/{REFERENCE.format(device=device, scale=scale)}"
