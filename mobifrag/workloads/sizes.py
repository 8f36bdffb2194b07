"""Sizes on command lines: 4096, 64k, 1.5GiB (binary units)."""

import argparse


def size_argument(text: str) -> int:
    units = {"k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}
    lowered = text.strip().lower().removesuffix("ib").removesuffix("b")
    factor = units.get(lowered[-1:], 1)
    number = lowered[:-1] if lowered[-1:] in units else lowered
    try:
        value = int(float(number) * factor)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text} is not a size") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"{text} is not positive")
    return value
