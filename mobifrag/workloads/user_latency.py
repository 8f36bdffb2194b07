"""Install traces of the apps of TMC §5.2 (rules/experiments/user_latency.smk).

    python -m mobifrag.workloads.user_latency install-traces --apps facebook game \
        --models traces/scenarios/facebook.yaml traces/launch/game.yaml \
        --seed 1 --size-scale 0.004 --out install/

One trace per app, NN-<app>.iotrace in the given order: the app's install of its
scenario model (the APK staged by the store and written, libraries and compiled code
extracted, each file written then fsync'ed, then its databases and first files) with no
session. apps.tsv lists app, package and trace in install order; the guest job installs
the apps in that order and launches each from its package folder and databases.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from mobifrag.workloads.generate import scenario_ops
from mobifrag.workloads.iotrace import write_trace
from mobifrag.workloads.scenarios import AppModel, ModelError, load_model


def app_models(apps: list[str], models: list[Path]) -> list[AppModel]:
    """The app models, checked to be app models of the named apps, in order."""
    if len(apps) != len(models):
        raise ModelError(f"{len(apps)} apps but {len(models)} models")
    loaded = []
    for app, path in zip(apps, models, strict=True):
        model = load_model(path)
        if not isinstance(model, AppModel) or model.app != app:
            raise ModelError(f"{path}: not the app model of {app!r}")
        loaded.append(model)
    return loaded


def install_traces(models: list[AppModel], seed: int, size_scale: float, out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    rows = ["app\tpackage\ttrace"]
    for n, model in enumerate(models, start=1):
        name = f"{n:02d}-{model.app}.iotrace"
        ops = scenario_ops(model, seed, 1.0, size_scale, sessions=0, install=True)
        comment = f"mobifrag.workloads.user_latency install app={model.app} seed={seed}"
        write_trace(out / name, ops, [f"{comment} size_scale={size_scale:g}"])
        rows.append(f"{model.app}\t{model.package}\t{name}")
    (out / "apps.tsv").write_text("\n".join(rows) + "\n")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    it = sub.add_parser("install-traces", help="one install trace per app + apps.tsv")
    it.add_argument("--apps", nargs="+", required=True)
    it.add_argument("--models", nargs="+", required=True, type=Path)
    it.add_argument("--seed", required=True, type=int)
    it.add_argument("--size-scale", required=True, type=float)
    it.add_argument("--out", required=True, type=Path)
    args = parser.parse_args(argv)
    try:
        install_traces(app_models(args.apps, args.models), args.seed, args.size_scale, args.out)
    except (ModelError, OSError) as error:
        print(f"user_latency_runs: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
