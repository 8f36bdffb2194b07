"""A map-tile cache database like Google Earth's mirth_cache.db (TMC §5.2.3: 201 MB,
queried read-only, mostly by table scans), built on the host and copied onto each aged
file system, as the paper copied the database into the phone.

    python -m mobifrag.workloads.tile_cache --bytes 2M --seed 1 --out mirth_cache.db

Tiles are keyed by (level, x, y) on zoom levels LEVELS over a GRID × GRID square, so the
fixed query log of traces/sql/ finds tiles at every scale; tile sizes follow Earth's
mirth_cache.db records in traces/scenarios/earth.yaml (one source for both). Tiles are
inserted in random order until the file reaches the requested size.
"""

from __future__ import annotations

import argparse
import random
import sqlite3
import sys
from pathlib import Path

from mobifrag import REPO
from mobifrag.workloads.generate import draw_size
from mobifrag.workloads.scenarios import AppModel, load_model
from mobifrag.workloads.sizes import size_argument

EARTH_MODEL = REPO / "traces/scenarios/earth.yaml"
TILE_DATABASE = "mirth_cache.db"
LEVELS = range(8, 16)
GRID = 64
SCHEMA = (
    "CREATE TABLE tiles (key INTEGER PRIMARY KEY, level INTEGER, x INTEGER, y INTEGER,"
    " version INTEGER, kind INTEGER, data BLOB)",
    "CREATE TABLE meta (name TEXT PRIMARY KEY, value TEXT)",
)
CHECK_EVERY = 5  # tiles between size checks while building


class TileCacheError(ValueError):
    """A tile cache that cannot be built; the message says why."""


def tile_sizes(model_path: Path = EARTH_MODEL):
    """The record size spec of Earth's tile database in its scenario model."""
    model = load_model(model_path)
    if isinstance(model, AppModel):
        for db in model.databases:
            if db.name == TILE_DATABASE:
                return db.record_bytes
    raise TileCacheError(f"{model_path}: no database {TILE_DATABASE}")


def tile_keys(rng: random.Random) -> list[tuple[int, int, int]]:
    keys = [(level, x, y) for level in LEVELS for x in range(GRID) for y in range(GRID)]
    rng.shuffle(keys)
    return keys


def build(out: Path, target_bytes: int, seed: int, sizes=None) -> int:
    """Write the database to `out` (replaced) until it holds target_bytes; returns rows."""
    if target_bytes <= 0:
        raise TileCacheError(f"database size {target_bytes} is not positive")
    sizes = sizes or tile_sizes()
    rng = random.Random(f"tile-cache:{seed}")
    out.unlink(missing_ok=True)
    db = sqlite3.connect(out)
    try:
        # Built on the host and copied whole: durability while building is not needed.
        db.execute("PRAGMA journal_mode=OFF")
        db.execute("PRAGMA synchronous=OFF")
        for statement in SCHEMA:
            db.execute(statement)
        db.execute("INSERT INTO meta VALUES ('source', 'mobifrag.workloads.tile_cache')")
        for rows, (level, x, y) in enumerate(tile_keys(rng)):
            if rows % CHECK_EVERY == 0:
                db.commit()
                if out.stat().st_size >= target_bytes:
                    return rows
            data = rng.randbytes(draw_size(rng, sizes))
            key = (level << 16) | (x << 8) | y
            db.execute(
                "INSERT INTO tiles VALUES (?, ?, ?, ?, ?, ?, ?)",
                (key, level, x, y, rng.randint(1, 5), rng.randint(0, 3), data),
            )
        raise TileCacheError(f"{target_bytes} bytes exceed every tile of the grid")
    finally:
        db.commit()
        db.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bytes", required=True, type=size_argument, help="size (accepts 2M, 1G)")
    parser.add_argument("--seed", required=True, type=int)
    parser.add_argument("--out", required=True, type=Path)
    args = parser.parse_args(argv)
    try:
        rows = build(args.out, args.bytes, args.seed)
    except (TileCacheError, sqlite3.Error, OSError) as error:
        print(f"tile_cache: {error}", file=sys.stderr)
        return 1
    print(f'{{"out": "{args.out}", "tiles": {rows}, "bytes": {args.out.stat().st_size}}}')
    return 0


if __name__ == "__main__":
    sys.exit(main())
