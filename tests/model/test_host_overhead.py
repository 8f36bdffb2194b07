"""mobifrag.model.host_overhead: the host overhead that makes the model's total cost of
one more request TMC §5.3.1's (2.9 − 1.3) s / 46,748, measured with the real ftl-sim on
a pristine and a fragmented read."""

import json

import pytest

from block_traces import DEVICE, readahead_requests, write_blktrace
from conftest import FTL_SIM
from mobifrag.model import ftl
from mobifrag.model.host_overhead import fit, main, tmc_marginal_us

needs_ftl_sim = pytest.mark.skipif(not FTL_SIM.is_file(), reason="ftl-sim is not built")


def test_tmc_marginal_cost_is_the_papers_numbers():
    assert tmc_marginal_us() == pytest.approx(1.6e6 / 46_748)
    assert round(tmc_marginal_us()) == 34


def summary(requests, device_us):
    return {"replay": {"requests": requests}, "time": {"device_busy_us": device_us}}


def test_the_fit_leaves_to_the_host_what_the_device_does_not_cost():
    # 100 extra requests adding 500 µs of device time: 5 µs each, the host the rest
    derivation = fit(summary(10, 1_000.0), summary(110, 1_500.0))
    assert derivation["device_us_per_extra_request"] == 5.0
    assert derivation["host_overhead_us"] == pytest.approx(tmc_marginal_us() - 5.0, abs=1e-3)
    with pytest.raises(ValueError, match="no extra request to cost"):
        fit(summary(10, 1.0), summary(10, 2.0))


def profile_with_overhead(tmp_path, host_us):
    text = DEVICE.read_text()
    assert "host_overhead_us: 34\n" in text
    path = tmp_path / "device.yaml"
    path.write_text(text.replace("host_overhead_us: 34\n", f"host_overhead_us: {host_us}\n"))
    return path


@needs_ftl_sim
def test_with_the_fitted_overhead_one_more_request_costs_tmcs_34_us(tmp_path, capsys):
    # readahead's batches over scattered 4 KiB pieces against the same bytes in 128 KiB
    # requests, one at a time
    fragmented = write_blktrace(tmp_path / "fragmented", readahead_requests(batches=8))
    pristine = write_blktrace(
        tmp_path / "pristine", [(i * 10_000, "R", (1 << 20) + i * 256, 256) for i in range(8)]
    )
    argv = [str(pristine), str(fragmented), "--device", str(DEVICE), "--ftl-sim", str(FTL_SIM)]
    assert main(argv) == 0
    derivation = json.loads(capsys.readouterr().out)
    refitted = profile_with_overhead(tmp_path, derivation["host_overhead_us"])
    low, high = (ftl.replay_phase(FTL_SIM, refitted, trace) for trace in (pristine, fragmented))
    extra = high["replay"]["requests"] - low["replay"]["requests"]
    marginal = (high["time"]["modeled_us"] - low["time"]["modeled_us"]) / extra
    assert marginal == pytest.approx(tmc_marginal_us(), abs=0.01)
