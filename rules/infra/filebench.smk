# filebench, the tool the Ext4-tuning study runs FFSB's workloads with
# (benchmarks/filebench/, jobs/ext4tune-bench.sh): Debian has no package, so it is built
# from its pinned upstream source (benchmarks/filebench: fetch.sh takes upstream's commit
# where the network reaches it, else ../shared/vendor/, and verifies the sha256 either
# way; the Makefile runs upstream's autotools build). The guest sees the host's root
# and runs this x86_64 binary as built.
#
#   build/filebench/bin/filebench      (log: build/filebench/build.log)

FILEBENCH = "build/filebench/bin/filebench"


rule filebench_build:
    input:
        "benchmarks/filebench/Makefile",
        "benchmarks/filebench/upstream.env",
        "benchmarks/filebench/fetch.sh",
        "scripts/fetch-pinned.sh",
    output:
        FILEBENCH,
    log:
        "build/filebench/build.log",
    threads: 2
    shell:
        "make -C benchmarks/filebench -j{threads} > {log} 2>&1"
