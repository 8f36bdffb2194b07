"""Run ftl-sim (ftl-sim/README.md) on a captured blktrace folder and read its summary."""

from __future__ import annotations

import json
import subprocess
import tempfile
from collections.abc import Sequence
from pathlib import Path

from mobifrag.model import phase_history


class FtlSimError(RuntimeError):
    """ftl-sim refused a trace or a profile; the message is ftl-sim's own."""


def run(ftl_sim: Path, *arguments: str) -> str:
    """ftl-sim's standard output for one command; FtlSimError with its message when it
    refuses the command."""
    done = subprocess.run([str(ftl_sim), *arguments], capture_output=True, text=True)
    if done.returncode != 0:
        raise FtlSimError(f"ftl-sim {arguments[0]}: {done.stderr.strip()}")
    return done.stdout


def summary(ftl_sim: Path, device: Path, trace: Path, *options: str) -> dict:
    """ftl-sim's JSON summary of replaying `trace` on `device` with `options`."""
    with tempfile.TemporaryDirectory() as scratch:
        out = Path(scratch) / "summary.json"
        run(ftl_sim, "replay", "--device", str(device), *options, "-o", str(out), str(trace))
        return json.loads(out.read_text())


def replay(ftl_sim: Path, device: Path, blktrace_dir: Path, *options: str) -> dict:
    """ftl-sim's JSON summary of replaying blktrace_dir on a device written once
    beforehand, so every read finds mapped pages, with the requests in flight the trace
    shows (`--arrivals overlap`: a request waits only for those whose completion the
    trace logged before its issue); `options` add ftl-sim flags."""
    try:
        return summary(
            ftl_sim,
            device,
            blktrace_dir,
            "--format",
            "blktrace",
            "--precondition-fill",
            "1.0",
            "--arrivals",
            "overlap",
            *options,
        )
    except FtlSimError as error:
        raise FtlSimError(f"{error} (trace {blktrace_dir})") from None


def load_summary(path: Path) -> dict:
    """A kept ftl-sim summary (the JSON of rule ftl_replay_phase); FtlSimError naming the
    file when it is missing or damaged."""
    try:
        return json.loads(Path(path).read_text())
    except (OSError, ValueError) as error:
        raise FtlSimError(f"{path}: no ftl-sim summary ({error})") from None


def block_requests(summary: dict) -> int:
    """Read and write requests of an ftl-sim summary (what the phase asked of the disk)."""
    return sum(summary["requests"][op]["count"] for op in ("read", "write"))


def load_phase_replay(path: Path) -> dict:
    """A kept ftl-sim summary of a phase that read or wrote the disk; FtlSimError naming
    the file and its trace when the replay met no read or write. ftl-sim replays an
    empty per-CPU blktrace with a warning and every count 0, which a table must not take
    for a measurement (blktrace.log beside the trace says whether it dropped events)."""
    summary = load_summary(path)
    try:
        requests = block_requests(summary)
    except (KeyError, TypeError) as error:
        raise FtlSimError(f"{path}: not an ftl-sim summary (no {error})") from None
    if requests == 0:
        traces = summary.get("replay", {}).get("trace_files") or ["its trace"]
        raise FtlSimError(
            f"{path}: the replay of {', '.join(traces)} met no read or write (an empty"
            " block trace?): no row is made of it"
        )
    return summary


def parallel_units(ftl_sim: Path, device: Path) -> int:
    """The device profile's parallel units (channels × ways × dies × planes)."""
    shown = json.loads(run(ftl_sim, "show", "--device", str(device)))
    return shown["derived"]["parallel_units"]


def times_ms(summary: dict) -> dict[str, str]:
    """Device busy time and modeled time (device + host overhead per request), in ms."""
    time = summary["time"]
    return {
        "device_ms": f"{time['device_busy_us'] / 1000:.6g}",
        "modeled_ms": f"{time['modeled_us'] / 1000:.6g}",
    }


def replay_phase(
    ftl_sim: Path,
    device: Path,
    blktrace_dir: Path,
    threads: int = 1,
    history: Sequence[Path] = (),
) -> dict:
    """`replay` of one job phase's blktrace folder with the overlap its trace shows
    (readahead's requests issued together stay in flight together) and never fewer
    requests in flight than the workload's synchronous threads keep (a slow guest may
    serialize threads a phone would overlap); the trace's timestamps (the emulator's
    pacing) only order the requests. `history`: the run's earlier phases' traces, oldest
    first, whose writes are replayed first (mobifrag.model.phase_history)."""
    if threads < 1:
        raise ValueError(f"thread count {threads} is not positive")
    if not Path(blktrace_dir).is_dir():
        raise FtlSimError(
            f"{blktrace_dir} is missing: no block trace of this phase (a run from before its"
            " job traced it? run the job again)"
        )
    return replay(
        ftl_sim,
        device,
        blktrace_dir,
        "--threads",
        str(threads),
        *phase_history.history_options(history),
    )


def modeled_seconds(summary: dict) -> float:
    """Modeled time (device time + host overhead per request) in seconds."""
    return summary["time"]["modeled_us"] / 1e6


def phase_columns(summary: dict) -> dict[str, str]:
    """What one phase asked of the disk and what it costs on the modeled device: read and
    write requests, the bytes they read and wrote, flushes, device and modeled time (ms)."""
    requests = summary["requests"]
    return {
        "requests": str(block_requests(summary)),
        "read_bytes": str(requests["read"]["bytes"]),
        "write_bytes": str(requests["write"]["bytes"]),
        "flushes": str(requests["flush"]["count"]),
        **times_ms(summary),
    }
