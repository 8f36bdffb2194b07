"""The adb platform runner's contract, against fake `adb`/`fastboot` programs on PATH.

No real device is ever used: the fakes keep a 'device' as a folder, log every call, and
can be told to lose the device, fill it up, or fail the job. A wrapper test runs the
device-side run.sh with the host's sh in a temporary folder.
"""

import copy
import json
import os
import re
import shlex
import subprocess
import sys

import pytest
import yaml

from conftest import REPO
from mobifrag.platform import (
    adb_fence,
    adb_flash,
    adb_partition,
    adb_runner,
    adb_staging,
    adb_wrapper,
)
from mobifrag.platform import run as platform
from mobifrag.platform.adb import DRY_RUN_ENV, DeviceError, DeviceFull, DeviceGone
from mobifrag.workflow.profiles import DEVICES, ProfileError, load_device, load_profile_file

SERIAL = "FAKE0123"
WORKDIR = "/data/local/tmp/mobifrag"
JOB = REPO / "jobs" / "concurrent-appenders.sh"
JOB_ARGS = ("ext4", "-b 4096", "1", "4096", "65536")

FAKE_ADB = r'''#!PYTHON
"""Fake adb/fastboot: a folder is the device; FAKE_* variables choose what goes wrong."""
import json, os, shlex, shutil, sys
from pathlib import Path

env = os.environ
prog = Path(sys.argv[0]).name
argv = sys.argv[1:]
with open(env["FAKE_ADB_LOG"], "a") as log:
    log.write(json.dumps([prog, *argv]) + "\n")
root = Path(env["FAKE_ADB_ROOT"])
if argv == ["devices"]:
    print("List of devices attached")
    for serial in env.get("FAKE_ADB_SERIALS", "").split():
        print(f"{serial}\tdevice")
    sys.exit(0)
serial, args = argv[1], argv[2:]
def fail(message):
    print(message, file=sys.stderr)
    sys.exit(1)
def device(path):
    return root / path.lstrip("/")
if serial not in env.get("FAKE_ADB_SERIALS", "").split():
    fail(f"adb: device '{serial}' not found")
verb = args[0]
if env.get("FAKE_ADB_VANISH") == verb and verb != "pull":
    fail("adb: error: device offline")
if verb == "get-state":
    print("device")
elif verb == "push":
    source, target = Path(args[1]), device(args[2])
    if env.get("FAKE_ADB_FULL") and env["FAKE_ADB_FULL"] in args[2]:
        fail(f"adb: error: failed to copy '{source}' to '{args[2]}': remote write failed: "
             "No space left on device")
    target.parent.mkdir(parents=True, exist_ok=True)
    if source.is_dir():
        shutil.copytree(source, target, dirs_exist_ok=True)
    else:
        shutil.copy(source, target)
elif verb == "pull":
    source, target = device(args[1]), Path(args[2])
    target.mkdir()
    for n, item in enumerate(sorted(source.iterdir())):
        if env.get("FAKE_ADB_VANISH") == "pull" and n == 1:
            fail("adb: error: device offline")
        shutil.copy(item, target / item.name)
elif verb == "shell":
    command = args[1]
    if command.startswith("su -c "):
        command = shlex.split(command)[2]
    if "PARTNAME" in command:
        facts = {"node": "/dev/block/sdz9", "block": "yes", "partition": "yes",
                 "dev": "65:153", "sectors": env.get("FAKE_ADB_SECTORS", "2097152"),
                 "partname": "userdata-test", "holders": "", "mounted": "no",
                 **json.loads(env.get("FAKE_ADB_PROBE", "{}"))}
        print("\n".join(f"{key}={value}" for key, value in facts.items()))
    elif command.endswith("/run.sh"):
        if env.get("FAKE_ADB_VANISH") == "job":
            fail("error: closed")
        out = device(command.split()[-1]).parent / "out"
        out.mkdir(parents=True, exist_ok=True)
        (out / "job.log").write_text("job: ran on the fake device\n")
        (out / "append.json").write_text("{}\n")
        (out / "blktrace-status.txt").write_text("blktrace: not present on the device\n")
        (out / "exit-status").write_text(env.get("FAKE_ADB_STATUS", "0") + "\n")
'''


@pytest.fixture
def fake_device(tmp_path, monkeypatch):
    """Fake adb and fastboot on PATH; returns the log reader and the device folder."""
    bin_dir = tmp_path / "fakebin"
    bin_dir.mkdir()
    for name in ("adb", "fastboot"):
        tool = bin_dir / name
        tool.write_text(FAKE_ADB.replace("PYTHON", sys.executable, 1))
        tool.chmod(0o755)
    log = tmp_path / "adb-calls.jsonl"
    log.touch()
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("FAKE_ADB_LOG", str(log))
    monkeypatch.setenv("FAKE_ADB_ROOT", str(tmp_path / "device"))
    monkeypatch.setenv("FAKE_ADB_SERIALS", SERIAL)
    monkeypatch.delenv(DRY_RUN_ENV, raising=False)
    monkeypatch.chdir(tmp_path)

    def calls():
        return [json.loads(line) for line in log.read_text().splitlines()]

    return calls


def board_profile(**platform_keys):
    profile = copy.deepcopy(load_device("hikey960"))
    profile["platform"].update({"serial": SERIAL, "allow_destructive": True, **platform_keys})
    return profile


def aarch64_agent(tmp_path):
    agent = tmp_path / "mobifrag-agent"
    header = bytearray(64)
    header[:4] = b"\x7fELF"
    header[18:20] = (183).to_bytes(2, "little")
    agent.write_bytes(bytes(header))
    return agent


def job_spec(tmp_path, args=JOB_ARGS, agent=None):
    return platform.JobSpec(
        script=JOB,
        args=tuple(args),
        env=(("MOBIFRAG_SEED", "7"),),
        agent=agent or aarch64_agent(tmp_path),
        kernel=tmp_path / "unused-Image",
        disk_mib=256,
        timeout_s=60,
    )


def run(tmp_path, profile=None, spec=None):
    out = tmp_path / "results" / "run"
    message = adb_runner.run_job(
        profile or board_profile(), spec or job_spec(tmp_path), out, tmp_path / "logs/c.log"
    )
    return out, message


def adb(*args):
    return ["adb", "-s", SERIAL, *args]


def expected_sequence(tmp_path, extra_pushes=()):
    plan = adb_staging.plan_job(board_profile()["platform"], JOB, JOB_ARGS)
    return [
        adb("get-state"),
        adb("root"),
        adb("wait-for-device"),
        adb("shell", adb_partition.probe_script("/dev/block/by-name/userdata-test")),
        adb("shell", adb_staging.layout_script(plan, chown_shell=False)),
        adb("push", str(tmp_path / "mobifrag-agent"), f"{WORKDIR}/bin/mobifrag-agent"),
        adb("push", str(REPO / "jobs"), f"{WORKDIR}/jobs"),
        *extra_pushes,
        adb("push", str(tmp_path / "logs/c.run.sh"), f"{WORKDIR}/run/run.sh"),
        adb("shell", f"sh {WORKDIR}/run/run.sh"),
        adb("pull", f"{WORKDIR}/run/out", str(tmp_path / "results/run.partial")),
        adb("shell", f"rm -rf {WORKDIR}/run {WORKDIR}/inputs"),
    ]


def test_a_job_runs_the_exact_command_sequence(tmp_path, fake_device):
    out, message = run(tmp_path)
    assert fake_device() == expected_sequence(tmp_path)
    assert "finished" in message and SERIAL in message
    assert (out / "append.json").is_file() and not (out / "exit-status").exists()
    record = json.loads((out / "platform-run.json").read_text())
    assert record["disk"] == "/dev/block/sdz9" and record["disk_mib"] == 1024
    assert record["disk_device_number"] == "41:99"
    assert record["blktrace"].startswith("blktrace: not present")
    assert not (tmp_path / "results/run.partial").exists()


def test_the_wrapper_carries_the_job_contract(tmp_path, fake_device):
    run(tmp_path)
    wrapper = (tmp_path / "logs/c.run.sh").read_text()
    for line in (
        f"export MOBIFRAG_ROOT={WORKDIR}",
        "export MOBIFRAG_DISK=/dev/block/sdz9",
        "export MOBIFRAG_DEVICE_CHECKED_DISK=41:99",
        f"export MOBIFRAG_AGENT={WORKDIR}/bin/mobifrag-agent",
        f"export TMPDIR={WORKDIR}/run/tmp",
        "export MOBIFRAG_SEED=7",
        f"sh {WORKDIR}/jobs/concurrent-appenders.sh ext4 '-b 4096' 1 4096 65536 > job.log 2>&1 &",
    ):
        assert line in wrapper.splitlines()


def test_trace_folders_are_pushed_and_arguments_rewritten(tmp_path, fake_device):
    traces = tmp_path / "results" / "traces"
    traces.mkdir(parents=True)
    (traces / "day-00.iotrace").write_text("# trace\n")
    spec = job_spec(tmp_path, args=("ext4", "", str(traces), "7"))
    run(tmp_path, spec=spec)
    pushes = [call for call in fake_device() if call[3] == "push"]
    assert adb("push", str(traces), f"{WORKDIR}/inputs/2-traces") in pushes
    wrapper = (tmp_path / "logs/c.run.sh").read_text()
    assert f"ext4 '' {WORKDIR}/inputs/2-traces 7 > job.log" in wrapper


def test_host_paths_outside_the_work_tree_are_refused(tmp_path, fake_device):
    with pytest.raises(DeviceError, match="outside the working directory"):
        run(tmp_path, spec=job_spec(tmp_path, args=("ext4", "", "/etc", "7")))
    assert fake_device() == []


def test_wrong_serial_names_the_serial_and_what_is_connected(tmp_path, fake_device, monkeypatch):
    monkeypatch.setenv("FAKE_ADB_SERIALS", "OTHER999")
    with pytest.raises(DeviceError) as error:
        run(tmp_path)
    message = str(error.value)
    assert f"serial {SERIAL}" in message and "platform.serial" in message
    assert "connected: OTHER999" in message
    assert not (tmp_path / "results/run").exists()


def test_device_disappearing_while_pulling_keeps_what_was_pulled(
    tmp_path, fake_device, monkeypatch
):
    monkeypatch.setenv("FAKE_ADB_VANISH", "pull")
    with pytest.raises(DeviceGone) as error:
        run(tmp_path)
    partial = tmp_path / "results/run.partial"
    assert "disappeared during pulling the outputs" in str(error.value)
    assert f"kept in {partial}" in str(error.value)
    assert [p.name for p in partial.iterdir()] == ["append.json"]
    assert not (tmp_path / "results/run").exists()


def test_device_disappearing_during_the_job_is_said_and_leaves_no_output(
    tmp_path, fake_device, monkeypatch
):
    monkeypatch.setenv("FAKE_ADB_VANISH", "job")
    with pytest.raises(DeviceGone, match="disappeared during the job.*nothing"):
        run(tmp_path)
    assert fake_device()[-1][3:] == ["shell", f"sh {WORKDIR}/run/run.sh"]
    assert not (tmp_path / "results/run").exists()


def test_full_device_is_named_when_a_push_fails(tmp_path, fake_device, monkeypatch):
    traces = tmp_path / "traces"
    traces.mkdir()
    monkeypatch.setenv("FAKE_ADB_FULL", "/inputs/")
    with pytest.raises(DeviceFull) as error:
        run(tmp_path, spec=job_spec(tmp_path, args=("ext4", "", str(traces), "7")))
    assert f"device {SERIAL} is full" in str(error.value)
    assert "No space left on device" in str(error.value)
    assert not (tmp_path / "results/run").exists()


def test_failed_job_keeps_its_outputs_and_shows_its_log(tmp_path, fake_device, monkeypatch):
    monkeypatch.setenv("FAKE_ADB_STATUS", "3")
    with pytest.raises(DeviceError, match="exited with status 3") as error:
        run(tmp_path)
    assert "job: ran on the fake device" in str(error.value)
    assert (tmp_path / "results/run.partial/job.log").is_file()
    assert not (tmp_path / "results/run").exists()


def test_a_partition_smaller_than_the_job_needs_is_refused(tmp_path, fake_device, monkeypatch):
    monkeypatch.setenv("FAKE_ADB_SECTORS", "2048")
    with pytest.raises(DeviceError, match="holds 1 MiB; the job needs 256 MiB"):
        run(tmp_path)


def test_nothing_runs_without_allow_destructive(tmp_path, fake_device):
    profile = board_profile(allow_destructive=False)
    with pytest.raises(DeviceError, match="allow_destructive is false"):
        run(tmp_path, profile=profile)
    assert fake_device() == []


def test_system_partitions_are_refused(tmp_path, fake_device):
    profile = board_profile(test_partition="/dev/block/by-name/userdata")
    with pytest.raises(DeviceError, match="names the system partition userdata"):
        run(tmp_path, profile=profile)
    assert fake_device() == []


UNSAFE_PLATFORM_VALUES = [
    ("test_partition", "/dev/block/mmcblk0"),
    ("test_partition", "/dev/block/sda"),
    ("test_partition", "/dev/block/by-name/USERDATA"),
    ("test_partition", "/dev/block/bootdevice/by-name/Vendor_a"),
    ("test_partition", "/dev/block/../../dev/block/mmcblk0"),
    ("test_partition", "/dev/block/dm-3"),
    ("test_partition", "/dev/block/zram0"),
    ("workdir", "/data"),
    ("workdir", "/data/.."),
    ("workdir", "/data/local/tmp"),
    ("workdir", "/data/local/tmp/../../.."),
]


@pytest.mark.parametrize(("key", "value"), UNSAFE_PLATFORM_VALUES)
@pytest.mark.parametrize("dry_run", [False, True], ids=["run", "dry-run"])
def test_unsafe_platform_values_stop_before_any_adb_command(
    tmp_path, fake_device, monkeypatch, capsys, key, value, dry_run
):
    if dry_run:
        monkeypatch.setenv(DRY_RUN_ENV, "1")
    with pytest.raises(DeviceError, match=rf"field platform\.{key}: "):
        run(tmp_path, profile=board_profile(**{key: value}))
    assert fake_device() == [] and capsys.readouterr().out == ""


PROBED = [
    ({"node": "/dev/block/mmcblk0", "partition": "no"}, "a whole disk"),
    ({"node": "/dev/block/sda", "partition": "no"}, "a whole disk"),
    ({"node": "/dev/block/dm-5"}, "device-mapper, loop, zram"),
    ({"node": "/dev/block/loop3"}, "device-mapper, loop, zram"),
    ({"partname": "USERDATA"}, "the system partition USERDATA"),
    ({"partname": "system_b"}, "the system partition system_b"),
    ({"mounted": "yes"}, "which is mounted"),
    ({"mounted": ""}, "which is mounted"),
    ({"holders": "dm-0 "}, "in use by dm-0"),
    ({"node": "/dev/block/by-name", "block": "no"}, "not a block device"),
]


@pytest.mark.parametrize(("facts", "why"), PROBED)
def test_what_the_partition_resolves_to_on_the_device_is_checked(
    tmp_path, fake_device, monkeypatch, facts, why
):
    monkeypatch.setenv("FAKE_ADB_PROBE", json.dumps(facts))
    with pytest.raises(DeviceError, match=why):
        run(tmp_path)
    calls = fake_device()
    assert calls[-1] == adb("shell", adb_partition.probe_script("/dev/block/by-name/userdata-test"))
    assert not any("rm -rf" in " ".join(call) or "mkdir" in " ".join(call) for call in calls)


ROOT_TREE_COMMAND = re.compile(r"(?:rm -rf|chown -R shell:shell)((?: [^ ;]+)+)")


def root_scripts(calls):
    """The scripts of every `adb shell` call, `su -c` unwrapped."""
    scripts = [call[4] for call in calls if call[3] == "shell"]
    return [shlex.split(s)[2] if s.startswith("su -c ") else s for s in scripts]


def test_every_root_rm_and_chown_stays_inside_the_workdir(tmp_path, fake_device):
    run(tmp_path, profile=board_profile(root="su"))
    targets = [
        path
        for script in root_scripts(fake_device())
        for paths in ROOT_TREE_COMMAND.findall(script)
        for path in paths.split()
    ]
    assert WORKDIR in targets and f"{WORKDIR}/run" in targets
    assert all(t == WORKDIR or t.startswith(f"{WORKDIR}/") for t in targets), targets
    assert not any(".." in t.split("/") for t in targets)


@pytest.mark.parametrize("workdir", ["/data", "/data/..", "/", "/data/local/tmp"])
def test_root_tree_commands_refuse_paths_outside_the_workdir(workdir):
    plan = adb_staging.DevicePlan(workdir, f"{workdir}/jobs/x.sh", (), ())
    with pytest.raises(DeviceError, match="outside the workdir"):
        adb_staging.layout_script(plan, chown_shell=True)
    with pytest.raises(DeviceError, match="outside the workdir"):
        adb_fence.remove_command(workdir, "run")
    with pytest.raises(DeviceError, match="outside the workdir"):
        adb_fence.chown_command(workdir)


@pytest.mark.parametrize("name", ["..", "../..", ".", "", "run/../.."])
def test_removals_name_only_folders_inside_the_workdir(name):
    with pytest.raises(DeviceError, match="not inside"):
        adb_fence.remove_command(WORKDIR, name)


def test_the_layout_checks_the_workdir_resolves_to_itself_before_deleting():
    plan = adb_staging.plan_job(board_profile()["platform"], JOB, ())
    script = adb_staging.layout_script(plan, chown_shell=True)
    assert script.index(f"readlink -f {WORKDIR}") < script.index("rm -rf")
    assert script.endswith(f"chown -R shell:shell {WORKDIR}")


def test_job_settings_cannot_override_the_checked_disk():
    plan = adb_staging.plan_job(board_profile()["platform"], JOB, ())
    disk = adb_partition.CheckedDisk("/dev/block/sdz9", 1024, "41:99")
    env = (("MOBIFRAG_DISK", "/dev/block/sda"), (adb_wrapper.CHECKED_DISK_ENV, "8:0"))
    exports = [
        line for line in adb_wrapper.wrapper_script(plan, disk, env).splitlines()
        if line.startswith(("export MOBIFRAG_DISK=", "export MOBIFRAG_DEVICE_CHECKED_DISK="))
    ]  # fmt: skip
    assert exports == [
        "export MOBIFRAG_DEVICE_CHECKED_DISK=41:99",
        "export MOBIFRAG_DISK=/dev/block/sdz9",
    ]


def test_a_host_agent_is_refused(tmp_path, fake_device):
    host_agent = tmp_path / "host-agent"
    host_agent.write_bytes(b"\x7fELF" + bytes(14) + (62).to_bytes(2, "little") + bytes(40))
    with pytest.raises(DeviceError, match="not an aarch64 executable"):
        run(tmp_path, spec=job_spec(tmp_path, agent=host_agent))


def test_dry_run_prints_the_sequence_and_runs_nothing(tmp_path, fake_device, monkeypatch, capsys):
    monkeypatch.setenv(DRY_RUN_ENV, "1")
    out, message = run(tmp_path, profile=board_profile(allow_destructive=False))
    printed = capsys.readouterr().out.splitlines()
    expected = expected_sequence(tmp_path)
    assert fake_device() == []
    assert len(printed) == len(expected)
    assert [shlex.split(line)[:4] for line in printed] == [cmd[:4] for cmd in expected]
    assert "ran none" in message
    assert not out.exists() and not out.with_name("run.partial").exists()


def test_dry_run_from_the_profile(tmp_path, fake_device, capsys):
    run(tmp_path, profile=board_profile(dry_run=True))
    assert capsys.readouterr().out.startswith(f"adb -s {SERIAL} get-state\n")
    assert fake_device() == []


def test_platform_dispatches_adb_profiles(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv(DRY_RUN_ENV, raising=False)
    status = platform.main(
        ["--device", "hikey960", "--kernel", "x", "--script", str(JOB), "--out",
         str(tmp_path / "o"), "--console", str(tmp_path / "c.log"), "--", *JOB_ARGS]
    )  # fmt: skip
    assert status == 1
    assert "allow_destructive is false" in capsys.readouterr().err


# --- flashing ---------------------------------------------------------------------------


def test_flash_dry_run_prints_adb_and_fastboot_in_order(tmp_path, fake_device, monkeypatch):
    monkeypatch.setenv(DRY_RUN_ENV, "1")
    image = tmp_path / "boot.img"
    done = tmp_path / "flash.done"
    message = adb_flash.flash("hikey960", image, tmp_path / "flash.log", done)
    log = (tmp_path / "flash.log").read_text().splitlines()
    serial = load_device("hikey960")["platform"]["serial"]
    assert log == [
        f"$ adb -s {serial} reboot bootloader",
        f"$ fastboot -s {serial} flash boot {image}",
        f"$ fastboot -s {serial} reboot",
        f"$ adb -s {serial} wait-for-device",
    ]
    assert "nothing flashed" in message and not done.exists()
    assert fake_device() == []


def test_flash_is_refused_without_allow_destructive(tmp_path, fake_device):
    with pytest.raises(DeviceError, match="allow_destructive is false"):
        adb_flash.flash("hikey960", tmp_path / "boot.img", tmp_path / "flash.log")
    assert fake_device() == []


def test_boot_once_runs_fastboot_boot_and_records_it(tmp_path, fake_device, monkeypatch):
    monkeypatch.setattr(adb_flash, "load_device", lambda name: board_profile())
    image = tmp_path / "boot.img"
    image.write_bytes(b"ANDROID!")
    done = tmp_path / "boot-once.done"
    adb_flash.flash("hikey960", image, tmp_path / "boot.log", done, boot_only=True)
    assert fake_device() == [
        adb("reboot", "bootloader"),
        ["fastboot", "-s", SERIAL, "boot", str(image)],
        adb("wait-for-device"),
    ]
    assert json.loads(done.read_text())["image"] == str(image)


# --- the device-side wrapper, run by the host's sh ------------------------------------------


def wrapper_workdir(tmp_path, job: str):
    """A device work folder with jobs/lib.sh, the job, an agent stand-in and run.sh."""
    work = tmp_path / "w"
    (work / "jobs").mkdir(parents=True)
    (work / "jobs" / "lib.sh").write_text((REPO / "jobs" / "lib.sh").read_text())
    (work / "jobs" / "probe.sh").write_text(job)
    for sub in ("run/out", "run/tmp", "bin"):
        (work / sub).mkdir(parents=True)
    (work / "bin" / "mobifrag-agent").write_text("")
    plan = adb_staging.DevicePlan(str(work), str(work / "jobs/probe.sh"), ("hello",), ())
    disk = adb_partition.CheckedDisk("/dev/fake0", 1024, "fe:0")
    (work / "run" / "run.sh").write_text(adb_wrapper.wrapper_script(plan, disk, ()))
    return work


def test_wrapper_leaves_the_block_trace_to_the_jobs_phases(tmp_path):
    # One block trace per device at a time: a trace of the whole job would make each
    # phase's blktrace (jobs/lib.sh trace_start) fail with EBUSY on the phone.
    work = wrapper_workdir(tmp_path, "exit 0\n")
    tools, calls = tmp_path / "tools", tmp_path / "calls"
    tools.mkdir()
    for name in ("blktrace", "mount"):
        (tools / name).write_text(f'#!/bin/sh\necho "{name} $*" >> "{calls}"\n')
        (tools / name).chmod(0o755)
    env = {"PATH": f"{tools}:/usr/bin:/bin", "HOME": str(tmp_path)}
    done = subprocess.run(["sh", str(work / "run/run.sh")], env=env, capture_output=True)
    assert done.returncode == 0, done.stderr
    out = work / "run" / "out"
    assert (out / "exit-status").read_text().strip() == "0"
    assert (
        "present; the job traces its measured phases" in (out / "blktrace-status.txt").read_text()
    )
    assert "blktrace" not in (calls.read_text() if calls.exists() else "")


def test_wrapper_runs_the_job_and_says_blktrace_is_missing(tmp_path):
    work = wrapper_workdir(
        tmp_path,
        '. "$MOBIFRAG_ROOT/jobs/lib.sh"\n'
        'echo "$1 $MOBIFRAG_DISK $TMPDIR $(pwd)" > seen.txt\n'
        'e2freefrag "$MOBIFRAG_DISK" > free.txt\n'
        "exit 0\n",
    )
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    done = subprocess.run(["sh", str(work / "run/run.sh")], env=env, capture_output=True)
    assert done.returncode == 0, done.stderr
    out = work / "run" / "out"
    assert (out / "exit-status").read_text().strip() == "0"
    assert (out / "seen.txt").read_text().split() == [
        "hello", "/dev/fake0", str(work / "run/tmp"), str(out)
    ]  # fmt: skip
    assert "not present" in (out / "blktrace-status.txt").read_text()
    assert (out / "free.txt").read_text().startswith("e2freefrag: not present on this device")


# --- profiles -------------------------------------------------------------------------------


def write_profile(tmp_path, data):
    path = tmp_path / f"{data['name']}.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


def raw(name):
    return yaml.safe_load((DEVICES / f"{name}.yaml").read_text())


@pytest.mark.parametrize(
    ("name", "change", "field"),
    [
        ("emulator-emmc", lambda p: p.update(serial="X1"), "serial"),
        ("hikey960", lambda p: p.pop("test_partition"), "test_partition"),
        ("hikey960", lambda p: p.pop("boot"), "boot"),
        ("hikey960", lambda p: p.update(cpus=2), "cpus"),
        ("android-rooted", lambda p: p.update(test_partition="/data/x"), "test_partition"),
    ],
)
def test_profile_keys_follow_the_platform_type(tmp_path, name, change, field):
    data = raw(name)
    change(data["platform"])
    with pytest.raises(ProfileError, match=field):
        load_profile_file(write_profile(tmp_path, data))


def test_device_profiles_default_to_no_destruction():
    for name in ("hikey960", "android-rooted"):
        assert load_device(name)["platform"]["allow_destructive"] is False
    assert load_device("hikey960")["storage"]["class"] == "ufs"


# --- the device-side probe, run by the host's sh on the host's own block devices -----------


def probe_on_this_host(partition):
    script = adb_partition.probe_script(str(partition))
    done = subprocess.run(["sh", "-c", script], capture_output=True, text=True, timeout=60)
    return adb_partition.probe_facts(done.stdout)


def test_the_probe_sees_a_mounted_disk_through_an_alias(tmp_path):
    from test_lib_sh import mounted_block_device

    disk, (major, minor) = mounted_block_device()
    alias = tmp_path / "by-name" / "userdata-test"
    alias.parent.mkdir()
    alias.symlink_to(disk)
    facts = probe_on_this_host(alias)
    assert facts["node"] == str(disk) and facts["block"] == "yes"
    assert facts["dev"] == f"{major}:{minor}" and facts["mounted"] == "yes"
    with pytest.raises(DeviceError, match="refusing to format it"):
        adb_partition.check_probe(str(alias), "\n".join(f"{k}={v}" for k, v in facts.items()))


def test_the_probe_sees_a_whole_loop_disk():
    from test_lib_sh import unused_loop_device

    disk, _ = unused_loop_device()
    facts = probe_on_this_host(disk)
    assert (facts["block"], facts["partition"], facts["mounted"]) == ("yes", "no", "no")
    assert adb_partition.probe_problem(facts).startswith("resolves to a device-mapper, loop")


def test_a_guest_with_more_vcpus_than_host_cores_is_refused_by_field():
    profile = {"name": "big", "platform": {"cpus": 64}}
    with pytest.raises(platform.PlatformError, match=r"platform.cpus is 64.*2 cores"):
        platform.check_host_cores(profile, 2)
    platform.check_host_cores({"name": "small", "platform": {"cpus": 2}}, 2)
