"""Block traces as the jobs capture them, for the model's and the tables' tests: blktrace's
binary per-CPU files of synthetic requests, replayed through ftl-sim on the eMMC profile."""

import random
import struct

from conftest import REPO

DEVICE = REPO / "devices" / "emulator-emmc.yaml"
SECTOR = 512

# struct blk_io_trace (linux/blktrace_api.h, version 7): magic, sequence, time, sector,
# bytes, action, pid, device, cpu, error, pdu_len.
BLK_IO_TRACE = struct.Struct("<IIQQIIIIIHH")
MAGIC = 0x65617400 | 7
ISSUE = 7  # blkparse's D: the request handed to the driver
COMPLETE = 8  # blkparse's C: the driver's completion of it
CATEGORY = {"R": 1 << 0, "W": 1 << 1, "F": 1 << 2}


def write_blktrace(folder, requests, cpu=0):
    """A blktrace folder (trace.blktrace.<cpu>; in a run's blktrace/, listed in its
    phase order) of issue and completion events for `requests`: (time_ns, op, sector,
    sectors[, completed_ns]) with op R (read), W (write), F (flush, no data); a request
    without completed_ns completes 1 ns after its issue, before the next is issued (one
    request in flight at a time)."""
    folder.mkdir(parents=True, exist_ok=True)
    events = []
    for time_ns, op, sector, sectors, *done in requests:
        completed_ns = done[0] if done else time_ns + 1
        for code, at in ((ISSUE, time_ns), (COMPLETE, completed_ns)):
            events.append((at, code, op, sector, sectors))
    records = []
    for sequence, (at, code, op, sector, sectors) in enumerate(sorted(events, key=lambda e: e[0])):
        action = CATEGORY[op] << 16 | code
        fields = (MAGIC, sequence, at, sector, sectors * SECTOR, action, 1, 0xFD00000, cpu)
        records.append(BLK_IO_TRACE.pack(*fields, 0, 0))
    (folder / f"trace.blktrace.{cpu}").write_bytes(b"".join(records))
    record_phase(folder)
    return folder


def record_phase(folder):
    """A phase folder of a run's blktrace/ joins the run's phase order, as the jobs'
    trace_start appends it (mobifrag.model.phase_history)."""
    if folder.parent.name != "blktrace":
        return
    order = folder.parent / "order"
    listed = order.read_text().splitlines() if order.exists() else []
    if folder.name not in listed:
        order.write_text("".join(f"{name}\n" for name in [*listed, folder.name]))


def readahead_requests(batches=16, batch=32, together=True, seed=5):
    """Cold reads of a file of 4 KiB pieces scattered over the disk: readahead submits a
    window of `batch` 4 KiB reads, issued 1 µs apart and completed together 200 µs
    later (`together`), or each completed before the next is issued."""
    rng = random.Random(seed)
    requests, now = [], 0
    for _ in range(batches):
        window = [rng.randrange(0, 1 << 20) * 8 for _ in range(batch)]
        end = now + batch * 1_000 + 200_000
        for sector in window:
            if together:
                requests.append((now, "R", sector, 8, end))
                now += 1_000
            else:
                requests.append((now, "R", sector, 8, now + 5_000))
                now += 10_000
        now = max(now, end) + 50_000
    return requests
