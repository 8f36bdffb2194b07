"""The decision tree (CART) picks the files to reserve (ARS §IV.A, §V.B–C).

The tree is fitted on the app's whole data set with the configured parameters and the
config's seed, then decides for every file of it; the files it decides to reserve are the
selection list the ARS evaluation replays the same trace with.
"""

from __future__ import annotations

from mobifrag.ars_selection.models import build, check_dataset, matrix

DECISION_COLUMNS = ("decision",)


def decide(app: str, rows: list[dict], params: dict, seed: int) -> list[dict]:
    """The data set rows with the tree's `decision` (1 = reserve) added."""
    x, y = matrix(rows)
    check_dataset(app, y, params["test_share"])
    tree = build("decision_tree", params["models"]["decision_tree"], seed, False)
    tree.fit(x, y)
    return [
        {**row, "decision": int(decision)}
        for row, decision in zip(rows, tree.predict(x), strict=True)
    ]


def reserved_paths(decisions: list[dict]) -> list[str]:
    return sorted(row["path"] for row in decisions if int(row["decision"]) == 1)
