"""IOzone's text report of one throughput-mode run (`iozone -t N ...`), as the guest jobs
keep it (jobs/ext4tune-bench.sh: iozone/<test>.txt).

IOzone's sizes and rates are in kB (1024 bytes): "Output is in kBytes/sec".
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

# the lines of a throughput-mode report that give its numbers
PROCESSES = re.compile(r"^\s*Throughput test with (?P<n>\d+) (process|processes|threads?)\s*$")
SIZES = re.compile(
    r"^\s*Each (process|thread) writes a (?P<file>[\d.]+) kByte file"
    r" in (?P<record>[\d.]+) kByte records\s*$"
)
CHILDREN = re.compile(
    r"^\s*Children see throughput for\s+(?P<n>\d+) (?P<test>[a-z -]+?)\s*="
    r"\s*(?P<rate>[\d.]+) kB/sec\s*$"
)
XFER = re.compile(r"^\s*Min xfer\s*=\s*(?P<kib>[\d.]+) kB\s*$")
# how each of those lines begins: one that begins so and does not match is malformed
LINES = {
    "processes": ("Throughput test with", PROCESSES),
    "sizes": ("Each process writes", SIZES),
    "children": ("Children see throughput", CHILDREN),
    "xfer": ("Min xfer", XFER),
}
COMPLETE = "iozone test complete."
FAILED = re.compile(r"error|can ?not|interrupted|exiting", re.IGNORECASE)


class IozoneReportError(ValueError):
    """An IOzone report that cannot be read; the message names the file (and line)."""


@dataclass(frozen=True)
class IozoneRun:
    """One throughput-mode test: IOzone's name for it ("initial writers", "readers",
    "mixed workload"), its processes, each one's file and record size (KiB), the
    children's throughput (KiB/s, their sum), and the least any process moved (KiB)."""

    test: str
    processes: int
    file_kib: float
    record_kib: float
    children_kib_s: float
    min_xfer_kib: float


def _matches(report: Path, lines: list[str]) -> dict[str, re.Match]:
    found: dict[str, re.Match] = {}
    for number, line in enumerate(lines, 1):
        if FAILED.search(line):
            raise IozoneReportError(f"{report}:{number}: IOzone reports a failure: {line.strip()}")
        for name, (start, pattern) in LINES.items():
            if not line.strip().startswith(start):
                continue
            match = pattern.match(line)
            if not match or name in found:
                why = "a second" if match else "a malformed"
                raise IozoneReportError(
                    f"{report}:{number}: {why} '{start}' line: {line.strip()!r}"
                )
            found[name] = match
    return found


def iozone_run(report: Path) -> IozoneRun:
    """The one test of a throughput-mode report; a report that lacks one of its lines,
    says IOzone failed, or did not complete is refused, naming the file (and line)."""
    try:
        lines = Path(report).read_text().splitlines()
    except (OSError, UnicodeDecodeError) as error:
        raise IozoneReportError(f"{report}: no IOzone report ({error})") from None
    found = _matches(report, lines)
    missing = [start for name, (start, _) in LINES.items() if name not in found]
    if missing or COMPLETE not in (line.strip() for line in lines):
        lacking = ", ".join(f"'{start}'" for start in missing) or f"'{COMPLETE}'"
        raise IozoneReportError(
            f"{report}: not a whole IOzone throughput report (no {lacking} line;"
            " did IOzone run with -t and finish?)"
        )
    processes = int(found["processes"]["n"])
    if int(found["children"]["n"]) != processes:
        raise IozoneReportError(
            f"{report}: {processes} processes, throughput given for {found['children']['n']}"
        )
    return IozoneRun(
        test=found["children"]["test"],
        processes=processes,
        file_kib=float(found["sizes"]["file"]),
        record_kib=float(found["sizes"]["record"]),
        children_kib_s=float(found["children"]["rate"]),
        min_xfer_kib=float(found["xfer"]["kib"]),
    )
