import yaml

from conftest import squeezed
from mobifrag.report.stability import main
from mobifrag.workflow.study_config import load_config


def claims_csv(path, rows):
    lines = ["id,figure,basis,measured,verdict"] + [f"{i},f,layout,{m},{v}" for i, m, v in rows]
    path.write_text("\n".join(lines) + "\n")
    return str(path)


def test_same_verdicts_are_stable(tmp_path, capsys):
    rows = [("a", 1.2, "reproduced"), ("b", 0.4, "not reproduced")]
    first, second = claims_csv(tmp_path / "1.csv", rows), claims_csv(tmp_path / "2.csv", rows)
    assert main(["compare", first, second]) == 0
    assert "2 claims; 0 verdicts differ" in capsys.readouterr().out


def test_a_flip_between_reproduced_and_not_fails(tmp_path, capsys):
    first = claims_csv(tmp_path / "1.csv", [("a", 1.6, "reproduced"), ("b", 2, "inconclusive")])
    second = claims_csv(tmp_path / "2.csv", [("a", 0.8, "not reproduced"), ("b", 3, "reproduced")])
    assert main(["compare", first, second]) == 1
    out = squeezed(capsys.readouterr().out)
    assert "2 verdicts differ, 1 of them between reproduced and not reproduced" in out
    assert "| a | reproduced | 1.6 | not reproduced | 0.8 |" in out


def test_inconclusive_differences_are_listed_but_pass(tmp_path, capsys):
    first = claims_csv(tmp_path / "1.csv", [("a", 1.6, "reproduced")])
    second = claims_csv(tmp_path / "2.csv", [("a", 1.1, "inconclusive")])
    assert main(["compare", first, second]) == 0
    assert "| a | reproduced | 1.6 | inconclusive | 1.1 |" in squeezed(capsys.readouterr().out)


def test_damaged_table_is_named(tmp_path, capsys):
    first = claims_csv(tmp_path / "1.csv", [("a", 1, "reproduced")])
    (tmp_path / "2.csv").write_text("id,verdict\n,reproduced\n")
    assert main(["compare", first, str(tmp_path / "2.csv")]) == 1
    assert "2.csv:2: no id or verdict" in capsys.readouterr().err


def test_prepare_copies_the_scale_under_a_new_name(tmp_path):
    out = tmp_path / "stability.yaml"
    assert main(["prepare", "--scale", "test", "--out", str(out)]) == 0
    config = load_config()
    preset = yaml.safe_load(out.read_text())["scales"]["test-again"]
    offset = preset.pop("repetition_seed_offset")
    assert preset == config["scales"]["test"]
    # test runs 2 repetitions (seeds +0, +1): the second study's start after them
    assert offset == config["scales"]["test"]["repetitions"] == 2


def test_the_second_studys_seeds_start_after_the_most_repeated_experiment(tmp_path):
    config = load_config()
    config["scales"]["test"]["repetitions_of"] = {"scan": 4}
    source = tmp_path / "config.yaml"
    source.write_text(yaml.safe_dump(config))
    out = tmp_path / "stability.yaml"
    assert main(["prepare", "--config", str(source), "--scale", "test", "--out", str(out)]) == 0
    # the scan's 4 repetitions drew seeds +0..+3: the second study's scan starts at +4
    assert yaml.safe_load(out.read_text())["scales"]["test-again"]["repetition_seed_offset"] == 4


def test_a_flip_shows_each_values_interval_and_repetitions(tmp_path, capsys):
    header = "id,figure,basis,measured,ci_low,ci_high,repetitions,verdict"
    (tmp_path / "1.csv").write_text(f"{header}\na,f,count,29.84,29.81,29.93,3,reproduced\n")
    (tmp_path / "2.csv").write_text(f"{header}\na,f,count,NA,NA,NA,0,not reached\n")
    assert main(["compare", str(tmp_path / "1.csv"), str(tmp_path / "2.csv")]) == 0
    out = squeezed(capsys.readouterr().out)
    assert "| a | reproduced | 29.84 [29.81, 29.93] n=3 | not reached | NA n=0 |" in out
