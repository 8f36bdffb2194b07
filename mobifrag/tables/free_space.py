"""The free space of aged states, checked against what the papers describe: one table
of every state's utilization, largest and mean free extent and free-extent histogram
(e2freefrag), and an error naming each state that breaks its target.

    python -m mobifrag.tables.free_space \\
        --state severe free=aged/severe/freespace.txt df=aged/severe/df.txt level=high \\
            largest_at_most=8192 \\
        --state high free=... df=... level=high largest_below=524288 mean_at_most=176000 \\
        --state util-90 free=... df=... level=high utilization_near=90 largest_below=524288 \\
        --out free-space.csv

Per state: `free` (e2freefrag's report) and `df` (`df -k`) are required; `level` names
the utilization band the state must lie in (TMC §4.3: Moderate below 80 %, High 80 to
95 %, Full above 95 %; Low is pristine and has none); `utilization_near` the
utilization (percent) the aging thinned to, which the state must lie within
UTILIZATION_TOLERANCE points of (janusd §2.3's 70 % and 90 %); `largest_at_most` /
`largest_below` bound the largest free extent (bytes; "below" allows whole blocks under
it), `mean_at_most` the mean free extent. A state without targets is only recorded.

The table has one row per state and histogram range (power-of-two sizes, as e2freefrag
counts them), the state's summary repeated on each; a state with no free extent has one
row with empty range columns. When a state breaks a target nothing is written and the
command exits 1, each broken target on its own line of stderr. A phone without
e2freefrag (the adb runner's stand-in says so) gives a state whose extents are not
measured: its row has `measured` no and empty extent columns, only its utilization is
checked, and a warning names it.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path

from mobifrag.measure.free_space import (
    KIB,
    FreeSpace,
    FreeSpaceError,
    read_df_utilization,
    read_e2freefrag,
)
from mobifrag.workflow.atomic import write_table

# TMC §4.3: "Moderate (the space utilization was less than 80 percent), High (between 80
# and 95 percent) and Full (higher than 95 percent)"; None: no bound on that side.
LEVEL_BANDS: dict[str, tuple[float | None, float | None]] = {
    "moderate": (None, 80.0),
    "high": (80.0, 95.0),
    "full": (95.0, None),
}
PRISTINE_LEVELS = ("low",)
# Points a state aged to a utilization may lie from it: the thinning deletes files until
# the file system is at or below its target, one file at a time (at most 500 KB, 0.2 % of
# the smallest disk, 256 MiB), so a state further away ran out of files it could delete.
UTILIZATION_TOLERANCE = 2.0
KEYS = (
    "free",
    "df",
    "level",
    "utilization_near",
    "largest_at_most",
    "largest_below",
    "mean_at_most",
)
COLUMNS = (
    "state",
    "level",
    "measured",
    "utilization_percent",
    "utilization_target_percent",
    "free_kib",
    "free_extents",
    "largest_free_kib",
    "mean_free_kib",
    "largest_limit_kib",
    "mean_limit_kib",
    "from_kib",
    "to_kib",
    "extents",
    "extents_free_kib",
)


class TargetError(ValueError):
    """A bad --state argument; the message names the state and the token."""


@dataclass(frozen=True)
class Target:
    """What one aged state must hold; None: not checked."""

    level: str | None = None
    utilization_near: float | None = None
    largest_at_most: int | None = None
    largest_below: int | None = None
    mean_at_most: int | None = None


@dataclass(frozen=True)
class State:
    name: str
    free_path: Path
    df_path: Path
    target: Target


@dataclass(frozen=True)
class Measured:
    state: State
    space: FreeSpace | None  # None: the device had no e2freefrag
    utilization: float

    def largest_limit(self) -> int | None:
        """The largest free extent allowed, in bytes (whole blocks for `largest_below`)."""
        if self.space is None:
            return None
        target, block = self.state.target, self.space.block_size
        limits = []
        if target.largest_at_most is not None:
            limits.append(target.largest_at_most)
        if target.largest_below is not None:
            limits.append((target.largest_below - 1) // block * block)
        return min(limits) if limits else None


def _byte_count(state: str, key: str, text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value <= 0:
        raise TargetError(f"--state {state}: {key}={text!r} is not a positive byte count")
    return value


def parse_state(tokens: list[str]) -> State:
    """NAME key=value ... of one --state."""
    if not tokens or "=" in tokens[0]:
        raise TargetError(f"--state {' '.join(tokens)}: the first word must be the name")
    name, values = tokens[0], {}
    for token in tokens[1:]:
        key, sep, value = token.partition("=")
        if not sep or key not in KEYS:
            raise TargetError(
                f"--state {name}: {token!r} is not key=value with a key of {', '.join(KEYS)}"
            )
        values[key] = value
    for required in ("free", "df"):
        if required not in values:
            raise TargetError(f"--state {name}: {required}=PATH is missing")
    level = values.get("level")
    if level is not None and level not in (*LEVEL_BANDS, *PRISTINE_LEVELS):
        known = ", ".join((*PRISTINE_LEVELS, *LEVEL_BANDS))
        raise TargetError(f"--state {name}: level={level!r} is not one of {known}")
    limits = {
        key: _byte_count(name, key, values[key])
        for key in ("largest_at_most", "largest_below", "mean_at_most")
        if key in values
    }
    near = None
    if "utilization_near" in values:
        near = _percent(name, "utilization_near", values["utilization_near"])
    target = Target(level, near, **limits)
    return State(name, Path(values["free"]), Path(values["df"]), target)


def _percent(state: str, key: str, text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 < value < 100:
        raise TargetError(f"--state {state}: {key}={text!r} is not a percentage in (0, 100)")
    return value


def measure(state: State) -> Measured:
    space = read_e2freefrag(state.free_path)
    return Measured(state, space, read_df_utilization(state.df_path))


def _size(nbytes: float) -> str:
    if nbytes >= KIB**2:
        return f"{nbytes / KIB**2:.1f} MiB"
    return f"{nbytes / KIB:.0f} KiB"


def _band_text(level: str) -> str:
    low, high = LEVEL_BANDS[level]
    if low is None:
        return f"below {high:g} %"
    if high is None:
        return f"above {low:g} %"
    return f"{low:g}-{high:g} %"


def _outside(utilization: float, level: str) -> bool:
    """A one-sided band is strict ("less than 80", "higher than 95"), High's two-sided
    one takes its ends ("between 80 and 95")."""
    low, high = LEVEL_BANDS[level]
    if low is None:
        return utilization >= high
    if high is None:
        return utilization <= low
    return not low <= utilization <= high


def broken_targets(measured: Measured) -> list[str]:
    """One message per target the state breaks, naming the state, the measure and the
    limit; empty when it meets them all."""
    state, space = measured.state, measured.space
    where = f"({state.free_path})"
    problems = []
    level = state.target.level
    if level in LEVEL_BANDS and _outside(measured.utilization, level):
        problems.append(
            f"{state.name}: utilization {measured.utilization:.1f} % is outside"
            f" {level.capitalize()}'s {_band_text(level)} (TMC §4.3) ({state.df_path})"
        )
    near = state.target.utilization_near
    if near is not None and abs(measured.utilization - near) > UTILIZATION_TOLERANCE:
        problems.append(
            f"{state.name}: utilization {measured.utilization:.1f} % is more than"
            f" {UTILIZATION_TOLERANCE:g} points from its target {near:g} % ({state.df_path})"
        )
    if space is None:
        return problems
    limit = measured.largest_limit()
    if limit is not None and space.largest_bytes > limit:
        problems.append(
            f"{state.name}: largest free extent {_size(space.largest_bytes)} is above the"
            f" limit of {_size(limit)} {where}"
        )
    mean_limit = state.target.mean_at_most
    if mean_limit is not None and space.mean_bytes > mean_limit:
        problems.append(
            f"{state.name}: mean free extent {_size(space.mean_bytes)} is above the limit"
            f" of {_size(mean_limit)} {where}"
        )
    return problems


def _kib(nbytes: float | None) -> object:
    return "" if nbytes is None else round(nbytes / KIB, 1)


def rows(measured: Measured) -> list[dict[str, object]]:
    space = measured.space
    empty = {"from_kib": "", "to_kib": "", "extents": "", "extents_free_kib": ""}
    summary = {
        "state": measured.state.name,
        "level": measured.state.target.level or "",
        "measured": "no" if space is None else "yes",
        "utilization_percent": round(measured.utilization, 2),
        "utilization_target_percent": (
            "" if (near := measured.state.target.utilization_near) is None else f"{near:g}"
        ),
    }
    if space is None:
        return [{**summary, **{c: "" for c in COLUMNS if c not in summary}}]
    summary |= {
        "free_kib": _kib(space.free_bytes),
        "free_extents": space.free_extents,
        "largest_free_kib": _kib(space.largest_bytes),
        "mean_free_kib": _kib(space.mean_bytes),
        "largest_limit_kib": _kib(measured.largest_limit()),
        "mean_limit_kib": _kib(measured.state.target.mean_at_most),
    }
    if not space.buckets:
        return [{**summary, **empty}]
    return [
        {
            **summary,
            "from_kib": _kib(bucket.from_bytes),
            "to_kib": _kib(bucket.to_bytes),
            "extents": bucket.extents,
            "extents_free_kib": _kib(bucket.blocks * space.block_size),
        }
        for bucket in space.buckets
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--state", nargs="+", action="append", required=True, metavar="NAME KEY=VALUE"
    )
    parser.add_argument("--out", required=True, type=Path)
    args = parser.parse_args(argv)
    try:
        states = [parse_state(tokens) for tokens in args.state]
        measured = [measure(state) for state in states]
    except (TargetError, FreeSpaceError) as error:
        print(f"free_space: {error}", file=sys.stderr)
        return 1
    for m in measured:
        if m.space is None:
            print(
                f"free_space: warning: {m.state.name}: no e2freefrag on the device, its free"
                f" extents are not measured nor checked ({m.state.free_path})",
                file=sys.stderr,
            )
    problems = [problem for m in measured for problem in broken_targets(m)]
    if problems:
        print("free_space: aged states break their free-space targets:", file=sys.stderr)
        for problem in problems:
            print(f"  {problem}", file=sys.stderr)
        return 1
    write_table(args.out, COLUMNS, [row for m in measured for row in rows(m)])
    return 0


if __name__ == "__main__":
    sys.exit(main())
