"""Which jobs of the study become SLURM jobs, without a cluster.

Under profiles/slurm every job is one `sbatch` job unless its rule is a local rule,
which says so where it is defined (`localrule: True`; there is no central list). The
local rules are checked here against the jobs a run plans (a dry run of `all` at the
test scale, every job forced): a job is a cluster job exactly when it boots a guest or
drives a device (mobifrag.platform), builds something (kernel, agent, ftl-sim, FlashSim)
or runs a simulator (ftl-sim or FlashSim); everything else (trace generation, tables,
figures, claims, provenance) runs locally. A new rule that is neither fails this test
until it says `localrule: True`.

And every guest rule carries `retries` (set on rule guest_job, rules/infra/guest.smk,
and inherited by each `use rule guest_job as ...`). tests/emulator/test_slurm.py runs a slice on a
real SLURM and checks the submissions and a retry.
"""

import json
import re
import subprocess
import sys
from collections import Counter

import pytest

from conftest import REPO, local_env, repo_copy

# The rules as Snakemake parsed them: whether each is a local rule, its `retries`
# directive (None without one) and its shell command. Workflow._localrules and
# Rule._restart_times are Snakemake's own records of the `localrule:` and
# `retries:` directives (Snakemake is pinned in requirements.lock).
RULES_SCRIPT = """
import json, sys
from pathlib import Path
from snakemake.api import SnakemakeApi
from snakemake.settings.types import OutputSettings, ResourceSettings

with SnakemakeApi(OutputSettings()) as api:
    workflow = api.workflow(
        resource_settings=ResourceSettings(cores=2), snakefile=Path("Snakefile"), workdir=Path(".")
    )._workflow
    print(json.dumps({
        rule.name: {
            "local": rule.name in workflow._localrules,
            "retries": rule._restart_times,
            "shell": rule.shellcmd or "",
            "norun": rule.norun,
        }
        for rule in workflow.rules
    }))
"""

# Outputs of the builds; the simulators' binaries (rules/infra/model.smk, flashsim.smk).
BUILD_OUTPUTS = (
    "build/kernel/",
    "build/flashsim/",
    "build/filebench/",
    "agent/build/",
    "ftl-sim/target/",
)
SIMULATORS = ("ftl-sim/target/release/ftl-sim", "build/flashsim/flashsim-replay")
HEADER = re.compile(r"^\s*(local)?(rule|checkpoint) (\w+):$")  # indented inside a group job


@pytest.fixture(scope="module")
def rules() -> dict:
    run = subprocess.run(
        [sys.executable, "-c", RULES_SCRIPT], cwd=REPO, capture_output=True, text=True
    )
    assert run.returncode == 0, run.stderr[-3000:]
    return json.loads(run.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def planned(tmp_path_factory) -> list[tuple[str, str]]:
    """(rule, the job's dry-run text: input, output, shell command) of every job of a
    whole test-scale run under profiles/slurm. Planned in a copy of the tracked files:
    the plan sizes its inputs, and in the checkout the emulator tests' joint run moves
    guest outputs into place meanwhile (a folder renamed in while Snakemake measured it
    read as a broken symlink)."""
    copy = repo_copy(tmp_path_factory.mktemp("slurm-plan"))
    command = [sys.executable, "-m", "snakemake", "--workflow-profile", "profiles/slurm"]
    command += ["-n", "--forceall", "--printshellcmds", "all", "--config", "scale=test"]
    run = subprocess.run(command, cwd=copy, capture_output=True, text=True, env=local_env())
    assert run.returncode == 0, (run.stdout + run.stderr)[-3000:]
    jobs: list[tuple[str, list[str]]] = []
    for line in run.stdout.splitlines():
        header = HEADER.match(line)
        if header:
            jobs.append((header.group(3), []))
        elif jobs and not line.startswith("["):
            jobs[-1][1].append(line)
    assert jobs
    return [(rule, "\n".join(text)) for rule, text in jobs]


def outputs(text: str) -> list[str]:
    for line in text.splitlines():
        if line.strip().startswith("output:"):
            return [path.strip() for path in line.split(":", 1)[1].split(",")]
    return []


def heavy(rule: dict, text: str) -> str | None:
    """Why a job must be a cluster job, or None if it is light."""
    if "-m mobifrag.platform." in rule["shell"]:
        return "a guest or device job"
    if any(path.startswith(BUILD_OUTPUTS) for path in outputs(text)):
        return "a build"
    if any(simulator in text for simulator in SIMULATORS):
        return "runs a simulator"
    return None


def test_every_guest_rule_retries(rules):
    guest = {name for name, rule in rules.items() if "-m mobifrag.platform.run" in rule["shell"]}
    # guest_job and the rules derived from it (23 when this was written)
    assert "guest_job" in guest and len(guest) > 10
    assert {name: rules[name]["retries"] for name in guest if not rules[name]["retries"]} == {}


def test_cluster_jobs_are_exactly_the_heavy_ones(rules, planned):
    # Per rule: a rule is a cluster rule if any of its jobs is heavy.
    reasons: dict[str, set] = {}
    for name, text in planned:
        if not rules[name]["norun"]:
            reasons.setdefault(name, set()).add(heavy(rules[name], text))
    wrong = []
    for name, why in sorted(reasons.items()):
        why.discard(None)
        if rules[name]["local"] and why:
            wrong.append(f"{name}: a local rule, but {', '.join(sorted(why))}")
        if not rules[name]["local"] and not why:
            wrong.append(f"{name}: light, give it `localrule: True`")
    assert not wrong, "\n".join(wrong)


def declared_local() -> set[str]:
    """The rules whose own definition says `localrule: True`."""
    found = set()
    for path in [REPO / "Snakefile", *sorted((REPO / "rules").rglob("*.smk"))]:
        for block in re.split(r"^(?=(?:rule|checkpoint) \w+:)", path.read_text(), flags=re.M):
            header = re.match(r"(?:rule|checkpoint) (\w+):", block)
            if header and re.search(r"^    localrule: True$", block, re.M):
                found.add(header.group(1))
    return found


def test_each_local_rule_says_so_where_it_is_defined(rules):
    # No `localrules:` list elsewhere: a rule's file is the one place that decides it.
    assert declared_local() == {name for name, rule in rules.items() if rule["local"]}


def test_submissions_of_a_run(rules, planned):
    jobs = Counter(name for name, _ in planned if not rules[name]["norun"])
    cluster = sum(n for name, n in jobs.items() if not rules[name]["local"])
    local = sum(n for name, n in jobs.items() if rules[name]["local"])
    print(f"test scale, every job: {cluster} sbatch jobs, {local} local jobs")
    assert cluster > 0 and local > 0
