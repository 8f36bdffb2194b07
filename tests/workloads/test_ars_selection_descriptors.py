"""Per-descriptor features of ARS §IV.A and the data sets' sizes (ARS Table I)."""

from fractions import Fraction
from math import lcm
from pathlib import Path

import pytest

from conftest import REPO
from mobifrag.workloads.ars_selection.descriptors import descriptor_features, replayed_files
from mobifrag.workloads.ars_selection.models import held_out_files
from mobifrag.workloads.mobibench_import import import_mobibench

# Mobibench's format (mobibench_import.py): THREAD TIME_US CALL ARG... [RESULT].
TRACE = """\
1 0 open data/data O_RDWR|O_CREAT|O_LARGEFILE 36
1 1000000 write 36 100
1 3000000 write 36 50
1 3500000 close 36 0
1 4000000 open data/data O_RDWR|O_CREAT|O_LARGEFILE 36
1 4500000 pwrite 36 8192 4096
1 4600000 write 36 10
2 100 write 40 4
2 200 write 40 -1
2 300 pwrite 40 1000000 -1
3 10 open "/system/fonts/DroidSans.ttf" O_RDONLY|O_LARGEFILE 50
3 20 read 50 1024
3 30 open data/data O_RDWR|O_CREAT|O_LARGEFILE 51
"""

# descriptor → (size_bytes, write_interval_s, write_requests), worked out by hand: fd 36
# is one file of the paper (two opens), its size the pwrite's end; fd 40 was opened
# before the capture, its failed calls count as requests but move nothing; fd 50 is only
# read and fd 51 never written, so neither is a file of the data set.
EXPECTED = {36: (12288, 3.6, 4), 40: (4, 0.0002, 3)}


@pytest.fixture
def trace(tmp_path):
    path = tmp_path / "mobigen.out.app"
    path.write_text(TRACE)
    return import_mobibench(path, "mg")


def test_features_by_descriptor(trace):
    rows = descriptor_features(trace.calls)
    got = {
        r["descriptor"]: (r["size_bytes"], r["write_interval_s"], r["write_requests"]) for r in rows
    }
    assert got == EXPECTED


def test_replayed_files_of_each_descriptor(trace):
    # Every open is a file of the replay; fd 40's calls are skipped (never opened).
    assert replayed_files(trace) == {36: ["mg/temp_1_0.dat", "mg/temp_1_2.dat"]}


# ARS Table I's accuracies, as printed (10 random splits each, §IV.A).
TABLE1_ACCURACY = {
    "facebook": (0.76087, 0.573913, 0.913043, 0.930435, 0.904348),
    "twitter": (0.693333, 0.773333, 0.926667, 0.92, 0.926667),
}
PAPER_SPLITS = 10


def smallest_denominator(value: float) -> int:
    """The denominator of the simplest fraction that rounds to value at 6 decimals."""
    return Fraction(value).limit_denominator(10_000).denominator


def test_test_sets_follow_from_table1():
    """Each accuracy is a mean over 10 test sets of n files: a multiple of 1/(10 n). The
    least common denominator of a table's accuracies (230 and 150) gives n = 23 and 15,
    the 25 % test sets of 91 and 60 files (ARS §IV.A: 75 % training)."""
    held_out = {}
    for app, accuracies in TABLE1_ACCURACY.items():
        common = lcm(*(smallest_denominator(a) for a in accuracies))
        assert common % PAPER_SPLITS == 0
        held_out[app] = common // PAPER_SPLITS
        for accuracy in accuracies:
            assert abs(accuracy * common - round(accuracy * common)) < 1e-3
    assert held_out == {"facebook": 23, "twitter": 15}
    assert held_out_files(91, 0.25) == 23 and held_out_files(60, 0.25) == 15
    assert held_out_files(92, 0.25) == 23 and held_out_files(93, 0.25) == 24


VENDOR = REPO.parent / "shared" / "vendor" / "mobibench-f56ea5e"


@pytest.mark.skipif(not VENDOR.is_dir(), reason="no shared copy of Mobibench's traces")
@pytest.mark.parametrize(
    ("app", "files", "written_many", "writes", "replayed"),
    [("facebook", 91, 18, 14429, 84), ("twitter", 60, 15, 6029, 59)],
)
def test_real_traces_give_data_sets_of_the_papers_size(app, files, written_many, writes, replayed):
    """The descriptors of Mobibench's traces are the paper's files: 91 and 60 (their
    test sets the 23 and 15 of Table I), 19.8 % and 25 % written-many (§IV)."""
    trace = import_mobibench(Path(VENDOR / f"mobigen.out.{app}"), f"mobigen_temp/{app}")
    rows = descriptor_features(trace.calls)
    assert len(rows) == files
    assert sum(r["write_requests"] > 100 for r in rows) == written_many
    assert sum(r["write_requests"] for r in rows) == writes
    assert len(replayed_files(trace)) == replayed
