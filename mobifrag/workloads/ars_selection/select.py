"""The decision tree (CART) picks the files to reserve (ARS §IV.A, §V.B–C).

The tree is fitted on the app's whole data set with the configured parameters and the
config's seed, then decides for every file of it. The replay marks files by path when
they are created, so the selection list holds the paths most of whose files (lives of the
path, `features.py`) the tree decides to reserve; the ARS evaluation replays the same
trace with it.
"""

from __future__ import annotations

from mobifrag.workloads.ars_selection.models import build, check_dataset, matrix

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
    """Paths the tree reserves for more than half of their files."""
    votes: dict[str, int] = {}
    for row in decisions:
        votes[row["path"]] = votes.get(row["path"], 0) + (1 if int(row["decision"]) else -1)
    return sorted(path for path, vote in votes.items() if vote > 0)
