#!/usr/bin/env python3
"""End-to-end replay benchmark of ftl-sim through its command line.

Every run is one `ftl-sim replay` process reading blktrace binary files from disk (read
once beforehand, so the page cache is warm): start-up, model allocation, preconditioning,
parsing and replay all count. Measured per run: wall seconds (host monotonic clock
around the process), user and system seconds and peak RSS (`/usr/bin/time -v`), and
from the JSON summary the requests, WAF and the simulator's own memory accounting.

Traces:
  captured-largest  the largest captured blktrace directory under
                    results/platform/*/{test,quick}/ (one experiment's per-CPU files)
  captured-all      every captured blktrace file there, merged by timestamp
  empty             no requests: the fixed cost (start-up, model, fill)
  write-<N>         N uniform random 4 KiB writes over the whole logical space
                    (`ftl-sim gen --format blktrace`, seed 1)
Synthetic traces are replayed after `--precondition-fill 1.0` (every logical page
written once), so GC runs as soon as the over-provisioned spare pages are used up;
captured traces as the study's default replay does (no preconditioning).
Each trace runs in every cache mode (`whole` = page-mapped, the whole map in RAM;
`tpage` and `entry` = DFTL's demand-cached map of the profile's size, 128 KiB for
eMMC) REPS times,
repetitions interleaved so that a change of load spreads over all configurations.

  .venv/bin/python benchmarks/ftl-sim/replay.py [--sizes 1000000,4000000,16000000]
      [--reps 3] [--modes whole,tpage,entry] [--device devices/emulator-emmc.yaml]

Writes benchmarks/ftl-sim/results/replay-<date>-<HHMM>-<commit>.csv (one row per run) and
.md (machine, load, median/min/max per trace and mode). Synthetic traces are written
to a temporary directory (144 MB per million requests) and removed afterwards.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import datetime
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
BIN = REPO / "ftl-sim/target/release/ftl-sim"
OUT_DIR = REPO / "benchmarks/ftl-sim/results"
MODE_NAMES = {"whole": "page-mapped", "tpage": "DFTL tpage", "entry": "DFTL entry"}


def run(cmd: list[str], **kw) -> str:
    return subprocess.run(cmd, check=True, text=True, capture_output=True, cwd=REPO, **kw).stdout


def machine() -> dict[str, str]:
    cpuinfo = Path("/proc/cpuinfo").read_text()
    model = re.search(r"^model name\s*:\s*(.*)$", cpuinfo, re.M)
    mem = re.search(r"^MemTotal:\s*(\d+)", Path("/proc/meminfo").read_text(), re.M)
    dirty = run(["git", "status", "--porcelain", "--", "ftl-sim"]).strip()
    return {
        "date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "commit": run(["git", "rev-parse", "HEAD"]).strip(),
        "ftl_sim_tree": "modified" if dirty else "clean",
        "cpu": model.group(1) if model else platform.processor(),
        "cores": str(os.cpu_count()),
        "memory_gib": f"{int(mem.group(1)) / 2**20:.1f}" if mem else "?",
        "kernel": platform.release(),
        "rustc": run(["rustc", "--version"]).strip(),
    }


def load() -> str:
    """Load averages and the number of QEMU guests running (the machine is shared)."""
    qemu = 0
    for comm in Path("/proc").glob("[0-9]*/comm"):
        with contextlib.suppress(OSError):
            qemu += comm.read_text().startswith("qemu-system")
    one, five, fifteen = os.getloadavg()
    return f"load {one:.2f} {five:.2f} {fifteen:.2f}, {qemu} QEMU guests"


def captured_traces() -> list[Path]:
    files = []
    for scale in ("test", "quick"):
        files += sorted(REPO.glob(f"results/platform/*/{scale}/**/*.blktrace.[0-9]*"))
    return [f for f in files if f.is_file() and f.stat().st_size > 0]


def timed_replay(args: list[str], summary: Path) -> dict[str, float]:
    cmd = ["/usr/bin/time", "-v", str(BIN), "replay", *args, "-o", str(summary)]
    start = time.perf_counter()
    proc = subprocess.run(cmd, text=True, capture_output=True, cwd=REPO)
    wall = time.perf_counter() - start
    if proc.returncode != 0:
        sys.exit(f"replay.py: {' '.join(cmd)} failed:\n{proc.stderr}")

    def field(name: str) -> float:
        return float(re.search(rf"{re.escape(name)}: ([0-9.]+)", proc.stderr).group(1))

    return {
        "wall_s": wall,
        "user_s": field("User time (seconds)"),
        "sys_s": field("System time (seconds)"),
        "max_rss_kib": field("Maximum resident set size (kbytes)"),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="1000000,4000000,16000000", help="synthetic requests")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--modes", default="whole,tpage,entry")
    ap.add_argument("--device", default="devices/emulator-emmc.yaml")
    ap.add_argument("--no-build", action="store_true", help="use the existing binary")
    a = ap.parse_args()
    modes = a.modes.split(",")
    sizes = [int(s) for s in a.sizes.split(",") if s]

    if not a.no_build:
        run(["cargo", "build", "--release", "--locked", "--manifest-path", "ftl-sim/Cargo.toml"])
    info = machine()
    info["load_before"] = load()
    info["version"] = run([str(BIN), "--version"]).strip()
    geometry = json.loads(run([str(BIN), "show", "--device", a.device]))["derived"]
    print(
        f"{info['date']} {info['commit'][:10]} {info['cpu']} x{info['cores']}: "
        f"{info['load_before']}",
        file=sys.stderr,
    )

    work = Path(tempfile.mkdtemp(prefix="ftl-sim-bench-"))
    try:
        traces: list[tuple[str, list[str], list[str]]] = []  # name, files, extra options
        captured = captured_traces()
        if captured:
            by_dir: dict[Path, int] = {}
            for f in captured:
                by_dir[f.parent] = by_dir.get(f.parent, 0) + f.stat().st_size
            largest = max(by_dir, key=by_dir.__getitem__)
            info["captured_largest"] = str(largest.relative_to(REPO))
            info["captured_all"] = f"{len(captured)} files in {len(by_dir)} directories"
            traces.append(
                ("captured-largest", [str(f) for f in captured if f.parent == largest], [])
            )
            traces.append(("captured-all", [str(f) for f in captured], []))
        fill = ["--precondition-fill", "1.0"]
        sizes_with_empty = [0, *sizes]
        for n in sizes_with_empty:
            name = f"write-{n}" if n else "empty"
            path = work / f"{name}.blktrace.0"
            run(
                [
                    str(BIN),
                    "gen",
                    "--op",
                    "write",
                    "--count",
                    str(n),
                    "--region-bytes",
                    str(geometry["logical_bytes"]),
                    "--format",
                    "blktrace",
                    "-o",
                    str(path),
                ]
            )
            traces.append((name, [str(path)], fill))

        for _, files, _ in traces:  # page cache warm for every run, the first one too
            for f in files:
                with open(f, "rb") as h:
                    while h.read(1 << 24):
                        pass
        rows = []
        for rep in range(1, a.reps + 1):
            for name, files, extra in traces:
                for mode in modes:
                    summary = work / "summary.json"
                    before = load()
                    m = timed_replay(
                        [
                            "--device",
                            a.device,
                            "--format",
                            "blktrace",
                            "--cache-mode",
                            mode,
                            *extra,
                            *files,
                        ],
                        summary,
                    )
                    s = json.loads(summary.read_text())
                    requests = s["replay"]["requests"]
                    mem = s["memory"]
                    row = {
                        "trace": name,
                        "mode": mode,
                        "rep": rep,
                        "requests": requests,
                        "trace_bytes": sum(Path(f).stat().st_size for f in files),
                        **m,
                        "requests_per_s": requests / m["wall_s"],
                        "waf": s["flash"]["waf"],
                        "waf_data": s["flash"]["waf_data"],
                        "gc_erases": s["gc"]["erases"],
                        "state_bytes_without_cache": mem["state_bytes_without_cache"],
                        "cache_model_bytes": mem["cache_model_bytes"],
                        "physical_pages": geometry["physical_pages"],
                        "load": before,
                    }
                    rows.append(row)
                    print(
                        f"rep {rep} {name:16} {mode:5} {requests:>9} req "
                        f"{m['wall_s']:7.3f} s {row['requests_per_s'] / 1e6:6.2f} M/s "
                        f"{m['max_rss_kib'] / 1024:7.1f} MiB  ({before})",
                        file=sys.stderr,
                    )
        info["load_after"] = load()
    finally:
        shutil.rmtree(work, ignore_errors=True)

    OUT_DIR.mkdir(parents=True, exist_ok=True)
    stamp = info["date"][:16].replace(" ", "-").replace(":", "")
    stem = OUT_DIR / f"replay-{stamp}-{info['commit'][:10]}"
    with open(f"{stem}.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        for r in rows:
            w.writerow({k: f"{v:.4f}" if isinstance(v, float) else v for k, v in r.items()})
    Path(f"{stem}.md").write_text(report(info, rows, a))
    print(f"wrote {stem.relative_to(REPO)}.csv and .md", file=sys.stderr)


def spread(values: list[float], fmt: str) -> str:
    return (
        f"{format(statistics.median(values), fmt)} "
        f"({format(min(values), fmt)}–{format(max(values), fmt)})"
    )


def report(info: dict[str, str], rows: list[dict], a: argparse.Namespace) -> str:
    lines = [
        "# ftl-sim end-to-end replay benchmark",
        "",
        f"`.venv/bin/python benchmarks/ftl-sim/replay.py --sizes {a.sizes} --reps {a.reps} "
        f"--modes {a.modes} --device {a.device}`",
        "",
        *(f"- {k}: {v}" for k, v in info.items()),
        "",
        "Median (min–max) of the repetitions. Requests/s = requests / wall seconds of the",
        "whole process (start-up, model allocation, preconditioning, parsing, replay).",
        "B/page = the summary's simulator state without the map cache / physical pages",
        "(with the cache model in brackets). RSS = peak resident set (`/usr/bin/time -v`).",
        "CPU s = user + system seconds (10 ms resolution); M/CPU-s = requests per CPU",
        "second, less sensitive than wall time to other processes on the shared cores.",
        "",
        "| trace | mode | requests | wall s | M requests/s | CPU s | M/CPU-s "
        "| peak RSS MiB | B/page | WAF (data) | GC erases |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    groups: dict[tuple[str, str], list[dict]] = {}
    for r in rows:
        groups.setdefault((r["trace"], r["mode"]), []).append(r)
    for (trace, mode), rs in groups.items():
        r0 = rs[0]
        rate = [r["requests_per_s"] / 1e6 for r in rs]
        cpu = [r["user_s"] + r["sys_s"] for r in rs]
        cpu_rate = [r["requests"] / 1e6 / max(c, 0.01) for r, c in zip(rs, cpu, strict=True)]
        pages = r0["physical_pages"]
        bpp = r0["state_bytes_without_cache"] / pages
        bpp_c = (r0["state_bytes_without_cache"] + r0["cache_model_bytes"]) / pages
        lines.append(
            f"| {trace} | {MODE_NAMES.get(mode, mode)} | {r0['requests']:,} "
            f"| {spread([r['wall_s'] for r in rs], '.3f')} "
            f"| {spread(rate, '.2f') if r0['requests'] else '—'} "
            f"| {spread(cpu, '.2f')} | {spread(cpu_rate, '.2f') if r0['requests'] else '—'} "
            f"| {spread([r['max_rss_kib'] / 1024 for r in rs], '.1f')} "
            f"| {bpp:.2f} ({bpp_c:.2f}) | {r0['waf']:.2f} ({r0['waf_data']:.2f}) "
            f"| {r0['gc_erases']:,} |"
        )
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
