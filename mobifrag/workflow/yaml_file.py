"""A YAML file that holds a mapping, read with libyaml's safe loader where PyYAML has it
(the pure-Python parser takes seconds on the claims file, which every report reads)."""

from __future__ import annotations

from pathlib import Path

import yaml

LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def read_mapping(path: Path, error: type[Exception]) -> dict:
    """The file's mapping (an empty file's is empty); `error`, naming the file, for one
    that cannot be read or holds something else."""
    try:
        data = yaml.load(Path(path).read_text(), Loader=LOADER)
    except (OSError, yaml.YAMLError) as problem:
        raise error(f"{path}: {problem}") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise error(f"{path}: not a mapping")
    return data
