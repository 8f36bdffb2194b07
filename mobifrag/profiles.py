"""Device profiles (devices/<name>.yaml), validated against devices/schema.yaml.

Every problem is reported as one ProfileError naming the file and the field, before
any work starts.
"""

from __future__ import annotations

import sys
from functools import cache
from pathlib import Path

import jsonschema
import yaml

REPO = Path(__file__).resolve().parent.parent
DEVICES = REPO / "devices"
SCHEMA = DEVICES / "schema.yaml"


class ProfileError(ValueError):
    """A device profile that is missing, malformed or invalid."""


def profile_path(name: str) -> Path:
    return DEVICES / f"{name}.yaml"


def _field(error: jsonschema.ValidationError) -> str:
    parts = [str(p) for p in error.absolute_path]
    if error.validator == "additionalProperties":
        # The offending key is not in the path; jsonschema names it in the message.
        extra = sorted(set(error.instance) - set(error.schema.get("properties", {})))
        parts.append(",".join(extra))
    elif error.validator == "required":
        missing = [k for k in error.validator_value if k not in error.instance]
        parts.append(",".join(missing))
    return ".".join(parts) or "(top level)"


def _defaults(schema: dict, data: dict) -> dict:
    """Fill in the schema's defaults for missing keys, recursively."""
    for key, sub in schema.get("properties", {}).items():
        if key not in data and "default" in sub:
            data[key] = sub["default"]
        if isinstance(data.get(key), dict):
            _defaults(sub, data[key])
    return data


@cache
def _schema() -> dict:
    return yaml.safe_load(SCHEMA.read_text())


def validate_profile(data: object, source: Path) -> dict:
    if not isinstance(data, dict):
        raise ProfileError(f"{source}: a device profile is a mapping, got {type(data).__name__}")
    validator = jsonschema.Draft202012Validator(_schema())
    errors = sorted(validator.iter_errors(data), key=lambda e: list(e.absolute_path))
    if errors:
        lines = [f"{source}: field {_field(e)}: {e.message}" for e in errors]
        raise ProfileError("invalid device profile\n" + "\n".join(lines))
    if data["name"] != source.stem:
        raise ProfileError(f"{source}: field name: {data['name']!r} differs from the file name")
    return _defaults(_schema(), data)


def load_profile_file(path: Path) -> dict:
    path = Path(path)
    try:
        data = yaml.safe_load(path.read_text())
    except FileNotFoundError:
        raise ProfileError(f"{path}: no such device profile") from None
    except yaml.YAMLError as error:
        raise ProfileError(f"{path}: not valid YAML: {error}") from None
    return validate_profile(data, path)


def load_device(name: str) -> dict:
    """The validated profile devices/<name>.yaml, with schema defaults filled in."""
    path = profile_path(name)
    if not path.is_file():
        known = ", ".join(sorted(p.stem for p in DEVICES.glob("*.yaml") if p != SCHEMA))
        raise ProfileError(f"{path}: no such device profile (known: {known})")
    return load_profile_file(path)


def main(argv: list[str] | None = None) -> int:
    """`python -m mobifrag.profiles FILE...` checks profiles, e.g. a new one."""
    status = 0
    for arg in argv if argv is not None else sys.argv[1:]:
        try:
            load_profile_file(Path(arg))
            print(f"{arg}: ok")
        except ProfileError as error:
            print(error, file=sys.stderr)
            status = 1
    return status


if __name__ == "__main__":
    sys.exit(main())
