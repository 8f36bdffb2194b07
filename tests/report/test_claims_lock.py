"""The claims' pre-registration lock (mobifrag/report/claims_lock.py): the committed lock
is current, and each kind of unrecorded change to a copy is refused by name."""

from __future__ import annotations

import shutil

import pytest
import yaml

from mobifrag import REPO
from mobifrag.report import claims_lock
from mobifrag.report.claims_lock import Inputs, LockError, note, problems, write_lock
from mobifrag.workflow.study_config import EXPERIMENTS

CLAIM = "tmc-fig06-ext4-five-writers-fragment"


@pytest.fixture
def copy(tmp_path) -> Inputs:
    """The claims file, config (with its experiments' files) and lock copied aside."""
    for name in ("claims.yaml", "config.yaml", "claims.lock"):
        shutil.copy(REPO / "config" / name, tmp_path / name)
    shutil.copytree(REPO / "config" / EXPERIMENTS, tmp_path / EXPERIMENTS)
    inputs = Inputs(
        tmp_path / "claims.yaml", tmp_path / "config.yaml", tmp_path / "claims.lock", REPO
    )
    return inputs


def replace(path, old: str, new: str, count: int = 1) -> None:
    text = path.read_text()
    assert text.count(old) >= count, f"{old!r} not in {path}"
    path.write_text(text.replace(old, new, count))


def test_committed_lock_records_the_claims_as_they_are():
    found = problems(Inputs(), strict=True)
    assert not found, "\n".join(found)


def test_a_key_moved_to_another_config_file_changes_no_part(copy):
    # The lock hashes the merged config's values: config/experiments/scan.yaml's defaults
    # moved into config.yaml leave every claim's parts as they were.
    before = claims_lock.current_state(copy)
    own = copy.config.parent / EXPERIMENTS / "scan.yaml"
    moved = yaml.safe_load(own.read_text())
    scan = moved.pop("scan")
    own.write_text(yaml.safe_dump(moved))
    copy.config.write_text(copy.config.read_text() + yaml.safe_dump({"scan": scan}))
    assert claims_lock.current_state(copy) == before


def test_a_claim_kept_in_an_experiments_file_gets_its_history_there(tmp_path):
    shared = tmp_path / "claims.yaml"
    shared.write_text("claims:\n  - id: tmc-one\n")
    own = tmp_path / EXPERIMENTS / "example.claims.yaml"
    own.parent.mkdir()
    own.write_text("claims:\n  - id: example-one\n")
    assert claims_lock.file_holding(shared, "example-one") == own
    assert claims_lock.file_holding(shared, "tmc-one") == shared
    with pytest.raises(LockError, match="no claim example-two"):
        claims_lock.file_holding(shared, "example-two")


def test_a_diagnosis_written_or_rewritten_decides_nothing(copy):
    # A diagnosis says why a run missed; it may change after any run without a history
    # entry, so the lock neither hashes it nor asks for one.
    before = claims_lock.current_state(copy)
    replace(
        copy.claims,
        f"  - id: {CLAIM}\n",
        f"  - id: {CLAIM}\n    diagnosis:\n      cause: workload\n      measured: a first guess\n",
    )
    assert claims_lock.current_state(copy) == before
    assert problems(copy, strict=True) == []
    replace(copy.claims, "cause: workload", "cause: platform")
    replace(copy.claims, "measured: a first guess", "measured: five writers' DoF 15.8")
    assert problems(copy, strict=True) == []


def test_a_band_changed_without_history_is_refused(copy):
    replace(copy.claims, "reproduced_if: {between: [3, 7]}", "reproduced_if: {between: [2, 7]}")
    found = problems(copy, strict=False)
    assert found == [
        f"{CLAIM}: claim changed without a new history entry (add one naming the change, "
        "the last measured value and why: `python -m mobifrag.report.claims_lock note`)"
    ]
    with pytest.raises(LockError, match=CLAIM):
        write_lock(copy)


def test_a_band_changed_with_a_history_entry_is_recorded(copy):
    replace(copy.claims, "reproduced_if: {between: [3, 7]}", "reproduced_if: {between: [2, 7]}")
    noted = note(copy, [], "band [3, 7] → [2, 7]", "a test", {"*": "19 (n=3)"})
    assert noted == [CLAIM]
    assert problems(copy, strict=False) == []
    assert problems(copy, strict=True)[0].endswith("run `make lock` and commit it")
    write_lock(copy)
    assert problems(copy, strict=True) == []
    entry = yaml.safe_load(copy.claims.read_text())["claims"][0]["history"][-1]
    assert entry["last_measured"] == "19 (n=3)"


def test_a_workload_size_changed_needs_an_entry_in_every_claim_it_feeds(copy):
    own = copy.config.parent / EXPERIMENTS / "treat.yaml"
    replace(own, "      inserts: 300\n", "      inserts: 400\n")
    found = problems(copy, strict=False)
    claims = yaml.safe_load(copy.claims.read_text())["claims"]
    treat = {c["id"] for c in claims if c["measure"]["table"].startswith("treat/")}
    flagged = {line.split(":")[0] for line in found}
    assert treat and treat <= flagged
    assert all("config.scales.quick.treat" in line for line in found)


def test_a_scenario_model_file_changed_is_a_change_of_the_claims_reading_it(copy, tmp_path):
    for folder in ("traces", "devices", "kernel-patches"):
        shutil.copytree(REPO / folder, tmp_path / folder)
    scenarios = tmp_path / "traces" / "scenarios"
    copy = Inputs(copy.claims, copy.config, copy.lock, tmp_path)
    assert problems(copy, strict=False) == []
    model = sorted(scenarios.glob("*.yaml"))[0]
    model.write_text(model.read_text() + "\n# edited\n")
    flagged = {line.split(":")[0] for line in problems(copy, strict=False)}
    assert "tmc-fig05a-sqlite-fragmented-from-day-one" in flagged
    assert CLAIM not in flagged


def test_a_reworded_history_entry_is_refused(copy):
    replace(
        copy.claims,
        '    history:\n      - date: "2026-11-25"\n        change: >-\n'
        "          greater_than 1 → between [3, 7]\n",
        '    history:\n      - date: "2026-11-25"\n        change: >-\n'
        "          greater_than 1 → between [3, 7], reworded\n",
    )
    assert problems(copy, strict=False) == [
        f"{CLAIM}: history entry 1 was reworded (history only grows)"
    ]


def test_a_deleted_history_entry_is_refused(copy):
    data = yaml.safe_load(copy.claims.read_text())
    claim = next(c for c in data["claims"] if len(c.get("history", [])) >= 2)
    removed = claim["history"].pop()
    text = copy.claims.read_text()
    start = text.index(f"  - id: {claim['id']}\n")
    end = text.find("\n  - id: ", start)
    end = len(text) if end < 0 else end + 1
    at = text.rindex(f'      - date: "{removed["date"]}"', start, end)
    copy.claims.write_text(text[:at] + "\n" + text[end:])
    found = problems(copy, strict=False)
    assert f"{claim['id']}: history entry {len(claim['history']) + 1} was removed" in found[0]


def test_a_new_entry_must_say_what_was_last_measured(copy):
    replace(copy.claims, "reproduced_if: {between: [3, 7]}", "reproduced_if: {between: [2, 7]}")
    note(copy, [CLAIM], "band", "a test", {"*": "x"})
    replace(copy.claims, "        last_measured: >-\n          x\n", "")
    found = problems(copy, strict=False)
    assert "does not say what the last run had measured" in found[0]


def test_a_claim_leaves_only_through_retired(copy):
    text = copy.claims.read_text()
    start = text.index(f"  - id: {CLAIM}\n")
    end = text.index("\n  - id: ", start)
    copy.claims.write_text(text[:start] + text[end + 1 :])
    assert "a claim leaves only through `retired:`" in problems(copy, strict=False)[0]
    copy.claims.write_text(
        copy.claims.read_text()
        + f'\nretired:\n  - id: {CLAIM}\n    date: "2026-12-02"\n    reason: a test\n'
    )
    assert problems(copy, strict=False) == []


def test_check_names_each_problem_and_fails(copy, capsys):
    replace(copy.claims, "reproduced_if: {between: [3, 7]}", "reproduced_if: {between: [2, 7]}")
    argv = ["check", "--claims", str(copy.claims), "--config", str(copy.config)]
    assert claims_lock.main([*argv, "--lock", str(copy.lock)]) == 1
    assert CLAIM in capsys.readouterr().err


def test_a_missing_lock_is_named(copy, capsys):
    copy.lock.unlink()
    argv = ["check", "--claims", str(copy.claims), "--config", str(copy.config)]
    assert claims_lock.main([*argv, "--lock", str(copy.lock)]) == 1
    assert "no lock; record one with `make lock`" in capsys.readouterr().err


def test_the_last_measured_value_is_read_from_a_committed_reference():
    reference = REPO / "docs" / "reference" / "emulator-emmc-quick.csv"
    measured = claims_lock.last_measured_from_csv(reference)
    assert CLAIM in measured
    assert measured[CLAIM].endswith(f"({reference})")
    assert "(n=" in measured[CLAIM]


def test_a_claims_table_without_a_measured_column_is_named(tmp_path):
    table = tmp_path / "claims.csv"
    table.write_text(f"id,verdict\n{CLAIM},reproduced\n")
    with pytest.raises(LockError, match=rf"{table}: claim {CLAIM}: no column 'measured'"):
        claims_lock.last_measured_from_csv(table)
