"""Dispersed I/O (TMC §5.3.2–5.3.3, Fig. 13): one row per (operation, region, device
model) of a `jobs/dispersed-io.sh` run.

    python -m mobifrag.tables.dispersed --run RUN_DIR --device devices/D.yaml \
        --ftl-sim ftl-sim/target/release/ftl-sim --aged 0.5 --table dispersed.csv

Models, after TMC Fig. 13c: the map cache at 16 KiB and at 128 KiB (R-16, R-128, W-16,
W-128), and writes with 128 KiB on a device whose space was written once and then
partly overwritten at random, so garbage collection runs (W-GC). `profile` rows use the
profile's own cache and are the modeled counterpart of Figs. 13a/b, next to the
emulator wall time fio measured in the guest.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

from mobifrag.model import ftl
from mobifrag.workflow.atomic import write_table

COLUMNS = ("op", "region_mib", "model", "requests", "device_ms", "modeled_ms")
COLUMNS += ("emulator_wall_ms",)
PHASE = re.compile(r"(read|write)-(\d+)$")


class DispersedError(RuntimeError):
    """A dispersed-I/O run that cannot be tabulated; the message names the file."""


def models(op: str, aged: float) -> dict[str, tuple[str, ...]]:
    """Model name → ftl-sim options for one operation."""
    letter = op[0].upper()
    variants = {
        "profile": (),
        f"{letter}-16": ("--cache-bytes", str(16 * 1024)),
        f"{letter}-128": ("--cache-bytes", str(128 * 1024)),
    }
    if op == "write":
        variants["W-GC"] = variants["W-128"] + ("--precondition-random-fraction", str(aged))
    return variants


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
    for folder in sorted((run / "blktrace").iterdir()):
        match = PHASE.match(folder.name)
        if not match:
            raise DispersedError(f"{folder}: not an <op>-<MiB> phase folder")
        found.append((match.group(1), int(match.group(2))))
    if not found:
        raise DispersedError(f"{run / 'blktrace'}: no phases")
    return sorted(found, key=lambda p: (p[0], p[1]))


def dispersed_rows(run: Path, device: Path, ftl_sim: Path, aged: float) -> list[dict]:
    rows = []
    for op, region in phases(run):
        phase = f"{op}-{region}"
        wall = fio_wall_ms(run, phase)
        for model, options in models(op, aged).items():
            summary = ftl.replay(ftl_sim, device, run / "blktrace" / phase, *options)
            rows.append(
                {
                    "op": op,
                    "region_mib": region,
                    "model": model,
                    "requests": summary["requests"][op]["count"],
                    **ftl.times_ms(summary),
                    "emulator_wall_ms": wall,
                }
            )
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--run", type=Path, required=True)
    parser.add_argument("--device", type=Path, required=True)
    parser.add_argument("--ftl-sim", type=Path, required=True)
    parser.add_argument("--aged", type=float, default=0.5, help="overwritten share for W-GC")
    parser.add_argument("--table", type=Path, required=True)
    args = parser.parse_args(argv)
    try:
        rows = dispersed_rows(args.run, args.device, args.ftl_sim, args.aged)
    except (DispersedError, ftl.FtlSimError, OSError) as error:
        print(f"dispersed_table: {error}", file=sys.stderr)
        return 1
    write_table(args.table, COLUMNS, rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
