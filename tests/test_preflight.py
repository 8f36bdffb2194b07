"""The pre-flight check of the pinned outside inputs (scripts/preflight.sh): with no
upstream and no vendor folder, every missing input is named with its checksum."""

from __future__ import annotations

import os
import subprocess

from mobifrag import REPO


def test_missing_outside_inputs_are_named_before_any_job(tmp_path):
    env = {
        **os.environ,
        "MOBIFRAG_VENDOR": str(tmp_path / "no-vendor"),
        "FLASHSIM_OFFLINE": "1",
        "FILEBENCH_OFFLINE": "1",
        "MOBIBENCH_OFFLINE": "1",
        "PREFLIGHT_BUILD": str(tmp_path / "build"),
    }
    run = subprocess.run(
        [str(REPO / "scripts" / "preflight.sh")], env=env, capture_output=True, text=True
    )
    assert run.returncode == 1
    for name in ("flashsim", "filebench", "mobibench-facebook", "mobibench-twitter"):
        assert f"--- {name}\n" in run.stderr
    assert "5e447af581ef239257128deaed22aa29d8e9c5afd8118f17b6e4f563c7712dc6" in run.stderr
    assert "MOBIFRAG_VENDOR=<folder>" in run.stderr
