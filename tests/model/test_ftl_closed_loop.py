"""Modeled time must not inherit the emulator's pacing (issue 16): a trace captured under
TCG carries the host's timing, so the tables replay each phase with its requests issued
as soon as the trace's own order allows (mobifrag/model/ftl.py). Here a trace's
timestamps are stretched ×10 and compressed ×0.1: the modeled time and the mean
latencies of the phase replay and of the closed loop stay put, while those of a replay at
the trace's own arrival times move (which is what this test would catch).

What the phase replay keeps from the trace is its overlap (issue 40): a request waits
only for the requests whose completion (blktrace's C) the trace logged before its issue
(D), so readahead's batch of reads issued together replays in flight together, where the
closed loop at queue depth 1 served them one after the other.

The traces are synthetic but shaped like the job phases': 4 KiB fsync'd writes each
followed by a flush, 128 KiB sequential reads and 4 KiB random reads, issued in bursts
with gaps, and readahead's batches of 4 KiB reads over a fragmented file. Both input
paths are covered: ftl-sim's CSV format, and blktrace's binary per-CPU files (what the
jobs capture), written by `write_blktrace` of tests/block_traces.py, which the table
tests use too."""

import random

import pytest

from block_traces import (
    BLK_IO_TRACE,
    CATEGORY,
    DEVICE,
    ISSUE,
    MAGIC,
    SECTOR,
    readahead_requests,
    write_blktrace,
)
from conftest import FTL_SIM, needs_ftl_sim
from mobifrag.model import ftl

SCALES = (0.1, 10.0)

pytestmark = needs_ftl_sim


def phase_like_requests(seed=7, count=600):
    """Requests in bursts: fsync'd 4 KiB writes (each with a flush), 128 KiB sequential
    reads, 4 KiB random reads; a few microseconds apart inside a burst, milliseconds
    between bursts, so a replay at trace times queues some of them and not others."""
    rng = random.Random(seed)
    requests, now, sequential = [], 0, 1 << 20
    while len(requests) < count:
        kind = rng.choice(("write", "seq-read", "rand-read"))
        for _ in range(rng.randint(4, 24)):
            now += rng.randint(2_000, 30_000)
            if kind == "write":
                requests.append((now, "W", rng.randrange(0, 1 << 21) * 8, 8))
                now += rng.randint(1_000, 5_000)
                requests.append((now, "F", 0, 0))
            elif kind == "seq-read":
                requests.append((now, "R", sequential, 256))
                sequential += 256
            else:
                requests.append((now, "R", rng.randrange(0, 1 << 21) * 8, 8))
        now += rng.randint(1_000_000, 20_000_000)
    return requests


def scaled(requests, factor):
    """Every time of `requests` (the issue's, and the completion's where given) × factor."""
    return [
        (round(t * factor), op, sector, sectors, *(round(d * factor) for d in done))
        for t, op, sector, sectors, *done in requests
    ]


def write_csv(path, requests):
    lines = ["time_ns,op,sector,sectors"]
    lines += [f"{t},{op},{sector},{sectors}" for t, op, sector, sectors, *_ in requests]
    path.write_text("\n".join(lines) + "\n")
    return path


def csv_summary(trace, arrivals):
    return ftl.summary(
        FTL_SIM, DEVICE, trace, "--format", "csv", "--precondition-fill", "1.0",
        "--arrivals", arrivals,
    )  # fmt: skip


def measures(summary):
    """Modeled time and the mean read and write latencies of a replay."""
    requests = summary["requests"]
    return {
        "modeled_us": summary["time"]["modeled_us"],
        "read_mean_us": requests["read"]["latency_us"]["mean"],
        "write_mean_us": requests["write"]["latency_us"]["mean"],
    }


def assert_within(measured, reference, tolerance=0.02):
    for name, value in measured.items():
        assert value == pytest.approx(reference[name], rel=tolerance), name


@pytest.mark.parametrize("factor", SCALES)
def test_closed_loop_csv_replay_ignores_the_trace_pacing(tmp_path, factor):
    requests = phase_like_requests()
    original = measures(csv_summary(write_csv(tmp_path / "t.csv", requests), "closed"))
    stretched = write_csv(tmp_path / f"t-{factor}.csv", scaled(requests, factor))
    assert original["modeled_us"] > 0 and original["read_mean_us"] > 0
    assert_within(measures(csv_summary(stretched, "closed")), original)


def test_replay_at_trace_times_does_depend_on_the_pacing(tmp_path):
    # The control: the same traces replayed at their own arrival times. Compressed ×0.1,
    # the bursts queue up and the mean latencies grow far beyond 2 %.
    requests = phase_like_requests()
    original = measures(csv_summary(write_csv(tmp_path / "t.csv", requests), "trace"))
    fast = measures(csv_summary(write_csv(tmp_path / "f.csv", scaled(requests, 0.1)), "trace"))
    assert fast["write_mean_us"] > 1.5 * original["write_mean_us"]


@pytest.mark.parametrize("factor", SCALES)
def test_phase_replay_of_a_blktrace_ignores_the_trace_pacing(tmp_path, factor):
    requests = phase_like_requests(seed=11)
    original = ftl.replay_phase(FTL_SIM, DEVICE, write_blktrace(tmp_path / "a", requests))
    other = write_blktrace(tmp_path / "b", scaled(requests, factor))
    assert original["requests"]["flush"]["count"] > 0
    assert_within(measures(ftl.replay_phase(FTL_SIM, DEVICE, other)), measures(original))


@pytest.mark.parametrize("factor", SCALES)
def test_phase_replay_at_a_queue_depth_ignores_the_trace_pacing(tmp_path, factor):
    requests = phase_like_requests(seed=13)
    original = ftl.replay_phase(FTL_SIM, DEVICE, write_blktrace(tmp_path / "a", requests), 8)
    other = write_blktrace(tmp_path / "b", scaled(requests, factor))
    assert_within(measures(ftl.replay_phase(FTL_SIM, DEVICE, other, 8)), measures(original))
    # Eight requests in flight overlap on the device's parallel units.
    serial = ftl.replay_phase(FTL_SIM, DEVICE, tmp_path / "a")
    assert original["time"]["device_busy_us"] < serial["time"]["device_busy_us"]


def closed_loop(trace):
    """The replay the phases had before issue 40: closed loop, one request at a time."""
    return ftl.summary(
        FTL_SIM, DEVICE, trace, "--format", "blktrace", "--precondition-fill", "1.0",
        "--arrivals", "closed",
    )  # fmt: skip


def test_requests_issued_together_replay_faster_than_the_same_requests_serialized(tmp_path):
    together = write_blktrace(tmp_path / "together", readahead_requests(together=True))
    serialized = write_blktrace(tmp_path / "serialized", readahead_requests(together=False))
    overlapped = ftl.replay_phase(FTL_SIM, DEVICE, together)
    one_by_one = ftl.replay_phase(FTL_SIM, DEVICE, serialized)
    for op in ("read", "write"):
        for count in ("count", "bytes"):
            assert overlapped["requests"][op][count] == one_by_one["requests"][op][count]
    assert overlapped["replay"]["completions"] == {"matched": 512, "unmatched": 0}
    # 32 reads in flight spread over the profile's eight planes
    busy, serial_busy = overlapped["time"]["device_busy_us"], one_by_one["time"]["device_busy_us"]
    assert busy < 0.5 * serial_busy
    assert overlapped["time"]["modeled_us"] < one_by_one["time"]["modeled_us"]
    # The closed loop at queue depth 1 ignores the overlap: both traces take the
    # serialized trace's time.
    for trace in (together, serialized):
        assert closed_loop(trace)["time"]["device_busy_us"] == serial_busy


@pytest.mark.parametrize("factor", SCALES)
def test_the_overlap_of_a_trace_does_not_depend_on_its_pacing(tmp_path, factor):
    requests = readahead_requests(batches=8, seed=3)
    original = ftl.replay_phase(FTL_SIM, DEVICE, write_blktrace(tmp_path / "a", requests))
    other = write_blktrace(tmp_path / "b", scaled(requests, factor))
    assert_within(measures(ftl.replay_phase(FTL_SIM, DEVICE, other)), measures(original))


def test_binary_and_csv_traces_replay_alike(tmp_path):
    requests = phase_like_requests(seed=17)
    binary = ftl.replay_phase(FTL_SIM, DEVICE, write_blktrace(tmp_path / "bt", requests))
    text = csv_summary(write_csv(tmp_path / "t.csv", requests), "closed")
    assert binary["requests"] == text["requests"]
    assert binary["time"]["modeled_us"] == text["time"]["modeled_us"]


def test_phase_columns_count_what_the_phase_asked(tmp_path):
    requests = [(0, "W", 8, 8), (10, "F", 0, 0), (20, "R", 64, 256), (30, "R", 1024, 8)]
    summary = ftl.replay_phase(FTL_SIM, DEVICE, write_blktrace(tmp_path / "p", requests))
    columns = ftl.phase_columns(summary)
    assert columns["requests"] == "3" and columns["flushes"] == "1"
    assert columns["read_bytes"] == str((256 + 8) * SECTOR)
    assert columns["write_bytes"] == str(8 * SECTOR)
    # modeled = device time + the profile's host overhead (34 µs) per request
    host_us = summary["time"]["host_overhead_us"] * summary["replay"]["requests"]
    assert float(columns["modeled_ms"]) == pytest.approx(
        float(columns["device_ms"]) + host_us / 1000, rel=1e-5
    )
    assert ftl.modeled_seconds(summary) == pytest.approx(float(columns["modeled_ms"]) / 1000)


def test_a_phase_without_trace_is_named(tmp_path):
    with pytest.raises(ftl.FtlSimError, match="no block trace of this phase"):
        ftl.replay_phase(FTL_SIM, DEVICE, tmp_path / "never-traced")
    with pytest.raises(ValueError, match="not positive"):
        ftl.replay_phase(FTL_SIM, DEVICE, tmp_path, 0)


def test_a_trace_without_completions_is_refused_by_name(tmp_path):
    folder = tmp_path / "issues-only"
    folder.mkdir()
    record = BLK_IO_TRACE.pack(MAGIC, 0, 0, 8, 4096, CATEGORY["R"] << 16 | ISSUE, 1, 0, 0, 0, 0)
    (folder / "trace.blktrace.0").write_bytes(record)
    with pytest.raises(ftl.FtlSimError, match="no completion event"):
        ftl.replay_phase(FTL_SIM, DEVICE, folder)
