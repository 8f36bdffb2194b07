"""AutoAge day schedule (TMC §4.1.1)."""

import csv
import random

import pytest

from mobifrag.workloads import estimate
from mobifrag.workloads.autoage import autoage, plan_days, update_days
from mobifrag.workloads.generate import Generator
from mobifrag.workloads.iotrace import read_trace
from mobifrag.workloads.scenarios import SCENARIO_DIR, load_models

GIB = 1 << 30


@pytest.fixture(scope="module")
def models():
    return load_models(SCENARIO_DIR)


@pytest.fixture(scope="module")
def aged(models, tmp_path_factory):
    apps, schedule = models
    out = tmp_path_factory.mktemp("autoage")
    paths = autoage(apps, schedule, out, seed=3, disk_bytes=GIB, days=12)
    return out, paths


def test_one_trace_per_day_and_day_zero_fills_to_70_percent(aged):
    out, paths = aged
    assert [p.name for p in paths] == [f"day-{d:02d}.iotrace" for d in range(13)]
    fill = read_trace(out / "day-00.iotrace")
    assert len(fill) == 1
    assert (fill[0].op, fill[0].args) == ("fill", (70,))


def test_day_one_installs_every_app_then_runs_scenarios(aged, models):
    apps, _ = models
    out, _ = aged
    ops = read_trace(out / "day-01.iotrace")
    apks = {op.path for op in ops if op.op == "create" and op.path.endswith("/base.apk")}
    assert {f"{app.code_dir}-1/base.apk" for app in apps} <= apks
    assert any(op.op == "sql" for op in ops)


def test_reclaim_of_images_precedes_each_session(aged, models):
    apps, schedule = models
    out, _ = aged
    ops = read_trace(out / "day-05.iotrace")
    reclaims = [op for op in ops if op.op == "reclaim"]
    assert len(reclaims) >= len(apps)
    expected_bytes = -(-schedule.reclaim.bytes * GIB // schedule.reference_disk_bytes)
    for op in reclaims:
        percent, nbytes, _, glob = op.args
        assert (op.path, percent, glob) == ("media", 97, "*.jpg")
        assert nbytes == expected_bytes  # 300 MB on the 26 GB partition, scaled
    assert len({op.args[2] for op in reclaims}) == len(reclaims)  # fresh seed each time


def test_updates_come_about_every_ten_days(models):
    apps, schedule = models
    days = update_days(apps, schedule, random.Random(5), 30)
    for app in apps:
        found = days[app.app]
        assert 2 <= len(found) <= 4, (app.app, found)
        assert 2 <= found[0] <= 11
        gaps = [b - a for a, b in zip(found, found[1:], strict=False)]
        assert all(9 <= gap <= 11 for gap in gaps), (app.app, found)


def test_daily_usage_is_3_7_hours_of_sessions(models):
    apps, schedule = models
    plans = plan_days(apps, schedule, random.Random(1), 3)
    by_name = {app.app: app for app in apps}
    for plan in plans:
        seconds = sum(by_name[name].session_seconds for name in plan.sessions)
        assert abs(seconds / 3600 - 3.7) < 0.4
        assert set(plan.sessions) == set(by_name)


def test_autoage_is_deterministic(models, tmp_path):
    apps, schedule = models
    first = autoage(apps, schedule, tmp_path / "a", seed=9, disk_bytes=GIB, days=2)
    second = autoage(apps, schedule, tmp_path / "b", seed=9, disk_bytes=GIB, days=2)
    other = autoage(apps, schedule, tmp_path / "c", seed=10, disk_bytes=GIB, days=2)
    for a, b in zip(first, second, strict=True):
        assert a.read_bytes() == b.read_bytes()
    assert first[-1].read_bytes() != other[-1].read_bytes()
    assert (tmp_path / "a" / "days.tsv").read_bytes() == (tmp_path / "b" / "days.tsv").read_bytes()


def test_disk_fills_around_day_eleven_and_half_the_files_are_small(models):
    """TMC §4.1.2: from 70 % the file system is almost full on day 11; Ext4-tuning
    paper: about half the files are at most 4 KB."""
    apps, schedule = models
    disk = GIB
    scale = disk / schedule.reference_disk_bytes
    gen = Generator(apps, random.Random(2), scale, 1.0, scale)
    full_day = None
    for plan in plan_days(apps, schedule, random.Random(1), 16):
        t = 0
        for name in plan.installs + plan.updates:
            t = gen.install(name, t) if name in plan.installs else gen.update(name, t)
        for name in plan.sessions:
            t = gen.session(name, t)
        gen.take_ops()
        used = schedule.fill_percent / 100 + sum(gen.file_sizes().values()) / disk
        if full_day is None and used >= 0.95:
            full_day = plan.day
        if plan.day == 10:
            assert 0.38 <= estimate.small_file_share(gen.file_sizes()) <= 0.62
    assert full_day is not None and 7 <= full_day <= 14, full_day


def test_days_table(aged):
    out, _ = aged
    with open(out / "days.tsv") as handle:
        rows = list(csv.DictReader(handle, delimiter="\t"))
    assert [int(r["day"]) for r in rows] == list(range(13))
    assert all(int(r["sessions"]) > 0 for r in rows[1:])


def test_an_aged_disk_gets_no_fill_and_the_same_days(models, tmp_path):
    # janusd's recurring run: its disk is fill/delete aged before day 1
    apps, schedule = models
    paths = autoage(apps, schedule, tmp_path, seed=3, disk_bytes=GIB, days=3, aged=True)
    assert [p.name for p in paths] == ["day-01.iotrace", "day-02.iotrace", "day-03.iotrace"]
    assert not (tmp_path / "day-00.iotrace").exists()
    assert not any(op.op == "fill" for p in paths for op in read_trace(p))
    with open(tmp_path / "days.tsv") as handle:
        assert [r["day"] for r in csv.DictReader(handle, delimiter="\t")] == ["1", "2", "3"]


def test_an_apps_own_update_period_replaces_the_schedules(models):
    # janusd §2.3 fn. 2: Twitter is updated on average every 7 days
    apps, schedule = models
    for seed in range(20):
        days = update_days(apps, schedule, random.Random(seed), 30, {"twitter": 7})
        twitter = days["twitter"]
        assert 2 <= twitter[0] <= 8, twitter
        gaps = [b - a for a, b in zip(twitter, twitter[1:], strict=False)]
        assert len(twitter) >= 3 and all(6 <= gap <= 8 for gap in gaps), (seed, twitter)
        others = [d for app, d in days.items() if app != "twitter"]
        assert all(9 <= b - a <= 11 for d in others for a, b in zip(d, d[1:], strict=False))


def test_an_update_period_for_an_app_not_replayed_is_refused(models):
    apps, schedule = models
    with pytest.raises(ValueError, match="not replayed: snapchat"):
        update_days(apps, schedule, random.Random(1), 30, {"snapchat": 7})
    with pytest.raises(ValueError, match="below one day"):
        update_days(apps, schedule, random.Random(1), 30, {"twitter": 0.5})
