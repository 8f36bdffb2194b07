import pytest
import yaml

from conftest import REPO
from mobifrag.claims import (
    NOT_MEASURED,
    NOT_REPRODUCED,
    REPRODUCED,
    ClaimsError,
    check,
    judge,
    load_claims,
    main,
)


@pytest.mark.parametrize(
    ("measured", "paper", "rule", "expected"),
    [
        (17.8, 5, {"greater_than": 1}, True),
        (1.0, 5, {"greater_than": 1}, False),
        (0.5, None, {"less_than": 1}, True),
        (3, None, {"between": [2, 4]}, True),
        (5, None, {"between": [2, 4]}, False),
        (4.5, 5, {"ratio_band": [0.8, 1.25]}, True),
        (2.0, 5, {"ratio_band": [0.8, 1.25]}, False),
        (1100, 1000, {"relative_tolerance": 0.1}, True),
        (1101, 1000, {"relative_tolerance": 0.1}, False),
        (0.16, 0.17, {"absolute_tolerance": 0.02}, True),
    ],
)
def test_verdict_rules(measured, paper, rule, expected):
    assert judge(measured, paper, rule) is expected


def test_paper_relative_rule_needs_a_paper_value():
    with pytest.raises(ClaimsError, match="has none"):
        judge(1.0, None, {"ratio_band": [0.5, 2]})


def write_dof(path, rows):
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = ["fs,writers,dof"] + [f"{fs},{w},{d}" for fs, w, d in rows]
    path.write_text("\n".join(lines) + "\n")


def shipped_claims():
    """The shipped claims about TMC Fig. 6, whose table the tests below write."""
    claims = load_claims(REPO / "config" / "claims.yaml")
    return [c for c in claims if c["figure"] == "tmc-fig06-layout"]


def test_shipped_claims_on_synthetic_results(tmp_path):
    rows = [("ext4", 1, 1)] + [("ext4", 5, 6)] * 5 + [("ext4", 5, "NA")]
    write_dof(tmp_path / "concurrent-appenders" / "dof.csv", rows)
    verdicts = {v.claim["id"]: v for v in check(shipped_claims(), tmp_path)}
    five = verdicts["tmc-fig06-ext4-five-writers-fragment"]
    assert five.measured == 6 and five.verdict == REPRODUCED
    assert verdicts["tmc-fig06-ext4-more-writers-more-fragments"].measured == 6


def test_unfragmented_results_are_not_reproduced(tmp_path):
    write_dof(tmp_path / "concurrent-appenders" / "dof.csv", [("ext4", 1, 1), ("ext4", 5, 1)])
    assert {v.verdict for v in check(shipped_claims(), tmp_path)} == {NOT_REPRODUCED}


def test_missing_table_is_not_measured(tmp_path):
    assert {v.verdict for v in check(shipped_claims(), tmp_path)} == {NOT_MEASURED}


def test_missing_column_is_named(tmp_path):
    table = tmp_path / "concurrent-appenders" / "dof.csv"
    table.parent.mkdir(parents=True)
    table.write_text("fs,writers\next4,5\n")
    with pytest.raises(ClaimsError, match="no column dof"):
        check(shipped_claims(), tmp_path)


def test_malformed_claims_file_is_named(tmp_path):
    claims = yaml.safe_load((REPO / "config" / "claims.yaml").read_text())
    claims["claims"][0]["reproduced_if"] = {"roughly": 5}
    path = tmp_path / "claims.yaml"
    path.write_text(yaml.safe_dump(claims))
    with pytest.raises(ClaimsError, match=r"claims.yaml: claims/0/reproduced_if"):
        load_claims(path)


def test_cli_writes_markdown_and_csv(tmp_path):
    write_dof(tmp_path / "concurrent-appenders" / "dof.csv", [("ext4", 1, 1), ("ext4", 5, 3)])
    md, csv_path = tmp_path / "claims.md", tmp_path / "claims.csv"
    assert main(["--results", str(tmp_path), "--markdown", str(md), "--csv", str(csv_path)]) == 0
    assert "2 reproduced, 0 not reproduced, " in md.read_text()
    assert csv_path.read_text().splitlines()[0] == "id,figure,paper_value,measured,verdict"
