# Kernel stage: Debian's linux-source tarball + kernel-patches/<version>/series + a config
# fragment → a kernel image, cached under build/kernel/<target>-<version>-<hash>/ (the
# hash covers source, series, patches, fragment and build script; see mobifrag/platform/kernel.py).


rule kernel_emulator:
    input:
        source=config["kernel"]["source"],
        series=config["kernel"]["series"],
        fragment="kernel-patches/configs/{target}.config",
        script="scripts/build-kernel.sh",
    output:
        image="build/kernel/{target}-{version}-{hash}/bzImage",
        provenance="build/kernel/{target}-{version}-{hash}/provenance.json",
    log:
        "build/kernel/{target}-{version}-{hash}/build-kernel.log",
    wildcard_constraints:
        version="[0-9.]+",
        hash="[0-9a-f]{12}",
    threads: workflow.cores
    shell:
        "{input.script} --source {input.source} --series {input.series}"
        " --fragment {input.fragment} --base tinyconfig --arch x86_64 --image bzImage"
        " --out $(dirname {output.image}) > {log} 2>&1"
