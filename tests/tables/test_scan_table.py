import json

import pytest

from conftest import empty_trace_summary, needs_ftl_sim, write_snapshot
from mobifrag.model import ftl
from mobifrag.tables import scan
from mobifrag.tables.scan import ScanError, hole_kib, linear_fit


def test_linear_fit_recovers_a_line():
    xs = [1, 10, 100, 1000]
    slope, intercept, r2 = linear_fit(xs, [0.17 * x + 990 for x in xs])
    assert slope == pytest.approx(0.17) and intercept == pytest.approx(990) and r2 == 1


def test_noisy_points_lower_r2():
    _, _, r2 = linear_fit([1, 2, 3, 4], [1, 4, 2, 3])
    assert r2 < 0.5


def test_linear_fit_matches_the_hand_computed_least_squares():
    # x̄ = ȳ = 2.5, Sxx = 5, Sxy = 2, Syy = 5: a = 2/5, b = 2.5 - 0.4·2.5, R² = 2²/(5·5)
    slope, intercept, r2 = linear_fit([1, 2, 3, 4], [1, 4, 2, 3])
    assert slope == pytest.approx(0.4, rel=1e-12)
    assert intercept == pytest.approx(1.5, rel=1e-12)
    assert r2 == pytest.approx(0.16, rel=1e-12)


def test_a_constant_time_is_fitted_by_the_flat_line_with_r2_one():
    assert linear_fit([1, 2, 8], [7.5, 7.5, 7.5]) == (0.0, 7.5, 1.0)


def test_fit_needs_two_dof_values():
    with pytest.raises(ScanError, match="two different DoF"):
        linear_fit([5, 5], [1, 2])
    with pytest.raises(ScanError, match="two different DoF"):
        linear_fit([5], [1])


def test_hole_size_from_trace_name():
    assert hole_kib("holes-000004k") == 4
    assert hole_kib("holes-001024k") == 1024
    assert hole_kib("pristine") == "NA"


def scan_run(root, rep, pieces, read_ns):
    """A scan job folder of one repetition: the file of `pieces` 4 KiB extents after
    4 KiB holes, and pristine in one extent."""
    run = root / f"rep-{rep}"
    layouts = {"holes-000004k": pieces, "pristine": 1}
    for trace, count in layouts.items():
        size = 4096 * pieces
        extents = [
            ("target/scanned0.bin", i, i * size // count, 2 * i * size // count, size // count, "")
            for i in range(count)
        ]
        files = [("target/scanned0.bin", size, size, count, 12)]
        write_snapshot(run / "snapshots" / trace, files=files, extents=extents)
    rows = [f"{trace}\t{read_ns}" for trace in layouts]
    (run / "scan.tsv").write_text("trace\tread_ns\n" + "\n".join(rows) + "\n")
    return run


def model(path, requests, modeled_us):
    summary = {"requests": {"read": {"count": requests}, "write": {"count": 0}}}
    summary["time"] = {"device_busy_us": modeled_us / 2, "modeled_us": modeled_us}
    path.write_text(json.dumps(summary))
    return path


def two_repetitions(tmp_path):
    runs = {"1": scan_run(tmp_path, 1, 8, 5_000_000), "2": scan_run(tmp_path, 2, 4, 6_000_000)}
    models = {
        (rep, trace): model(tmp_path / f"{rep}-{trace}.json", requests, us)
        for rep, factor in (("1", 2), ("2", 1))
        for trace, requests, us in (("holes-000004k", 8 * factor, 900), ("pristine", 1, 300))
    }
    return runs, models


def test_every_repetition_gives_rows_and_a_fit_of_its_own(tmp_path):
    table, fits = scan.tables(*two_repetitions(tmp_path))
    holes = [(r["rep"], r["fragments"], r["requests"]) for r in table if r["trace"] != "pristine"]
    assert holes == [("1", 8, 16), ("2", 4, 8)]
    assert [(f["rep"], f["time"]) for f in fits] == [
        ("1", "modeled_ms"),
        ("1", "wall_ms"),
        ("2", "modeled_ms"),
        ("2", "wall_ms"),
    ]
    slopes = {f["rep"]: float(f["slope_ms_per_dof"]) for f in fits if f["time"] == "modeled_ms"}
    assert slopes["2"] > slopes["1"]  # the same 0.6 ms more over fewer fragments


def test_a_repetition_without_its_model_is_named(tmp_path):
    runs, models = two_repetitions(tmp_path)
    del models["2", "pristine"]
    with pytest.raises(ScanError, match="pristine in repetition 2"):
        scan.tables(runs, models)


def test_the_command_line_writes_both_tables_with_a_rep_column(tmp_path):
    runs, models = two_repetitions(tmp_path)
    argv = [arg for rep, run in runs.items() for arg in ("--run", rep, str(run))]
    argv += [
        arg for (rep, phase), path in models.items() for arg in ("--model", rep, phase, str(path))
    ]
    table, fit = tmp_path / "scan.csv", tmp_path / "fit.csv"
    assert scan.main([*argv, "--table", str(table), "--fit", str(fit)]) == 0
    assert table.read_text().splitlines()[0].startswith("rep,trace,")
    assert [line.split(",")[0] for line in fit.read_text().splitlines()] == [
        "rep",
        "1",
        "1",
        "2",
        "2",
    ]


@needs_ftl_sim
def test_a_replay_of_an_empty_trace_is_refused_naming_its_summary(tmp_path, capsys):
    runs, models = two_repetitions(tmp_path)
    models["2", "pristine"] = empty_trace_summary(tmp_path)
    with pytest.raises(ftl.FtlSimError, match="met no read or write"):
        scan.tables(runs, models)
    argv = [arg for rep, run in runs.items() for arg in ("--run", rep, str(run))]
    argv += [arg for (rep, phase), p in models.items() for arg in ("--model", rep, phase, str(p))]
    table, fit = tmp_path / "scan.csv", tmp_path / "fit.csv"
    assert scan.main([*argv, "--table", str(table), "--fit", str(fit)]) == 1
    assert f"{models['2', 'pristine']}: the replay of " in capsys.readouterr().err
    assert not table.exists()
