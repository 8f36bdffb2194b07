"""`python -m mobifrag --version`: the artifact's version (pyproject.toml)."""

import argparse
import sys

from mobifrag.release import version


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="mobifrag", description=__doc__.split(":")[0])
    parser.add_argument("--version", action="version", version=f"mobifrag {version()}")
    parser.parse_args(argv)
    parser.print_help()
    return 0


if __name__ == "__main__":
    sys.exit(main())
