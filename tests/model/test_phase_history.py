"""mobifrag.model.phase_history: the run's earlier phases, in the order its job traced
them, and a phase's replay after their writes (the real ftl-sim)."""

import json

import pytest

from block_traces import DEVICE, write_blktrace
from conftest import FTL_SIM
from mobifrag.model import ftl
from mobifrag.model.phase_history import PhaseHistoryError, earlier_traces, main
from mobifrag.model.run_phases import main as run_phases

needs_ftl_sim = pytest.mark.skipif(not FTL_SIM.is_file(), reason="ftl-sim is not built")
FILE_PAGES = 64


def appends(other_writes):
    """The measured file (at sector 0) appended a 4 KiB page at a time, each append
    followed by `other_writes[i]` writes of other files' pages far from it."""
    requests, time_ns = [], 0
    for page, others in enumerate(other_writes):
        requests.append((time_ns, "W", page * 8, 8))
        for other in range(others):
            time_ns += 100_000
            requests.append((time_ns, "W", 65_536 + (page * 1_000 + other) * 8, 8))
        time_ns += 100_000
    return requests


def cold_read():
    """The measured file read at once in 128 KiB requests, all in flight together."""
    return [(i * 1_000, "R", i * 256, 256, 400_000) for i in range(FILE_PAGES // 32)]


def test_earlier_phases_come_in_the_order_the_job_traced_them(tmp_path):
    for phase in ("write-b", "write-a", "read-a"):
        write_blktrace(tmp_path / "blktrace" / phase, [(0, "W", 0, 8)])
    assert [p.name for p in earlier_traces(tmp_path, "read-a")] == ["write-b", "write-a"]
    assert earlier_traces(tmp_path, "write-b") == []


def test_a_run_without_an_order_or_a_listed_phase_is_named(tmp_path, capsys):
    (tmp_path / "blktrace" / "read").mkdir(parents=True)
    with pytest.raises(PhaseHistoryError, match="blktrace/order: no phase order"):
        earlier_traces(tmp_path, "read")
    (tmp_path / "blktrace" / "order").write_text("gone\nread\n")
    with pytest.raises(PhaseHistoryError, match="blktrace/gone: listed in the phase order"):
        earlier_traces(tmp_path, "read")
    with pytest.raises(PhaseHistoryError, match="no phase 'other'"):
        earlier_traces(tmp_path, "other")
    (tmp_path / "blktrace" / "order").write_text("read\n../x\n")
    assert main([str(tmp_path), "read"]) == 1
    assert "blktrace/order:2: '../x' is not a phase name" in capsys.readouterr().err


def test_the_command_prints_ftl_sims_options(tmp_path, capsys):
    for phase in ("write", "read"):
        write_blktrace(tmp_path / "blktrace" / phase, [(0, "W", 0, 8)])
    assert main([str(tmp_path), "read"]) == 0
    assert capsys.readouterr().out.split() == [
        "--history-trace",
        str(tmp_path / "blktrace" / "write"),
    ]


def modeled_read_ms(tmp_path, name, writes):
    """Modeled time of the cold read of a file its run wrote with `writes` (the run's
    phase models, rule ftl_replay_run)."""
    run = tmp_path / name
    write_blktrace(run / "blktrace" / "write", writes)
    write_blktrace(run / "blktrace" / "read", cold_read())
    out = run / "phases.json"
    args = ["--device", str(DEVICE), "--ftl-sim", str(FTL_SIM), "-o", str(out)]
    assert run_phases([str(run), *args]) == 0
    phases = json.loads(out.read_text())["phases"]
    assert phases["read"]["summary"]["replay"]["history_trace_writes"] == len(writes)
    return ftl.modeled_seconds(phases["read"]["summary"]) * 1000


@needs_ftl_sim
def test_a_file_appended_among_other_writes_reads_slower_than_one_written_at_once(
    tmp_path,
):
    # Written at once, the file's pages stripe over all eight planes of the eMMC. Each
    # append followed by 135 other writes (more than the device's write buffer of 128
    # pages holds, so the append starts a new stripe) comes back to the same plane
    # (136 writes are seventeen rounds of the eight planes): the cold read queues there.
    at_once = modeled_read_ms(tmp_path, "at-once", appends([0] * FILE_PAGES))
    one_plane = modeled_read_ms(tmp_path, "one-plane", appends([135] * FILE_PAGES))
    assert one_plane > 2 * at_once, (at_once, one_plane)
