# IOzone, the benchmark the Ext4-tuning study runs for its sequential and random tests
# (jobs/ext4tune-bench.sh): Debian's iozone3 at the version benchmarks/iozone/upstream.env
# pins, fetched by benchmarks/iozone/fetch.sh with an apt configuration of its own (Debian
# keeps IOzone in non-free: it has its own licence, so it is downloaded for local use under
# build/ and never enters the repository), its SHA-256 checked, its binary unpacked. The
# guest sees the host's root and runs this x86_64 binary as Debian built it.
#
#   build/iozone/bin/iozone      (log: build/iozone/fetch.log)

IOZONE = "build/iozone/bin/iozone"


rule iozone_fetch:
    input:
        "benchmarks/iozone/upstream.env",
        "benchmarks/iozone/fetch.sh",
    output:
        IOZONE,
    log:
        "build/iozone/fetch.log",
    localrule: True
    shell:
        "benchmarks/iozone/fetch.sh build/iozone > {log} 2>&1"
