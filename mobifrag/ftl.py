"""Run ftl-sim (ftl-sim/README.md) on a captured blktrace folder and read its summary."""

from __future__ import annotations

import json
import subprocess
import tempfile
from pathlib import Path


class FtlSimError(RuntimeError):
    """ftl-sim refused a trace or a profile; the message is ftl-sim's own."""


def replay(ftl_sim: Path, device: Path, blktrace_dir: Path, *options: str) -> dict:
    """ftl-sim's JSON summary of replaying blktrace_dir closed-loop (one request at a
    time, as the synchronous workloads issue them) on a device written once
    beforehand, so every read finds mapped pages; `options` add ftl-sim flags."""
    with tempfile.TemporaryDirectory() as scratch:
        out = Path(scratch) / "summary.json"
        command = [str(ftl_sim), "replay", "--device", str(device), "--format", "blktrace"]
        command += ["--precondition-fill", "1.0", "--arrivals", "closed", *options]
        run = subprocess.run(
            [*command, "-o", str(out), str(blktrace_dir)], capture_output=True, text=True
        )
        if run.returncode != 0:
            raise FtlSimError(f"ftl-sim on {blktrace_dir}: {run.stderr.strip()}")
        return json.loads(out.read_text())


def times_ms(summary: dict) -> dict[str, str]:
    """Device busy time and modeled time (device + host overhead per request), in ms."""
    time = summary["time"]
    return {
        "device_ms": f"{time['device_busy_us'] / 1000:.6g}",
        "modeled_ms": f"{time['modeled_us'] / 1000:.6g}",
    }
