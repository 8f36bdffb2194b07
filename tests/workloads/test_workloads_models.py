"""The scenario models: they validate, errors name file/line/field, and they hold the
seeds' numbers (TMC §3–4, ARS §IV)."""

import random
import statistics
import textwrap

import pytest

from mobifrag.workloads import estimate
from mobifrag.workloads.generate import Generator, scenario_ops
from mobifrag.workloads.scenarios import SCENARIO_DIR, ModelError, load_model, load_models

TABLE3 = {
    "facebook", "twitter", "instagram", "chrome", "messenger", "wechat", "earth", "gmail",
    "gallery", "camera", "youtube",
}  # fmt: skip


@pytest.fixture(scope="module")
def models():
    apps, schedule = load_models(SCENARIO_DIR)
    return {app.app: app for app in apps}, schedule


def test_every_shipped_model_validates(models):
    apps, schedule = models
    assert set(apps) == TABLE3
    assert schedule is not None
    assert schedule.days == 30 and schedule.fill_percent == 70
    assert schedule.use_hours_per_day == 3.7 and schedule.update_every_days == 10
    for app in apps.values():
        assert app.databases and app.files and app.install.apk_bytes > 0


def _model(tmp_path, text, name="demo"):
    path = tmp_path / f"{name}.yaml"
    path.write_text(textwrap.dedent(text))
    return path


GOOD = """\
    kind: app
    app: demo
    package: org.example.demo
    type: Test
    scenario: "Doing one thing."
    session_seconds: 10
    threads: {sqlite_writers: 1, io: 1}
    install:
      apk_bytes: 65536
      code: [{name: oat/arm/base.odex, bytes: 8192}]
      libs: {count: 1, bytes: 4096}
    databases:
      - name: main.db
        journal: delete
        record_bytes: 100
        rows_per_tx: 1
        tx_per_session: 3
        mix: {insert: 1}
    files:
      - name: prefs
        dir: shared_prefs
        names: [a.xml]
        bytes: 100
        per_session: {rewrite: 1}
"""


def test_a_small_model_validates(tmp_path):
    model = load_model(_model(tmp_path, GOOD))
    assert model.app == "demo" and model.databases[0].journal == "delete"


@pytest.mark.parametrize(
    ("old", "new", "line", "field"),
    [
        ("journal: delete", "journal: wall", 14, "databases[0].journal"),
        ("session_seconds: 10", "session_seconds: -1", 6, "session_seconds"),
        ("bytes: 100\n        per_session", "bytez: 100\n        per_session", 20, "files[0]"),
        ("dir: shared_prefs", "dir: ../../etc", 21, "files[0].dir"),
        ("sqlite_writers: 1", "sqlite_writers: 2", 7, "threads.sqlite_writers"),
        ("record_bytes: 100", "record_bytes: {min: 9, max: 3}", 15, "databases[0].record_bytes"),
    ],
)
def test_a_malformed_model_names_file_line_and_field(tmp_path, old, new, line, field):
    text = GOOD.replace(old, new)
    assert text != GOOD
    path = _model(tmp_path, text)
    with pytest.raises(ModelError) as error:
        load_model(path)
    message = str(error.value)
    assert message.startswith(f"{path}:{line}: {field}"), message


def test_invalid_yaml_names_the_line(tmp_path):
    path = _model(tmp_path, GOOD.replace("type: Test", "type: [unclosed"))
    with pytest.raises(ModelError, match=r"demo.yaml:\d+: not valid YAML"):
        load_model(path)


def test_facebook_and_twitter_sessions_match_the_ars_traces(models):
    apps, _ = models
    # ARS §IV: the Facebook trace completes 14,429 writes, the Twitter trace 6,029.
    for name, writes in (("facebook", 14429), ("twitter", 6029)):
        counted = [
            estimate.write_syscalls(scenario_ops(apps[name], seed, install=False))
            for seed in range(3)
        ]
        assert abs(statistics.mean(counted) - writes) / writes < 0.10, (name, counted)


def test_facebook_sessions_use_18_concurrent_sqlite_writers(models):
    apps, _ = models
    for scale in (1.0, 0.04):
        ops = scenario_ops(apps["facebook"], 3, scale=scale)
        assert estimate.max_concurrent_sql_writers(ops) >= 18  # TMC §4.3, §7.1
        journals = {op.args[0] for op in ops if op.op == "sql"}
        assert "delete" in journals  # TMC §4.3: most in DELETE mode


def _db_average_kb(app, seed=1):
    gen = Generator([app], random.Random(seed))
    gen.install(app.app, 0)
    gen.session(app.app, 10**9)
    return statistics.mean(state.peak_bytes for state in gen.dbs.values()) / 1000


def test_database_sizes_of_the_case_study(models):
    apps, _ = models
    # TMC §4.3: Google Earth's SQLite files average 8,958 KB, Facebook's 64 KB.
    assert abs(_db_average_kb(apps["facebook"]) - 64) / 64 < 0.25
    assert abs(_db_average_kb(apps["earth"]) - 8958) / 8958 < 0.25
