"""Reference verdicts (mobifrag/report/reference.py): a run's claims.csv written under
docs/reference/ with the run it comes from, and a later run compared with it. A small
fixture stands for the reference run; the tests never write into docs/."""

import json
import subprocess

import pytest

from conftest import REPO, squeezed
from mobifrag.report import job_times, reference
from mobifrag.report.claims import CSV_COLUMNS

COMMIT = "0123456789abcdef0123456789abcdef01234567"


def row(claim, verdict, measured="1.5", reps="3", kind="evidence"):
    values = {
        "id": claim, "figure": "f", "basis": "layout", "paper_value": "2", "band_low": "1.5",
        "band_high": "2.5", "measured": measured, "ci_low": "1.4", "ci_high": "1.6",
        "repetitions": reps, "verdict": verdict, "kind": kind, "note": "",
    }  # fmt: skip
    return ",".join(values[c] for c in CSV_COLUMNS)


def run_folder(root, rows, commit=COMMIT, dirty=False, device="emulator-emmc", scale="quick"):
    run = root / "results" / device / scale
    run.mkdir(parents=True)
    (run / "claims.csv").write_text("\n".join([",".join(CSV_COLUMNS), *rows]) + "\n")
    record = {
        "commit": commit + ("+modified" if dirty else ""),
        "dirty": dirty,
        "recorded": "2026-12-02T11:00:00+00:00",
        "config": {"device": device, "scale": scale},
    }
    (run / "provenance.json").write_text(json.dumps(record))
    (run / "claims.md").write_text("# Claims\n\n3 evidence claims: 3 reproduced.\n")
    return run


REFERENCE_ROWS = [
    row("tmc-a", "reproduced"),
    row("tmc-b", "not reproduced", "3.1"),
    row("ars-c", "inconclusive", reps="1"),
    row("ars-m", "reproduced", kind="mechanism"),
]


def test_write_puts_the_run_and_its_commit_in_the_header(tmp_path):
    run = run_folder(tmp_path / "ref", REFERENCE_ROWS)
    out = reference.write_reference(run / "claims.csv", folder=tmp_path, today="2026-12-03")
    assert out == tmp_path / "emulator-emmc-quick.csv"
    lines = out.read_text().splitlines()
    assert f"# commit: {COMMIT}" in lines and "# dirty: false" in lines
    assert "# device: emulator-emmc" in lines and "# scale: quick" in lines
    assert "# run_date: 2026-12-02T11:00:00+00:00" in lines and "# written: 2026-12-03" in lines
    table = reference.read_table(out)
    assert table.meta["commit"] == COMMIT
    assert table.verdict("tmc-b") == "not reproduced"
    # the body is the run's claims.csv, unchanged
    body = [line for line in lines if not line.startswith("#")]
    assert body == (run / "claims.csv").read_text().splitlines()


def test_write_refuses_a_dirty_or_unfinished_run(tmp_path):
    dirty = run_folder(tmp_path / "d", REFERENCE_ROWS, dirty=True)
    with pytest.raises(reference.ReferenceError, match=r"uncommitted changes .*--allow-dirty"):
        reference.write_reference(dirty / "claims.csv", folder=tmp_path)
    assert not list(tmp_path.glob("*.csv"))
    partial = run_folder(tmp_path / "p", REFERENCE_ROWS)
    (partial / "claims.md").write_text("# x\n\n3 claims. The run did not finish: 1 job(s)\n")
    with pytest.raises(reference.ReferenceError, match="did not finish"):
        reference.write_reference(partial / "claims.csv", folder=tmp_path)
    out = reference.write_reference(partial / "claims.csv", folder=tmp_path, allow_unfinished=True)
    assert out.is_file()


def test_write_refuses_a_run_without_provenance(tmp_path):
    run = run_folder(tmp_path / "r", REFERENCE_ROWS)
    (run / "provenance.json").unlink()
    with pytest.raises(reference.ReferenceError, match="provenance.json.*needs the run's"):
        reference.write_reference(run / "claims.csv", folder=tmp_path)


def test_compare_lists_changed_new_and_missing_claims(tmp_path, capsys):
    ref_run = run_folder(tmp_path / "ref", REFERENCE_ROWS)
    ref = reference.write_reference(ref_run / "claims.csv", folder=tmp_path)
    rows = [
        row("tmc-a", "reproduced"),
        row("tmc-b", "reproduced", "2.1"),
        row("ars-m", "reproduced", kind="mechanism"),
        row("ext4tune-d", "not measured", "NA", "0"),
    ]
    run = run_folder(tmp_path / "new", rows)
    args = ["compare", str(run / "claims.csv"), "--reference", str(ref)]
    assert reference.main(args) == 0  # differences shown, not failed
    out = squeezed(capsys.readouterr().out)
    assert "3 evidence claims: 1 reproduced, 1 not reproduced, 1 inconclusive." in out
    assert "This run: 3 evidence claims: 2 reproduced, 1 not measured." in out
    assert "5 claims; 1 verdicts differ, 1 claims are new, 1 are missing from this run." in out
    changed = "| tmc-b | not reproduced | 3.1 [1.4, 1.6] n=3 | reproduced | 2.1 [1.4, 1.6] n=3 |"
    assert changed in out
    assert "| ars-c | inconclusive | 1.5 n=1 | absent | NA |" in out
    assert "| ext4tune-d | absent | NA | not measured | NA n=0 |" in out
    assert f"commit {COMMIT[:12]}" in out
    # --strict fails on any difference; the same verdicts pass it
    assert reference.main([*args, "--strict"]) == 1
    same = run_folder(tmp_path / "same", REFERENCE_ROWS)
    strict = ["compare", str(same / "claims.csv"), "--reference", str(ref), "--strict"]
    assert reference.main(strict) == 0
    assert "0 verdicts differ, 0 claims are new, 0 are missing" in capsys.readouterr().out


def test_compare_finds_the_reference_by_device_and_scale(tmp_path, monkeypatch):
    ref_run = run_folder(tmp_path / "ref", REFERENCE_ROWS, device="emulator-ufs")
    folder = tmp_path / "docs-reference"
    reference.write_reference(ref_run / "claims.csv", folder=folder)
    monkeypatch.setattr(reference, "REFERENCES", folder)
    run = run_folder(tmp_path / "new", REFERENCE_ROWS, device="emulator-ufs")
    assert reference.default_reference(run / "claims.csv", folder) == (
        folder / "emulator-ufs-quick.csv"
    )
    other = run_folder(tmp_path / "other", REFERENCE_ROWS, scale="test")
    expected = r"emulator-emmc-test.csv: no reference.*has emulator-ufs-quick.csv"
    with pytest.raises(reference.ReferenceError, match=expected):
        reference.compare(other / "claims.csv", reference.default_reference(other / "claims.csv"))


def test_a_damaged_reference_is_named_with_its_line(tmp_path, capsys):
    bad = tmp_path / "emulator-emmc-quick.csv"
    bad.write_text("# device: emulator-emmc\nid,verdict\ntmc-a,reproduced\n,reproduced\n")
    run = run_folder(tmp_path / "r", REFERENCE_ROWS)
    assert reference.main(["compare", str(run / "claims.csv"), "--reference", str(bad)]) == 2
    assert f"{bad}:4: no id or verdict" in capsys.readouterr().err


def test_make_compare_runs_the_comparison(tmp_path):
    plan = subprocess.run(
        ["make", "-n", "compare", "DEVICE=emulator-ufs", "SCALE=test", "STRICT=1"],
        cwd=REPO, capture_output=True, text=True,
    )  # fmt: skip
    assert plan.returncode == 0, plan.stderr
    command = " ".join(plan.stdout.replace("\\\n", " ").split())
    assert (
        "python -m mobifrag.report.reference compare results/emulator-ufs/test/claims.csv"
        " --reference docs/reference/emulator-ufs-test.csv" in command
    )
    assert "--strict" in command
    assert (
        "--strict"
        not in subprocess.run(
            ["make", "-n", "compare"], cwd=REPO, capture_output=True, text=True
        ).stdout
    )


def test_write_keeps_the_runs_job_times_beside_its_verdicts(tmp_path, capsys):
    run = run_folder(tmp_path / "ref", REFERENCE_ROWS)
    platform = tmp_path / "ref" / "results" / "platform" / "qemu-x86_64-0123456789" / "quick"
    (platform / "benchmarks").mkdir(parents=True)
    (platform / "benchmarks" / "scan_run-ext4-rep-1.tsv").write_text("s\tmax_rss\n90.0\t300\n")
    (platform / "benchmarks" / "scan_run-ext4-rep-2.tsv").write_text("s\tmax_rss\n30.0\t-\n")
    out = tmp_path / "refs" / "emulator-emmc-quick.csv"
    argv = ["write", "--from", str(run / "claims.csv"), "--out", str(out)]
    assert reference.main(argv) == 0
    times = job_times.read_table(tmp_path / "refs" / "emulator-emmc-quick-job-times.tsv")
    assert times.minutes == {"scan_run": 2.0} and times.jobs == 2
    assert times.meta["commit"] == COMMIT and times.meta["device"] == "emulator-emmc"
    assert "job times: " in capsys.readouterr().err


def test_a_run_without_benchmark_files_gets_no_job_times(tmp_path):
    run = run_folder(tmp_path / "ref", REFERENCE_ROWS)
    out = reference.write_reference(run / "claims.csv", folder=tmp_path)
    assert reference.write_job_times(run / "claims.csv", out) is None
    assert not reference.job_times_path(out, reference.read_table(out).meta).exists()
