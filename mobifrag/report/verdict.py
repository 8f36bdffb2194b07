"""A claim's verdict from its band and the measured values of its repetitions.

A band is the range of measured values that reproduces a claim, derived from the
paper's number (config/claims.yaml says how for each claim). A measurement is the
claim's statistic in each repetition of the experiment; its point value is their median
and its interval a 95 % percentile bootstrap of the median (`scipy.stats.bootstrap`;
run-time distributions are not normal, so no t interval). The verdict compares the whole
interval with the band:

- reproduced: the interval lies inside the band;
- not reproduced: the interval lies outside it;
- inconclusive: the interval overlaps an edge, so more repetitions or a smaller effect
  would decide.
"""

from __future__ import annotations

import hashlib
import math
import statistics
from dataclasses import dataclass

import numpy as np
from scipy import stats

REPRODUCED = "reproduced"
NOT_REPRODUCED = "not reproduced"
INCONCLUSIVE = "inconclusive"
NOT_REACHED = "not reached"
BEYOND_PLATFORM = "beyond the platform"
CALIBRATED = "calibrated"
NOT_JUDGED = "not judged"
NOT_MEASURED = "not measured"

# Every verdict, in the order reports list them. Only the first three count as judged.
VERDICTS = (
    REPRODUCED,
    NOT_REPRODUCED,
    INCONCLUSIVE,
    NOT_REACHED,
    BEYOND_PLATFORM,
    CALIBRATED,
    NOT_JUDGED,
    NOT_MEASURED,
)
JUDGED = (REPRODUCED, NOT_REPRODUCED, INCONCLUSIVE)

BOOTSTRAP_SAMPLES = 2000
CONFIDENCE = 0.95
# A median of two or three values resampled is the smallest of them in over a quarter of
# the resamples (1/4 of two, 7/27 of three), and the largest as often: the 2.5 % and
# 97.5 % percentiles are the range. It is returned as such, independent of the draws.
RANGE_REPETITIONS = 3


class BandError(ValueError):
    """A reproduction rule that gives no band; the message names the rule."""


@dataclass(frozen=True)
class Band:
    """Measured values in (low, high), each edge open or closed."""

    low: float = -math.inf
    high: float = math.inf
    low_open: bool = False
    high_open: bool = False

    def above_low(self, value: float) -> bool:
        return value > self.low if self.low_open else value >= self.low

    def below_high(self, value: float) -> bool:
        return value < self.high if self.high_open else value <= self.high

    def contains(self, value: float) -> bool:
        return self.above_low(value) and self.below_high(value)


@dataclass(frozen=True)
class Measurement:
    """A claim's statistic over repetitions: median and bootstrap interval."""

    values: tuple[float, ...]

    @property
    def point(self) -> float:
        return statistics.median(self.values)

    @property
    def repetitions(self) -> int:
        return len(self.values)

    def interval(self, seed: str = "") -> tuple[float, float]:
        return bootstrap_interval(self.values, seed)


def band(rule: dict, paper: float | None) -> Band:
    """The band of measured values a reproduction rule accepts; BandError for one that
    accepts nothing or cannot be computed (an edge that is not a finite number, a low
    edge above the high one, a tolerance around a paper value of 0)."""
    (kind, value), *_ = rule.items()
    edges = value if isinstance(value, list) else [value]
    if not all(isinstance(e, (int, float)) and math.isfinite(e) for e in edges):
        raise BandError(f"rule {rule}: every edge must be a finite number")
    if paper is not None and not math.isfinite(paper):
        raise BandError(f"paper_value {paper} is not a finite number")
    if kind in ("between", "ratio_band") and value[0] > value[1]:
        raise BandError(f"rule {rule}: its low edge is above its high edge")
    if kind == "relative_tolerance" and paper == 0:
        raise BandError(f"rule {rule}: a relative tolerance around a paper value of 0 is empty")
    if kind == "greater_than":
        return Band(low=value, low_open=True)
    if kind == "less_than":
        return Band(high=value, high_open=True)
    if kind == "between":
        return Band(*value)
    if paper is None:
        raise BandError(f"rule {rule} compares with the paper's value, but the claim has none")
    if kind == "ratio_band":
        low, high = sorted((value[0] * paper, value[1] * paper))
        return Band(low, high)
    if kind == "relative_tolerance":
        return Band(paper - value * abs(paper), paper + value * abs(paper))
    if kind == "absolute_tolerance":
        return Band(paper - value, paper + value)
    raise BandError(f"unknown reproduction rule {rule}")


def bootstrap_interval(values: tuple[float, ...], seed: str = "") -> tuple[float, float]:
    """95 % percentile bootstrap interval of the median; the seed (e.g. a claim id)
    makes the interval repeatable."""
    if len(set(values)) <= 1:
        return values[0], values[0]
    if len(values) <= RANGE_REPETITIONS:
        return min(values), max(values)
    result = stats.bootstrap(
        (np.asarray(values, dtype=float),),
        np.median,
        n_resamples=BOOTSTRAP_SAMPLES,
        confidence_level=CONFIDENCE,
        method="percentile",
        rng=seeded_generator(seed),
    )
    # Every resample's median lies within the values; the percentile's interpolation
    # between two equal medians can still land an ulp outside them.
    low, high = np.clip(
        (result.confidence_interval.low, result.confidence_interval.high),
        min(values),
        max(values),
    )
    return float(low), float(high)


def seeded_generator(seed: str) -> np.random.Generator:
    """The same string always gives the same resamples."""
    return np.random.default_rng(int(hashlib.sha256(seed.encode()).hexdigest()[:16], 16))


def judge(accepted: Band, interval: tuple[float, float]) -> str:
    """reproduced, not reproduced or inconclusive: where the interval lies in the band."""
    low, high = interval
    if accepted.contains(low) and accepted.contains(high):
        return REPRODUCED
    if not accepted.below_high(low) or not accepted.above_low(high):
        return NOT_REPRODUCED
    return INCONCLUSIVE
