import math

import numpy as np
import pytest
import yaml

from conftest import REPO, squeezed
from mobifrag.report.claims import (
    CALIBRATED,
    INCONCLUSIVE,
    NOT_JUDGED,
    NOT_MEASURED,
    NOT_REACHED,
    NOT_REPRODUCED,
    REPRODUCED,
    ClaimsError,
    check,
    csv_rows,
    describe_measured,
    load_claims,
    main,
    measure_outcome,
)
from mobifrag.report.reference import read_table
from mobifrag.report.verdict import Band, BandError, band, bootstrap_interval, judge


@pytest.mark.parametrize(
    ("rule", "paper", "inside", "outside"),
    [
        ({"greater_than": 1}, 5, [1.001, 17.8], [1.0, 0.5]),
        ({"less_than": 1}, None, [0.5], [1.0, 2.0]),
        ({"between": [2, 4]}, None, [2, 3, 4], [1.99, 5]),
        ({"ratio_band": [0.8, 1.25]}, 5, [4.0, 4.5, 6.25], [2.0, 6.3]),
        ({"relative_tolerance": 0.1}, 1000, [900, 1100], [1101, 899]),
        ({"absolute_tolerance": 0.02}, 0.17, [0.16, 0.19], [0.14, 0.2]),
    ],
)
def test_bands_from_rules(rule, paper, inside, outside):
    accepted = band(rule, paper)
    assert all(accepted.contains(v) for v in inside)
    assert not any(accepted.contains(v) for v in outside)


def test_paper_relative_rule_needs_a_paper_value():
    with pytest.raises(BandError, match="has none"):
        band({"ratio_band": [0.5, 2]}, None)


@pytest.mark.parametrize(
    ("interval", "expected"),
    [
        ((1.2, 1.8), REPRODUCED),  # inside
        ((2.1, 3.0), NOT_REPRODUCED),  # above
        ((0.2, 0.9), NOT_REPRODUCED),  # below
        ((0.8, 1.2), INCONCLUSIVE),  # over the low edge
        ((1.5, 2.5), INCONCLUSIVE),  # over the high edge
        ((0.5, 3.0), INCONCLUSIVE),  # wider than the band
        ((1.0, 2.0), REPRODUCED),  # closed edges hold their own value
    ],
)
def test_verdict_from_interval_and_band(interval, expected):
    assert judge(Band(1.0, 2.0), interval) == expected


def test_open_edge_excludes_its_value():
    above_one = Band(low=1.0, low_open=True)
    assert judge(above_one, (1.0, 1.5)) == INCONCLUSIVE
    assert judge(above_one, (0.7, 1.0)) == NOT_REPRODUCED
    assert judge(above_one, (1.01, 1.5)) == REPRODUCED


def test_bootstrap_interval_spans_the_repetitions_and_repeats():
    values = (0.46, 1.59, 1.1, 0.9, 1.3)
    low, high = bootstrap_interval(values, "claim")
    assert min(values) <= low < high <= max(values)
    assert bootstrap_interval(values, "claim") == (low, high)
    assert bootstrap_interval((2.0, 2.0), "x") == (2.0, 2.0)
    assert bootstrap_interval((3.0,), "x") == (3.0, 3.0)


def test_two_or_three_repetitions_give_their_range():
    assert bootstrap_interval((1.2, 0.8), "x") == (0.8, 1.2)
    assert bootstrap_interval((7.1, 2.17, 7.7), "x") == (2.17, 7.7)


def test_six_repetitions_give_the_pairs_next_to_the_extremes():
    # a resampled median is at or below (x1 + x2) / 2 in 3.5 % of resamples, and at x1 in
    # 0.9 %: the 2.5 % percentile falls in between, and the 97.5 % one likewise
    values = (29.84, 29.01, 29.93, 29.71, 29.81, 29.79)
    assert bootstrap_interval(values, "tmc-s531") == pytest.approx((29.36, 29.885), abs=1e-12)


def test_the_interval_does_not_depend_on_numpys_global_state():
    values = (0.46, 1.59, 1.1, 0.9, 1.3, 1.0, 0.7)
    first = bootstrap_interval(values, "claim")
    np.random.seed(1)
    assert bootstrap_interval(values, "claim") == first


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
    assert "claims: 2 reproduced, " in md.read_text()
    header = csv_path.read_text().splitlines()[0]
    assert header.startswith("id,figure,basis,paper_value,band_low,band_high,measured,ci_low")


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
    assert "1 evidence claims: 1 reproduced." in md


def test_failed_check_names_each_claim_that_does_not_hold(tmp_path, capsys):
    write_dof(tmp_path / "concurrent-appenders" / "dof.csv", [("ext4", 1, 1), ("ext4", 5, 1)])
    checks = {"mixed": ["tmc-fig06-ext4-five-writers-fragment", "tmc-fig05b-level1-dominates"]}
    status, md, err = run_check(tmp_path, "mixed", checks, capsys)
    assert status == 1
    assert "check mixed does not hold" in err
    assert "tmc-fig06-ext4-five-writers-fragment: not reproduced (measured 1 (single run)" in err
    assert "tmc-fig05b-level1-dominates: not measured (needs autoage/ext4/levels.csv)" in err
    assert "2 evidence claims: 1 not reproduced, 1 not measured." in md


def test_unknown_check_or_claim_is_named(tmp_path, capsys):
    status, _, err = run_check(tmp_path, "nope", {"aging": ["tmc-fig05b-level1-dominates"]}, capsys)
    assert status == 1 and "no check 'nope' (checks: aging)" in err
    status, _, err = run_check(tmp_path, "aging", {"aging": ["no-such-claim"]}, capsys)
    assert status == 1 and "check aging: no claim no-such-claim" in err


def test_shipped_checks_name_shipped_claims():
    from mobifrag.report.claims import load_checks

    # Each shipped check is a rule: every evidence claim of its part of TMC.
    checks = load_checks(REPO / "config" / "claims.yaml")
    claims = load_claims(REPO / "config" / "claims.yaml")
    for name, part in (("aging", "TMC §4"), ("treatments", "TMC §6"), ("performance", "TMC §5")):
        chosen = {c["id"] for c in checks[name]}
        evidence = {c["id"] for c in claims if c["kind"] == "evidence"}
        part_ids = {c["id"] for c in claims if c["source"].startswith(part)}
        assert chosen and chosen <= evidence & part_ids
        if name != "performance":
            assert chosen == evidence & part_ids


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


def one_claim(**changes):
    claim = {
        "id": "synthetic",
        "figure": "f",
        "source": "s",
        "basis": "layout",
        "kind": "evidence",
        "claim": "c",
        "band": "b",
        "paper_value": 2.0,
        "measure": {"table": "t.csv", "column": "x", "where": {"arm": "b"}},
        "reproduced_if": {"ratio_band": [0.8, 1.25]},
    }
    return {**claim, **changes}


def write_table(tmp_path, header, rows, name="t.csv"):
    (tmp_path / name).write_text("\n".join([header, *rows]) + "\n")


def test_repetitions_give_an_interval_and_can_be_inconclusive(tmp_path):
    write_table(tmp_path, "rep,arm,x", ["1,b,1.5", "2,b,2.0", "3,b,2.4", "4,b,1.9"])
    (verdict,) = check([one_claim()], tmp_path)
    assert verdict.measurement.repetitions == 4
    assert verdict.measured == pytest.approx(1.95)
    low, high = verdict.interval
    assert low < 1.6 and high > 2.3
    assert verdict.verdict == INCONCLUSIVE
    write_table(tmp_path, "rep,arm,x", ["1,b,1.9", "2,b,2.0", "3,b,2.1"])
    assert check([one_claim()], tmp_path)[0].verdict == REPRODUCED
    write_table(tmp_path, "rep,arm,x", ["1,b,3.9", "2,b,4.0", "3,b,4.1"])
    assert check([one_claim()], tmp_path)[0].verdict == NOT_REPRODUCED


def test_ratio_pairs_repetitions_by_number(tmp_path):
    rows = ["1,a,10", "1,b,20", "2,a,5", "2,b,10", "3,a,1", "3,b,2"]
    write_table(tmp_path, "rep,arm,x", rows)
    base = {"table": "t.csv", "column": "x", "where": {"arm": "a"}}
    claim = one_claim(measure={**one_claim()["measure"], "relative_to": base})
    (verdict,) = check([claim], tmp_path)
    assert verdict.measurement.values == (2.0, 2.0, 2.0)
    assert verdict.verdict == REPRODUCED


def test_zero_denominator_is_not_reached(tmp_path):
    write_table(tmp_path, "arm,x", ["a,0", "b,3"])
    base = {"table": "t.csv", "column": "x", "where": {"arm": "a"}}
    claim = one_claim(measure={**one_claim()["measure"], "relative_to": base})
    (verdict,) = check([claim], tmp_path)
    assert verdict.verdict == NOT_REACHED
    assert "x of t.csv is 0" in verdict.note


def test_runs_whose_denominator_is_zero_are_named_beside_the_measurement(tmp_path):
    rows = ["1,a,0", "1,b,3", "2,a,4", "2,b,8", "3,a,0", "3,b,1"]
    write_table(tmp_path, "rep,arm,x", rows)
    base = {"table": "t.csv", "column": "x", "where": {"arm": "a"}}
    claim = one_claim(measure={**one_claim()["measure"], "relative_to": base})
    (verdict,) = check([claim], tmp_path)
    assert verdict.measurement.values == (2.0,)
    assert verdict.undefined == "2 runs left out: x of t.csv is 0 there"
    assert "single run; 2 runs left out" in describe_measured(verdict)
    assert csv_rows([verdict])[0]["note"] == verdict.undefined


def test_regime_not_reached_when_its_condition_fails(tmp_path):
    write_table(tmp_path, "arm,x", ["b,2.0"])
    write_table(tmp_path, "gc_calls", ["0"], name="gc.csv")
    regime = {
        "needs": "foreground GC",
        "measure": {"table": "gc.csv", "column": "gc_calls"},
        "reached_if": {"greater_than": 0},
    }
    (verdict,) = check([one_claim(regime=regime)], tmp_path)
    assert verdict.verdict == NOT_REACHED and "needs foreground GC" in verdict.note
    write_table(tmp_path, "gc_calls", ["12"], name="gc.csv")
    assert check([one_claim(regime=regime)], tmp_path)[0].verdict == REPRODUCED


def test_emulator_wall_time_is_shown_not_judged_on_an_emulator(tmp_path):
    write_table(tmp_path, "arm,x", ["b,2.0"])
    claim = one_claim(basis="emulator_wall")
    (on_qemu,) = check([claim], tmp_path, platform="qemu")
    assert on_qemu.verdict == NOT_JUDGED and on_qemu.measured == 2.0
    assert check([claim], tmp_path, platform="adb")[0].verdict == REPRODUCED


def wall_time_claim():
    measure = {"table": "t.csv", "column": "modeled_mib_s", "where": {"arm": "b"}}
    measure["relative_to"] = {**measure, "where": {"arm": "a"}}
    return one_claim(basis="modeled_time", on_hardware="device_wall", measure=measure)


def test_a_phone_judges_wall_time_where_an_emulator_judges_modeled_time(tmp_path):
    header = "rep,arm,modeled_mib_s,wall_mib_s"
    # modeled: b twice as fast as a; the phone's wall time: b as fast as a
    write_table(tmp_path, header, ["1,a,10,30", "1,b,20,30", "2,a,10,31", "2,b,20,31"])
    (on_qemu,) = check([wall_time_claim()], tmp_path, platform="qemu")
    assert (on_qemu.claim["basis"], on_qemu.measured) == ("modeled_time", 2.0)
    assert on_qemu.verdict == REPRODUCED
    (on_phone,) = check([wall_time_claim()], tmp_path, platform="adb")
    assert (on_phone.claim["basis"], on_phone.measured) == ("device_wall", 1.0)
    assert on_phone.verdict == NOT_REPRODUCED and on_phone.measurement.repetitions == 2


def test_wall_time_on_hardware_needs_a_modeled_column(tmp_path):
    path = tmp_path / "claims.yaml"
    claim = one_claim(basis="modeled_time", on_hardware="device_wall")
    path.write_text(yaml.safe_dump({"claims": [claim]}))
    with pytest.raises(ClaimsError, match="claim synthetic: .*x is not a modeled_<x> column"):
        load_claims(path)
    path.write_text(yaml.safe_dump({"claims": [wall_time_claim()]}))
    assert load_claims(path)[0]["on_hardware"] == "device_wall"


def test_calibrated_claims_are_reported_not_counted(tmp_path):
    write_table(tmp_path, "arm,x", ["b,2.0"])
    (verdict,) = check([one_claim(basis="calibrated")], tmp_path)
    assert verdict.verdict == CALIBRATED and verdict.measured == 2.0


def test_damaged_table_names_file_and_line(tmp_path):
    write_table(tmp_path, "arm,x", ["b,2.0", "b"])
    with pytest.raises(ClaimsError, match=r"t.csv:3: row has"):
        check([one_claim()], tmp_path)
    write_table(tmp_path, "arm,x", ["b,2.0", "b,two"])
    with pytest.raises(ClaimsError, match=r"t.csv:3: x is 'two', not a number"):
        check([one_claim()], tmp_path)
    (tmp_path / "t.csv").write_bytes(b"arm,x\nb,\xff\xfe\n")
    with pytest.raises(ClaimsError, match=r"t.csv: .*codec"):
        check([one_claim()], tmp_path)


@pytest.mark.parametrize("cell", ["nan", "NaN", "inf", "-inf", "Infinity"])
def test_a_nan_or_infinite_cell_stops_the_report_naming_file_and_line(tmp_path, cell, capsys):
    write_table(tmp_path, "rep,arm,x", ["1,b,2.0", f"2,b,{cell}"])
    with pytest.raises(ClaimsError, match=rf"t.csv:3: x is '{cell}', not a finite number"):
        check([one_claim()], tmp_path)
    # a regime's or a denominator's column too, and the command writes no verdicts
    write_table(tmp_path, "rep,arm,x", ["1,b,2.0", "2,b,2.1"])
    write_table(tmp_path, "arm,y", [f"b,{cell}"], name="u.csv")
    claim = one_claim()
    claim["measure"]["relative_to"] = {"table": "u.csv", "column": "y", "where": {"arm": "b"}}
    path = tmp_path / "claims.yaml"
    path.write_text(yaml.safe_dump({"claims": [claim]}))
    md, out = tmp_path / "claims.md", tmp_path / "claims.csv"
    args = ["--claims", str(path), "--results", str(tmp_path), "--markdown", str(md)]
    assert main([*args, "--csv", str(out)]) == 1
    assert f"u.csv:2: y is '{cell}', not a finite number" in capsys.readouterr().err
    assert not out.exists() and not md.exists()


def test_markdown_shows_basis_interval_and_summary(tmp_path):
    write_table(tmp_path, "rep,arm,x", ["1,b,1.9", "2,b,2.1"])
    md, out = tmp_path / "claims.md", tmp_path / "claims.csv"
    path = tmp_path / "claims.yaml"
    path.write_text(yaml.safe_dump({"claims": [one_claim()]}))
    args = ["--claims", str(path), "--results", str(tmp_path), "--platform", "qemu"]
    assert main([*args, "--markdown", str(md), "--csv", str(out)]) == 0
    text = squeezed(md.read_text())
    assert "1 evidence claims: 1 reproduced." in text
    assert "| layout | 1 | 0 |" in text
    assert "2 [1.9, 2.1] (n=2: the interval is their range)" in text


def test_markdown_counts_by_paper_and_check_and_says_why_a_claim_missed(tmp_path):
    write_table(tmp_path, "rep,arm,x", ["1,b,3.9", "2,b,4.1", "3,b,4", "4,b,4.2"])
    history = [
        {"date": "2026-11-25", "change": "first", "reason": "old"},
        {"date": "2026-12-02", "change": "band widened", "reason": "the paper says so"},
    ]
    claims = [
        one_claim(id="tmc-miss", history=history),
        one_claim(id="ars-miss", measure={"table": "none.csv", "column": "x"}),
        one_claim(id="ars-mech", kind="mechanism", kind_reason="by design"),
    ]
    path = tmp_path / "claims.yaml"
    path.write_text(
        yaml.safe_dump({"claims": claims, "checks": {"both": ["tmc-miss", "ars-miss"]}})
    )
    md, out = tmp_path / "claims.md", tmp_path / "claims.csv"
    args = ["--claims", str(path), "--results", str(tmp_path), "--platform", "qemu"]
    assert main([*args, "--markdown", str(md), "--csv", str(out)]) == 0
    text = squeezed(md.read_text())
    assert "| paper | not reproduced | not measured | all |" in text
    assert "| TMC | 1 | 0 | 1 |" in text and "| ARS | 0 | 1 | 1 |" in text
    assert "| check | not reproduced | not measured | all |" in text
    assert "| both | 1 | 1 | 2 |" in text
    assert "## Not reproduced, and why" in text
    assert (
        "- **tmc-miss** (not reproduced): measured 4.05 [3.9, 4.2], above the band's top 2.5; "
        "last change (2026-12-02): band widened; why: the paper says so" in text
    )
    assert "- **ars-miss** (not measured): needs none.csv" in text
    assert "ars-mech**" not in text  # not evidence: listed apart, with its kind_reason


def test_a_miss_shows_its_own_last_change_before_the_shared_ones(tmp_path):
    write_table(tmp_path, "rep,arm,x", ["1,b,3.9", "2,b,4.1"])
    profile = {"date": "2026-12-03", "change": "the profile's  allocation", "reason": "all"}
    own = {"date": "2026-12-01", "change": "band widened", "reason": "the paper says so"}
    claims = [
        one_claim(id="tmc-miss", history=[own, profile]),
        one_claim(id="tmc-other", history=[dict(profile, change="the profile's allocation")]),
    ]
    path = tmp_path / "claims.yaml"
    path.write_text(yaml.safe_dump({"claims": claims}))
    md, out = tmp_path / "claims.md", tmp_path / "claims.csv"
    args = ["--claims", str(path), "--results", str(tmp_path), "--platform", "qemu"]
    assert main([*args, "--markdown", str(md), "--csv", str(out)]) == 0
    miss = squeezed(md.read_text()).split("- **tmc-miss** (not reproduced): ")[1]
    assert miss.startswith(
        "measured 4 [3.9, 4.1], above the band's top 2.5; last change (2026-12-01): band "
        "widened; why: the paper says so; then 1 change recorded in other claims too, the "
        "last on 2026-12-03"
    )
    other = squeezed(md.read_text()).split("- **tmc-other** (not reproduced): ")[1]
    assert "last change (" not in other.split("\n")[0]
    assert "then 1 change recorded in other claims too, the last on 2026-12-03" in other


def test_markdown_shows_each_miss_with_its_diagnosis_or_flags_it(tmp_path):
    write_table(tmp_path, "rep,arm,x", ["1,b,3.9", "2,b,4.1"])
    diagnosis = {"cause": "workload", "measured": "t.csv's x is 4.0,\n  twice the paper's"}
    claims = [
        one_claim(id="tmc-diagnosed", diagnosis=diagnosis),
        one_claim(id="tmc-undiagnosed"),
        one_claim(id="tmc-passes", paper_value=4.0, diagnosis=diagnosis),
    ]
    path = tmp_path / "claims.yaml"
    path.write_text(yaml.safe_dump({"claims": claims}))
    md, out = tmp_path / "claims.md", tmp_path / "claims.csv"
    args = ["--claims", str(path), "--results", str(tmp_path), "--platform", "qemu"]
    assert main([*args, "--markdown", str(md), "--csv", str(out)]) == 0
    text = md.read_text()
    misses = text[text.index("## Not reproduced, and why") :]
    assert "| workload | 1 |" in squeezed(misses)
    assert "| no diagnosis yet | 1 |" in squeezed(misses)
    diagnosed = misses[misses.index("- **tmc-diagnosed**") : misses.index("- **tmc-undiagnosed**")]
    assert "  - diagnosis (workload): t.csv's x is 4.0, twice the paper's\n" in diagnosed
    assert "  - no diagnosis yet\n" in misses[misses.index("- **tmc-undiagnosed**") :]
    assert "tmc-passes" not in misses  # reproduced: its diagnosis is not shown


@pytest.mark.parametrize(
    ("diagnosis", "message"),
    [
        ({"cause": "weather", "measured": "x"}, "'weather' is not one of"),
        ({"cause": "model", "measured": "  "}, "does not match"),
        ({"cause": "model"}, "'measured' is a required property"),
    ],
)
def test_a_diagnosis_outside_the_schema_is_refused_naming_the_claim(tmp_path, diagnosis, message):
    data = yaml.safe_load((REPO / "config" / "claims.yaml").read_text())
    data["claims"][3]["diagnosis"] = diagnosis
    path = tmp_path / "claims.yaml"
    path.write_text(yaml.safe_dump(data, allow_unicode=True))
    named = data["claims"][3]["id"]
    with pytest.raises(ClaimsError, match=rf"claims/3/diagnosis.*{message}.*\(claim {named}\)"):
        load_claims(path)


def test_every_miss_of_the_reference_run_has_a_diagnosis():
    # A new reference whose misses the claims file has not diagnosed fails here, naming them.
    table = read_table(REPO / "docs" / "reference" / "emulator-emmc-quick.csv")
    claims = {c["id"]: c for c in load_claims(REPO / "config" / "claims.yaml")}
    missed = [
        claim_id
        for claim_id, row in table.rows.items()
        if row["verdict"] == NOT_REPRODUCED and row.get("kind", "evidence") == "evidence"
    ]
    assert missed
    undiagnosed = [i for i in missed if "diagnosis" not in claims.get(i, {})]
    assert not undiagnosed, f"no diagnosis: {', '.join(undiagnosed)}"


def test_every_shipped_claim_has_a_basis_and_a_band():
    claims = load_claims(REPO / "config" / "claims.yaml")
    for claim in claims:
        accepted = band(claim["reproduced_if"], claim.get("paper_value"))
        assert not (math.isinf(accepted.low) and math.isinf(accepted.high)), claim["id"]


def bare_direction(rule):
    """A band that only asks for a direction: above 1, below 1, or above 0."""
    return rule in ({"greater_than": 1}, {"less_than": 1}, {"greater_than": 0})


def test_shipped_bands_can_fail_and_the_headline_results_are_encoded():
    claims = load_claims(REPO / "config" / "claims.yaml")
    # At most five bare directions among the claims counted (evidence).
    bare = [
        c["id"] for c in claims if c["kind"] == "evidence" and bare_direction(c["reproduced_if"])
    ]
    assert len(bare) <= 5, bare
    for claim in claims:
        if bare_direction(claim["reproduced_if"]):
            assert "direction only" in claim["band"], claim["id"]
    # Issue 39: every headline result judged, at least 140 claims, 110 of them evidence.
    assert len(claims) >= 140
    assert sum(c["kind"] == "evidence" for c in claims) >= 110


def test_a_claim_without_its_band_derivation_is_refused(tmp_path):
    data = yaml.safe_load((REPO / "config" / "claims.yaml").read_text())
    del data["claims"][0]["band"]
    path = tmp_path / "claims.yaml"
    path.write_text(yaml.safe_dump(data, allow_unicode=True))
    with pytest.raises(ClaimsError, match=r"claims/0: 'band' is a required property"):
        load_claims(path)


def test_a_check_rule_selects_the_evidence_claims_of_a_part(tmp_path):
    from mobifrag.report.claims import load_checks

    path = claims_file(tmp_path, {"scan": {"sources": ["TMC §5"], "basis": ["modeled_time"]}})
    selected = load_checks(path)["scan"]
    claims = load_claims(path)
    expected = [
        c["id"]
        for c in claims
        if c["source"].startswith("TMC §5")
        and c["basis"] == "modeled_time"
        and c.get("kind", "evidence") == "evidence"
    ]
    assert expected and [c["id"] for c in selected] == expected
    with pytest.raises(ClaimsError, match="check none: its rule selects no claim"):
        load_checks(claims_file(tmp_path, {"none": {"sources": ["no such paper"]}}))


def test_only_evidence_is_counted_and_the_rest_is_listed_apart(tmp_path):
    from mobifrag.report.claims import markdown

    write_dof(tmp_path / "concurrent-appenders" / "dof.csv", [("ext4", 1, 1), ("ext4", 5, 3)])
    claims = [c for c in shipped_claims() if c["id"].startswith("tmc-fig06-ext4")]
    claims[1] = {**claims[1], "kind": "mechanism", "kind_reason": "by design"}
    scope = [{"source": "TMC Fig. 6", "result": "iOS", "reason": "no iOS"}]
    text = squeezed(markdown(check(claims, tmp_path), "t", scope))
    assert "1 evidence claims: 1 reproduced. Not counted: 1 mechanism (listed apart)." in text
    apart = text.split("## Not counted")[1]
    assert f"| {claims[1]['id']} | mechanism | by design |" in apart
    assert claims[1]["id"] not in text.split("## Not counted")[0].split("| id |")[1]
    assert "| TMC Fig. 6 | iOS | no iOS |" in text.split("## Out of scope")[1]


def test_a_claim_that_is_not_evidence_must_say_why(tmp_path):
    data = yaml.safe_load((REPO / "config" / "claims.yaml").read_text())
    data["claims"][0]["kind"] = "mechanism"
    data["claims"][0].pop("kind_reason", None)
    path = tmp_path / "claims.yaml"
    path.write_text(yaml.safe_dump(data))
    with pytest.raises(ClaimsError, match=r"kind mechanism needs a kind_reason"):
        load_claims(path)


@pytest.mark.parametrize(
    ("rule", "paper", "message"),
    [
        ({"between": [7, 3]}, None, "low edge is above its high edge"),
        ({"ratio_band": [2.0, 0.5]}, 3, "low edge is above its high edge"),
        ({"between": [1, float("nan")]}, None, "every edge must be a finite number"),
        ({"greater_than": float("inf")}, None, "every edge must be a finite number"),
        ({"relative_tolerance": 0.1}, 0, "relative tolerance around a paper value of 0"),
        ({"greater_than": 1}, float("nan"), "paper_value nan is not a finite number"),
    ],
)
def test_a_band_that_accepts_nothing_is_refused_at_load(tmp_path, rule, paper, message):
    data = yaml.safe_load((REPO / "config" / "claims.yaml").read_text())
    data["claims"][0]["reproduced_if"] = rule
    data["claims"][0].pop("paper_value")
    if paper is not None:
        data["claims"][0]["paper_value"] = paper
    path = tmp_path / "claims.yaml"
    path.write_text(yaml.safe_dump(data, allow_unicode=True))
    with pytest.raises(ClaimsError, match=f"claim {data['claims'][0]['id']}: .*{message}"):
        load_claims(path)


def test_share_statistics_compare_each_value_with_the_threshold(tmp_path):
    write_dof(tmp_path / "concurrent-appenders" / "dof.csv", [("ext4", 5, d) for d in (1, 2, 3, 4)])
    measure = {"table": "concurrent-appenders/dof.csv", "column": "dof", "threshold": 2}
    above = measure_outcome(tmp_path, {**measure, "stat": "share_above"})
    at_least = measure_outcome(tmp_path, {**measure, "stat": "share_at_least"})
    assert above.values == {None: 0.5} and at_least.values == {None: 0.75}


def test_a_share_statistic_without_its_threshold_is_refused(tmp_path):
    data = yaml.safe_load((REPO / "config" / "claims.yaml").read_text())
    data["claims"][0]["measure"]["stat"] = "share_above"
    path = tmp_path / "claims.yaml"
    path.write_text(yaml.safe_dump(data, allow_unicode=True))
    with pytest.raises(ClaimsError, match="'threshold' is a required property"):
        load_claims(path)


def test_make_help_names_every_target_and_a_wrong_check_lists_the_checks():
    import re
    import subprocess

    makefile = (REPO / "Makefile").read_text()
    phony = {t for line in re.findall(r"^\.PHONY:(.*)$", makefile, re.M) for t in line.split()}
    shown = subprocess.run(["make", "-s", "help"], cwd=REPO, capture_output=True, text=True)
    listed = set(re.findall(r"^make ([a-z0-9-]+)", shown.stdout, re.M))
    assert phony - {"all", "help"} <= listed, sorted(phony - listed)
    wrong = subprocess.run(
        ["make", "-s", "check", "CHECK=nope"], cwd=REPO, capture_output=True, text=True
    )
    assert wrong.returncode != 0
    assert "no check CHECK=nope; the checks are: aging treatments performance" in wrong.stderr


def written_columns() -> dict[str, tuple[str, ...]]:
    """Result table (below results/<device>/<scale>/) → the columns its writer writes: the
    run labels the rule gives it (rules/experiments/<x>.smk), then the writer's own
    columns."""
    from mobifrag.model import janusd_throughput
    from mobifrag.tables import (
        ars,
        ars_eval,
        dispersed,
        ext4tune,
        fragments,
        scan,
        treat,
        user_latency,
    )
    from mobifrag.tables import janusd as janusd_tables
    from mobifrag.workloads.ars_selection.tables import TABLE1_COLUMNS, TABLE2_COLUMNS
    from mobifrag.workloads.mobibench_import import STATS_COLUMNS

    dof = fragments.DOF_COLUMNS
    treated = treat.TREATMENT_COLUMNS
    # recurring_labels (rules/experiments/janusd.smk)
    recurring = ("utilization_percent", "interval_days")
    tables = {
        # appender_runs, day_runs, filldelete_runs, capacity_runs (rules/experiments/)
        "concurrent-appenders/dof.csv": ("fs", "writers", "rep") + dof,
        "autoage/ext4/dof.csv": ("day",) + dof,
        "autoage/ext4/levels.csv": ("day",) + fragments.LEVEL_COLUMNS,
        "filldelete/ext4/dof.csv": ("level", "app", "package") + dof,
        "capacity/ext4/dof.csv": ("capacity_mib", "app", "package") + dof,
        "scan/ext4/scan.csv": scan.TABLE_COLUMNS,
        "scan/ext4/fit.csv": scan.FIT_COLUMNS,
        "dispersed/ext4/dispersed.csv": dispersed.COLUMNS,
        "user-latency/latency.csv": user_latency.COLUMNS,
        # treat_prealloc_runs, treat_defrag_runs, treat_defrag_ftl_runs, treat_journal_runs,
        # treat_sqlite_prealloc_runs (rules/experiments/treat.smk)
        "treat/prealloc/dof.csv": ("level", "threads", "unit_kib") + treated,
        "treat/e4defrag/dof.csv": ("level", "threads", "method", "phase") + treated,
        "treat/e4defrag/flash-writes.csv": ("level", "threads", "method") + treat.FLASH_COLUMNS,
        "treat/journal/dof.csv": ("mode", "threads", "rep") + treated,
        "treat/sqlite-prealloc/summary.csv": ("app", "package", "unit_kib") + treat.SUMMARY_COLUMNS,
        # dof_lp_runs, recurring_runs, recurring_guest_runs (rules/experiments/janusd.smk)
        "treat/janusd/dof-lp.csv": ("level", "threads") + janusd_tables.DOF_LP_COLUMNS,
        "janusd/recurring/copies.csv": recurring + janusd_tables.RECURRING_COLUMNS,
        "janusd/recurring/launch.csv": recurring + janusd_tables.LAUNCH_COLUMNS,
        "janusd/recurring/dof.csv": recurring + janusd_tables.RECURRING_DOF_COLUMNS,
        "janusd/throughput.csv": janusd_throughput.COLUMNS,
        "ext4tune/bench.csv": ext4tune.COLUMNS,
        "ext4tune/auto-da-alloc.csv": ext4tune.AUTO_DA_ALLOC_COLUMNS,
        # ars_run_folders and rule ars_table's case column (rules/experiments/ars.smk)
        "ars/motivation.csv": ("scheme", "rep", "file") + ars.MEASURE_COLUMNS,
        "ars/blocksize.csv": ("scheme", "rep", "block_size") + ars.MEASURE_COLUMNS,
        "ars/eval/trace-stats.csv": STATS_COLUMNS,
        "ars/selection/table1.csv": TABLE1_COLUMNS,
        "ars/selection/table2.csv": TABLE2_COLUMNS,
    }
    # ars_eval_run_folders: a table read from several jobs' runs names the job too
    several_jobs = {"fragbench", "create"}
    for kind, columns in ars_eval.COLUMNS.items():
        job = ("job",) if kind in several_jobs else ()
        tables[f"ars/eval/{kind}.csv"] = ("scheme", *job, "rep") + columns
    return tables


def measures(claim: dict):
    """Every measure a claim reads: its own, each it is relative to, its regime's."""
    pending = [claim["measure"]] + ([claim["regime"]["measure"]] if "regime" in claim else [])
    while pending:
        measure = pending.pop()
        yield measure
        if "relative_to" in measure:
            pending.append(measure["relative_to"])


def named_columns(measure: dict) -> set[str]:
    within = measure.get("within")
    picks = [measure.get("last"), measure.get("first"), within, "path" if within else None]
    named = {measure["column"], *measure.get("where", {}), *measure.get("exclude", {})}
    return named | {c for c in picks if c}


def test_every_claim_names_columns_its_table_writes():
    tables = written_columns()
    for claim in load_claims(REPO / "config" / "claims.yaml"):
        for measure in measures(claim):
            assert measure["table"] in tables, (claim["id"], measure["table"])
            unknown = named_columns(measure) - set(tables[measure["table"]])
            assert not unknown, (claim["id"], measure["table"], sorted(unknown))


def test_an_effect_the_block_stream_cannot_show_is_beyond_the_platform(tmp_path):
    from mobifrag.report.claims import BEYOND_PLATFORM, judge_claim

    claim = next(c for c in load_claims(REPO / "config" / "claims.yaml") if "platform_limit" in c)
    limit = claim["platform_limit"]["measure"]
    table = tmp_path / "ext4tune" / "bench.csv"
    table.parent.mkdir(parents=True)

    def write(requests: int) -> None:
        header = "config,benchmark,workload,requests,modeled_normalized,modeled_mib_s"
        rows = [
            f"{config},Postmark,{limit['where']['workload']},{requests},1.1,11"
            for config in ("default", "writeback", "tuned", "inode-128", "flexbg-1", "flexbg-32")
        ]
        table.write_text("\n".join([header, *rows]) + "\n")

    write(requests=6)
    verdict = judge_claim(claim, tmp_path, "qemu")
    assert verdict.verdict == BEYOND_PLATFORM
    assert "measured 6" in verdict.note and "100 block requests" in verdict.note
    write(requests=400)
    assert judge_claim(claim, tmp_path, "qemu").verdict != BEYOND_PLATFORM
