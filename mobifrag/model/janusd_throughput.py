"""janusd Fig. 7 in the FTL model: read throughput of one file by DoF_L and DoF_P.

    python -m mobifrag.model.janusd_throughput --ftl-sim ftl-sim/target/release/ftl-sim \
        --device devices/emulator-emmc.yaml --file-kib 512 --dof-l 1 2 4 8 \
        --planes-used 8 4 2 --out throughput.csv

janusd §3.2 splits one file into DoF_L extents and controls its DoF_P on an emulated
device. Here the file's pages are written first (uncounted) so that round-robin
allocation in write order (ftl-sim `--allocation round-robin`, whatever the profile's
allocation: the experiment controls the placement) puts them on `planes-used` of the
device's M planes — after each file page,
M / planes-used - 1 pages of another file take the planes in between — at logical
addresses split into DoF_L equal extents with holes between them; then the file is read
once, one request per extent piece of at most 512 KiB, back to back. ftl-sim reports the
modeled time (device time + the profile's host overhead per request) and the file's
DoF_P as placed.
"""

from __future__ import annotations

import argparse
import csv
import sys
import tempfile
from pathlib import Path

from mobifrag.model import ftl
from mobifrag.workflow.atomic import write_table

PAGE = 4096
SECTORS = PAGE // 512
MAX_REQUEST_PAGES = 512 * 1024 // PAGE
FILLER_FIRST_PAGE = 1 << 20  # the other file's pages, far from the measured one
COLUMNS = ("dof_l", "planes_used", "dof_p", "read_requests", "read_bytes")
COLUMNS += ("modeled_ms", "throughput_mb_s")


class ThroughputError(ValueError):
    """A grid point the model cannot build."""


def file_page_address(page: int, pages: int, dof_l: int) -> int:
    """Logical page of the file's page-th page: DoF_L equal extents, holes between."""
    per_extent = pages // dof_l
    return (page // per_extent) * 2 * per_extent + page % per_extent


def placement(pages: int, dof_l: int, planes_used: int, planes: int) -> list[str]:
    """CSV rows writing the file so that its pages land on `planes_used` planes."""
    if planes % planes_used or pages % dof_l:
        raise ThroughputError(
            f"{planes_used} planes do not divide {planes}, or {dof_l} extents {pages} pages"
        )
    rows, filler = [], FILLER_FIRST_PAGE
    for page in range(pages):
        rows.append(f"{len(rows)},write,{file_page_address(page, pages, dof_l) * SECTORS},8")
        for _ in range(planes // planes_used - 1):
            rows.append(f"{len(rows)},write,{filler * SECTORS},{SECTORS}")
            filler += 1
    return rows


def reads(pages: int, dof_l: int) -> list[str]:
    """CSV rows reading the file extent by extent, in requests of at most 512 KiB."""
    rows, per_extent = [], pages // dof_l
    for extent in range(dof_l):
        first = file_page_address(extent * per_extent, pages, dof_l)
        for offset in range(0, per_extent, MAX_REQUEST_PAGES):
            n = min(MAX_REQUEST_PAGES, per_extent - offset)
            rows.append(f"{len(rows)},read,{(first + offset) * SECTORS},{n * SECTORS}")
    return rows


def extents_table(pages: int, dof_l: int) -> list[str]:
    per_extent = pages // dof_l
    rows = ["path\tlogical_bytes\tphysical_bytes\tlength_bytes"]
    for extent in range(dof_l):
        first = file_page_address(extent * per_extent, pages, dof_l)
        rows.append(f"file\t{extent * per_extent * PAGE}\t{first * PAGE}\t{per_extent * PAGE}")
    return rows


def measure(ftl_sim: Path, device: Path, pages: int, dof_l: int, used: int, planes: int):
    header = "time_ns,op,sector,sectors"
    with tempfile.TemporaryDirectory() as scratch:
        d = Path(scratch)
        (d / "place.csv").write_text("\n".join([header, *placement(pages, dof_l, used, planes)]))
        (d / "read.csv").write_text("\n".join([header, *reads(pages, dof_l)]) + "\n")
        (d / "extents.tsv").write_text("\n".join(extents_table(pages, dof_l)) + "\n")
        summary = ftl.summary(
            ftl_sim,
            device,
            d / "read.csv",
            "--format",
            "csv",
            "--precondition-trace",
            str(d / "place.csv"),
            "--precondition-format",
            "csv",
            "--arrivals",
            "closed",
            "--allocation",
            "round-robin",
            "--extents",
            str(d / "extents.tsv"),
            "--dop-out",
            str(d / "dop.csv"),
        )
        with open(d / "dop.csv", newline="") as handle:
            (dop,) = list(csv.DictReader(handle))
    read = summary["requests"]["read"]
    modeled_us = summary["time"]["modeled_us"]
    return {
        "dof_l": dof_l,
        "planes_used": used,
        "dof_p": dop["dof_p"],
        "read_requests": read["count"],
        "read_bytes": read["bytes"],
        "modeled_ms": f"{modeled_us / 1000:.6g}",
        "throughput_mb_s": f"{read['bytes'] / modeled_us:.6g}",
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--ftl-sim", type=Path, required=True)
    parser.add_argument("--device", type=Path, required=True)
    parser.add_argument("--file-kib", type=int, required=True)
    parser.add_argument("--dof-l", type=int, nargs="+", required=True)
    parser.add_argument("--planes-used", type=int, nargs="+", required=True)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    try:
        planes = ftl.parallel_units(args.ftl_sim, args.device)
        pages = args.file_kib * 1024 // PAGE
        rows = [
            measure(args.ftl_sim, args.device, pages, dof_l, used, planes)
            for dof_l in args.dof_l
            for used in args.planes_used
        ]
        write_table(args.out, COLUMNS, rows)
    except (ThroughputError, ftl.FtlSimError, OSError) as error:
        print(f"janusd_throughput: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
