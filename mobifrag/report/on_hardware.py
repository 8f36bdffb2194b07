"""A claim as a platform judges it. On an emulator, a claim about a phone's speed rests
on modeled time (ftl-sim over the run's block traces); on a phone (platform `adb`) a
claim marked `on_hardware: device_wall` rests on the phone's own wall time instead: its
measure reads every `modeled_<x>` column as the table's `wall_<x>` twin."""

from __future__ import annotations

import copy

DEVICE_WALL = "device_wall"
MODELED, WALL = "modeled_", "wall_"


class TwinError(ValueError):
    """A claim marked for wall time on hardware whose measure has no modeled column."""


def modeled_columns(measure: dict) -> list[str]:
    columns = [measure["column"]]
    if "relative_to" in measure:
        columns += modeled_columns(measure["relative_to"])
    return columns


def check_twins(claim: dict) -> None:
    if claim.get("on_hardware") != DEVICE_WALL:
        return
    plain = [c for c in modeled_columns(claim["measure"]) if not c.startswith(MODELED)]
    if plain:
        raise TwinError(
            f"on_hardware: {DEVICE_WALL} reads each column's {WALL}<x> twin, but "
            f"{', '.join(plain)} is not a {MODELED}<x> column"
        )


def wall_measure(measure: dict) -> dict:
    wall = copy.deepcopy(measure)
    wall["column"] = WALL + measure["column"].removeprefix(MODELED)
    if "relative_to" in measure:
        wall["relative_to"] = wall_measure(measure["relative_to"])
    return wall


def as_judged(claim: dict, platform: str) -> dict:
    """The claim with the basis and measure the platform judges it on."""
    if platform != "adb" or claim.get("on_hardware") != DEVICE_WALL:
        return claim
    return {**claim, "basis": DEVICE_WALL, "measure": wall_measure(claim["measure"])}
