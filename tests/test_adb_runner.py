"""The adb platform runner's contract, against fake `adb`/`fastboot` programs on PATH.

No real device is ever used: the fakes keep a 'device' as a folder, log every call, and
can be told to lose the device, fill it up, or fail the job. A wrapper test runs the
device-side run.sh with the host's sh in a temporary folder.
"""

import copy
import json
import os
import shlex
import subprocess
import sys

import pytest
import yaml

from conftest import REPO
from mobifrag import adb_runner, platform
from mobifrag.profiles import DEVICES, ProfileError, load_device, load_profile_file

SERIAL = "FAKE0123"
WORKDIR = "/data/local/tmp/mobifrag"
JOB = REPO / "jobs" / "concurrent-appenders.sh"
JOB_ARGS = ("ext4", "-b 4096", "1", "4096", "65536")

FAKE_ADB = r'''#!PYTHON
"""Fake adb/fastboot: a folder is the device; FAKE_* variables choose what goes wrong."""
import json, os, shutil, sys
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
    if "readlink -f" in command:
        print("disk=/dev/block/sdz9 sectors=" + env.get("FAKE_ADB_SECTORS", "2097152"))
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
    monkeypatch.delenv(adb_runner.DRY_RUN_ENV, raising=False)
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
    plan = adb_runner.plan_job(board_profile()["platform"], JOB, JOB_ARGS)
    preflight = adb_runner.preflight_script(plan, "/dev/block/by-name/userdata-test", False)
    return [
        adb("get-state"),
        adb("root"),
        adb("wait-for-device"),
        adb("shell", preflight),
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
    assert record["blktrace"].startswith("blktrace: not present")
    assert not (tmp_path / "results/run.partial").exists()


def test_the_wrapper_carries_the_job_contract(tmp_path, fake_device):
    run(tmp_path)
    wrapper = (tmp_path / "logs/c.run.sh").read_text()
    for line in (
        f"export MOBIFRAG_ROOT={WORKDIR}",
        "export MOBIFRAG_DISK=/dev/block/sdz9",
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
    with pytest.raises(adb_runner.DeviceError, match="outside the working directory"):
        run(tmp_path, spec=job_spec(tmp_path, args=("ext4", "", "/etc", "7")))
    assert fake_device() == []


def test_wrong_serial_names_the_serial_and_what_is_connected(tmp_path, fake_device, monkeypatch):
    monkeypatch.setenv("FAKE_ADB_SERIALS", "OTHER999")
    with pytest.raises(adb_runner.DeviceError) as error:
        run(tmp_path)
    message = str(error.value)
    assert f"serial {SERIAL}" in message and "platform.serial" in message
    assert "connected: OTHER999" in message
    assert not (tmp_path / "results/run").exists()


def test_device_disappearing_while_pulling_keeps_what_was_pulled(
    tmp_path, fake_device, monkeypatch
):
    monkeypatch.setenv("FAKE_ADB_VANISH", "pull")
    with pytest.raises(adb_runner.DeviceGone) as error:
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
    with pytest.raises(adb_runner.DeviceGone, match="disappeared during the job.*nothing"):
        run(tmp_path)
    assert fake_device()[-1][3:] == ["shell", f"sh {WORKDIR}/run/run.sh"]
    assert not (tmp_path / "results/run").exists()


def test_full_device_is_named_when_a_push_fails(tmp_path, fake_device, monkeypatch):
    traces = tmp_path / "traces"
    traces.mkdir()
    monkeypatch.setenv("FAKE_ADB_FULL", "/inputs/")
    with pytest.raises(adb_runner.DeviceFull) as error:
        run(tmp_path, spec=job_spec(tmp_path, args=("ext4", "", str(traces), "7")))
    assert f"device {SERIAL} is full" in str(error.value)
    assert "No space left on device" in str(error.value)
    assert not (tmp_path / "results/run").exists()


def test_failed_job_keeps_its_outputs_and_shows_its_log(tmp_path, fake_device, monkeypatch):
    monkeypatch.setenv("FAKE_ADB_STATUS", "3")
    with pytest.raises(adb_runner.DeviceError, match="exited with status 3") as error:
        run(tmp_path)
    assert "job: ran on the fake device" in str(error.value)
    assert (tmp_path / "results/run.partial/job.log").is_file()
    assert not (tmp_path / "results/run").exists()


def test_a_partition_smaller_than_the_job_needs_is_refused(tmp_path, fake_device, monkeypatch):
    monkeypatch.setenv("FAKE_ADB_SECTORS", "2048")
    with pytest.raises(adb_runner.DeviceError, match="holds 1 MiB; the job needs 256 MiB"):
        run(tmp_path)


def test_nothing_runs_without_allow_destructive(tmp_path, fake_device):
    profile = board_profile(allow_destructive=False)
    with pytest.raises(adb_runner.DeviceError, match="allow_destructive is false"):
        run(tmp_path, profile=profile)
    assert fake_device() == []


def test_system_partitions_are_refused(tmp_path, fake_device):
    profile = board_profile(test_partition="/dev/block/by-name/userdata")
    with pytest.raises(adb_runner.DeviceError, match="is a system partition"):
        run(tmp_path, profile=profile)


def test_a_host_agent_is_refused(tmp_path, fake_device):
    host_agent = tmp_path / "host-agent"
    host_agent.write_bytes(b"\x7fELF" + bytes(14) + (62).to_bytes(2, "little") + bytes(40))
    with pytest.raises(adb_runner.DeviceError, match="not an aarch64 executable"):
        run(tmp_path, spec=job_spec(tmp_path, agent=host_agent))


def test_dry_run_prints_the_sequence_and_runs_nothing(tmp_path, fake_device, monkeypatch, capsys):
    monkeypatch.setenv(adb_runner.DRY_RUN_ENV, "1")
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
    monkeypatch.delenv(adb_runner.DRY_RUN_ENV, raising=False)
    status = platform.main(
        ["--device", "hikey960", "--kernel", "x", "--script", str(JOB), "--out",
         str(tmp_path / "o"), "--console", str(tmp_path / "c.log"), "--", *JOB_ARGS]
    )  # fmt: skip
    assert status == 1
    assert "allow_destructive is false" in capsys.readouterr().err


# --- flashing ---------------------------------------------------------------------------


def test_flash_dry_run_prints_adb_and_fastboot_in_order(tmp_path, fake_device, monkeypatch):
    monkeypatch.setenv(adb_runner.DRY_RUN_ENV, "1")
    image = tmp_path / "boot.img"
    done = tmp_path / "flash.done"
    message = adb_runner.flash("hikey960", image, tmp_path / "flash.log", done)
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
    with pytest.raises(adb_runner.DeviceError, match="allow_destructive is false"):
        adb_runner.flash("hikey960", tmp_path / "boot.img", tmp_path / "flash.log")
    assert fake_device() == []


def test_boot_once_runs_fastboot_boot_and_records_it(tmp_path, fake_device, monkeypatch):
    monkeypatch.setattr(adb_runner, "load_device", lambda name: board_profile())
    image = tmp_path / "boot.img"
    image.write_bytes(b"ANDROID!")
    done = tmp_path / "boot-once.done"
    adb_runner.flash("hikey960", image, tmp_path / "boot.log", done, boot_only=True)
    assert fake_device() == [
        adb("reboot", "bootloader"),
        ["fastboot", "-s", SERIAL, "boot", str(image)],
        adb("wait-for-device"),
    ]
    assert json.loads(done.read_text())["image"] == str(image)


# --- the device-side wrapper, run by the host's sh ------------------------------------------


def test_wrapper_runs_the_job_and_says_blktrace_is_missing(tmp_path):
    work = tmp_path / "w"
    (work / "jobs").mkdir(parents=True)
    (work / "jobs" / "lib.sh").write_text((REPO / "jobs" / "lib.sh").read_text())
    (work / "jobs" / "probe.sh").write_text(
        '. "$MOBIFRAG_ROOT/jobs/lib.sh"\n'
        'echo "$1 $MOBIFRAG_DISK $TMPDIR $(pwd)" > seen.txt\n'
        'e2freefrag "$MOBIFRAG_DISK" > free.txt\n'
        "exit 0\n"
    )
    for sub in ("run/out", "run/tmp", "bin"):
        (work / sub).mkdir(parents=True)
    (work / "bin" / "mobifrag-agent").write_text("")
    plan = adb_runner.DevicePlan(str(work), str(work / "jobs/probe.sh"), ("hello",), ())
    (work / "run" / "run.sh").write_text(adb_runner.wrapper_script(plan, "/dev/fake0", ()))
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
