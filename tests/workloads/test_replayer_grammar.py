"""One grammar: `python -m mobifrag.workloads validate` accepts exactly the trace lines the
agent's replayer accepts (`mobifrag-agent replay --check`), and both name the same line.

Each case is one line after the header (line 2) or a whole file; the expected verdict is
written down too, so a change on both sides at once is caught as well.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from conftest import REPO
from mobifrag.workloads import __main__ as workloads_cli
from mobifrag.workloads.iotrace import TRACE_MAX_THREADS, TraceError, read_trace

AGENT = REPO / "agent" / "build" / "mobifrag-agent"
HEADER = b"#iotrace v1\n"
BIG = str(2**63 - 1).encode()
U64 = str(2**64 - 1).encode()

# (id, body after the header, accepted?)
LINES: list[tuple[str, bytes, bool]] = [
    ("mkdir", b"0\t0\tmkdir\ta/b", True),
    ("create", b"0\t0\tcreate\tf", True),
    ("write", b"0\t0\twrite\tf\t0\t4096", True),
    ("append", b"0\t0\tappend\tf\t10", True),
    ("read", b"0\t0\tread\tf\t0\t10", True),
    ("fsync", b"0\t0\tfsync\tf", True),
    ("fdatasync", b"0\t0\tfdatasync\tf", True),
    ("syncfs", b"0\t0\tsyncfs\t.", True),
    ("fallocate keep", b"0\t0\tfallocate\tf\t0\t10\tkeep", True),
    ("fallocate extend", b"0\t0\tfallocate\tf\t0\t10\textend", True),
    ("truncate", b"0\t0\ttruncate\tf\t0", True),
    ("unlink", b"0\t0\tunlink\tf", True),
    ("rename", b"0\t0\trename\tf\tg", True),
    ("sql", b"0\t0\tsql\td.db\twal\tinsert\t1\t100", True),
    ("sql max blob", b"0\t0\tsql\td.db\tdelete\tupdate\t1\t1000000000", True),
    ("fill int", b"0\t0\tfill\tf\t70", True),
    ("fill fraction", b"0\t0\tfill\tf\t72.5", True),
    ("fill 100", b"0\t0\tfill\tf\t100", True),
    ("fill 100.0", b"0\t0\tfill\tf\t100.0", True),
    ("reclaim", b"0\t0\treclaim\tmedia\t90\t0\t7\timg-*", True),
    ("reclaim escaped glob", b"0\t0\treclaim\tmedia\t90\t0\t7\t\\*", True),
    ("thin", b"0\t0\tthin\taging/small\t90\t7\tsmall-*\t524288", True),
    ("thin no limit", b"0\t0\tthin\tm\t72.5\t7\t*\t0", True),
    ("comment", b"# anything \xff here", True),
    ("empty line", b"", True),
    ("escapes", b"0\t0\tcreate\ta\\tb\\nc\\\\d\\x41\\x7f", True),
    ("non-utf8 path", b"0\t0\tcreate\tcaf\xe9", True),
    ("utf8 path", "0\t0\tcreate\tcafé".encode(), True),
    ("dot path", b"0\t0\tsyncfs\t./a/./b", True),
    ("dash file", b"0\t0\tcreate\t./-", True),
    ("escaped dash", b"0\t0\tcreate\t\\x2d", True),
    ("dots in name", b"0\t0\tcreate\t...", True),
    ("trailing slash", b"0\t0\tmkdir\ta/", True),
    ("max offset", b"0\t0\twrite\tf\t0\t" + BIG, True),
    ("max u64 time", U64 + b"\t" + U64 + b"\tcreate\tf", True),
    ("leading zeros", b"000\t0000000000000000000000000000001\tcreate\tf", True),
    ("reclaim max seed", b"0\t0\treclaim\tm\t0\t" + U64 + b"\t" + U64 + b"\t*", True),
    ("carriage return kept", b"0\t0\tcreate\tf\r", True),
    # rejected
    ("unknown op", b"0\t0\tfrob\tf", False),
    ("too few fields", b"0\t0\tcreate", False),
    ("too many fields", b"0\t0\tcreate\tf\tx", False),
    ("trailing tab", b"0\t0\tfsync\tf\t", False),
    ("negative time", b"-1\t0\tcreate\tf", False),
    ("hex time", b"0x1\t0\tcreate\tf", False),
    ("plus sign", b"+1\t0\tcreate\tf", False),
    ("empty time", b"\t0\tcreate\tf", False),
    ("unicode digit", "0\t٣\tcreate\tf".encode(), False),
    ("time over u64", str(2**64).encode() + b"\t0\tcreate\tf", False),
    ("thread over u64", b"0\t" + str(2**64).encode() + b"\tcreate\tf", False),
    ("size suffix", b"0\t0\tappend\tf\t4k", False),
    ("length 10^23", b"0\t0\twrite\tf\t0\t100000000000000000000000", False),
    ("offset 2^63", b"0\t0\twrite\tf\t" + str(2**63).encode() + b"\t0", False),
    ("span past 2^63", b"0\t0\twrite\tf\t1\t" + BIG, False),
    ("fallocate span", b"0\t0\tfallocate\tf\t" + BIG + b"\t1\tkeep", False),
    ("truncate 2^63", b"0\t0\ttruncate\tf\t" + str(2**63).encode(), False),
    ("bad mode", b"0\t0\tfallocate\tf\t0\t1\tpunch", False),
    ("bad journal", b"0\t0\tsql\td\tmemory\tinsert\t1\t1", False),
    ("bad kind", b"0\t0\tsql\td\twal\tupsert\t1\t1", False),
    ("blob over 10^9", b"0\t0\tsql\td\twal\tinsert\t1\t1000000001", False),
    ("rows 2^63", b"0\t0\tsql\td\twal\tinsert\t" + str(2**63).encode() + b"\t1", False),
    ("fill 250", b"0\t0\tfill\tf\t250", False),
    ("fill 100.5", b"0\t0\tfill\tf\t100.5", False),
    ("fill dot", b"0\t0\tfill\tf\t.5", False),
    ("fill trailing dot", b"0\t0\tfill\tf\t5.", False),
    ("fill exponent", b"0\t0\tfill\tf\t1e1", False),
    ("fill negative", b"0\t0\tfill\tf\t-1", False),
    ("reclaim empty glob", b"0\t0\treclaim\tm\t90\t0\t1\t", False),
    ("reclaim slash glob", b"0\t0\treclaim\tm\t90\t0\t1\ta/*", False),
    ("thin limit 2^63", b"0\t0\tthin\tm\t90\t1\t*\t" + str(2**63).encode(), False),
    ("thin without limit", b"0\t0\tthin\tm\t90\t1\t*", False),
    ("thin slash glob", b"0\t0\tthin\tm\t90\t1\ta/*\t4096", False),
    ("reclaim bytes over u64", b"0\t0\treclaim\tm\t90\t" + str(2**64).encode() + b"\t1\t*", False),
    ("absolute", b"0\t0\tcreate\t/etc/passwd", False),
    ("dot dot", b"0\t0\tcreate\ta/../../b", False),
    ("escaped dot dot", b"0\t0\tcreate\t\\x2e\\x2e/b", False),
    ("escaped slash absolute", b"0\t0\tcreate\t\\x2fetc", False),
    ("rename dot dot", b"0\t0\trename\tf\t../g", False),
    ("rename absolute", b"0\t0\trename\tf\t/g", False),
    ("empty path", b"0\t0\tcreate\t", False),
    ("dash path", b"0\t0\tcreate\t-", False),
    ("dash newpath", b"0\t0\trename\tf\t-", False),
    ("bad escape", b"0\t0\tcreate\ta\\q", False),
    ("short hex escape", b"0\t0\tcreate\ta\\x4", False),
    ("dangling backslash", b"0\t0\tcreate\ta\\", False),
    ("escaped backslash then dangling", b"0\t0\tcreate\ta\\\\\\", False),
    ("escaped nul", b"0\t0\tcreate\ta\\x00", False),
    ("raw nul", b"0\t0\tcreate\ta\x00b", False),
    ("nul in comment", b"# a\x00b", False),
    ("undecodable op", b"0\t0\tcr\xe9ate\tf", False),
    ("space separated", b"0 0 create f", False),
]

# (id, whole file, accepted?, line named when rejected)
FILES: list[tuple[str, bytes, bool, int]] = [
    ("empty file", b"", False, 1),
    ("header only", HEADER, True, 0),
    ("header no newline", HEADER.rstrip(b"\n"), True, 0),
    ("wrong header", b"#iotrace v2\n0\t0\tcreate\tf\n", False, 1),
    ("header with cr", b"#iotrace v1\r\n", False, 1),
    ("bom", b"\xef\xbb\xbf" + HEADER, False, 1),
    ("time goes back", HEADER + b"5\t0\tcreate\ta\n0\t1\tcreate\tb\n4\t0\tcreate\tc\n", False, 4),
    ("time per thread", HEADER + b"5\t0\tcreate\ta\n0\t1\tcreate\tb\n5\t0\tcreate\tc\n", True, 0),
    (
        "threads at the cap",
        HEADER + b"".join(b"0\t%d\tcreate\tf\n" % t for t in range(TRACE_MAX_THREADS)),
        True,
        0,
    ),
    (
        "one thread too many",
        HEADER + b"".join(b"0\t%d\tcreate\tf\n" % (t * 3) for t in range(TRACE_MAX_THREADS + 1)),
        False,
        TRACE_MAX_THREADS + 2,
    ),
]


def _cases():
    for name, body, ok in LINES:
        yield pytest.param(HEADER + body + b"\n", ok, 0 if ok else 2, id=name)
    for name, data, ok, line in FILES:
        yield pytest.param(data, ok, line, id=name)


def _agent_verdict(trace: Path) -> tuple[bool, int | None]:
    run = subprocess.run(
        [str(AGENT), "replay", "--trace", str(trace), "--check"],
        capture_output=True,
        timeout=60,
    )
    assert run.returncode in (0, 65), run.stderr.decode(errors="replace")
    assert run.stdout == b""
    lines = re.findall(rb":(\d+): ", run.stderr)
    return run.returncode == 0, int(lines[0]) if lines else None


def _python_verdict(trace: Path) -> tuple[bool, int | None]:
    try:
        read_trace(trace)
    except TraceError as error:
        match = re.match(re.escape(str(trace)) + r":(\d+): ", str(error))
        assert match, f"no FILE:LINE in {error}"
        return False, int(match.group(1))
    return True, None


@pytest.fixture(scope="module")
def agent() -> Path:
    if not AGENT.exists():
        pytest.skip("agent not built (make -C agent)")
    run = subprocess.run([str(AGENT), "replay", "--help"], capture_output=True, text=True)
    if "--check" not in run.stdout:
        pytest.skip("agent build predates replay --check (make -C agent)")
    return AGENT


@pytest.mark.parametrize(("data", "accepted", "line"), list(_cases()))
def test_validator_and_replayer_agree(agent, tmp_path, data, accepted, line):
    trace = tmp_path / "case.iotrace"
    trace.write_bytes(data)
    agent_ok, agent_line = _agent_verdict(trace)
    python_ok, python_line = _python_verdict(trace)
    assert (python_ok, agent_ok) == (accepted, accepted), (
        f"expected {'accept' if accepted else 'reject'}: python {python_ok}, agent {agent_ok}"
    )
    if not accepted:
        assert python_line == agent_line == line


def test_validate_command_names_file_and_line(tmp_path, capsys):
    trace = tmp_path / "bad.iotrace"
    trace.write_bytes(HEADER + b"0\t0\tcreate\ta\n0\t0\twrite\tf\t0\t100000000000000000000000\n")
    assert workloads_cli.main(["validate", str(trace)]) == 65
    assert f"{trace}:3: " in capsys.readouterr().err
    trace.write_bytes(HEADER + b"0\t0\tcr\xe9ate\tf\n")
    assert workloads_cli.main(["validate", str(trace)]) == 65
    assert f"{trace}:2: unknown op" in capsys.readouterr().err
    trace.write_bytes(HEADER + b"0\t0\tfill\tf\t72.5\n")
    assert workloads_cli.main(["validate", str(trace)]) == 0
