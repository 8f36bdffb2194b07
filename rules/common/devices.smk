# Devices: which kernel and agent a device's jobs use, the arm64 boards, the boot
# image's arguments (rules/infra/device.smk builds and flashes).
from mobifrag.platform.adb import dry_run_requested
from mobifrag.platform.kernel import KernelInputError, kernel_dir
from mobifrag.workflow.profiles import local_path, placeholder_problem


def kernel_image(device):
    """The kernel image the device's platform boots, built by rules/infra/kernel.smk
    (emulators) or rules/infra/device.smk (arm64 boards)."""
    target = device_profile(device)["platform"]["kernel"]
    try:
        folder = kernel_dir(
            Path(config["kernel"]["source"]), Path(config["kernel"]["series"]), target
        )
    except KernelInputError as error:
        raise WorkflowError(str(error)) from None
    return str(folder.relative_to(workflow.basedir) / "bzImage")


ARM64_CROSS = "aarch64-linux-gnu-"
AGENT_ARM64 = "agent/build/aarch64/mobifrag-agent"
BUSYBOX_ARM64 = "build/device/busybox-arm64/busybox"


def arm64_boards():
    """Kernel target → the board's device tree, from every arm64 profile naming both. A
    profile that does not load is passed over here, so a broken stray file in devices/
    stops only runs on that device (where it fails, naming its field)."""
    boards = {}
    for name in shipped_devices():
        try:
            platform = device_profile(name)["platform"]
        except WorkflowError:
            continue
        if platform["arch"] == "arm64" and "kernel" in platform and "dtb" in platform:
            boards[platform["kernel"]] = platform["dtb"]
    return boards


ARM64_BOARDS = arm64_boards()


def arm64_kernel(device, name):
    """A file (Image, board.dtb) of the arm64 kernel build the device's profile names."""
    target = device_profile(device)["platform"]["kernel"]
    try:
        folder = kernel_dir(
            Path(config["kernel"]["source"]), Path(config["kernel"]["series"]), target
        )
    except KernelInputError as error:
        raise WorkflowError(str(error)) from None
    return str(folder.relative_to(workflow.basedir) / name)


def device_agent(device):
    """The agent binary a device's jobs run: the host's for qemu, aarch64 on arm64."""
    arch = device_profile(device)["platform"]["arch"]
    return AGENT_ARM64 if arch == "arm64" else AGENT


def device_kernel(device):
    """What a job on the device waits for: the emulator's kernel image, the stamp of
    the flashed kernel on a board, or (a phone keeping its kernel) its profile."""
    if device_runner(device).boots_built_kernel:
        return kernel_image(device)
    if device_profile(device)["platform"]["flash_kernel"]:
        return f"build/device/{device}/flash.done"
    return f"devices/{device}.yaml"


def boot_ramdisk(wildcards):
    """The board's Android ramdisk: MOBIFRAG_RAMDISK, else platform.boot.ramdisk."""
    boot = device_profile(wildcards.device)["platform"].get("boot", {})
    ramdisk = os.environ.get("MOBIFRAG_RAMDISK") or boot.get("ramdisk")
    if not ramdisk:
        raise WorkflowError(
            f"device {wildcards.device}: the boot image needs the board's Android "
            "ramdisk.img: set MOBIFRAG_RAMDISK or platform.boot.ramdisk (docs/hikey960.md)"
        )
    return ramdisk


def mkbootimg_args(wildcards):
    boot = device_profile(wildcards.device)["platform"]["boot"]
    args = ["--cmdline", boot["cmdline"]]
    for key in ("base", "kernel_offset", "ramdisk_offset", "tags_offset"):
        args += [f"--{key}", boot[key]]
    return " ".join(shlex.quote(arg) for arg in args)


def device_profile_files(wildcards):
    """The tracked profile and, where there is one, its local device file."""
    local = local_path(wildcards.device)
    return [
        f"devices/{wildcards.device}.yaml",
        *([str(local)] if local.is_file() else []),
    ]


def check_run_device(name):
    """The run's device is ready to be planned: an adb profile whose serial is still
    the shipped placeholder fails here, naming the local device file to put the real one
    in (mobifrag/workflow/profiles.py, which finds placeholders in adb profiles only),
    unless the run only prints its adb commands."""
    profile = device_profile(name)
    if not dry_run_requested(profile["platform"]):
        problem = placeholder_problem(name, profile)
        if problem:
            raise WorkflowError(problem)


check_run_device(config["device"])
