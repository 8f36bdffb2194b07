"""The test partition as the device shows it. A read-only probe resolves the profile's
test_partition on the device (readlink -f), and the runner refuses it unless it is a
block device, a partition node (/sys/class/block/<node>/partition exists), not a
dm/loop/zram node, not a system partition by its GPT name, not mounted (device numbers
against the mount tables) and held by nothing (dm-crypt, ...).
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass

from mobifrag.platform.adb import DeviceError
from mobifrag.workflow.profiles import is_system_partition, virtual_node


def probe_script(partition: str) -> str:
    """Read-only: what `partition` resolves to on the device, one `key=value` a line
    (node, block, partition, dev, sectors, partname, holders, mounted); check_probe
    decides."""
    part = shlex.quote(partition)
    return "; ".join(
        [
            f"node=$(readlink -f {part})",
            "sys=/sys/class/block/${node##*/}",
            'echo "node=$node"',
            'if [ -b "$node" ]; then echo block=yes; else echo block=no; fi',
            'if [ -e "$sys/partition" ]; then echo partition=yes; else echo partition=no; fi',
            'dev=$(cat "$sys/dev" 2> /dev/null)',
            'echo "dev=$dev"',
            'echo "sectors=$(cat "$sys/size" 2> /dev/null)"',
            'echo "partname=$(sed -n "s/^PARTNAME=//p" "$sys/uevent" 2> /dev/null)"',
            'echo "holders=$(ls "$sys/holders" 2> /dev/null | tr "\\n" " ")"',
            "mounted=no",
            'if [ -n "$dev" ] && grep -q "^[0-9]* [0-9]* $dev " /proc/self/mountinfo '
            "/proc/1/mountinfo 2> /dev/null; then mounted=yes; fi",
            'if grep -q "^$node " /proc/mounts /proc/swaps 2> /dev/null; then mounted=yes; fi',
            'echo "mounted=$mounted"',
        ]
    )


@dataclass(frozen=True)
class CheckedDisk:
    """The test partition as the device showed it: node, size, device number (hex
    major:minor, as `stat -c %t:%T` prints it)."""

    node: str
    mib: int
    number: str


def probe_facts(reply: str) -> dict[str, str]:
    return dict(line.split("=", 1) for line in reply.splitlines() if "=" in line)


def probe_problem(facts: dict[str, str]) -> str | None:
    """Why the probed node may not be formatted; None when it may."""
    node = facts.get("node", "")
    name = node.rsplit("/", 1)[-1]
    holders = facts.get("holders", "").strip()
    if facts.get("block") != "yes":
        return f"resolves to {node or 'nothing'}, which is not a block device"
    if virtual := virtual_node(name):
        return f"resolves to {virtual}"
    if facts.get("partition") != "yes":
        return f"resolves to {node}, a whole disk (no /sys/class/block/{name}/partition)"
    if is_system_partition(facts.get("partname", "")):
        return f"resolves to {node}, the system partition {facts['partname']}"
    if facts.get("mounted") != "no":
        return f"resolves to {node}, which is mounted"
    if holders:
        return f"resolves to {node}, which is in use by {holders}"
    return None


def hex_device_number(dev: str) -> str:
    major, minor = (int(part) for part in dev.split(":"))
    return f"{major:x}:{minor:x}"


def check_probe(partition: str, reply: str) -> CheckedDisk:
    facts = probe_facts(reply)
    if problem := probe_problem(facts):
        raise DeviceError(f"test partition {partition} {problem}: refusing to format it")
    try:
        mib = int(facts["sectors"]) * 512 // (1024 * 1024)
        return CheckedDisk(facts["node"], mib, hex_device_number(facts["dev"]))
    except (KeyError, ValueError):
        raise DeviceError(f"test partition {partition}: unexpected reply {reply!r}") from None
