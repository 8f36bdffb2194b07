"""What a report says beside a claim that was not reproduced, and how it counts verdicts
by paper and by check.

The reason shown is what the run itself says (the verdict's note: a regime not reached,
a platform limit, a missing table), else where the measured interval lies against the
band, followed by the claim's last `history:` entry of its own (what was changed last,
and why) from config/claims.yaml and how many entries shared with other claims (one
change written into every claim it touches, such as a device profile's) came after it. A claim not
reproduced also shows its `diagnosis:` (the cause's category and the measurement behind
it), written in the claims file from an earlier run's tables; one without is flagged
"no diagnosis yet" rather than failing the report, so a new miss is seen. Both the
claims markdown (mobifrag/report/claims.py) and the HTML report
(mobifrag/report/html.py) write these, from a claims.csv row and the claim.
"""

from __future__ import annotations

import math
from collections import Counter

from mobifrag.report.verdict import CALIBRATED, INCONCLUSIVE, NOT_REPRODUCED, REPRODUCED
from mobifrag.workflow.claim_tables import EVIDENCE, PAPERS

OTHER = "other"
# A verdict that needs no reason beside it.
EXPLAINED_BY_ITSELF = {REPRODUCED, CALIBRATED}
# The causes a diagnosis names (config/claims.schema.yaml), in the order counts list them.
CAUSES = ("platform", "workload", "model", "patch", "statistic", "band")
UNDIAGNOSED = "no diagnosis yet"


def paper(claim_id: str) -> str:
    """The short name of the paper a claim id belongs to, `other` for an unknown prefix."""
    return PAPERS.get(claim_id.split("-", 1)[0], OTHER)


def number(text) -> float | None:
    try:
        value = float(text)
    except (TypeError, ValueError):
        return None
    return None if math.isnan(value) else value


def repetitions(row: dict) -> int | None:
    try:
        return int(row.get("repetitions", ""))
    except ValueError:
        return None


def spread_note(n: int | None) -> str:
    """What the interval beside the median rests on, where few runs make it: one run
    has no interval; with two or three, a 95 % bootstrap of the median is their range."""
    if n == 1:
        return "single run"
    if n in (2, 3):
        return f"n={n}: the interval is their range"
    return "" if n is None else f"n={n}"


def placement(row: dict) -> str:
    """Where the measured interval lies against the band, in words."""
    low, high = number(row.get("ci_low")), number(row.get("ci_high"))
    band_low, band_high = number(row.get("band_low")), number(row.get("band_high"))
    measured = row.get("measured", "NA")
    if None in (low, high, band_low, band_high):
        return f"measured {measured}"
    interval = measured if low == high else f"{measured} [{row['ci_low']}, {row['ci_high']}]"
    if low > band_high:
        return f"measured {interval}, above the band's top {row['band_high']}"
    if high < band_low:
        return f"measured {interval}, below the band's bottom {row['band_low']}"
    edges = [e for e in (band_low, band_high) if math.isfinite(e) and low <= e <= high]
    edge = " and ".join(f"{e:g}" for e in edges) or "an edge"
    return f"measured {interval}: the interval straddles the band's edge {edge}"


def words(text: str) -> str:
    return " ".join(text.split())


def shared_changes(claims) -> frozenset[str]:
    """The history changes written word for word into more than one claim: a change of
    something several claims read (a device profile, the platform, a patch) recorded in
    each, as opposed to a change of one claim's own band or measure."""
    counts = Counter(words(e["change"]) for c in claims for e in (c or {}).get("history") or [])
    return frozenset(text for text, n in counts.items() if n > 1)


def last_change(claim: dict | None, shared: frozenset[str] = frozenset()) -> str:
    """The claim's last history entry of its own (its change not in `shared`), then how
    many shared entries came after it: a reader of a miss looks first for a band or
    workload moved for this claim, which a later note on a whole profile would hide."""
    history = (claim or {}).get("history") or []
    own = [i for i, e in enumerate(history) if words(e["change"]) not in shared]
    parts = []
    if own:
        entry = history[own[-1]]
        parts.append(
            f"last change ({entry['date']}): {words(entry['change'])}; why: "
            + words(entry["reason"])
        )
    later = history[own[-1] + 1 :] if own else history
    if later:
        many = "change" if len(later) == 1 else "changes"
        parts.append(
            f"then {len(later)} {many} recorded in other claims too, the last on "
            + later[-1]["date"]
        )
    return "; ".join(parts)


def reason(row: dict, claim: dict | None, shared: frozenset[str] = frozenset()) -> str:
    """Why a claim's verdict is not `reproduced`; '' for reproduced and calibrated.
    `shared` holds the history changes recorded in several claims (shared_changes)."""
    verdict = row.get("verdict", "")
    if verdict in EXPLAINED_BY_ITSELF:
        return ""
    parts = []
    if row.get("note"):
        parts.append(row["note"])
    if verdict in (NOT_REPRODUCED, INCONCLUSIVE):
        parts.append(placement(row))
        change = last_change(claim, shared)
        if change:
            parts.append(change)
    return "; ".join(parts)


def diagnosis(row: dict, claim: dict | None) -> dict | None:
    """The claim's diagnosis where its verdict is not reproduced (cause and measured,
    cause UNDIAGNOSED when the claims file has none); None for any other verdict, whose
    reason the run gives itself."""
    if row.get("verdict") != NOT_REPRODUCED:
        return None
    found = (claim or {}).get("diagnosis")
    if not found:
        return {"cause": UNDIAGNOSED, "measured": ""}
    return {"cause": found["cause"], "measured": " ".join(found["measured"].split())}


def diagnosis_text(found: dict) -> str:
    if found["cause"] == UNDIAGNOSED:
        return UNDIAGNOSED
    return f"diagnosis ({found['cause']}): {found['measured']}"


def by_cause(diagnoses: list[dict]) -> dict[str, int]:
    """Cause → how many misses name it, in CAUSES order, UNDIAGNOSED last; none absent."""
    causes = [d["cause"] for d in diagnoses]
    return {c: causes.count(c) for c in (*CAUSES, UNDIAGNOSED) if c in causes}


def counted(rows: list[dict]) -> list[dict]:
    """The evidence rows (a claims.csv without a kind column: every row)."""
    return [row for row in rows if row.get("kind", EVIDENCE) == EVIDENCE]


def by_paper(rows: list[dict]) -> dict[str, Counter]:
    """Paper → verdict counts of its evidence claims, in PAPERS order."""
    groups: dict[str, Counter] = {}
    for name in [*PAPERS.values(), OTHER]:
        found = Counter(row["verdict"] for row in counted(rows) if paper(row["id"]) == name)
        if found:
            groups[name] = found
    return groups


def by_check(rows: list[dict], checks: dict[str, list[dict]]) -> dict[str, Counter]:
    """Check → verdict counts of its evidence claims in the run ('absent' for a claim of
    the check that the run has no row for)."""
    by_id = {row["id"]: row for row in counted(rows)}
    groups = {}
    for name, members in checks.items():
        ids = [c["id"] for c in members if c.get("kind", EVIDENCE) == EVIDENCE]
        groups[name] = Counter(by_id[i]["verdict"] if i in by_id else "absent" for i in ids)
    return groups
