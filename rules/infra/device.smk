# Device stage (docs/hikey960.md): what a real arm64 board needs — the study's
# kernel cross-built for arm64 with the board's device tree, the agent built static for
# aarch64 (SQLite linked in), a boot image, and fastboot flash/boot behind the profile's
# allow_destructive. Jobs then run through the same runner CLI (mobifrag.platform.run), which
# dispatches adb profiles to mobifrag/platform/adb_runner.py.
#
# Static SQLite for aarch64 comes from Debian multiarch, which works with the Debian
# mirror alone: `dpkg --add-architecture arm64 && apt-get update && apt-get install
# libsqlite3-dev:arm64` gives /usr/lib/aarch64-linux-gnu/libsqlite3.a; Debian's
# aarch64-linux-gnu-gcc finds sqlite3.h in /usr/include.

import json

from mobifrag.platform.adb import dry_run_requested


rule kernel_arm64:
    input:
        source=config["kernel"]["source"],
        series=config["kernel"]["series"],
        fragment="kernel-patches/configs/{target}.config",
        script="scripts/build-kernel.sh",
    output:
        image="build/kernel/{target}-{version}-{hash}/Image",
        dtb="build/kernel/{target}-{version}-{hash}/board.dtb",
        provenance="build/kernel/{target}-{version}-{hash}/provenance.json",
    log:
        "build/kernel/{target}-{version}-{hash}/build-kernel.log",
    wildcard_constraints:
        target="|".join(ARM64_BOARDS) or "no-arm64-board",
        version="[0-9.]+",
        hash="[0-9a-f]{12}",
    threads: workflow.cores
    params:
        cross=ARM64_CROSS,
        dtb=lambda w: ARM64_BOARDS[w.target],
    shell:
        "out=$(dirname {output.image}) &&"
        " KEEP_KERNEL_TREE=1 {input.script} --source {input.source} --series {input.series}"
        " --fragment {input.fragment} --base tinyconfig --arch arm64"
        " --cross-compile {params.cross} --image Image --out $out > {log} 2>&1 &&"
        " make -C $out/src ARCH=arm64 CROSS_COMPILE={params.cross} {params.dtb} >> {log} 2>&1 &&"
        " cp $out/src/arch/arm64/boot/dts/{params.dtb} {output.dtb} && rm -rf $out/src"


ruleorder: kernel_arm64 > kernel_emulator


rule agent_arm64:
    input:
        "agent/Makefile",
        sorted(str(p) for p in Path("agent/src").glob("*.[ch]")),
    output:
        AGENT_ARM64,
    log:
        "build/logs/agent-aarch64.log",
    params:
        cc=f"{ARM64_CROSS}gcc",
        sqlite=config["arm64"]["sqlite_static"],
    shell:
        "if [ ! -f {params.sqlite} ]; then echo 'static SQLite for aarch64 is missing:"
        " dpkg --add-architecture arm64 && apt-get update && apt-get install"
        " libsqlite3-dev:arm64' > {log}; exit 1; fi;"
        " make -C agent CC={params.cc} LDFLAGS=-static BUILD=build/aarch64"
        " SQLITE_LIBS='{params.sqlite} -lm' > {log} 2>&1"


rule busybox_arm64:
    # Debian's static busybox for arm64, unpacked (not installed): the shell of the
    # arm64 smoke test's initramfs (tests/emulator/test_arm64_boot.py).
    output:
        BUSYBOX_ARM64,
    log:
        "build/logs/busybox-arm64.log",
    localrule: True
    shell:
        "tmp=$(mktemp -d) && (cd $tmp && apt-get download busybox-static:arm64) > {log} 2>&1"
        " && dpkg-deb -x $tmp/busybox-static_*_arm64.deb $tmp/root"
        " && cp $tmp/root/bin/busybox {output} && rm -rf $tmp"


# While no ramdisk is named, boot images take this marker for it, whose rule fails: a
# missing ramdisk stops the job that needs it, not the planning of a run.
RAMDISK_MISSING = "build/device/{device}/ramdisk.missing"
# The --done file of a dry-run flash, where the runner writes none.
DRY_RUN_FLASH = json.dumps({"dry_run": True, "flashed": False})


rule ramdisk_missing:
    output:
        RAMDISK_MISSING,
    log:
        "build/device/{device}/ramdisk-missing.log",
    localrule: True
    shell:
        "echo 'device {wildcards.device}: the boot image needs the Android ramdisk.img of"
        " the board: set MOBIFRAG_RAMDISK or platform.boot.ramdisk (docs/hikey960.md)'"
        " | tee {log} >&2; exit 1"


rule boot_image:
    # Image.gz with the board's device tree appended, and the board's own Android
    # ramdisk, as the HiKey960's bootloader expects them.
    input:
        image=lambda w: arm64_kernel(w.device, "Image"),
        dtb=lambda w: arm64_kernel(w.device, "board.dtb"),
        ramdisk=lambda w: (
            boot_ramdisk(w)
            if os.environ.get("MOBIFRAG_RAMDISK")
            or device_profile(w.device)["platform"].get("boot", {}).get("ramdisk")
            else RAMDISK_MISSING.format(device=w.device)
        ),
    output:
        "build/device/{device}/boot.img",
    log:
        "build/device/{device}/mkbootimg.log",
    localrule: True
    params:
        args=mkbootimg_args,
    shell:
        "gzip -9n -c {input.image} | cat - {input.dtb} > {output}.kernel &&"
        " mkbootimg --kernel {output}.kernel --ramdisk {input.ramdisk} {params.args}"
        " -o {output} > {log} 2>&1 && rm {output}.kernel"


rule flash_boot_image:
    # Writes the boot partition: refused unless the profile sets allow_destructive.
    input:
        "build/device/{device}/boot.img",
    output:
        "build/device/{device}/flash.done",
    log:
        "build/device/{device}/flash.log",
    params:
        python=PYTHON,
        # A param, so a real run after a dry one flashes again.
        dry_run=lambda w: dry_run_requested(device_profile(w.device)["platform"]),
        marker=DRY_RUN_FLASH,
    shell:
        "{params.python} -m mobifrag.platform.adb_runner flash --device {wildcards.device}"
        " --image {input} --log {log} --done {output} &&"
        " if [ {params.dry_run} = True ] && [ ! -e {output} ]; then"
        " echo {params.marker:q} > {output}; fi"


rule boot_once:
    # `fastboot boot`: runs the image once without writing it (the board's flashed
    # kernel comes back on the next reboot); also behind allow_destructive.
    input:
        "build/device/{device}/boot.img",
    output:
        "build/device/{device}/boot-once.done",
    log:
        "build/device/{device}/boot-once.log",
    params:
        python=PYTHON,
        # A param, so a real run after a dry one flashes again.
        dry_run=lambda w: dry_run_requested(device_profile(w.device)["platform"]),
        marker=DRY_RUN_FLASH,
    shell:
        "{params.python} -m mobifrag.platform.adb_runner flash --boot-only --device {wildcards.device}"
        " --image {input} --log {log} --done {output} &&"
        " if [ {params.dry_run} = True ] && [ ! -e {output} ]; then"
        " echo {params.marker:q} > {output}; fi"
