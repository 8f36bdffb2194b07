"""The five classifiers of ARS Table I over seeded random train/test splits.

Each split is a random division of one app's data set (`test_share` for testing, ARS:
75 % training; stratified by the label when `stratify`), drawn from a seed derived from
the config's `seed`, so the same config gives the same splits. Every model is fitted on
the training part and scored on the test part: precision, recall, accuracy (ARS Table
I), balanced accuracy (the mean of both labels' recall: 0.5 for a model that always
answers the majority label, however rare the other) and the time of the fit (ARS Table
II). The fit is timed `timing_repeats` times and the fastest kept, so a one-off pause of
a loaded machine does not count as training cost.
"""

from __future__ import annotations

import math
import time

import numpy as np
from sklearn.base import clone
from sklearn.ensemble import AdaBoostClassifier, RandomForestClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import (
    accuracy_score,
    balanced_accuracy_score,
    precision_score,
    recall_score,
)
from sklearn.model_selection import train_test_split
from sklearn.neighbors import KNeighborsClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.tree import DecisionTreeClassifier

from mobifrag.workloads.ars_selection.descriptors import FEATURES

MODELS = ("knn", "logistic_regression", "decision_tree", "adaboost", "random_forest")
METRICS = ("precision", "recall", "accuracy", "balanced_accuracy")
RANDOMIZED = {"decision_tree", "adaboost", "random_forest", "logistic_regression"}
CONSTRUCTORS = {
    "knn": KNeighborsClassifier,
    "logistic_regression": LogisticRegression,
    "decision_tree": DecisionTreeClassifier,  # CART (ARS §IV.A)
    "adaboost": AdaBoostClassifier,
    "random_forest": RandomForestClassifier,
}


class SelectionError(ValueError):
    """A data set or a parameter the classifiers cannot work with."""


def build(name: str, params: dict, seed: int, standardize: bool = False):
    """One unfitted classifier; `standardize` puts a StandardScaler in front."""
    if name not in CONSTRUCTORS:
        raise SelectionError(f"unknown model {name!r}; known: {', '.join(MODELS)}")
    kwargs = dict(params)
    if name in RANDOMIZED:
        kwargs["random_state"] = seed
    try:
        model = CONSTRUCTORS[name](**kwargs)
    except TypeError as error:
        raise SelectionError(f"model {name}: {error}") from None
    return make_pipeline(StandardScaler(), model) if standardize else model


def matrix(rows: list[dict]) -> tuple[np.ndarray, np.ndarray]:
    """Feature matrix and labels of data set rows."""
    x = np.array([[float(row[f]) for f in FEATURES] for row in rows], dtype=float)
    y = np.array([int(row["reserve"]) for row in rows], dtype=int)
    return x, y


def check_dataset(name: str, y: np.ndarray, test_share: float) -> None:
    counts = np.bincount(y, minlength=2)
    if len(y) < 8:
        raise SelectionError(f"{name}: {len(y)} files, too few to split for training")
    if counts.min() < 2:
        raise SelectionError(
            f"{name}: labels reserve=0/1 occur {counts[0]}/{counts[1]} times; both are "
            "needed at least twice (check fragmented_dof_above and the replay's DoF table)"
        )
    if not 0 < test_share < 1:
        raise SelectionError(f"test_share {test_share} is not between 0 and 1")


def held_out_files(files: int, test_share: float) -> int:
    """Files in each test set: the share rounded up, as train_test_split rounds it."""
    return math.ceil(files * test_share)


def split_seeds(seed: int, splits: int) -> list[int]:
    """One seed per split, derived from the config's seed."""
    return [int(s) for s in np.random.SeedSequence(seed).generate_state(splits)]


def timed_fit(model, x: np.ndarray, y: np.ndarray, repeats: int):
    """The fitted model and the fastest of `repeats` fit times (seconds)."""
    best = float("inf")
    fitted = None
    for _ in range(max(1, repeats)):
        candidate = clone(model)
        start = time.perf_counter()
        candidate.fit(x, y)
        best = min(best, time.perf_counter() - start)
        fitted = candidate
    return fitted, best


def scores(y_true: np.ndarray, y_pred: np.ndarray, average: str) -> dict[str, float]:
    return {
        "precision": precision_score(y_true, y_pred, average=average, zero_division=0),
        "recall": recall_score(y_true, y_pred, average=average, zero_division=0),
        "accuracy": accuracy_score(y_true, y_pred),
        "balanced_accuracy": balanced_accuracy_score(y_true, y_pred),
    }


def divisions(x: np.ndarray, y: np.ndarray, params: dict, seed: int):
    """(split, its seed, x_train, x_test, y_train, y_test) of each random division."""
    for split, split_seed in enumerate(split_seeds(seed, params["splits"])):
        yield (
            split,
            split_seed,
            *train_test_split(
                x,
                y,
                test_size=params["test_share"],
                random_state=split_seed,
                stratify=y if params["stratify"] else None,
            ),
        )


def compare(app: str, rows: list[dict], params: dict, seed: int) -> list[dict]:
    """One row per (split, model): the metrics of Table I, the fit time of Table II and
    the test set (its files, and those labelled reserve)."""
    x, y = matrix(rows)
    check_dataset(app, y, params["test_share"])
    out = []
    for split, split_seed, x_train, x_test, y_train, y_test in divisions(x, y, params, seed):
        test = {"test_files": len(y_test), "test_reserve": int(y_test.sum())}
        for name in MODELS:
            model = build(name, params["models"][name], split_seed, params["standardize"])
            try:
                fitted, seconds = timed_fit(model, x_train, y_train, params["timing_repeats"])
            except ValueError as error:
                raise SelectionError(f"{app}, split {split}, {name}: {error}") from None
            metrics = scores(y_test, fitted.predict(x_test), params["average"])
            out.append(
                {"app": app, "model": name, "split": split, **metrics, "fit_seconds": seconds}
                | test
            )
    return out
