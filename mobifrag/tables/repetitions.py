"""Repetition numbers on the command line of the tables of repeated experiments (config
`repeated`): the `rep` column that claims take medians and intervals over."""

from __future__ import annotations

import argparse
from pathlib import Path


def repetition(text: str) -> str:
    """An argparse type: a repetition number from 1, as its canonical text."""
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"a repetition is a number from 1, not {text!r}")
    return str(int(text))


def in_order(reps) -> list[str]:
    """Repetition numbers in numeric order (rep 10 after rep 2)."""
    return sorted(reps, key=int)


def add_options(parser: argparse.ArgumentParser, job: str, model: tuple[str, ...], help: str):
    """--run REP RUN_DIR (one repetition's job folder) and --model REP <model...>, each
    given once per repetition or model."""
    parser.add_argument(
        "--run",
        nargs=2,
        action="append",
        required=True,
        metavar=("REP", "RUN_DIR"),
        help=f"one repetition's {job} job folder",
    )
    parser.add_argument(
        "--model",
        nargs=1 + len(model),
        action="append",
        required=True,
        metavar=("REP", *model),
        help=help,
    )


def runs(pairs: list[list[str]]) -> dict[str, Path]:
    """Repetition → job folder of the --run options; ArgumentTypeError for a bad number."""
    return {repetition(rep): Path(path) for rep, path in pairs}


def models(rows: list[list[str]]) -> list[tuple[str, ...]]:
    """The --model options with their repetitions canonical."""
    return [(repetition(rep), *rest) for rep, *rest in rows]
