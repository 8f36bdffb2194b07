"""Command line of the trace generator.

  python -m mobifrag.workloads scenario --model traces/scenarios/facebook.yaml --seed 1 \\
      --scale 0.1 --out facebook.iotrace [--sessions N | --minutes M] [--no-install]
      [--size-scale S] [--package-scale P]
  python -m mobifrag.workloads autoage --models traces/scenarios --days 30 --seed 1 \\
      --disk-bytes 1G --out aging/ [--scale F] [--size-scale S] [--apps a,b] \\
      [--update-every twitter=7 ...] [--aged]
  python -m mobifrag.workloads filldelete --disk-bytes 1G --target 90 --seed 1 \
      --out aging.iotrace [--size-scale S] [--part fill|reclaim] [--hole-limit 512K]
  python -m mobifrag.workloads createdelete --disk-bytes 2G --target 50 --file-bytes 256K \
      --create-share 0.6 --seed 1 --out aging.iotrace
  python -m mobifrag.workloads holes --disk-bytes 1G --fullness 90 --small-bytes 8K \
      --small-total 128M --seed 1 --out severe.iotrace
  python -m mobifrag.workloads strace --in app.strace --out app.iotrace [--root /data/data/x]
  python -m mobifrag.workloads mobibench --in mobigen.out.facebook --out facebook.iotrace \
      [--dir mobigen_temp] [--reserved reserved.txt] [--written-many-more-than 100]
  python -m mobifrag.workloads mobibench-stats --trace facebook=mobigen.out.facebook ... \
      --out trace-stats.csv [--written-many-more-than 100]
  python -m mobifrag.workloads validate FILE.iotrace|MODEL.yaml ...

Errors name FILE:LINE; exit status 65 for bad input (as the replayer), 0 on success.
A JSON summary of what was written goes to stdout.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

from mobifrag.workflow.atomic import write_lines_atomic, write_table
from mobifrag.workloads import estimate, filldelete, mobibench_import
from mobifrag.workloads.autoage import autoage, default_scale, default_size_scale
from mobifrag.workloads.generate import scenario_ops
from mobifrag.workloads.iotrace import TraceError, escape, read_trace, write_trace
from mobifrag.workloads.scenarios import AppModel, ModelError, load_model, load_models
from mobifrag.workloads.sizes import size_argument
from mobifrag.workloads.strace_import import StraceError, check, import_strace

EX_DATAERR = 65


def _positive(text: str) -> float:
    value = float(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"{text} is not positive")
    return value


def _count(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text} is not a count of at least 1")
    return value


def _size_or_zero(text: str) -> int:
    """A size, or 0 (the No aging state of TMC §5.2 deletes no small files)."""
    return 0 if text.strip() == "0" else size_argument(text)


def _app_period(text: str) -> tuple[str, float]:
    app, sep, days = text.partition("=")
    try:
        period = float(days) if sep and app else 0.0
    except ValueError:
        period = 0.0
    if period < 1:
        raise argparse.ArgumentTypeError(f"{text!r}: expected APP=DAYS with DAYS >= 1")
    return app, period


def _app_and_path(text: str) -> tuple[str, Path]:
    app, sep, path = text.partition("=")
    if not sep or not app or not path:
        raise argparse.ArgumentTypeError(f"{text!r}: expected APP=PATH")
    return app, Path(path)


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(
        prog="python -m mobifrag.workloads",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = top.add_subparsers(dest="command", required=True)

    sc = sub.add_parser("scenario", help="one app model → one trace (install + sessions)")
    sc.add_argument("--model", required=True, type=Path)
    sc.add_argument("--seed", required=True, type=int)
    sc.add_argument(
        "--scale",
        type=_positive,
        default=1.0,
        help="counts and session length (default 1 = the model as written)",
    )
    sc.add_argument(
        "--size-scale",
        type=_positive,
        default=1.0,
        help="sizes of bulk files made in sessions (default 1)",
    )
    sc.add_argument(
        "--package-scale",
        type=_positive,
        help="sizes of APK, code and libraries (default: --size-scale)",
    )
    span = sc.add_mutually_exclusive_group()
    span.add_argument("--sessions", type=_count, default=1)
    span.add_argument(
        "--minutes",
        type=_positive,
        help="as many sessions as fill this much use (the model's session_seconds)",
    )
    sc.add_argument("--no-install", action="store_true", help="sessions only")
    sc.add_argument("--out", required=True, type=Path)

    aa = sub.add_parser("autoage", help="AutoAge days (TMC §4.1.1) → day-NN.iotrace")
    aa.add_argument("--models", type=Path, default=Path("traces/scenarios"))
    aa.add_argument("--days", type=int, help="default: the schedule's (30)")
    aa.add_argument("--seed", required=True, type=int)
    aa.add_argument(
        "--disk-bytes",
        required=True,
        type=size_argument,
        help="size of the test disk (accepts 1G, 1536M, ...)",
    )
    aa.add_argument(
        "--scale",
        type=_positive,
        help="counts per session and time per day (default: disk / reference disk, "
        "so that the files keep their real sizes)",
    )
    aa.add_argument(
        "--size-scale",
        type=_positive,
        help="sizes of bulk files made in sessions (default: disk / reference disk / scale)",
    )
    aa.add_argument("--apps", help="comma-separated subset of the models")
    aa.add_argument(
        "--update-every",
        type=_app_period,
        action="append",
        default=[],
        metavar="APP=DAYS",
        help="update this app every DAYS days (± the schedule's jitter), not its model's",
    )
    aa.add_argument(
        "--aged",
        action="store_true",
        help="the disk is aged before day 1 (an aged image): no day-00 fill trace",
    )
    aa.add_argument("--out", required=True, type=Path)

    fd = sub.add_parser("filldelete", help="fill with large+small files, delete small (§4.3)")
    fd.add_argument("--disk-bytes", required=True, type=size_argument)
    fd.add_argument("--target", required=True, type=int, help="utilization after, percent")
    fd.add_argument("--seed", required=True, type=int)
    fd.add_argument(
        "--size-scale",
        type=float,
        default=1.0,
        help="file sizes relative to TMC §4.3's (10-20 MB large, 4-500 KB small)",
    )
    fd.add_argument(
        "--part",
        choices=filldelete.PARTS,
        default="all",
        help="the fill (independent of --target), the reclaim down to --target, or both",
    )
    fd.add_argument(
        "--hole-limit",
        type=_size_or_zero,
        default=0,
        help="spare small files whose deletion would make a free run of this many bytes"
        " or more (default 0: none spared)",
    )
    fd.add_argument("--out", required=True, type=Path)

    cd = sub.add_parser(
        "createdelete", help="create/delete files of one size at random (Ext4 tuning §4.1)"
    )
    cd.add_argument("--disk-bytes", required=True, type=size_argument)
    cd.add_argument("--target", required=True, type=int, help="live files, percent of disk")
    cd.add_argument("--file-bytes", required=True, type=size_argument)
    cd.add_argument("--create-share", required=True, type=float, help="probability a step creates")
    cd.add_argument("--seed", required=True, type=int)
    cd.add_argument("--out", required=True, type=Path)

    ho = sub.add_parser("holes", help="large files with small holes of one size (§5.2)")
    ho.add_argument("--disk-bytes", required=True, type=size_argument)
    ho.add_argument("--fullness", required=True, type=int, help="percent of the disk")
    ho.add_argument("--small-bytes", required=True, type=size_argument)
    ho.add_argument("--small-total", required=True, type=_size_or_zero, help="0: no holes")
    ho.add_argument("--seed", required=True, type=int)
    ho.add_argument("--out", required=True, type=Path)

    st = sub.add_parser("strace", help="strace -f -tt log → trace")
    st.add_argument("--in", dest="input", required=True, type=Path)
    st.add_argument("--out", required=True, type=Path)
    st.add_argument(
        "--root",
        default="/",
        help="keep paths under this directory, relative to it (default: all "
        "paths, leading '/' removed; /proc, /sys, /dev, /system skipped)",
    )
    st.add_argument(
        "--shared-fds",
        action="store_true",
        help="one descriptor table for all tasks (strace -f -p on one app)",
    )
    st.add_argument(
        "--keep-going",
        action="store_true",
        help="skip malformed lines (reported on stderr) instead of failing",
    )

    mb = sub.add_parser("mobibench", help="Mobibench (MobiGen) app trace → trace")
    mb.add_argument("--in", dest="input", required=True, type=Path)
    mb.add_argument("--out", required=True, type=Path)
    mb.add_argument(
        "--dir",
        default=mobibench_import.DEFAULT_DIR,
        help="folder of the replayed files under the replay root (default: %(default)s)",
    )
    mb.add_argument(
        "--reserved",
        type=Path,
        help="also write the written-many files (ARS §IV), one escaped path a line",
    )
    mb.add_argument(
        "--written-many-more-than",
        type=int,
        default=mobibench_import.WRITTEN_MANY_MORE_THAN,
        help="write calls above which a file is written-many (default: %(default)s)",
    )

    ms = sub.add_parser("mobibench-stats", help="ARS §IV statistics of Mobibench traces → CSV")
    ms.add_argument("--trace", required=True, action="append", type=_app_and_path)
    ms.add_argument("--out", required=True, type=Path)
    ms.add_argument(
        "--written-many-more-than",
        type=int,
        default=mobibench_import.WRITTEN_MANY_MORE_THAN,
    )

    va = sub.add_parser("validate", help="check traces and models; report FILE:LINE")
    va.add_argument("files", nargs="+", type=Path)
    return top


def _scenario(args) -> dict:
    model = load_model(args.model)
    if not isinstance(model, AppModel):
        raise ModelError(f"{args.model}:1: kind: not an app model")
    sessions = args.sessions if args.minutes is None else model.sessions_in(args.minutes)
    ops = scenario_ops(
        model,
        args.seed,
        args.scale,
        args.size_scale,
        sessions,
        not args.no_install,
        args.package_scale,
    )
    package_scale = args.size_scale if args.package_scale is None else args.package_scale
    comment = (
        f"mobifrag.workloads scenario app={model.app} seed={args.seed} "
        f"scale={args.scale:g} size_scale={args.size_scale:g} "
        f"package_scale={package_scale:g} sessions={sessions} "
        f"install={'no' if args.no_install else 'yes'}"
    )
    write_trace(args.out, ops, [comment, f"scenario: {model.scenario}"])
    return {
        "out": str(args.out),
        "sessions": sessions,
        "ops": len(ops),
        "threads": len({op.thread for op in ops}),
        "write_syscalls_estimate": estimate.write_syscalls(ops),
        "max_concurrent_sqlite_writers": estimate.max_concurrent_sql_writers(ops),
        "ops_per_kind": dict(sorted(Counter(op.op for op in ops).items())),
    }


def _autoage(args) -> dict:
    apps, schedule = load_models(args.models)
    if schedule is None:
        raise ModelError(f"{args.models}/autoage.yaml:1: missing (kind: autoage schedule)")
    if args.apps:
        wanted = args.apps.split(",")
        unknown = sorted(set(wanted) - {app.app for app in apps})
        if unknown:
            raise ModelError(f"{args.models}: no model for {', '.join(unknown)}")
        apps = [app for app in apps if app.app in wanted]
    scale = args.scale or default_scale(args.disk_bytes, schedule)
    size_scale = args.size_scale or default_size_scale(args.disk_bytes, schedule, scale)
    update_every = dict(args.update_every)
    unknown = sorted(set(update_every) - {app.app for app in apps})
    if unknown:
        raise ModelError(f"--update-every: {', '.join(unknown)} not among the replayed apps")
    paths = autoage(
        apps,
        schedule,
        args.out,
        args.seed,
        args.disk_bytes,
        args.days,
        scale,
        size_scale,
        update_every,
        args.aged,
    )
    return {
        "out": str(args.out),
        "traces": [p.name for p in paths],
        "scale": scale,
        "size_scale": size_scale,
    }


def _write_aging(args, ops, comment: str) -> dict:
    write_trace(args.out, ops, [f"mobifrag.workloads {comment}"])
    return {"out": str(args.out), "ops": len(ops)}


def _filldelete(args) -> dict:
    ops = filldelete.fill_delete(
        args.disk_bytes, args.target, args.seed, args.size_scale, args.part, args.hole_limit
    )
    comment = (
        f"filldelete disk={args.disk_bytes} target={args.target} seed={args.seed}"
        f" size_scale={args.size_scale:g} part={args.part} hole_limit={args.hole_limit}"
    )
    return _write_aging(args, ops, comment)


def _createdelete(args) -> dict:
    ops = filldelete.create_delete(
        args.disk_bytes, args.target, args.file_bytes, args.create_share, args.seed
    )
    comment = (
        f"createdelete disk={args.disk_bytes} target={args.target} "
        f"file={args.file_bytes} create_share={args.create_share:g} seed={args.seed}"
    )
    summary = _write_aging(args, ops, comment)
    summary["creates"] = sum(op.op == "create" for op in ops)
    summary["unlinks"] = sum(op.op == "unlink" for op in ops)
    return summary


def _holes(args) -> dict:
    ops = filldelete.holes(
        args.disk_bytes, args.fullness, args.small_bytes, args.small_total, args.seed
    )
    comment = (
        f"holes disk={args.disk_bytes} fullness={args.fullness} "
        f"small={args.small_bytes} total={args.small_total} seed={args.seed}"
    )
    return _write_aging(args, ops, comment)


def _strace(args) -> dict:
    result = import_strace(args.input, args.root, args.shared_fds)
    if args.keep_going:
        for message in result.errors:
            print(f"skipped: {message}", file=sys.stderr)
    else:
        check(result)
    write_trace(args.out, result.ops, [f"mobifrag.workloads strace from {args.input.name}"])
    return {"out": str(args.out), **result.summary()}


def _mobibench(args) -> dict:
    result = mobibench_import.import_mobibench(args.input, args.dir)
    comment = (
        f"mobifrag.workloads mobibench from {args.input.name} dir={args.dir}: "
        "replayed as Mobibench's replayer does (mobifrag/workloads/mobibench_import.py)"
    )
    write_trace(args.out, result.ops, [comment])
    read_trace(args.out)  # the format's own check, as the replayer's --check
    summary = {"out": str(args.out), **result.summary()}
    if args.reserved:
        paths = mobibench_import.written_many_paths(result.ops, args.written_many_more_than)
        write_lines_atomic(args.reserved, [escape(p) for p in paths])
        summary["reserved"] = len(paths)
    return summary


def _mobibench_stats(args) -> dict:
    rows = []
    for app, path in args.trace:
        result = mobibench_import.import_mobibench(path)
        rows.append({"app": app, **mobibench_import.stats(result, args.written_many_more_than)})
    write_table(args.out, mobibench_import.STATS_COLUMNS, rows)
    return {"out": str(args.out), "apps": {row["app"]: row for row in rows}}


def _validate(args) -> dict:
    checked = {}
    for path in args.files:
        if path.suffix in (".yaml", ".yml"):
            load_model(path)
            checked[str(path)] = "model ok"
        else:
            checked[str(path)] = f"{len(read_trace(path))} ops ok"
    return checked


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    handlers = {
        "scenario": _scenario,
        "autoage": _autoage,
        "strace": _strace,
        "validate": _validate,
        "mobibench": _mobibench,
        "mobibench-stats": _mobibench_stats,
        "filldelete": _filldelete,
        "holes": _holes,
        "createdelete": _createdelete,
    }
    try:
        summary = handlers[args.command](args)
    except (ModelError, TraceError, StraceError, ValueError) as error:
        print(f"error: {error}", file=sys.stderr)
        return EX_DATAERR
    except OSError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    print(json.dumps(summary, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
