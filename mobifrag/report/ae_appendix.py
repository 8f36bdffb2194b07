"""docs/artifact-appendix.md: the artifact appendix in the form artifact-evaluation
committees ask for (abstract, check-list, description, installation, workflow, major
claims and the experiments behind them, evaluation and expected results, customization,
notes), written by mobifrag/report/docs_pages.py (`make docs`).

What can be counted is counted here, from the files that decide it: the claims and
checks (config/claims.yaml), the figures (paper-figures/registry.yaml), the reference
runs' verdicts (docs/reference/), the device profiles (devices/), the scales
(config/config.yaml), the Debian packages (bootstrap/debian-packages.txt), the pinned
Python packages (requirements.lock) and the outside inputs (mobifrag/release.py). Times
are the dated measurements of docs/measurements.md, quoted with their date.
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
from mobifrag.report.markdown import markdown_table
from mobifrag.report.verdict import VERDICTS
from mobifrag.workflow.claim_tables import measure_tables
from mobifrag.workflow.stages import FIGURES, PLATFORM_RUNS, RESULTS, WORKLOADS, as_prose
from mobifrag.workflow.study_config import load_config

EVIDENCE = "evidence"
# The run the experiments' times come from: docs/measurements.md, "The quick study with
# Ext4 tuning halved and run twice (2026-11-30)", its job-minutes by rule.
TIMED_RUN = (
    "the fresh-clone quick study of 2026-11-30 (commit 7092a21, emulator-emmc; "
    "docs/measurements.md, its job-minutes by rule): 177.1 job-minutes over 529 "
    "benchmarked jobs, two busy guests at a time on 2 cores"
)


@dataclass(frozen=True)
class Experiment:
    key: str
    name: str
    tables: tuple[str, ...]  # result-table paths or folder prefixes it writes
    what: str
    minutes: float | None  # job-minutes in TIMED_RUN, None where it was not listed
    timed_rules: str  # the rules those minutes add up


EXPERIMENTS = (
    Experiment(
        "E1", "Concurrent appenders", ("concurrent-appenders/",),
        "N threads append 4 KiB records with fsync to their own files on a fresh ext4 or F2FS",
        6.3, "concurrent_appenders",
    ),
    Experiment(
        "E2", "AutoAge", ("autoage/",),
        "the eleven app scenarios of TMC Table 3 replayed day after day on one image",
        6.2, "autoage_replay",
    ),
    Experiment(
        "E3", "Fill/delete aging", ("filldelete/",),
        "a disk filled with large and small files, thinned to each utilization level, then "
        "an app's scenario", 18.9, "filldelete_replay 13.4, filldelete_fill 5.5",
    ),
    Experiment(
        "E4", "Capacity", ("capacity/",),
        "every scenario on pristine disks of two sizes", 4.3, "capacity_replay",
    ),
    Experiment(
        "E5", "Scan", ("scan/",),
        "one file laid out at a chosen DoF through holes, read cold under blktrace", 13.5,
        "scan_run",
    ),
    Experiment(
        "E6", "Dispersed I/O", ("dispersed/",),
        "fio's random 4 KiB writes and reads over regions of growing size, replayed through "
        "ftl-sim", 9.0, "dispersed_run",
    ),
    Experiment(
        "E7", "User-perceived latencies", ("user-latency/",),
        "launch, install and SQLite scans on the No / Moderate / Severe images", None, "",
    ),
    Experiment(
        "E8", "Treatments", ("treat/prealloc/", "treat/journal/", "treat/sqlite-prealloc/",
                             "treat/e4defrag/"),
        "preallocation, a persistent journal, e4defrag and janusdL", 21.6,
        "treat_prealloc 7.9, treat_sqlite_prealloc 7.3, treat_journal 4.0, "
        "treat_e4defrag 2.4",
    ),
    Experiment(
        "E9", "janusd", ("janusd/", "treat/janusd/"),
        "recurring defragmentation under AutoAge, janusdL's remapping and its throughput "
        "model", 6.7, "janusd_recurring",
    ),
    Experiment(
        "E10", "ARS file selection", ("ars/selection/",),
        "five classifiers trained on Mobibench's traces and the files' measured DoF", None,
        "",
    ),
    Experiment(
        "E11", "ARS kernel patch", ("ars/motivation.csv", "ars/blocksize.csv"),
        "a continuous against a concurrently written file, and random writes by block size, "
        "per F2FS scheme", 12.7, "ars_blocksize 7.5, ars_motivation 5.2",
    ),
    Experiment(
        "E12", "ARS evaluation", ("ars/eval/",),
        "the fragmentation benchmark, SQLite and the app traces per F2FS scheme", 36.3,
        "ars_eval_fragbench 27.1, ars_eval_apps 4.8, ars_eval_sqlite 4.4",
    ),
    Experiment(
        "E13", "Ext4 tuning", ("ext4tune/",),
        "IOzone, Postmark and FFSB (filebench) on each ext4 setting", 31.8, "ext4tune_bench",
    ),
    Experiment(
        "E14", "FlashSim cross-check", ("flashsim/",),
        "a sample of the block traces through FlashSim and ftl-sim (`make flashsim-diff`)",
        None, "",
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


def minutes_text(experiments: list[Experiment]) -> str:
    timed = [e for e in experiments if e.minutes is not None]
    untimed = [e.key for e in experiments if e.minutes is None]
    text = f"{sum(e.minutes for e in timed):.1f} job-min" if timed else "not timed"
    if timed and untimed:
        text += f" (+ {', '.join(untimed)}, not timed on its own)"
    return text


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


def page(
    claims: list[dict],
    checks: dict[str, list[dict]],
    registry: dict,
    references: list[reference.Table],
    header: str,
    repo: Path = REPO,
) -> str:
    facts = repo_facts(repo)
    evidence = [c for c in claims if c.get("kind", EVIDENCE) == EVIDENCE]
    lines = [
        header,
        "",
        f"# Artifact appendix: mobifrag {version(repo / 'pyproject.toml')}",
        "",
        "This appendix follows the form artifact-evaluation committees use. Every claim it",
        "counts is listed with its figure, commands, band and source in the",
        "[claims catalogue](appendix.md), every figure in [figures](figures.md).",
        "",
        *abstract(claims, evidence, registry),
        *checklist(claims, evidence, registry, facts),
        *description(facts),
        *installation(facts),
        *workflow_section(facts),
        *major_claims(claims, checks),
        *experiments_section(claims, registry),
        *evaluation(claims, references),
        *customization(facts),
        *notes(),
    ]
    return "\n".join(lines).rstrip() + "\n"


def abstract(claims, evidence, registry) -> list[str]:
    return [
        "## Abstract",
        "",
        "mobifrag reproduces four papers on file fragmentation on mobile flash storage: "
        "TMC 2019 (measurement, evaluation and treatment), janusd (ATC'17), ARS (DATE'20) "
        "and Ext4 tuning for Android (2012). It builds the study's Linux 6.1 kernel (with the "
        "ARS patch), ages real ext4 and F2FS file systems with mobile-app write patterns in a "
        "QEMU guest (or on a board or rooted phone over adb), snapshots every file's "
        "extents, replays the block traces through a flash-translation-layer model "
        "(ftl-sim), renders the papers' figures from what it measured and judges each of "
        f"the papers' claims: {len(claims)} claims, {len(evidence)} of them evidence (the "
        f"rest check the study's own design, inputs or calibration), and {len(registry)} "
        "figures. Two commands run it: `make reproduce` and `make test`.",
        "",
    ]


def checklist(claims, evidence, registry, facts) -> list[str]:
    scales = ", ".join(f"`{s}`" for s in facts["scales"])
    return [
        "## Artifact check-list (meta-information)",
        "",
        "- **Algorithms:** file-system aging (AutoAge, fill/delete), fragmentation measures "
        "(DoF, fragment-size levels), a page-mapped FTL model with a demand-paged map "
        "cache and GC (ftl-sim), ARS's reserved-file decision tree.",
        "- **Program:** Python 3.11+ and Snakemake 9 (the workflow), C11 (the guest agent), "
        "Rust (ftl-sim), R with ggplot2 (figures), shell job scripts.",
        "- **Compilation:** the study's Linux 6.1 kernel from Debian's `linux-source-6.1` "
        "with `kernel-patches/`, the agent with gcc, ftl-sim with cargo, filebench and "
        "FlashSim from pinned sources; all by the workflow.",
        "- **Data sets:** the eleven app scenarios of TMC Table 3 (`traces/scenarios/`, "
        "every number sourced), Mobibench's Facebook and Twitter traces (fetched, "
        "checksum pinned).",
        "- **Run-time environment:** Debian 12 x86_64 with root for `apt-get` (the bootstrap "
        "installs what is missing), or the Nix dev shell (`flake.nix`, docs/nix.md).",
        "- **Hardware:** x86_64, 2 cores, 8 GiB of memory, 20 GB of free disk; no KVM "
        "needed (guests run under TCG). Optional: a HiKey960 board or a rooted phone.",
        "- **Execution:** `make reproduce` (Snakemake; guests one or two per core).",
        "- **Metrics:** DoF and extents, block requests and bytes, modeled time and flash "
        "writes (ftl-sim), host CPU time, classifier accuracy; each claim states its basis.",
        f"- **Output:** {len(registry)} figures (PDF, PNG), `claims.md`/`claims.csv` with a "
        f"verdict for each of {len(claims)} claims, `report.html`, `provenance.json`.",
        f"- **Experiments:** {len(EXPERIMENTS)} (E1–E{len(EXPERIMENTS)} below), at scales "
        f"{scales}.",
        "- **Disk space required:** 20 GB (quick scale; the paper scale peaked at 15.5 GB "
        "of results, 2026-11-25).",
        "- **Time to prepare the workflow:** about 11 min: bootstrap 2 min, kernel build "
        "8.6–9 min on 2 cores (2026-11-30).",
        "- **Time to complete the experiments:** 1 h 27 min to 1 h 36 min from a fresh "
        "clone at the quick scale on 2 cores (2026-11-30); the paper scale was not timed "
        "end to end.",
        "- **Publicly available:** yes; `make dist` writes the archive to deposit.",
        "- **Code licences:** MIT (LICENSE); third-party inputs under their own (below).",
        "- **Archived (DOI):** not yet; CITATION.cff takes the DOI once assigned.",
        "",
    ]


def outside_input_row(item) -> tuple[str, ...]:
    carried = "yes" if item.redistributable else f"no: {item.why}"
    return item.name, item.licence, carried, f"`{item.pins}`"


def description(facts) -> list[str]:
    lines = [
        "## Description",
        "",
        "### How to access",
        "",
        "A clone of the repository, or the source archive `make dist` writes "
        "(`dist/mobifrag-<version>.tar.gz`, its sha256 beside it).",
        "",
        "### Hardware dependencies",
        "",
        "An x86_64 Linux machine with 2 cores, 8 GiB of memory and 20 GB of free disk runs "
        "every scale but `paper`. A guest (1 vCPU, 1 GiB) peaked at 1.2 GiB resident and the "
        f"quick run at 3.2 GiB on the host; `{as_prose(RESULTS, scale='quick')}/` reached 3.7 GB "
        "(2026-11-23). The paper scale's aging set peaked at 3.5 GiB and 15.5 GB "
        "(2026-11-25). No KVM is needed; with it the guests run faster (not measured). A "
        "HiKey960 board or a rooted Android phone is optional (customization below).",
        "",
        "### Software dependencies",
        "",
        f"Debian 12's packages of `bootstrap/debian-packages.txt` ({len(facts['debian'])}: "
        + ", ".join(f"`{p}`" for p in facts["debian"])
        + f"); Python ≥ 3.11 with the {facts['python_packages']} packages pinned with "
        f"their hashes in `requirements.lock` (Snakemake 9); Rust ≥ {facts['rust']} "
        "(cargo) for ftl-sim. `scripts/bootstrap.sh` installs what is missing; each run "
        "records every version in `provenance.json` and warns where one differs from those "
        "the documented numbers were measured with (`config/measured-versions.json`).",
        "",
        "### Data sets and outside inputs",
        "",
        *markdown_table(
            ("input", "licence", "in `make dist`'s archive", "pinned in"),
            map(outside_input_row, OUTSIDE_INPUTS),
        ),
        "",
        "Each is verified against its pinned sha256 before use (`make preflight` checks "
        "them all in seconds). The app scenarios are the repository's own "
        "(`traces/scenarios/`, their assumptions in `traces/scenarios/ASSUMPTIONS.md`).",
        "",
    ]
    return lines


def installation(facts) -> list[str]:
    return [
        "## Installation and basic test",
        "",
        "```sh",
        "make bootstrap                    # Debian packages (as root), .venv, agent, ftl-sim",
        "make preflight                    # every pinned outside input, checksums verified",
        "make reproduce SCALE=test         # every experiment at its smallest real size",
        "```",
        "",
        "The bootstrap took 2 min on a fresh clone with the Debian packages present, a "
        "second run seconds (2026-11-30). The basic test, `make reproduce SCALE=test`, runs "
        "every experiment on 64–256 MiB disks through the same rules, kernel, guest and "
        "figure scripts, and writes every figure and `claims.md`: 29 min from a fresh clone "
        "with the kernel build (5 min) on 2026-11-23, when it planned 174 jobs; it plans "
        "more since the repetitions and the stage split and has not been timed again. "
        "`make test` runs the test suite (unit and emulator integration tests).",
        "",
    ]


def workflow_section(facts) -> list[str]:
    return [
        "## Experiment workflow",
        "",
        "`make reproduce [DEVICE=<profile>] [SCALE=<scale>]` runs `snakemake all` "
        f"(defaults `{facts['default_device']}`, `{facts['default_scale']}`). Data flows one "
        f"way: workloads (`{as_prose(WORKLOADS)}/`) → guest or phone runs, block traces "
        f"and extent snapshots (`{as_prose(PLATFORM_RUNS, platform='<key>')}/`) → the device "
        f"model (ftl-sim) and tables (`{as_prose(RESULTS)}/`) → figures "
        f"(`{as_prose(FIGURES)}/`) → `claims.md`, `claims.csv` and `report.html`. "
        "Each experiment runs in a fresh guest on a fresh disk image (mkfs only ever touches "
        "images the run created); an interrupted run resumes where it stopped. One figure "
        f"and only what it needs: `snakemake {as_prose(FIGURES)}/<stem>.pdf`; one "
        "set of checks: `make check CHECK=<name>`.",
        "",
    ]


def major_claim_row(claims: list[dict], major: MajorClaim) -> tuple[str, ...]:
    members = [c for c in claims if selected(c, major)]
    counted = [c for c in members if c.get("kind", EVIDENCE) == EVIDENCE]
    experiments = experiments_of(members)
    return (
        major.key,
        major.statement,
        f"{len(members)} ({len(counted)})",
        ", ".join(e.key for e in experiments),
        ", ".join(f"[{f}](figures.md#{f})" for f in figures_of(members)),
        minutes_text(experiments),
    )


def major_claims(claims: list[dict], checks: dict[str, list[dict]]) -> list[str]:
    lines = [
        "## Major claims",
        "",
        "Each major claim is the set of the papers' claims below it in the catalogue; the "
        "evidence claims are judged, the others (the study's own design, inputs or "
        "calibration) are listed apart. Compute time: the job-minutes of its experiments in "
        f"{TIMED_RUN}.",
        "",
        *markdown_table(
            ("claim", "statement", "claims (evidence)", "experiments", "figures", "compute time"),
            (major_claim_row(claims, major) for major in MAJOR_CLAIMS),
        ),
        "",
        "The checks `make check CHECK=<name>` runs, each a rule stated before any run:",
        "",
    ]
    for name, members in checks.items():
        ids = ", ".join(f"[{c['id']}](appendix.md#{c['id']})" for c in members)
        lines.append(f"- `{name}` ({len(members)} claims): {ids}")
    lines.append("")
    for major in MAJOR_CLAIMS:
        members = [c for c in claims if selected(c, major)]
        ids = ", ".join(f"[{c['id']}](appendix.md#{c['id']})" for c in members)
        lines += [f"**{major.key}** claims: {ids}", ""]
    return lines


EXPERIMENT_COLUMNS = (
    "experiment",
    "what runs",
    "tables",
    "figures",
    "claims (evidence)",
    "job-min (rules)",
)


def experiment_row(claims: list[dict], registry: dict, e: Experiment) -> tuple[str, ...]:
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
        ", ".join(f"[{s}](figures.md#{s})" for s in stems) or "—",
        f"{len(members)} ({len(counted)})",
        f"{e.minutes:g} ({e.timed_rules})" if e.minutes is not None else "—",
    )


def experiments_section(claims: list[dict], registry: dict) -> list[str]:
    lines = [
        "## Experiments",
        "",
        "docs/experiments.md describes each (rules, job scripts, config keys, results). "
        "Job-minutes from " + TIMED_RUN + "; roughly half of them pass on the clock. "
        'A time "—" is an experiment whose rules were not listed on their own there.',
        "",
        *markdown_table(
            EXPERIMENT_COLUMNS, (experiment_row(claims, registry, e) for e in EXPERIMENTS)
        ),
        "",
        "Besides: the kernel build (8.6 min), the ftl-sim replays (ftl_replay_phase 2.2, "
        "ftl_replay_run 1.1 job-min) and the other rules (13.8 job-min in all).",
        "",
    ]
    return lines


def reference_row(claims: list[dict], rows: list[dict], major: MajorClaim) -> tuple[str, ...]:
    ids = {c["id"] for c in claims if selected(c, major)}
    of_major = [r for r in reasons.counted(rows) if r["id"] in ids]
    return major.key, str(len(of_major)), counts_line(of_major)


def evaluation(claims: list[dict], references: list[reference.Table]) -> list[str]:
    lines = [
        "## Evaluation and expected results",
        "",
        "`make reproduce` ends by printing the summary line of "
        f"`{as_prose(RESULTS)}/claims.md`; open `{as_prose(RESULTS)}/report.html` "
        "first: counts per paper and per check, each claim not reproduced with its reason, "
        "every figure, and the comparison with the reference run. A claim is *reproduced* "
        "when the 95 % interval of its measured median lies inside its band (the catalogue "
        "gives each band and how it derives from the paper's number), *not reproduced* when "
        "outside, *inconclusive* when it overlaps an edge; docs/methods.md defines the "
        "others. The expected results are the reference runs' verdicts: "
        "`make compare DEVICE=<device> SCALE=<scale>` lists every claim whose verdict "
        "differs from them.",
        "",
    ]
    if not references:
        lines += [
            "No reference run is committed yet (docs/reference/README.md says how one is "
            "written); until then the expected result of each claim is its band.",
            "",
        ]
        return lines
    for table in references:
        rows = list(table.rows.values())
        lines += [
            f"### Reference {table.meta.get('device', '?')} / {table.meta.get('scale', '?')}",
            "",
            f"[{table.path.name}](reference/{table.path.name}): "
            f"{reference.describe_reference(table)}. Evidence claims: "
            f"{counts_line(reasons.counted(rows))}.",
            "",
            *markdown_table(
                ("major claim", "evidence claims", "reference verdicts"),
                (reference_row(claims, rows, major) for major in MAJOR_CLAIMS),
            ),
            "",
        ]
    return lines


def customization(facts) -> list[str]:
    lines = [
        "## Customization",
        "",
        "- **Device profiles** (`devices/<name>.yaml`, schema `devices/schema.yaml`): the "
        "platform jobs run on and the storage model the block traces replay through. "
        "`make reproduce DEVICE=<name>`; a new one is checked with `.venv/bin/python -m "
        "mobifrag.workflow.profiles devices/<name>.yaml`. Shipped:",
        "",
    ]
    lines += [f"  - `{name}`: {text}" for name, text in facts["devices"]]
    lines += [
        "",
        "- **Scales** (`scales:` in `config/config.yaml`, each experiment's part in "
        "`config/experiments/<experiment>.yaml`): "
        + ", ".join(f"`{s}`" for s in facts["scales"])
        + "; `make reproduce SCALE=<scale>`.",
        "- **Config overrides:** any key of `config/config.yaml` or "
        "`config/experiments/<experiment>.yaml` (validated against `config/schema.yaml` and "
        "the experiments' `<experiment>.schema.yaml`) with `snakemake all --config "
        "key=value` or `--configfile`.",
        "- **A board or a phone:** `devices/hikey960.yaml` (kernel flashed with fastboot) or "
        "`devices/android-rooted.yaml` (its own kernel). Their own values (adb serial, test "
        "partition, `allow_destructive: true`) go into the untracked "
        "`devices/local/<name>.yaml`, which sets `platform:` keys over the tracked profile, "
        "so the checkout stays clean; with the shipped placeholder serial the plan fails, "
        "naming that file. `MOBIFRAG_DRY_RUN=1` prints every adb and fastboot command "
        "instead (docs/hikey960.md: fences, preparation, flashing, recovery).",
        "- **A cluster:** `snakemake --workflow-profile profiles/slurm all` (docs/cluster.md).",
        "",
    ]
    return lines


def notes() -> list[str]:
    return [
        "## Notes",
        "",
        "- Emulator wall time is shown, never judged on an emulator profile; speed claims "
        "rest on the device model's time (`modeled_time`), judged on a phone's wall time "
        "where the experiment runs on one.",
        "- Claims are pre-registered: `config/claims.lock` records what decides each verdict, "
        "and a change without a dated history entry fails `make test`.",
        "- `make stability` runs the study twice and lists every verdict that differs.",
        "- Times depend on the host: all quoted here were measured on 2 cores without KVM, "
        "on the dates given; docs/measurements.md keeps the logs.",
        "",
    ]
