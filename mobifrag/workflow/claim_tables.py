"""The claims file (config/claims.yaml) as planning reads it: its claims and checks, and
the result tables each reads, so a report or a check runs after the experiments that
make its tables (rules/common/outputs.smk).

An experiment may keep its own claims (and checks, scope, retired claims) in
config/experiments/<experiment>.claims.yaml, beside the claims file: reading the claims
file adds them, after the file's own. Reading checks the whole against the schema and
for duplicate ids and checks; what judging needs beyond that (bands, twins, a kind's
reason) mobifrag/report/claims.py checks on top.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import jsonschema
import yaml

from mobifrag import REPO
from mobifrag.workflow.study_config import EXPERIMENTS, declarations
from mobifrag.workflow.yaml_file import read_mapping

SCHEMA = REPO / "config" / "claims.schema.yaml"
# The papers, by claim-id prefix, in the order the reports list them (a claims chart
# each, rules/infra/report.smk).
PAPERS = {"tmc": "TMC", "janusd": "janusd", "ars": "ARS", "ext4tune": "Ext4 tuning"}
# The kind of claim that judges a paper's result, and a claim's kind where it names
# none; the others (mechanism, input, calibrated) are listed apart and not counted.
EVIDENCE = "evidence"


class ClaimsError(ValueError):
    """A claims file or result table that cannot be used; the message names it."""


def claims_files(path: Path) -> list[Path]:
    """The claims file and each experiment's claims beside it."""
    return [Path(path), *declarations("claims", Path(path).parent / EXPERIMENTS)]


def with_experiment_claims(data: dict, own: dict, path: Path) -> dict:
    """The claims file's data with an experiment's file added: its lists after the
    file's, its checks beside the file's (a check named twice is refused)."""
    merged = dict(data)
    for key, value in own.items():
        if key == "checks":
            twice = sorted(set(value) & set(data.get("checks", {})))
            if twice:
                raise ClaimsError(f"{path}: check {', '.join(twice)} is defined before")
            merged["checks"] = {**data.get("checks", {}), **value}
        else:
            merged[key] = [*data.get(key, []), *value]
    return merged


def claim_named(data: dict, error: jsonschema.ValidationError) -> str:
    """The suffix " (claim ID)" of a schema error inside a claim, since its index into
    the merged list of claims names nothing a reader can find; '' otherwise."""
    place = list(error.absolute_path)
    if len(place) < 2 or place[0] != "claims" or not isinstance(place[1], int):
        return ""
    claim = data["claims"][place[1]]
    named = claim.get("id") if isinstance(claim, dict) else None
    return f" (claim {named})" if isinstance(named, str) else ""


def read_claims_file(path: Path) -> dict:
    """The claims file with each experiment's claims added, as its schema allows it,
    each claim id once."""
    data = read_mapping(path, ClaimsError)
    for own in claims_files(path)[1:]:
        data = with_experiment_claims(data, read_mapping(own, ClaimsError), own)
    schema = yaml.safe_load(SCHEMA.read_text())
    errors = list(jsonschema.Draft202012Validator(schema).iter_errors(data))
    if errors:
        first = errors[0]
        where = "/".join(str(p) for p in first.absolute_path) or "(top level)"
        raise ClaimsError(f"{path}: {where}: {first.message}{claim_named(data, first)}")
    ids = [c["id"] for c in data["claims"]]
    duplicates = sorted({i for i in ids if ids.count(i) > 1})
    if duplicates:
        raise ClaimsError(f"{path}: duplicate claim ids: {', '.join(duplicates)}")
    return data


def kind(claim: dict) -> str:
    return claim.get("kind", EVIDENCE)


def selected_by_rule(claims: list[dict], rule: dict) -> list[dict]:
    return [
        c
        for c in claims
        if kind(c) == EVIDENCE
        and c["source"].startswith(tuple(rule["sources"]))
        and ("basis" not in rule or c["basis"] in rule["basis"])
    ]


def checks_of(data: dict, path: Path) -> dict[str, list[dict]]:
    """Check name → its claims: the ids it lists, in its order, or the evidence claims
    its rule selects (sources starting with one of `sources`, of one of `basis`)."""
    by_id = {c["id"]: c for c in data["claims"]}
    checks = {}
    for name, selector in data.get("checks", {}).items():
        if isinstance(selector, dict):
            checks[name] = selected_by_rule(data["claims"], selector)
            if not checks[name]:
                raise ClaimsError(f"{path}: check {name}: its rule selects no claim")
            continue
        unknown = [i for i in selector if i not in by_id]
        if unknown:
            raise ClaimsError(f"{path}: check {name}: no claim {', '.join(unknown)}")
        checks[name] = [by_id[i] for i in selector]
    return checks


def measure_tables(measure: dict) -> Iterator[str]:
    """The result tables a measure reads: its own, then its denominator's."""
    yield measure["table"]
    if "relative_to" in measure:
        yield from measure_tables(measure["relative_to"])


def tables_read(claims: list[dict]) -> list[str]:
    """Every result table the claims' measures read, each once, by name."""
    return sorted({t for claim in claims for t in measure_tables(claim["measure"])})
