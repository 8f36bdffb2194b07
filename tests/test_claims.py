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


def claims_file(tmp_path, checks):
    """The shipped claims file with its checks replaced."""
    data = yaml.safe_load((REPO / "config" / "claims.yaml").read_text())
    data["checks"] = checks
    path = tmp_path / "claims.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


def run_check(tmp_path, name, checks, capsys):
    path = claims_file(tmp_path, checks)
    md, csv_path = tmp_path / "check.md", tmp_path / "check.csv"
    args = ["--claims", str(path), "--results", str(tmp_path), "--check", name]
    status = main([*args, "--markdown", str(md), "--csv", str(csv_path)])
    return status, md.read_text() if md.exists() else "", capsys.readouterr().err


def test_check_passes_only_when_all_its_claims_hold(tmp_path, capsys):
    write_dof(tmp_path / "concurrent-appenders" / "dof.csv", [("ext4", 1, 1), ("ext4", 5, 3)])
    checks = {"writers": ["tmc-fig06-ext4-five-writers-fragment"]}
    status, md, _ = run_check(tmp_path, "writers", checks, capsys)
    assert status == 0
    assert "1 reproduced, 0 not reproduced, 0 not measured" in md


def test_failed_check_names_each_claim_that_does_not_hold(tmp_path, capsys):
    write_dof(tmp_path / "concurrent-appenders" / "dof.csv", [("ext4", 1, 1), ("ext4", 5, 1)])
    checks = {"mixed": ["tmc-fig06-ext4-five-writers-fragment", "tmc-fig05b-level1-dominates"]}
    status, md, err = run_check(tmp_path, "mixed", checks, capsys)
    assert status == 1
    assert "check mixed does not hold" in err
    assert "tmc-fig06-ext4-five-writers-fragment: not reproduced (measured 1, needs > 1)" in err
    assert "tmc-fig05b-level1-dominates: not measured (needs autoage/ext4/levels.csv)" in err
    assert "0 reproduced, 1 not reproduced, 1 not measured" in md


def test_unknown_check_or_claim_is_named(tmp_path, capsys):
    status, _, err = run_check(tmp_path, "nope", {"aging": ["tmc-fig05b-level1-dominates"]}, capsys)
    assert status == 1 and "no check 'nope' (checks: aging)" in err
    status, _, err = run_check(tmp_path, "aging", {"aging": ["no-such-claim"]}, capsys)
    assert status == 1 and "check aging: no claim no-such-claim" in err


def test_shipped_checks_name_shipped_claims():
    from mobifrag.claims import load_checks

    # load_checks raises on an id no claim has, so this fails on a misspelt check.
    checks = load_checks(REPO / "config" / "claims.yaml")
    assert {name: len(claims) for name, claims in checks.items()} == {
        "aging": 5,
        "treatments": 7,
    }


def test_exclude_and_within_select_an_apps_own_other_files(tmp_path):
    table = tmp_path / "filldelete" / "ext4" / "dof.csv"
    table.parent.mkdir(parents=True)
    rows = [
        "level,app,package,path,class,dof",
        "low,facebook,com.facebook.katana,data/com.facebook.katana/cache/a,other,1",
        "low,facebook,com.facebook.katana,data/com.facebook.katana/databases/fb.db,sqlite,9",
        "low,facebook,com.facebook.katana,aging/large-0001,other,40",
        "full,facebook,com.facebook.katana,data/com.facebook.katana/cache/a,other,3",
    ]
    table.write_text("\n".join(rows) + "\n")
    claims = load_claims(REPO / "config" / "claims.yaml")
    picked = [c for c in claims if c["id"].startswith("tmc-fig07-non-sqlite")]
    verdicts = {v.claim["id"]: v for v in check(picked, tmp_path)}
    assert verdicts["tmc-fig07-non-sqlite-unfragmented-at-low"].measured == 1
    assert verdicts["tmc-fig07-non-sqlite-fragment-when-full"].measured == 3
