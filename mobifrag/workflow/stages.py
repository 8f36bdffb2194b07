"""Where each stage of the study keeps its outputs: the one definition of the results
layout, shared by the workflow (rules/common/paths.smk) and the tests.

Generated workloads depend on the scale only, platform runs (guest or phone outputs,
block traces, snapshots) on the platform and scale, and everything the device model
touches (tables, ftl-sim outputs, figures, claims) on the device profile, so swapping
two profiles that share a platform reruns only the model stage and what follows it.
"""

from __future__ import annotations

import hashlib
import json

WORKLOADS = "results/workloads/{scale}"
PLATFORM_RUNS = "results/platform/{platform}/{scale}"
RESULTS = "results/{device}/{scale}"
FIGURES = "paper-figures/{device}/{scale}"

# A platform key: type, architecture and a hash of what defines the platform.
PLATFORM_KEY_PATTERN = r"[a-z]+-[a-z0-9_]+-[0-9a-f]{10}"


def platform_key(platform: dict, kernel: str) -> str:
    """The key of a profile's `platform` block booting `kernel` (the kernel build's
    folder name, which carries its hash, or what stands for a phone's own kernel)."""
    defined = json.dumps({"platform": platform, "kernel": kernel}, sort_keys=True)
    digest = hashlib.sha256(defined.encode()).hexdigest()[:10]
    return f"{platform['type']}-{platform['arch']}-{digest}"
