"""Classifier comparison (ARS Tables I–II) and the decision tree's selection list."""

import csv
import json
import random

import numpy as np
import pytest

from mobifrag.workloads.ars_selection.__main__ import main
from mobifrag.workloads.ars_selection.models import (
    METRICS,
    MODELS,
    SelectionError,
    compare,
    divisions,
    matrix,
    scores,
)
from mobifrag.workloads.ars_selection.select import decide, reserved_paths
from mobifrag.workloads.ars_selection.tables import table1, table2

PARAMS = {
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
                "descriptor": i,
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


def runs(*sources):
    """Split rows of (app, rep, data-set seed) as compare's command labels them."""
    return [
        {"rep": rep, **row}
        for app, rep, seed in sources
        for row in compare(app, dataset(seed=seed), PARAMS, 1)
    ]


def test_tables_hold_every_model_and_metric():
    rows = runs(("fb", 1, 3), ("tw", 1, 4))
    t1 = table1(rows)
    assert {(r["app"], r["model"], r["metric"]) for r in t1} == {
        (app, m, metric) for app in ("fb", "tw") for m in MODELS for metric in METRICS
    }
    assert all(r["splits"] == PARAMS["splits"] for r in t1)
    assert all(r["test_files"] == "15" for r in t1)  # a quarter of 60, rounded up
    assert all(0 <= float(r["mean"]) <= 1 for r in t1)
    t2 = table2(rows)
    assert {(r["app"], r["model"]) for r in t2} == {(a, m) for a in ("fb", "tw") for m in MODELS}
    for app in ("fb", "tw"):
        ratios = [float(r["relative_to_fastest"]) for r in t2 if r["app"] == app]
        assert min(ratios) == 1 and all(x >= 1 for x in ratios)


def test_tables_keep_each_repetition_apart():
    """Two replays' data sets of one app: a row per repetition, each over its own splits,
    and training times relative to the fastest model of the same repetition."""
    rows = runs(("fb", 1, 3), ("fb", 2, 9))
    t1 = table1(rows)
    accuracy = {
        r["rep"]: float(r["mean"])
        for r in t1
        if r["model"] == "decision_tree" and r["metric"] == "accuracy"
    }
    one = [r for r in rows if r["rep"] == 1 and r["model"] == "decision_tree"]
    assert set(accuracy) == {1, 2}
    assert accuracy[1] == pytest.approx(sum(r["accuracy"] for r in one) / len(one), abs=1e-6)
    t2 = table2(rows)
    for rep in (1, 2):
        ratios = [float(r["relative_to_fastest"]) for r in t2 if r["rep"] == rep]
        assert len(ratios) == len(MODELS) and min(ratios) == 1


def write_csv(path, rows):
    with open(path, "w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


def test_compare_command_labels_each_data_set_with_its_repetition(tmp_path):
    write_csv(tmp_path / "a.csv", dataset(seed=3))
    write_csv(tmp_path / "b.csv", dataset(seed=9))
    params = tmp_path / "params.json"
    params.write_text(json.dumps(PARAMS))
    out = {name: tmp_path / f"{name}.csv" for name in ("splits", "table1", "table2")}
    args = ["compare", "--dataset", f"fb={tmp_path / 'a.csv'}"]
    args += ["--dataset", f"fb:2={tmp_path / 'b.csv'}", "--params", str(params)]
    args += ["--seed", "1"] + [f"--{name}={path}" for name, path in out.items()]
    assert main(args) == 0
    with open(out["table1"], newline="") as handle:
        table = list(csv.DictReader(handle))
    assert {(r["rep"], r["app"]) for r in table} == {("1", "fb"), ("2", "fb")}


@pytest.mark.parametrize("source", ["fb:0=x.csv", "fb:two=x.csv", ":1=x.csv", "fb:1"])
def test_compare_refuses_a_malformed_data_set_source(source, capsys):
    with pytest.raises(SystemExit):
        main(
            ["compare", "--dataset", source, "--params", "{}", "--seed", "1"]
            + ["--splits", "s", "--table1", "t1", "--table2", "t2"]
        )
    assert "expected APP=PATH or APP:REP=PATH" in capsys.readouterr().err


def test_compare_refuses_one_repetition_of_an_app_twice(tmp_path, capsys):
    write_csv(tmp_path / "a.csv", dataset())
    params = tmp_path / "params.json"
    params.write_text(json.dumps(PARAMS))
    args = ["compare", "--dataset", f"fb={tmp_path / 'a.csv'}"]
    args += ["--dataset", f"fb:1={tmp_path / 'a.csv'}", "--params", str(params), "--seed", "1"]
    args += ["--splits", "s", "--table1", "t1", "--table2", "t2"]
    assert main(args) == 65
    assert "fb:1 given more than once" in capsys.readouterr().err


def test_one_label_only_is_refused():
    rows = [{**r, "reserve": 0} for r in dataset()]
    with pytest.raises(SelectionError, match="labels reserve=0/1 occur 60/0 times"):
        compare("app", rows, PARAMS, 1)


def test_unknown_hyper_parameter_is_named():
    params = {**PARAMS, "models": {**PARAMS["models"], "knn": {"neighbours": 3}}}
    with pytest.raises(SelectionError, match="model knn: .*neighbours"):
        compare("app", dataset(), params, 1)


def files_of(rows):
    """Two replayed files per descriptor, as a Mobibench descriptor opened twice."""
    return [
        {"descriptor": r["descriptor"], "path": f"mg/temp_{r['descriptor']}_{n}.dat"}
        for r in rows
        for n in (0, 1)
    ]


def test_tree_reserves_every_file_of_the_descriptors_it_picks():
    rows = [{**r, "reserve": int(r["write_requests"] > 150)} for r in dataset()]
    decisions = decide("app", rows, PARAMS, 1)
    picked = [r["descriptor"] for r in rows if r["write_requests"] > 150]
    expected = sorted(f"mg/temp_{d}_{n}.dat" for d in picked for n in (0, 1))
    assert reserved_paths(decisions, files_of(rows)) == expected


def test_select_command_writes_list_and_decisions(tmp_path):
    rows = [{**r, "reserve": int(r["write_requests"] > 150)} for r in dataset()]
    for name, table in (("dataset.csv", rows), ("files.csv", files_of(rows))):
        write_csv(tmp_path / name, table)
    params = tmp_path / "params.json"
    params.write_text(json.dumps(PARAMS))
    args = ["select", "--app", "x", "--dataset", str(tmp_path / "dataset.csv")]
    args += ["--files", str(tmp_path / "files.csv"), "--params", str(params)]
    args += ["--seed", "1", "--decisions", str(tmp_path / "d.csv")]
    assert main(args + ["--reserved", str(tmp_path / "reserved.txt")]) == 0
    listed = (tmp_path / "reserved.txt").read_text().split()
    reserved = [r["descriptor"] for r in rows if r["reserve"]]
    assert listed == sorted(f"mg/temp_{d}_{n}.dat" for d in reserved for n in (0, 1))
    with open(tmp_path / "d.csv", newline="") as handle:
        decided = list(csv.DictReader(handle))
    assert len(decided) == len(rows) and "decision" in decided[0]


def test_balanced_accuracy_sees_through_the_majority_label():
    """Never reserving scores the majority's share as accuracy but 0.5 balanced."""
    truth = np.array([0] * 99 + [1])
    never = np.zeros(100, dtype=int)
    got = scores(truth, never, "weighted")
    assert got["accuracy"] == pytest.approx(0.99)
    assert got["balanced_accuracy"] == pytest.approx(0.5)
    assert scores(truth, truth, "weighted")["balanced_accuracy"] == 1


def test_paper_sized_data_set_splits_stratified():
    """91 files (Mobibench's Facebook descriptors), 20 labelled reserve: every split holds
    out 23 files (ARS Table I's test sets) with the label shares of the whole."""
    rows = dataset(n=91, seed=5)
    positives = set(random.Random(2).sample(range(91), 20))
    x, y = matrix([{**r, "reserve": int(i in positives)} for i, r in enumerate(rows)])

    def held_out(stratify):
        params = {**PARAMS, "splits": 10, "stratify": stratify}
        return [(len(t), int(t.sum())) for *_, t in divisions(x, y, params, 1)]

    assert held_out(True) == [(23, 5)] * 10
    assert len(set(held_out(False))) > 1
