"""The figure registry as every reader gets it: paper-figures/registry.yaml (stem → the
result tables it is drawn from and its caption; the R script is
paper-figures/<stem>.R) with each experiment's own figures added, from
config/experiments/<experiment>.figures.yaml, in the same form. A stem registered twice
is refused, naming the file."""

from __future__ import annotations

from pathlib import Path

from mobifrag import REPO
from mobifrag.workflow.study_config import EXPERIMENTS_DIR, declarations
from mobifrag.workflow.yaml_file import read_mapping

REGISTRY = REPO / "paper-figures" / "registry.yaml"


class RegistryError(ValueError):
    """A registry file that cannot be read, or a stem registered twice."""


def figures_files(folder: Path = EXPERIMENTS_DIR) -> list[Path]:
    """Each experiment's figures file, by name."""
    return declarations("figures", folder)


def read_registry(path: Path = REGISTRY, folder: Path = EXPERIMENTS_DIR) -> dict:
    """Stem → {tables, caption}: the registry's figures, then each experiment's."""
    registry = read_mapping(path, RegistryError)
    for own in figures_files(folder):
        entries = read_mapping(own, RegistryError)
        twice = sorted(set(entries) & set(registry))
        if twice:
            raise RegistryError(f"{own}: {', '.join(twice)} already registered")
        registry.update(entries)
    return registry
