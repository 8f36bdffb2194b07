"""Command line of the ARS reserved-file selection.

  python -m mobifrag.workloads.ars_selection dataset --app facebook \\
      --mobibench mobigen.out.facebook --dir mobigen_temp/facebook --dof dof.csv \\
      --params PARAMS --out dataset.csv --files files.csv
  python -m mobifrag.workloads.ars_selection compare --dataset facebook:1=dataset.csv ... \\
      --params PARAMS --seed 1 --splits splits.csv --table1 table1.csv --table2 table2.csv
  python -m mobifrag.workloads.ars_selection select --app facebook --dataset dataset.csv \\
      --files files.csv --params PARAMS --seed 1 --decisions decisions.csv \\
      --reserved reserved.txt

`dataset` reads the Mobibench trace as `python -m mobifrag.workloads mobibench --dir DIR`
converted it for the replay whose DoF tables it is given. `compare` takes each data set
as APP:REP=PATH, REP the repetition of the replay its labels were measured on (APP=PATH
is repetition 1); its tables have a row per repetition.

PARAMS is the config's `ars_selection` block as JSON (text or a file name). Errors name
the file (and line) at fault; exit status 65 for bad input, 1 for I/O errors.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
from pathlib import Path

from mobifrag.workflow.atomic import write_lines_atomic, write_table
from mobifrag.workloads.ars_selection.descriptors import (
    COLUMNS,
    descriptor_features,
    replayed_files,
)
from mobifrag.workloads.ars_selection.labels import (
    FILE_COLUMNS,
    LABEL_COLUMNS,
    LabelError,
    file_dofs,
    file_rows,
    labelled_rows,
    max_dof_by_path,
)
from mobifrag.workloads.ars_selection.models import SelectionError, compare
from mobifrag.workloads.ars_selection.select import DECISION_COLUMNS, decide, reserved_paths
from mobifrag.workloads.ars_selection.tables import (
    SPLIT_COLUMNS,
    TABLE1_COLUMNS,
    TABLE2_COLUMNS,
    table1,
    table2,
)
from mobifrag.workloads.iotrace import escape
from mobifrag.workloads.mobibench_import import MobibenchError, import_mobibench

EX_DATAERR = 65
DATASET_COLUMNS = ("app",) + COLUMNS + LABEL_COLUMNS
REQUIRED_PARAMS = ("fragmented_dof_above", "splits", "test_share")
REQUIRED_PARAMS += ("stratify", "average", "standardize", "timing_repeats", "models")


def load_params(text: str) -> dict:
    source = Path(text).read_text() if not text.lstrip().startswith("{") else text
    try:
        params = json.loads(source)
    except json.JSONDecodeError as error:
        raise SelectionError(f"--params: not JSON: {error}") from None
    missing = [key for key in REQUIRED_PARAMS if key not in params]
    if missing:
        raise SelectionError(f"--params: missing {', '.join(missing)}")
    return params


def read_rows(path: Path) -> list[dict]:
    with open(path, newline="") as handle:
        return list(csv.DictReader(handle))


def dataset_source(text: str) -> tuple[str, int, Path]:
    """APP:REP=PATH (or APP=PATH, repetition 1) → (app, rep, path)."""
    name, sep, path = text.partition("=")
    app, colon, rep = name.partition(":")
    if not sep or not app or (colon and not rep.isdigit()) or (colon and int(rep) < 1):
        raise argparse.ArgumentTypeError(f"{text!r}: expected APP=PATH or APP:REP=PATH")
    return app, int(rep) if colon else 1, Path(path)


def _dataset(args) -> None:
    params = load_params(args.params)
    try:
        trace = import_mobibench(args.mobibench, args.dir)
    except MobibenchError:
        raise
    except ValueError as error:  # a --dir the converter refuses
        raise SelectionError(str(error)) from None
    files = replayed_files(trace)
    dofs = max_dof_by_path(args.dof)
    sources = ", ".join(str(path) for path in args.dof)
    rows = labelled_rows(
        descriptor_features(trace.calls),
        file_dofs(files, dofs, sources),
        params["fragmented_dof_above"],
    )
    write_table(args.out, DATASET_COLUMNS, [{"app": args.app, **row} for row in rows])
    write_table(args.files, FILE_COLUMNS, file_rows(files, dofs))


def _compare(args) -> None:
    params = load_params(args.params)
    sources = [(app, rep) for app, rep, _ in args.dataset]
    repeated = sorted({source for source in sources if sources.count(source) > 1})
    if repeated:
        named = ", ".join(f"{app}:{rep}" for app, rep in repeated)
        raise SelectionError(f"--dataset: {named} given more than once")
    rows = []
    for app, rep, path in args.dataset:
        rows += [{"rep": rep, **row} for row in compare(app, read_rows(path), params, args.seed)]
    write_table(args.splits, SPLIT_COLUMNS, rows)
    write_table(args.table1, TABLE1_COLUMNS, table1(rows))
    write_table(args.table2, TABLE2_COLUMNS, table2(rows))


def _select(args) -> None:
    params = load_params(args.params)
    dataset = read_rows(args.dataset)
    decisions = decide(args.app, dataset, params, args.seed)
    reserved = reserved_paths(decisions, read_rows(args.files))
    write_table(args.decisions, DATASET_COLUMNS + DECISION_COLUMNS, decisions)
    write_lines_atomic(args.reserved, [escape(p) for p in reserved])


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(
        prog="python -m mobifrag.workloads.ars_selection",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = top.add_subparsers(dest="command", required=True)
    ds = sub.add_parser("dataset", help="Mobibench trace + DoF tables → features and labels")
    ds.add_argument("--app", required=True)
    ds.add_argument("--mobibench", required=True, type=Path, help="mobigen.out.<app>")
    ds.add_argument("--dir", required=True, help="the converted trace's folder (--dir)")
    ds.add_argument("--dof", required=True, action="append", type=Path)
    ds.add_argument("--params", required=True)
    ds.add_argument("--out", required=True, type=Path)
    ds.add_argument("--files", required=True, type=Path, help="each descriptor's files")
    co = sub.add_parser("compare", help="the five classifiers over seeded splits")
    co.add_argument("--dataset", required=True, action="append", type=dataset_source)
    co.add_argument("--params", required=True)
    co.add_argument("--seed", required=True, type=int)
    co.add_argument("--splits", required=True, type=Path)
    co.add_argument("--table1", required=True, type=Path)
    co.add_argument("--table2", required=True, type=Path)
    se = sub.add_parser("select", help="the decision tree's reserved files")
    se.add_argument("--app", required=True)
    se.add_argument("--dataset", required=True, type=Path)
    se.add_argument("--files", required=True, type=Path, help="the data set's files.csv")
    se.add_argument("--params", required=True)
    se.add_argument("--seed", required=True, type=int)
    se.add_argument("--decisions", required=True, type=Path)
    se.add_argument("--reserved", required=True, type=Path)
    return top


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    handlers = {"dataset": _dataset, "compare": _compare, "select": _select}
    try:
        handlers[args.command](args)
    except (MobibenchError, LabelError, SelectionError) as error:
        print(f"ars_selection: {error}", file=sys.stderr)
        return EX_DATAERR
    except OSError as error:
        print(f"ars_selection: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
