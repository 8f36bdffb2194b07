"""docs/artifact-appendix.md: the artifact appendix in the form artifact-evaluation
committees ask for (abstract, check-list, description, installation, workflow, major
claims and the experiments behind them, evaluation and expected results, customization,
notes), written by mobifrag/report/docs_pages.py (`make docs`).

What can be counted is counted here, from the files that decide it: the claims and
checks (config/claims.yaml), the figures (paper-figures/registry.yaml), the reference
runs' verdicts (docs/reference/), the device profiles (devices/), the scales
(config/config.yaml), the Debian packages (bootstrap/debian-packages.txt), the pinned
Python packages (requirements.lock) and the outside inputs (mobifrag/release.py). Each
experiment's compute time is the job-minutes of its rules in the reference run's job
times (docs/reference/<device>-<scale>-job-times.tsv); the set-up and whole-run times
in the template are docs/measurements.md's, quoted with their date.

The page's prose is the template mobifrag/report/templates/docs/artifact-appendix.md.j2;
this module counts what it shows.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import yaml

from mobifrag import REPO
from mobifrag.release import OUTSIDE_INPUTS, version
from mobifrag.report import reasons, reference
from mobifrag.report.job_times import JobTimes
from mobifrag.report.page_templates import links, render
from mobifrag.report.verdict import VERDICTS
from mobifrag.workflow.claim_tables import measure_tables
from mobifrag.workflow.stages import FIGURES, PLATFORM_RUNS, RESULTS, WORKLOADS, as_prose
from mobifrag.workflow.study_config import load_config

EVIDENCE = "evidence"


@dataclass(frozen=True)
class Experiment:
    key: str
    name: str
    tables: tuple[str, ...]  # result-table paths or folder prefixes it writes
    what: str
    rules: tuple[str, ...]  # the rules whose jobs it runs (their job-minutes add up)


EXPERIMENTS = (
    Experiment(
        "E1", "Concurrent appenders", ("concurrent-appenders/",),
        "N threads append 4 KiB records with fsync to their own files on a fresh ext4 or F2FS",
        ("concurrent_appenders",),
    ),
    Experiment(
        "E2", "AutoAge", ("autoage/",),
        "the eleven app scenarios of TMC Table 3 replayed day after day on one image",
        ("autoage_replay",),
    ),
    Experiment(
        "E3", "Fill/delete aging", ("filldelete/",),
        "a disk filled with large and small files, thinned to each utilization level, then "
        "an app's scenario",
        ("filldelete_fill", "filldelete_replay"),
    ),
    Experiment(
        "E4", "Capacity", ("capacity/",),
        "every scenario on pristine disks of two sizes",
        ("capacity_replay",),
    ),
    Experiment(
        "E5", "Scan", ("scan/",),
        "one file laid out at a chosen DoF through holes, read cold under blktrace",
        ("scan_run",),
    ),
    Experiment(
        "E6", "Dispersed I/O", ("dispersed/",),
        "fio's random 4 KiB writes and reads over regions of growing size, replayed through "
        "ftl-sim",
        ("dispersed_run",),
    ),
    Experiment(
        "E7", "User-perceived latencies", ("user-latency/",),
        "launch, install and SQLite scans on the No / Moderate / Severe images",
        ("user_latency_age", "user_latency_run"),
    ),
    Experiment(
        "E8", "Treatments", ("treat/prealloc/", "treat/journal/", "treat/sqlite-prealloc/",
                             "treat/e4defrag/"),
        "preallocation, a persistent journal, e4defrag and janusdL",
        ("treat_age", "treat_prealloc", "treat_sqlite_prealloc", "treat_journal",
         "treat_e4defrag"),
    ),
    Experiment(
        "E9", "janusd", ("janusd/", "treat/janusd/"),
        "recurring defragmentation under AutoAge, janusdL's remapping and its throughput "
        "model",
        ("janusd_recurring_age", "janusd_recurring", "janusd_recurring_replays",
         "janusd_replay", "janusd_e4defrag_csv", "janusd_throughput"),
    ),
    Experiment(
        "E10", "ARS file selection", ("ars/selection/",),
        "five classifiers trained on Mobibench's traces and the files' measured DoF",
        ("ars_selection_replay",),
    ),
    Experiment(
        "E11", "ARS kernel patch", ("ars/motivation.csv", "ars/blocksize.csv"),
        "a continuous against a concurrently written file, and random writes by block size, "
        "per F2FS scheme",
        ("ars_motivation", "ars_blocksize", "ars_table"),
    ),
    Experiment(
        "E12", "ARS evaluation", ("ars/eval/",),
        "the fragmentation benchmark, SQLite and the app traces per F2FS scheme",
        ("ars_eval_fragbench", "ars_eval_apps", "ars_eval_sqlite", "ars_eval_table"),
    ),
    Experiment(
        "E13", "Ext4 tuning", ("ext4tune/",),
        "IOzone, Postmark and FFSB (filebench) on each ext4 setting",
        ("ext4tune_bench", "ext4tune_tables"),
    ),
    Experiment(
        "E14", "FlashSim cross-check", ("flashsim/",),
        "a sample of the block traces through FlashSim and ftl-sim (`make flashsim-diff`)",
        ("flashsim_diff",),
    ),
)  # fmt: skip


@dataclass(frozen=True)
class MajorClaim:
    key: str
    statement: str
    selects: tuple[str, ...]  # claim-id prefix, or id prefix and source prefix "tmc:TMC §4"


MAJOR_CLAIMS = (
    MajorClaim(
        "C1",
        "Files on an aged mobile file system are fragmented, SQLite files most: fragmentation "
        "grows with concurrent writers, with age and with utilization (TMC §3–4).",
        ("tmc:TMC §3", "tmc:TMC §4"),
    ),
    MajorClaim(
        "C2",
        "Fragmentation slows reads, app launch, install and SQLite scans, through more block "
        "requests and the flash translation layer's mapping (TMC §5).",
        ("tmc:TMC §5",),
    ),
    MajorClaim(
        "C3",
        "Preallocation and a persistent journal keep files unfragmented; e4defrag and "
        "janusdL remove fragmentation, janusdL with far fewer flash writes (TMC §6).",
        ("tmc:TMC §6",),
    ),
    MajorClaim(
        "C4",
        "Defragmenting logically (janusdL) recovers launch time with a fraction of "
        "e4defrag's copies; logical and physical fragmentation both cost throughput "
        "(janusd, ATC'17).",
        ("janusd",),
    ),
    MajorClaim(
        "C5",
        "An adaptive reserved space for F2FS, its files chosen by a decision tree, keeps "
        "reserved files unfragmented and speeds their I/O, SQLite and apps (ARS, DATE'20).",
        ("ars",),
    ),
    MajorClaim(
        "C6",
        "noatime, smaller inodes, flex_bg, asynchronous journal commits and their combination "
        "make ext4 faster on Android's workloads (Ext4 tuning, 2012).",
        ("ext4tune",),
    ),
)


def selected(claim: dict, major: MajorClaim) -> bool:
    for rule in major.selects:
        prefix, _, source = rule.partition(":")
        if claim["id"].split("-", 1)[0] == prefix and claim["source"].startswith(source):
            return True
    return False


def claim_tables(claim: dict) -> list[str]:
    return list(measure_tables(claim["measure"]))


def experiment_of(table: str) -> Experiment | None:
    matches = [
        (len(prefix), e)
        for e in EXPERIMENTS
        for prefix in e.tables
        if table == prefix or (prefix.endswith("/") and table.startswith(prefix))
    ]
    return max(matches, key=lambda m: m[0])[1] if matches else None


def experiments_of(claims: list[dict]) -> list[Experiment]:
    keys = {e.key for c in claims for t in claim_tables(c) if (e := experiment_of(t))}
    return [e for e in EXPERIMENTS if e.key in keys]


def experiment_minutes(e: Experiment, times: JobTimes | None) -> float | None:
    """The job-minutes of an experiment's rules in the reference run, None where the
    run's table lists none of them."""
    mine = [times.minutes[rule] for rule in e.rules if times and rule in times.minutes]
    return sum(mine) if mine else None


def minutes_text(experiments: list[Experiment], times: JobTimes | None) -> str:
    minutes = {e.key: experiment_minutes(e, times) for e in experiments}
    timed = [m for m in minutes.values() if m is not None]
    untimed = [key for key, m in minutes.items() if m is None]
    text = f"{sum(timed):.1f} job-min" if timed else "not timed"
    if timed and untimed:
        text += f" (+ {', '.join(untimed)}, not timed on its own)"
    return text


def rules_text(e: Experiment, times: JobTimes | None) -> str:
    total = experiment_minutes(e, times)
    if total is None:
        return "—"
    parts = [f"{rule} {times.minutes[rule]:.1f}" for rule in e.rules if rule in times.minutes]
    return f"{total:.1f} ({', '.join(parts)})"


def timed_run(times: JobTimes | None) -> str:
    """The run the times come from, as the page names it."""
    if times is None:
        return "no reference run's job times (docs/reference/ holds none)"
    meta = times.meta
    return (
        f"the reference run ({meta.get('device', '?')}/{meta.get('scale', '?')}, commit "
        f"{meta.get('commit', '?')[:7]}, run {meta.get('run_date', '?')[:10]}; "
        f"`{times.path.name}`): {times.total:.1f} job-minutes over {times.jobs} "
        "benchmarked jobs, two busy guests at a time on 2 cores"
    )


def other_rules_text(times: JobTimes | None) -> str:
    """The job-minutes of the rules no experiment lists (the model stage, figures...)."""
    if times is None:
        return "not timed"
    listed = {rule for e in EXPERIMENTS for rule in e.rules}
    rest = {rule: m for rule, m in times.minutes.items() if rule not in listed}
    top = sorted(rest.items(), key=lambda item: -item[1])[:2]
    named = ", ".join(f"{rule} {m:.1f}" for rule, m in top)
    return f"{sum(rest.values()):.1f} job-min ({named}, …)" if rest else "none"


def figures_of(claims: list[dict]) -> list[str]:
    return list(dict.fromkeys(c["figure"] for c in claims))


def counts_line(rows: list[dict]) -> str:
    counts = Counter(row["verdict"] for row in rows)
    ordered = [v for v in VERDICTS if counts[v]] + sorted(set(counts) - set(VERDICTS))
    return ", ".join(f"{counts[v]} {v}" for v in ordered) or "none"


def repo_facts(repo: Path = REPO) -> dict:
    folder = repo / "config"
    config = load_config(folder / "config.yaml", schema_file=folder / "schema.yaml")
    debian = [
        line.split("#", 1)[0].strip()
        for line in (repo / "bootstrap" / "debian-packages.txt").read_text().splitlines()
    ]
    pinned = [
        line
        for line in (repo / "requirements.lock").read_text().splitlines()
        if re.match(r"^[A-Za-z0-9_.-]+==", line)
    ]
    devices = []
    for path in sorted((repo / "devices").glob("*.yaml")):
        if path.name != "schema.yaml":
            data = yaml.safe_load(path.read_text())
            devices.append((data["name"], data.get("description", "")))
    cargo = (repo / "ftl-sim" / "Cargo.toml").read_text()
    rust = re.search(r'rust-version = "([^"]+)"', cargo)
    return {
        "scales": list(config["scales"]),
        "default_scale": config.get("scale", "quick"),
        "default_device": config.get("device", "emulator-emmc"),
        "debian": [p for p in debian if p],
        "python_packages": len(pinned),
        "devices": devices,
        "rust": rust.group(1) if rust else "?",
    }


def reference_entry(claims: list[dict], table: reference.Table) -> dict:
    """A reference run: its evidence claims' verdicts in all and per major claim."""
    rows = list(table.rows.values())
    return {
        "device": table.meta.get("device", "?"),
        "scale": table.meta.get("scale", "?"),
        "name": table.path.name,
        "description": reference.describe_reference(table),
        "counts": counts_line(reasons.counted(rows)),
        "majors": [reference_row(claims, rows, major) for major in MAJOR_CLAIMS],
    }


def page(
    claims: list[dict],
    checks: dict[str, list[dict]],
    registry: dict,
    references: list[reference.Table],
    sources: str,
    times: JobTimes | None = None,
    repo: Path = REPO,
) -> str:
    """The artifact appendix, its header naming `sources`."""
    return render(
        "artifact-appendix.md.j2",
        sources=sources,
        version=version(repo / "pyproject.toml"),
        claims=len(claims),
        evidence=sum(c.get("kind", EVIDENCE) == EVIDENCE for c in claims),
        figures=len(registry),
        facts=repo_facts(repo),
        results=as_prose(RESULTS),
        results_quick=as_prose(RESULTS, scale="quick"),
        figures_folder=as_prose(FIGURES),
        workloads=as_prose(WORKLOADS),
        platform_runs=as_prose(PLATFORM_RUNS, platform="<key>"),
        outside_inputs=[outside_input_row(item) for item in OUTSIDE_INPUTS],
        timed_run=timed_run(times),
        other_rules=other_rules_text(times),
        majors=[major_claim_row(claims, major, times) for major in MAJOR_CLAIMS],
        checks=[(name, [c["id"] for c in members]) for name, members in checks.items()],
        major_members=[(m.key, [c["id"] for c in claims if selected(c, m)]) for m in MAJOR_CLAIMS],
        experiments=[experiment_row(claims, registry, e, times) for e in EXPERIMENTS],
        references=[reference_entry(claims, table) for table in references],
    )


def outside_input_row(item) -> tuple[str, ...]:
    carried = "yes" if item.redistributable else f"no: {item.why}"
    return item.name, item.licence, carried, f"`{item.pins}`"


def major_claim_row(
    claims: list[dict], major: MajorClaim, times: JobTimes | None
) -> tuple[str, ...]:
    members = [c for c in claims if selected(c, major)]
    counted = [c for c in members if c.get("kind", EVIDENCE) == EVIDENCE]
    experiments = experiments_of(members)
    return (
        major.key,
        major.statement,
        f"{len(members)} ({len(counted)})",
        ", ".join(e.key for e in experiments),
        links(figures_of(members), "figures.md"),
        minutes_text(experiments, times),
    )


def experiment_row(
    claims: list[dict], registry: dict, e: Experiment, times: JobTimes | None
) -> tuple[str, ...]:
    members = [c for c in claims if any(experiment_of(t) == e for t in claim_tables(c))]
    counted = [c for c in members if c.get("kind", EVIDENCE) == EVIDENCE]
    stems = [
        s
        for s, entry in registry.items()
        if any(experiment_of(t) == e for t in entry.get("tables", []))
    ]
    return (
        f"{e.key} {e.name}",
        e.what,
        ", ".join(f"`{t}`" for t in e.tables),
        links(stems, "figures.md") or "—",
        f"{len(members)} ({len(counted)})",
        rules_text(e, times),
    )


def reference_row(claims: list[dict], rows: list[dict], major: MajorClaim) -> tuple[str, ...]:
    ids = {c["id"] for c in claims if selected(c, major)}
    of_major = [r for r in reasons.counted(rows) if r["id"] in ids]
    return major.key, str(len(of_major)), counts_line(of_major)
