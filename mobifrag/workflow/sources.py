"""The source files a `python -m mobifrag.…` step runs: the module and every module of
the package it imports, directly or not.

Rules list them as inputs, so editing a table, model or report module (or a helper it
imports) reruns the steps that ran it and what follows them; Snakemake's own code
trigger sees only a rule's shell line.
"""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

PACKAGE = "mobifrag"
REPO = Path(__file__).resolve().parents[2]


class SourceError(ValueError):
    """A module name that names no file of the package."""


def module_file(module: str, root: Path = REPO) -> Path:
    """The file of `module` (a dotted name inside the package), relative to `root`."""
    parts = module.split(".")
    if parts[0] != PACKAGE:
        raise SourceError(f"{module}: not a module of {PACKAGE}")
    for candidate in (Path(*parts).with_suffix(".py"), Path(*parts, "__init__.py")):
        if (root / candidate).is_file():
            return candidate
    raise SourceError(f"{module}: no {Path(*parts)}.py or package under {root}")


def _imported(module: str, source: Path, root: Path) -> set[str]:
    """The package's modules that `source` (the file of `module`) imports."""
    tree = ast.parse((root / source).read_text(), filename=str(source))
    package = module if source.name == "__init__.py" else module.rpartition(".")[0]
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(anchor + ([base] if base else []))
            found.add(base)
            # `from mobifrag.tables import repetitions` imports a module, not a name.
            found.update(f"{base}.{alias.name}" for alias in node.names)
    return {name for name in found if name.split(".")[0] == PACKAGE and _exists(name, root)}


def _exists(module: str, root: Path) -> bool:
    try:
        module_file(module, root)
    except SourceError:
        return False
    return True


@cache
def module_sources(module: str, root: Path = REPO) -> tuple[str, ...]:
    """Repo-relative paths of `module`'s file and of every package module it imports,
    transitively (packages' `__init__.py` included, as Python runs them), sorted."""
    seen: dict[str, Path] = {}
    pending = [module]
    while pending:
        name = pending.pop()
        if name in seen:
            continue
        seen[name] = module_file(name, root)
        parents = name.split(".")
        pending.extend(".".join(parents[:i]) for i in range(1, len(parents)))
        pending.extend(_imported(name, seen[name], root))
    return tuple(sorted(str(path) for path in seen.values()))
