"""The decision tree (CART) picks the files to reserve (ARS §IV.A, §V.C).

The tree is fitted on the app's whole data set with the configured parameters and the
config's seed, then decides for every descriptor of it. The replay marks files by path
when they are created, so the selection list holds every file the converted trace
writes through a descriptor the tree reserves (`files.csv` of the data set); ARS §V.C
replays the same Mobibench traces with it ("We repeat the decision tree learning process
... for Facebook and Twitter traces supplied by Mobibench").
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


def reserved_paths(decisions: list[dict], files: list[dict]) -> list[str]:
    """The files written through the descriptors the tree reserves, in path order."""
    chosen = {int(row["descriptor"]) for row in decisions if int(row["decision"])}
    return sorted(row["path"] for row in files if int(row["descriptor"]) in chosen)
