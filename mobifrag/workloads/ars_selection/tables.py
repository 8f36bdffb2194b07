"""Summaries of the per-split results: ARS Table I (metrics) and Table II (fit time), per
repetition of the selection's replay (column `rep`) and app."""

from __future__ import annotations

import statistics
from collections import defaultdict

from mobifrag.workloads.ars_selection.models import METRICS, MODELS

TABLE1_COLUMNS = ("rep", "app", "model", "metric", "mean", "sd", "splits", "test_files")
TABLE2_COLUMNS = ("rep", "app", "model", "fit_seconds", "sd", "splits", "relative_to_fastest")
SPLIT_COLUMNS = ("rep", "app", "model", "split") + METRICS + ("fit_seconds",)
SPLIT_COLUMNS += ("test_files", "test_reserve")


def _grouped(rows: list[dict], column: str) -> dict[tuple, list[float]]:
    """(rep, app, model) → the column's values over the splits."""
    groups: dict[tuple, list[float]] = defaultdict(list)
    for row in rows:
        groups[(row["rep"], row["app"], row["model"])].append(float(row[column]))
    return groups


def _sd(values: list[float]) -> float:
    return statistics.stdev(values) if len(values) > 1 else 0.0


def runs_in_order(rows: list[dict]) -> list[tuple]:
    """Each (rep, app) in the order the rows first name it."""
    return list(dict.fromkeys((row["rep"], row["app"]) for row in rows))


def table1(rows: list[dict]) -> list[dict]:
    """Mean and standard deviation over the splits of every repetition × app × model ×
    metric, and the files of each test set (every split holds out as many)."""
    held_out = _grouped(rows, "test_files")
    out = []
    for metric in METRICS:
        groups = _grouped(rows, metric)
        for rep, app in runs_in_order(rows):
            for model in MODELS:
                values = groups[(rep, app, model)]
                out.append(
                    {
                        "rep": rep,
                        "app": app,
                        "model": model,
                        "metric": metric,
                        "mean": f"{statistics.fmean(values):.6f}",
                        "sd": f"{_sd(values):.6f}",
                        "splits": len(values),
                        "test_files": f"{statistics.fmean(held_out[(rep, app, model)]):g}",
                    }
                )
    return out


def table2(rows: list[dict]) -> list[dict]:
    """Mean fit time of every app × model, and over the app's fastest model in the same
    repetition."""
    groups = _grouped(rows, "fit_seconds")
    out = []
    for rep, app in runs_in_order(rows):
        times = {model: groups[(rep, app, model)] for model in MODELS}
        means = {model: statistics.fmean(values) for model, values in times.items()}
        fastest = min(means.values())
        for model in MODELS:
            out.append(
                {
                    "rep": rep,
                    "app": app,
                    "model": model,
                    "fit_seconds": f"{means[model]:.9f}",
                    "sd": f"{_sd(times[model]):.9f}",
                    "splits": len(times[model]),
                    "relative_to_fastest": f"{means[model] / fastest:.4f}",
                }
            )
    return out
