"""Classifier comparison (ARS Tables I–II) and the decision tree's selection list."""

import csv
import random

import pytest

from mobifrag.workloads.ars_selection.__main__ import main
from mobifrag.workloads.ars_selection.models import METRICS, MODELS, SelectionError, compare
from mobifrag.workloads.ars_selection.select import decide, reserved_paths
from mobifrag.workloads.ars_selection.tables import table1, table2

PARAMS = {
    "written_many_more_than": 100,
    "fragmented_dof_above": 1.0,
    "splits": 3,
    "test_share": 0.25,
    "stratify": True,
    "average": "weighted",
    "standardize": False,
    "timing_repeats": 1,
    "models": {
        "knn": {"n_neighbors": 3},
        "logistic_regression": {"max_iter": 200},
        "decision_tree": {},
        "adaboost": {"n_estimators": 5},
        "random_forest": {"n_estimators": 5},
    },
}


def dataset(n=60, seed=3):
    """Files whose label follows their write count, with some label noise."""
    rng = random.Random(seed)
    rows = []
    for i in range(n):
        writes = rng.randrange(1, 400)
        reserve = int(writes > 150) if rng.random() > 0.1 else int(writes <= 150)
        rows.append(
            {
                "path": f"f{i:03d}",
                "size_bytes": rng.randrange(4096, 1 << 20),
                "write_interval_s": rng.random() * 300,
                "write_requests": writes,
                "reserve": reserve,
            }
        )
    return rows


def without_time(rows):
    return [{k: v for k, v in r.items() if k != "fit_seconds"} for r in rows]


def test_same_seed_same_splits_and_scores():
    assert without_time(compare("a", dataset(), PARAMS, 7)) == without_time(
        compare("a", dataset(), PARAMS, 7)
    )


def test_other_seed_other_splits():
    knn = {**PARAMS, "splits": 3}
    first = [r["accuracy"] for r in compare("a", dataset(), knn, 7) if r["model"] == "knn"]
    other = [r["accuracy"] for r in compare("a", dataset(), knn, 8) if r["model"] == "knn"]
    assert first != other


def test_tables_hold_every_model_and_metric():
    rows = compare("fb", dataset(), PARAMS, 1) + compare("tw", dataset(seed=4), PARAMS, 1)
    t1 = table1(rows)
    assert {(r["app"], r["model"], r["metric"]) for r in t1} == {
        (app, m, metric) for app in ("fb", "tw") for m in MODELS for metric in METRICS
    }
    assert all(r["splits"] == PARAMS["splits"] for r in t1)
    assert all(0 <= float(r["mean"]) <= 1 for r in t1)
    t2 = table2(rows)
    assert {(r["app"], r["model"]) for r in t2} == {(a, m) for a in ("fb", "tw") for m in MODELS}
    for app in ("fb", "tw"):
        ratios = [float(r["relative_to_fastest"]) for r in t2 if r["app"] == app]
        assert min(ratios) == 1 and all(x >= 1 for x in ratios)


def test_one_label_only_is_refused():
    rows = [{**r, "reserve": 0} for r in dataset()]
    with pytest.raises(SelectionError, match="labels reserve=0/1 occur 60/0 times"):
        compare("app", rows, PARAMS, 1)


def test_unknown_hyper_parameter_is_named():
    params = {**PARAMS, "models": {**PARAMS["models"], "knn": {"neighbours": 3}}}
    with pytest.raises(SelectionError, match="model knn: .*neighbours"):
        compare("app", dataset(), params, 1)


def test_tree_picks_the_written_many_files():
    rows = [{**r, "reserve": int(r["write_requests"] > 150)} for r in dataset()]
    decisions = decide("app", rows, PARAMS, 1)
    expected = sorted(r["path"] for r in rows if r["write_requests"] > 150)
    assert reserved_paths(decisions) == expected


def test_select_command_writes_list_and_decisions(tmp_path):
    table = tmp_path / "dataset.csv"
    rows = [{**r, "reserve": int(r["write_requests"] > 150)} for r in dataset()]
    with open(table, "w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    params = tmp_path / "params.json"
    params.write_text(__import__("json").dumps(PARAMS))
    args = ["select", "--app", "x", "--dataset", str(table), "--params", str(params)]
    args += ["--seed", "1", "--decisions", str(tmp_path / "d.csv")]
    assert main(args + ["--reserved", str(tmp_path / "reserved.txt")]) == 0
    listed = (tmp_path / "reserved.txt").read_text().split()
    assert listed == sorted(r["path"] for r in rows if r["reserve"])
    with open(tmp_path / "d.csv", newline="") as handle:
        decided = list(csv.DictReader(handle))
    assert len(decided) == len(rows) and "decision" in decided[0]


def test_a_path_is_reserved_when_most_of_its_files_are():
    decisions = [
        {"path": "journal", "decision": 1},
        {"path": "journal", "decision": 0},
        {"path": "journal", "decision": 0},
        {"path": "db", "decision": 1},
        {"path": "db", "decision": 1},
        {"path": "db", "decision": 0},
        {"path": "tie", "decision": 1},
        {"path": "tie", "decision": 0},
    ]
    assert reserved_paths(decisions) == ["db"]
