"""The runs the treatment tables read (rules/experiments/treat.smk, treat_*_runs): every
combination of a scale's `treat` preset under its label, and the runs' folders as the
tables' inputs, as a dry run plans them."""

import re

import pytest
import yaml

from conftest import REPO, emulator_platform_run, snakemake
from mobifrag.workflow.study_config import load_config

SCALE = "treat-plan"  # a scale of its own, so every table is planned
DEVICE = "emulator-emmc"
PRESET = {
    "levels": ["low", "high"],
    "threads": [1, 5],
    "prealloc_kib": [0, 128],
    "defrag_threads": [5],
    "journal_modes": ["persist", "wal"],
    "journal_threads": [5],
    "sqlite_apps": ["facebook"],
    "sqlite_prealloc_kib": [0, 16],
}
TABLES = {
    "treat_prealloc_table": "prealloc/dof.csv",
    "treat_e4defrag_table": "e4defrag/dof.csv",
    "treat_e4defrag_flash_table": "e4defrag/flash-writes.csv",
    "treat_journal_table": "journal/dof.csv",
    "treat_sqlite_prealloc_tables": "sqlite-prealloc/dof.csv",
}
RULE = re.compile(r"^rule (\w+):$")
RUN = re.compile(r"--run (\S+) (\S+)")


@pytest.fixture(scope="module")
def planned(tmp_path_factory) -> dict[str, tuple[list[str], dict[str, str]]]:
    """Table rule → (its inputs but code, its runs: label → path), from a dry run of the
    tables at SCALE, the test scale with PRESET as its `treat`."""
    scale = load_config()["scales"]["test"]
    scale = {**scale, "treat": {**scale["treat"], **PRESET}}
    override = tmp_path_factory.mktemp("treat-plan") / "config.yaml"
    override.write_text(yaml.safe_dump({"scales": {SCALE: scale}}))
    tables = [f"results/{DEVICE}/{SCALE}/treat/{table}" for table in TABLES.values()]
    run = snakemake(
        "-n", "-p", "-f", *tables, "--configfile", str(override), "--config", f"scale={SCALE}"
    )
    jobs, rule, inputs = {}, None, []
    for line in run.stdout.splitlines():
        if match := RULE.match(line):
            rule = match.group(1)
        elif line.startswith("    input: "):
            named = line.removeprefix("    input: ").split(", ")
            inputs = [i for i in named if not i.startswith("mobifrag/")]
        elif rule in TABLES and line.startswith("Shell command: "):
            jobs[rule] = (inputs, dict(RUN.findall(line)))
    assert sorted(jobs) == sorted(TABLES)
    return jobs


@pytest.fixture(scope="module")
def runs() -> str:
    """The platform's treat/ folder at SCALE (the guests' runs)."""
    return str((emulator_platform_run(SCALE, DEVICE) / "treat").relative_to(REPO))


DERIVED = f"results/{DEVICE}/{SCALE}/treat"  # janusd's replays, ftl-sim summaries


def test_every_appender_run_of_each_unit_is_read(planned, runs):
    inputs, pre = planned["treat_prealloc_table"]
    assert len(pre) == 8
    assert pre["level=high,threads=5,unit_kib=128"] == (
        f"{runs}/prealloc/high/threads-5/unit-128/snapshot"
    )
    folders = sorted(i for i in inputs if "/prealloc/" in i)
    assert len(folders) == 8
    assert folders[0] == f"{runs}/prealloc/high/threads-1/unit-0"


def test_each_defragmentation_is_read_before_and_after_by_each_method(planned, runs):
    inputs, defrag = planned["treat_e4defrag_table"]
    low = "level=low,threads=5"
    assert defrag[f"{low},method=e4defrag,phase=after_defrag"] == (
        f"{runs}/e4defrag/low/threads-5/run/after"
    )
    assert defrag[f"{low},method=janusdL,phase=after_defrag"] == (
        f"{DERIVED}/e4defrag/low/threads-5/janusdl/after"
    )
    assert defrag[f"{low},method=janusdL,phase=before_defrag"] == (
        f"{runs}/e4defrag/low/threads-5/run/snapshot"
    )
    assert len(defrag) == 8
    assert sorted(inputs) == [
        f"{DERIVED}/e4defrag/high/threads-5/janusdl",
        f"{DERIVED}/e4defrag/low/threads-5/janusdl",
        f"{runs}/e4defrag/high/threads-5/run",
        f"{runs}/e4defrag/low/threads-5/run",
    ]


def test_each_defragmentations_flash_writes_are_read_from_its_ftl_sim_summary(planned):
    inputs, flash = planned["treat_e4defrag_flash_table"]
    folder = f"{DERIVED}/e4defrag"
    assert list(flash.items()) == [
        ("level=low,threads=5,method=e4defrag", f"{folder}/low/threads-5/ftl-e4defrag.json"),
        ("level=low,threads=5,method=janusdL", f"{folder}/low/threads-5/ftl-janusdl.json"),
        ("level=high,threads=5,method=e4defrag", f"{folder}/high/threads-5/ftl-e4defrag.json"),
        ("level=high,threads=5,method=janusdL", f"{folder}/high/threads-5/ftl-janusdl.json"),
    ]
    assert sorted(inputs) == sorted(flash.values())


def test_each_journal_mode_is_read_once_per_thread_count_and_repetition(planned, runs):
    # the test scale's two repetitions (config `repeated` holds treat-journal)
    inputs, journal = planned["treat_journal_table"]
    assert journal == {
        f"mode={mode},threads=5,rep={r}": (
            f"{runs}/journal/{mode}/rep-{r}/snapshots/threads-5/unit-0"
        )
        for mode in ("persist", "wal")
        for r in (1, 2)
    }
    assert inputs == [
        f"{runs}/journal/{mode}/rep-{r}" for mode in ("persist", "wal") for r in (1, 2)
    ]


def test_each_apps_replay_is_read_per_sqlite_unit_with_its_package(planned, runs):
    inputs, sqlite = planned["treat_sqlite_prealloc_tables"]
    package = yaml.safe_load((REPO / "traces" / "scenarios" / "facebook.yaml").read_text())
    label = f"app=facebook,package={package['package']},unit_kib=16"
    assert sqlite[label] == f"{runs}/sqlite-prealloc/facebook/snapshots/facebook/unit-16384"
    assert len(sqlite) == 2
    assert inputs == [f"{runs}/sqlite-prealloc/facebook"]
