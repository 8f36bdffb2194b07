"""The package layout follows the data's path (docs/methods.md, "Code layout")."""

import ast
from pathlib import Path

from conftest import REPO

PACKAGE = REPO / "mobifrag"
# Stages in the order data flows; a module may import its own stage or an earlier one.
STAGES = ("workflow", "workloads", "platform", "measure", "model", "tables", "report")


def imports(path: Path) -> list[tuple[str, list[str]]]:
    """(imported module, names) for every `from mobifrag… import` / `import mobifrag…`."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("mobifrag"):
            found.append((node.module, [a.name for a in node.names]))
        elif isinstance(node, ast.Import):
            found += [(a.name, []) for a in node.names if a.name.startswith("mobifrag")]
    return found


def modules() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*.py") if "__pycache__" not in p.parts)


def stage_of(dotted: str) -> str | None:
    parts = dotted.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in STAGES else None


def test_at_most_ten_top_level_modules():
    top = [p.name for p in PACKAGE.iterdir() if p.name != "__pycache__"]
    assert len(top) <= 10, sorted(top)
    assert {p for p in top if not p.endswith(".py")} == set(STAGES)


def test_no_private_name_crosses_modules():
    crossing = [
        f"{p.relative_to(REPO)} imports {name} from {module}"
        for p in modules()
        for module, names in imports(p)
        for name in names
        if name.startswith("_") and name != "__version__"
    ]
    assert not crossing


def test_stages_import_only_their_own_or_earlier_stages():
    backwards = []
    for p in modules():
        own = stage_of("mobifrag." + ".".join(p.relative_to(PACKAGE).parts))
        for module, _ in imports(p):
            other = stage_of(module)
            if own and other and STAGES.index(other) > STAGES.index(own):
                backwards.append(f"{p.relative_to(REPO)} ({own}) imports {module}")
    assert not backwards


def test_the_layout_check_sees_a_backward_import(tmp_path):
    module = tmp_path / "probe.py"
    module.write_text("from mobifrag.report.claims import load_claims\n")
    ((found, _),) = imports(module)
    assert STAGES.index(stage_of(found)) > STAGES.index("workloads")


# What starts ftl-sim (mobifrag.model.ftl); only the model stage may call it: every
# simulation is a rule whose kept JSON the tables read.
SIMULATOR_CALLS = ("summary", "replay", "replay_phase")


def test_no_table_or_report_runs_the_simulator():
    calls = []
    for p in modules():
        stage = stage_of("mobifrag." + ".".join(p.relative_to(PACKAGE).parts))
        if stage not in ("tables", "report"):
            continue
        tree = ast.parse(p.read_text())
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Attribute)
                and node.attr in SIMULATOR_CALLS
                and isinstance(node.value, ast.Name)
                and node.value.id == "ftl"
            ):
                calls.append(f"{p.relative_to(REPO)}:{node.lineno} ftl.{node.attr}")
    assert not calls
