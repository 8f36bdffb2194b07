"""Dispersed I/O (TMC §5.3.2–5.3.3, Fig. 13): one row per (repetition, operation,
region, device model) of `jobs/dispersed.sh` runs.

    python -m mobifrag.tables.dispersed --run 1 REP1_DIR --run 2 REP2_DIR \
        --model 1 read 16 R-16 rep-1/model/read-16/ftl_fill100_history_overlap_cache16k.json ... \
        --table dispersed.csv

The device models are those of TMC Fig. 13c, defined once in config `dispersed.models`;
each (phase, model) replay is a job of its own (rule ftl_replay_phase) whose ftl-sim
summary this module reads. `profile` rows use the profile's own map cache and are the
modeled counterpart of Figs. 13a/b, next to `wall_ms`, the wall time fio measured where
it ran (the emulator's guest, or the phone).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

from mobifrag.model import ftl
from mobifrag.tables import repetitions
from mobifrag.workflow.atomic import write_table

COLUMNS = ("rep", "op", "region_mib", "model", "requests", "device_ms", "modeled_ms")
COLUMNS += ("wall_ms",)
PHASE = re.compile(r"(read|write)-(\d+)$")


class DispersedError(RuntimeError):
    """A dispersed-I/O run that cannot be tabulated; the message names the file."""


def fio_wall_ms(run: Path, phase: str) -> str:
    report = run / "fio" / f"{phase}.json"
    try:
        text = report.read_text()
        # fio writes its warnings into the report file ahead of the JSON.
        job = json.loads(text[text.find("{") :])["jobs"][0]
    except (OSError, ValueError, KeyError, IndexError) as error:
        raise DispersedError(f"{report}: no fio job report ({error})") from None
    return f"{job['job_runtime']:.6g}"


def phases(run: Path) -> list[tuple[str, int]]:
    found = []
    # (blktrace/order, the phases' order, is a file beside them)
    for folder in sorted(p for p in (run / "blktrace").iterdir() if p.is_dir()):
        match = PHASE.match(folder.name)
        if not match:
            raise DispersedError(f"{folder}: not an <op>-<MiB> phase folder")
        found.append((match.group(1), int(match.group(2))))
    if not found:
        raise DispersedError(f"{run / 'blktrace'}: no phases")
    return sorted(found, key=lambda p: (p[0], p[1]))


def dispersed_rows(run: Path, models: list[tuple[str, str, str, str]]) -> list[dict]:
    """One run's row per (operation, region, model), ordered by operation and region;
    each phase must have been run by the job (its block trace and fio report)."""
    ran = set(phases(run))
    rows = []
    for op, region, model, summary_path in sorted(models, key=lambda m: (m[0], int(m[1]))):
        if (op, int(region)) not in ran:
            raise DispersedError(f"{run}: no phase {op}-{region} for model {model}")
        summary = ftl.load_phase_replay(summary_path)
        rows.append(
            {
                "op": op,
                "region_mib": int(region),
                "model": model,
                "requests": summary["requests"][op]["count"],
                **ftl.times_ms(summary),
                "wall_ms": fio_wall_ms(run, f"{op}-{region}"),
            }
        )
    return rows


def repeated_rows(runs: dict[str, Path], models: list[tuple[str, ...]]) -> list[dict]:
    """The rows of every repetition, in repetition order; `models` are (repetition,
    operation, region, model, summary) and each repetition needs a run and a model."""
    by_rep: dict[str, list[tuple[str, str, str, str]]] = {rep: [] for rep in runs}
    for rep, *model in models:
        if rep not in by_rep:
            raise DispersedError(f"a model of repetition {rep}, which has no --run")
        by_rep[rep].append(tuple(model))
    rows = []
    for rep in repetitions.in_order(runs):
        if not by_rep[rep]:
            raise DispersedError(f"{runs[rep]}: no --model of repetition {rep}")
        rows += [{"rep": rep, **row} for row in dispersed_rows(runs[rep], by_rep[rep])]
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    repetitions.add_options(
        parser,
        "dispersed",
        ("OP", "MIB", "NAME", "SUMMARY"),
        "one phase's replay under one device model (ftl-sim JSON summary)",
    )
    parser.add_argument("--table", type=Path, required=True)
    args = parser.parse_args(argv)
    try:
        rows = repeated_rows(repetitions.runs(args.run), repetitions.models(args.model))
    except (
        argparse.ArgumentTypeError,
        DispersedError,
        ftl.FtlSimError,
        KeyError,
        OSError,
    ) as error:
        print(f"dispersed_table: {error}", file=sys.stderr)
        return 1
    write_table(args.table, COLUMNS, rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
