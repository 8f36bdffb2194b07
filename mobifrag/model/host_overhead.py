"""The per-request host overhead a device profile needs so that the model's total cost of
one more block request matches TMC §5.3.1 (`storage.host_overhead_us`).

    python -m mobifrag.model.host_overhead --device devices/D.yaml \
        --ftl-sim ftl-sim/target/release/ftl-sim \
        RUN/blktrace/pristine RUN/blktrace/holes-000004k

TMC §5.3.1 read a 100 MB file pristine in 812 requests and 1.3 s, and fragmented in
47,560 requests and 2.9 s: each extra request cost (2.9 − 1.3) s / 46,748 ≈ 34 µs in all,
flash and I/O stack together. The model's modeled time is ftl-sim's device time plus the
profile's host overhead per request, so its cost of one more request is the host overhead
plus the device time one more request adds. Given a scan run's cold reads of the same
file pristine and fragmented (rule scan_run's blktrace/<trace>/), this replays both as
the phases are replayed (mobifrag.model.ftl.replay_phase) and prints the device time per
extra request and the host overhead that makes the sum TMC's 34 µs.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from mobifrag.model import ftl

# TMC §5.3.1: the pristine and the fragmented read of one 100 MB file.
TMC_S531_SECONDS = (1.3, 2.9)
TMC_S531_REQUESTS = (812, 47_560)


def tmc_marginal_us() -> float:
    """TMC §5.3.1's total cost of one more request, µs."""
    (pristine_s, fragmented_s), (pristine_n, fragmented_n) = TMC_S531_SECONDS, TMC_S531_REQUESTS
    return (fragmented_s - pristine_s) / (fragmented_n - pristine_n) * 1e6


def requests(summary: dict) -> int:
    """Block requests a summary's modeled time counts the host overhead for."""
    return summary["replay"]["requests"]


def device_us_per_extra_request(pristine: dict, fragmented: dict) -> float:
    """The device time one more request adds: the fragmented read's device time over the
    pristine one's, per request more."""
    extra = requests(fragmented) - requests(pristine)
    if extra <= 0:
        raise ValueError(
            f"the fragmented read has {requests(fragmented)} requests, the pristine one "
            f"{requests(pristine)}: no extra request to cost"
        )
    device = fragmented["time"]["device_busy_us"] - pristine["time"]["device_busy_us"]
    return device / extra


def fit(pristine: dict, fragmented: dict) -> dict[str, float]:
    """The derivation: TMC's marginal cost, the model's device share of it and the host
    overhead that makes up the rest."""
    target = tmc_marginal_us()
    device = device_us_per_extra_request(pristine, fragmented)
    return {
        "tmc_marginal_us": round(target, 3),
        "pristine_requests": requests(pristine),
        "fragmented_requests": requests(fragmented),
        "pristine_device_ms": pristine["time"]["device_busy_us"] / 1000,
        "fragmented_device_ms": fragmented["time"]["device_busy_us"] / 1000,
        "device_us_per_extra_request": round(device, 3),
        "host_overhead_us": round(target - device, 3),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("pristine", type=Path, help="blktrace folder of the pristine read")
    parser.add_argument("fragmented", type=Path, help="blktrace folder of the fragmented read")
    parser.add_argument("--device", type=Path, required=True, help="device profile")
    parser.add_argument("--ftl-sim", type=Path, required=True)
    args = parser.parse_args(argv)
    try:
        pristine = ftl.replay_phase(args.ftl_sim, args.device, args.pristine)
        fragmented = ftl.replay_phase(args.ftl_sim, args.device, args.fragmented)
        derivation = fit(pristine, fragmented)
    except (ftl.FtlSimError, ValueError, OSError) as error:
        print(f"host_overhead: {error}", file=sys.stderr)
        return 1
    print(json.dumps(derivation, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
