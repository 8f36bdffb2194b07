"""Per-file features of ARS §IV.A from a Mobibench app trace, files counted by descriptor.

The paper's data sets are Mobibench's Facebook and Twitter traces (ARS §IV, §V.C), whose
"write operation object ... is described by fd" (§IV.A): a file is a descriptor the
trace writes through. Counted so, the pinned traces hold 91 (Facebook) and 60 (Twitter)
files, 18 and 15 of them written more than 100 times — the paper's 19.8 % and 25 % (§IV)
— and 75/25 splits of them give test sets of 23 and 15 files, the sizes ARS Table I's
accuracies are fractions of (`tables.test_files`). For every descriptor, over all its
write and pwrite calls (the calls the paper counts, 14,429 and 6,029):

- `size_bytes`: the largest end offset a write reached through it — `write` moves the
  descriptor's offset (0 after each open or close, and at the first call of a
  descriptor opened before the capture), `pwrite` carries its own; only bytes the call
  moved count;
- `write_interval_s`: time between its first and last write call ("the time interval
  between the first and last write of a file in a trace", §IV.A);
- `write_requests`: its write and pwrite calls ("write request times", §IV.A).

`replayed_files` gives, per descriptor, the files the converted trace writes through it
(one per open, as `mobibench -g` replays it: `mobifrag.workloads.mobibench_import`); the
label measures their fragmentation (`labels.py`). A descriptor only written while
opened before the capture has none: Mobibench skips those calls.
"""

from __future__ import annotations

from dataclasses import dataclass

from mobifrag.workloads.mobibench_import import WRITES, Call, ImportResult

FEATURES = ("size_bytes", "write_interval_s", "write_requests")
COLUMNS = ("descriptor",) + FEATURES


@dataclass
class Written:
    offset: int = 0
    size: int = 0
    requests: int = 0
    first_us: int = 0
    last_us: int = 0

    def wrote(self, time_us: int, end: int) -> None:
        if self.requests == 0:
            self.first_us = time_us
        self.requests += 1
        self.last_us = time_us
        self.size = max(self.size, end)


def _end_of(call: Call, state: Written) -> int:
    """The end offset the write call reached; a plain write moves the offset."""
    if call.name == "pwrite":
        _fd, offset, length = call.args
        return offset + length if length > 0 else 0
    state.offset += max(call.args[1], 0)
    return state.offset


def _reopened(call: Call) -> int | None:
    """The descriptor an open or close gives a new file position, if any."""
    if call.name == "open" and call.args[2] >= 0:
        return call.args[2]
    return call.args[0] if call.name == "close" else None


def descriptor_features(calls: list[Call]) -> list[dict[str, object]]:
    """One row per descriptor the trace writes through, by descriptor number."""
    states: dict[int, Written] = {}
    for call in sorted(calls, key=lambda c: c.time_us):  # stable, as the importer
        if call.name in WRITES:
            state = states.setdefault(call.args[0], Written())
            state.wrote(call.time_us, _end_of(call, state))
        elif (fd := _reopened(call)) in states:
            states[fd].offset = 0
    return [
        {
            "descriptor": fd,
            "size_bytes": state.size,
            "write_interval_s": round((state.last_us - state.first_us) / 1e6, 6),
            "write_requests": state.requests,
        }
        for fd, state in sorted(states.items())
    ]


def replayed_files(result: ImportResult) -> dict[int, list[str]]:
    """Descriptor → the files the converted trace writes through it, in path order."""
    written = {op.path for op in result.ops if op.op == "write"}
    files: dict[int, list[str]] = {}
    for path, fd in sorted(result.descriptors.items()):
        if path in written:
            files.setdefault(fd, []).append(path)
    return files
