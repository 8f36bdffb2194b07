"""Phases compared on a fresh-filled device and on one aged to device GC.

    python -m mobifrag.model.aged_device --ftl-sim ftl-sim/target/release/ftl-sim \
        --device devices/emulator-emmc.yaml --aged-fraction 0.1 [--settle] \
        --pair LABEL RUN_A PHASE_A RUN_B PHASE_B [--pair ...] --out aged-device.csv

The study replays each phase on a device written once sequentially (with the run's
earlier phases' writes, `mobifrag.model.phase_history`), where the phases' writes never
reach device GC. This probe replays pairs of phases (a scheme against another, a state
against another) twice: as the study does, and after random overwrites of
`--aged-fraction` of the device's pages, which leave every plane at its GC watermark, so
that the phase's writes run GC; with `--settle` the planes are collected to the high
watermark first, as idle time before the phase would. Each row gives both phases'
modeled times and GC page copies and their ratio (A over B), so a diagnosis can say
whether device GC carries a paper's effect.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from mobifrag.model import ftl
from mobifrag.model.phase_history import PhaseHistoryError, earlier_traces, history_options
from mobifrag.workflow.atomic import write_table

COLUMNS = ("label", "device", "a_ms", "b_ms", "ratio", "a_gc_copies", "b_gc_copies")


def phase_summary(ftl_sim: Path, device: Path, run: Path, phase: str, *options: str) -> dict:
    """The phase's replay after its run's earlier phases, with `options` added."""
    history = history_options(earlier_traces(run, phase))
    return ftl.replay(ftl_sim, device, run / "blktrace" / phase, *history, *options)


def pair_rows(args: argparse.Namespace, label: str, a: tuple, b: tuple) -> list[dict]:
    aged = ["--precondition-random-fraction", str(args.aged_fraction)]
    aged += ["--settle"] if args.settle else []
    rows = []
    for device_state, options in (("fresh", []), ("aged", aged)):
        sa, sb = (phase_summary(args.ftl_sim, args.device, *x, *options) for x in (a, b))
        ms_a, ms_b = (ftl.modeled_seconds(s) * 1000 for s in (sa, sb))
        rows.append(
            {
                "label": label,
                "device": device_state,
                "a_ms": f"{ms_a:.1f}",
                "b_ms": f"{ms_b:.1f}",
                "ratio": f"{ms_a / ms_b:.3f}",
                "a_gc_copies": sa["gc"]["data_page_copies"],
                "b_gc_copies": sb["gc"]["data_page_copies"],
            }
        )
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ftl-sim", type=Path, required=True)
    parser.add_argument("--device", type=Path, required=True)
    parser.add_argument("--aged-fraction", type=float, default=0.1)
    parser.add_argument("--settle", action="store_true")
    parser.add_argument(
        "--pair",
        nargs=5,
        action="append",
        required=True,
        metavar=("LABEL", "RUN_A", "PHASE_A", "RUN_B", "PHASE_B"),
    )
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    try:
        rows = [
            row
            for label, run_a, phase_a, run_b, phase_b in args.pair
            for row in pair_rows(args, label, (Path(run_a), phase_a), (Path(run_b), phase_b))
        ]
    except (PhaseHistoryError, ftl.FtlSimError) as error:
        print(f"aged_device: {error}", file=sys.stderr)
        return 1
    write_table(args.out, COLUMNS, rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
