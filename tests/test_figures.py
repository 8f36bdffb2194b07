"""The paper's figures as a reader sees them: each waits only for what it draws."""

from __future__ import annotations

import json

from conftest import planned_jobs, snakemake
from mobifrag.report import provenance


def test_stamp_record_names_the_run_without_its_kernel(tmp_path):
    config = tmp_path / "config.json"
    config.write_text(json.dumps({"device": "emulator-emmc", "scale": "test", "seed": 7}))
    out = tmp_path / "figure-stamp.json"
    assert provenance.main(["--stamp-record", str(config), "--out", str(out)]) == 0
    record = json.loads(out.read_text())
    assert "kernel" not in record
    stamp = provenance.figure_stamp(record)
    assert (stamp["device"], stamp["scale"], stamp["seed"]) == ("emulator-emmc", "test", "7")
    assert stamp["commit"] == provenance.git_commit()


def test_a_model_only_figure_needs_no_kernel():
    # janusd Fig. 7 is drawn from ftl-sim alone: planned from nothing, it must not wait
    # for the emulator kernel (nor provenance.json, which records it).
    figure = "paper-figures/emulator-emmc/test/janusd-fig07-throughput.png"
    plan = snakemake("-n", "--forceall", figure, "--config", "scale=test")
    jobs = planned_jobs(plan.stdout)
    assert {"janusd_throughput", "figure_stamp", "figure"} <= set(jobs)
    assert not {"kernel_emulator", "provenance"} & set(jobs), jobs
