"""Repetition numbers on the command line of the tables of repeated experiments (config
`repeated`): the `rep` column that claims take medians and intervals over."""

from __future__ import annotations

import argparse


def repetition(text: str) -> str:
    """An argparse type: a repetition number from 1, as its canonical text."""
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"a repetition is a number from 1, not {text!r}")
    return str(int(text))


def in_order(reps) -> list[str]:
    """Repetition numbers in numeric order (rep 10 after rep 2)."""
    return sorted(reps, key=int)
