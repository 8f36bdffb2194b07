"""Putting the study's kernel on a board: `fastboot flash` of the profile's boot
partition, or `fastboot boot` of the image once. Both write to the board, so both are
refused unless the profile sets allow_destructive: true (a dry run prints the commands).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from mobifrag.platform.adb import DeviceError, Tool, dry_run_requested
from mobifrag.platform.adb_fence import check_destructive
from mobifrag.workflow.profiles import load_device


def flash_commands(profile: dict, image: Path, boot_only: bool) -> list[tuple[str, str, list]]:
    """(tool, step, arguments) of putting `image` on the board, in order."""
    partition = profile["platform"]["boot"]["partition"]
    steps = [
        ("adb", "rebooting into the bootloader", ["reboot", "bootloader"]),
    ]
    if boot_only:
        steps.append(("fastboot", "booting the image once", ["boot", str(image)]))
    else:
        steps.append(("fastboot", f"flashing {partition}", ["flash", partition, str(image)]))
        steps.append(("fastboot", "rebooting", ["reboot"]))
    steps.append(("adb", "waiting for the device", ["wait-for-device"]))
    return steps


def flash(
    device: str, image: Path, log_path: Path, done: Path | None = None, boot_only: bool = False
) -> str:
    """Puts `image` on the board (fastboot flash, or fastboot boot); `done` records the
    image's hash once that really happened, never in a dry run."""
    profile = load_device(device)
    platform = profile["platform"]
    if platform["type"] != "adb" or not platform["flash_kernel"]:
        raise DeviceError(f"device {device}: platform.flash_kernel is not true, nothing to flash")
    dry_run = dry_run_requested(platform)
    if not dry_run:
        check_destructive(profile, f"fastboot would write {image} to the board")
        if not image.is_file():
            raise DeviceError(f"boot image {image} does not exist")
    log_path.parent.mkdir(parents=True, exist_ok=True)
    with open(log_path, "w") as log:
        tools = {name: Tool(name, platform["serial"], log, dry_run) for name in ("adb", "fastboot")}
        for name, step, args in flash_commands(profile, image, boot_only):
            tools[name].run(step, *args)
    if dry_run:
        return "dry run: nothing flashed"
    if done is not None:
        digest = hashlib.sha256(image.read_bytes()).hexdigest()
        done.write_text(json.dumps({"image": str(image), "sha256": digest}) + "\n")
    return f"{image} on device {platform['serial']}"
