"""The study's configuration as every reader sees it.

config/config.yaml holds what belongs to no one experiment (device, scale, seed, the file
systems' options, the scales' repetitions, ...); each experiment keeps its keys, those
other experiments read too, in config/experiments/<experiment>.yaml: its defaults at the
top level and its part of each scale's preset under `scales: {<scale>: {<experiment>:
...}}`. load_config merges those files into config.yaml, puts the overrides on top (the
Snakefile passes the command line's --config and --configfile values) and checks the
whole against config/schema.yaml with each experiment's fragment (config/experiments/
<experiment>.schema.yaml) added. The Snakefile, the reports and the tests read the
config through it alone, so each sees the same merged config.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path

import jsonschema

from mobifrag import REPO
from mobifrag.workflow.yaml_file import read_mapping

CONFIG = REPO / "config" / "config.yaml"
SCHEMA = REPO / "config" / "schema.yaml"
# Each experiment's own files, in this folder beside config.yaml: <experiment>.yaml (its
# config) and <experiment>.<kind>.yaml, what it adds to a shared file of that kind
# (schema: config/schema.yaml; claims: config/claims.yaml; figures:
# paper-figures/registry.yaml).
EXPERIMENTS = "experiments"
EXPERIMENTS_DIR = REPO / "config" / EXPERIMENTS


class ConfigError(ValueError):
    """A config file that cannot be read or merged, or a config that does not fit its
    schema; the message names the file or the key."""


def experiment_files(config_file: Path = CONFIG) -> list[Path]:
    """The experiments' config files beside config_file, by name."""
    folder = Path(config_file).parent / EXPERIMENTS
    return sorted(p for p in folder.glob("*.yaml") if p.suffixes == [".yaml"])


def declarations(kind: str, folder: Path = EXPERIMENTS_DIR) -> list[Path]:
    """Each experiment's <experiment>.<kind>.yaml in folder, by name."""
    return sorted(Path(folder).glob(f"*.{kind}.yaml"))


def schema_fragments(schema_file: Path = SCHEMA) -> list[Path]:
    """The experiments' schema fragments beside schema_file, by name."""
    return declarations("schema", Path(schema_file).parent / EXPERIMENTS)


def merged(base: Mapping, top: Mapping) -> dict:
    """base with top's values over it, mappings merged key by key (as Snakemake merges
    --config over a config file)."""
    result = dict(base)
    for key, value in top.items():
        if isinstance(value, Mapping):
            below = result.get(key)
            result[key] = merged(below if isinstance(below, Mapping) else {}, value)
        else:
            result[key] = value
    return result


def shared_keys(base: Mapping, addition: Mapping, prefix: str = "") -> Iterator[str]:
    """The dotted keys that both set, other than mappings both extend."""
    for key, value in addition.items():
        if key not in base:
            continue
        if isinstance(value, Mapping) and isinstance(base[key], Mapping):
            yield from shared_keys(base[key], value, f"{prefix}{key}.")
        else:
            yield f"{prefix}{key}"


def extended(schema: Mapping, fragment: Mapping) -> dict:
    """schema with a fragment added: mappings merged key by key, lists extended (a
    fragment adds its experiment's key to `required`)."""
    result = dict(schema)
    for key, value in fragment.items():
        below = result.get(key)
        if isinstance(value, Mapping) and isinstance(below, Mapping):
            result[key] = extended(below, value)
        elif isinstance(value, list) and isinstance(below, list):
            result[key] = below + [item for item in value if item not in below]
        else:
            result[key] = value
    return result


def merged_files(config_file: Path = CONFIG) -> dict:
    """config_file with each experiment's file merged in. An experiment's file may set
    only keys no file before it set, so every key has one place."""
    config = read_mapping(config_file, ConfigError)
    for path in experiment_files(config_file):
        addition = read_mapping(path, ConfigError)
        clash = sorted(shared_keys(config, addition))
        if clash:
            raise ConfigError(
                f"{path}: {', '.join(clash)} already set (in {Path(config_file).name} or "
                "an experiment's file before it)"
            )
        config = merged(config, addition)
    return config


def load_schema(schema_file: Path = SCHEMA) -> dict:
    """config/schema.yaml with each experiment's fragment added."""
    schema = read_mapping(schema_file, ConfigError)
    for path in schema_fragments(schema_file):
        schema = extended(schema, read_mapping(path, ConfigError))
    return schema


def check_config(config: Mapping, schema_file: Path = SCHEMA) -> None:
    """Refuse a config that does not fit the schema, naming the first misfit."""
    validator = jsonschema.Draft202012Validator(load_schema(schema_file))
    error = next(iter(validator.iter_errors(config)), None)
    if error is not None:
        raise ConfigError(
            f"the config does not fit {schema_file.name} and its fragments in "
            f"{EXPERIMENTS}/:\n{error}"
        )


def load_config(
    config_file: Path = CONFIG, overrides: Mapping | None = None, schema_file: Path = SCHEMA
) -> dict:
    """The study's config: config_file, each experiment's file beside it, then the
    overrides, checked against the schema."""
    config = merged(merged_files(Path(config_file)), overrides or {})
    check_config(config, Path(schema_file))
    return config
