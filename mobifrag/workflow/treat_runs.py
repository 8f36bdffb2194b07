"""Which runs the treatment figures need (rules/experiments/treat.smk): label → result path.

Each function takes the `treat` folder of the platform runs
(results/platform/<platform>/<scale>/treat), of what the workflow derives from them
(results/<device>/<scale>/treat: janusd's replays, ftl-sim summaries) or both, and the
scale's `treat` preset in config/config.yaml; the labels become the leading columns of
the tables (`python -m mobifrag.tables.treat`).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import PurePosixPath


def prealloc_runs(treat: str, p: dict) -> dict[str, str]:
    """Every (level, threads, unit) appender run of TMC Fig. 14 → its snapshot."""
    return {
        f"level={level},threads={n},unit_kib={kib}": (
            f"{treat}/prealloc/{level}/threads-{n}/unit-{kib}/snapshot"
        )
        for level in p["levels"]
        for n in p["threads"]
        for kib in p["prealloc_kib"]
    }


def defrag_runs(treat: str, derived: str, p: dict) -> dict[str, str]:
    """Every (level, threads, method) defragmentation → its snapshots before and after
    (Fig. 17a). Both methods start from the same run: e4defrag's `after` is the real
    file system's, janusdL's is e4defrag's plan applied by remapping
    (rules/experiments/janusd.smk)."""
    runs = {}
    for level in p["levels"]:
        for n in p["defrag_threads"]:
            folder = f"{treat}/e4defrag/{level}/threads-{n}"
            janusdl = f"{derived}/e4defrag/{level}/threads-{n}/janusdl"
            afters = {"e4defrag": f"{folder}/run/after", "janusdL": f"{janusdl}/after"}
            for method, after in afters.items():
                label = f"level={level},threads={n},method={method}"
                runs[f"{label},phase=before_defrag"] = f"{folder}/run/snapshot"
                runs[f"{label},phase=after_defrag"] = after
    return runs


def defrag_ftl_runs(treat: str, p: dict) -> dict[str, str]:
    """Every (level, threads, method) defragmentation → ftl-sim's summary of its trace,
    each replayed after the appends' trace with the map cache drained at the end
    (Fig. 17b, rules/experiments/janusd.smk)."""
    replays = {"e4defrag": "ftl-e4defrag.json", "janusdL": "ftl-janusdl.json"}
    return {
        f"level={level},threads={n},method={method}": (
            f"{treat}/e4defrag/{level}/threads-{n}/{summary}"
        )
        for level in p["levels"]
        for n in p["defrag_threads"]
        for method, summary in replays.items()
    }


def journal_runs(treat: str, p: dict) -> dict[str, str]:
    """Every (journal mode, threads) insert benchmark → its snapshot (Fig. 15)."""
    return {
        f"mode={mode},threads={n}": f"{treat}/journal/{mode}/snapshots/threads-{n}/unit-0"
        for mode in p["journal_modes"]
        for n in p["journal_threads"]
    }


def sqlite_prealloc_runs(treat: str, p: dict, package: Callable[[str], str]) -> dict[str, str]:
    """Every (app, SQLite preallocation unit) scenario replay → its snapshot (Fig. 16)."""
    return {
        f"app={app},package={package(app)},unit_kib={kib}": (
            f"{treat}/sqlite-prealloc/{app}/snapshots/{app}/unit-{kib * 1024}"
        )
        for app in p["sqlite_apps"]
        for kib in p["sqlite_prealloc_kib"]
    }


def run_outputs(runs: dict[str, str], levels_up: int) -> list[str]:
    """The rule outputs (folders levels_up above each labelled path) the runs need."""
    folders = set()
    for path in runs.values():
        folder = PurePosixPath(path)
        for _ in range(levels_up):
            folder = folder.parent
        folders.add(str(folder))
    return sorted(folders)
