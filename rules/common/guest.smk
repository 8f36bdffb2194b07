# Guest jobs: the inputs, arguments and resources of a job on a device's platform
# (the base rule every guest job derives from is rules/infra/guest.smk).
import inspect


def guest_cpus(wildcards):
    """Cores a guest job holds: the emulator's vCPUs. Under TCG, guests whose vCPUs
    outnumber the host's cores run several times slower (README, Determinism)."""
    return device_profile(job_device(wildcards))["platform"]["cpus"]


def guest_mem_mb(wildcards):
    """Host memory of a guest job: the guest's RAM plus QEMU's own (TCG translation
    cache, device models; a 1 GiB guest peaked at 1.2 GiB resident) and the runner."""
    return device_profile(job_device(wildcards))["platform"]["memory_mib"] + 1024


def guest_adb_jobs(wildcards):
    """1 for a job on a real device (adb), which formats the profile's one test
    partition: the run's resource `adb_jobs=1` (profiles/default, Makefile) lets one such
    job run at a time however many cores the run has; 0 for a guest."""
    return int(device_profile(job_device(wildcards))["platform"]["type"] == "adb")


# Job scripts whose guest sleeps most of the time under TCG (fsync round trips of a few
# small appends): a quick concurrent-appenders run used 7 CPU-s in 34 s, a treatment
# appender run 21 % of its core. Every other guest keeps its core busy, and two on one
# core cost more CPU than one after the other: a quick Ext4 tuning run took 49 CPU-s
# (102 s) two at once, 102 CPU-s (264 s) four at once on two cores; an ARS fragbench
# run 1.9 and 2.9 CPU-min (docs/measurements.md).
HALF_BUSY_JOBS = {
    "jobs/concurrent-appenders.sh",
    "jobs/treat-appenders.sh",
}


def guest_host_load(wildcards, input):
    """Percent of a host core a guest job keeps busy: 100 per vCPU under the emulator, 50
    for the sleeping ones, 0 on a real device. `make` hands out 100 per host core
    (Makefile, host_load): busy guests share no core; sleeping ones run two to a core.
    """
    platform = device_profile(job_device(wildcards))["platform"]
    if platform["type"] == "adb":
        return 0
    share = 50 if input.job in HALF_BUSY_JOBS else 100
    return platform["cpus"] * share


# The longest chains of guest jobs start first: fill/delete's fill (one guest, 30 min at
# the quick scale) and then its eight level runs, AutoAge's 30 days, janusd's recurring
# weeks. Left to Snakemake's order, the quick study from a fresh clone started
# the fill 54 min in (docs/measurements.md).
LONG_CHAIN = 10


def runtime_min(timeout_s):
    """Minutes a guest job may take: its timeout, after which the runner kills the guest
    and fails the rule with its console log, plus room to do so."""
    return timeout_s // 60 + 10


def guest_runtime_min(wildcards):
    return runtime_min(
        device_profile(job_device(wildcards))["platform"]["job_timeout_s"]
    )


def guest_inputs(job):
    """The inputs every guest job reads: the device's kernel and agent, and the job
    script; for `input: unpack(guest_inputs("jobs/<job>.sh"))`."""
    return lambda wildcards: {
        "kernel": device_kernel(job_device(wildcards)),
        "agent": device_agent(job_device(wildcards)),
        "job": job,
    }


def takes_input(v):
    return callable(v) and len(inspect.signature(v).parameters) == 2


def guest_args(template, **values):
    """A guest job's arguments (or runner options) as a params function: the template
    filled in with the job's wildcards, input, output and the named values, each a constant or a
    function of the wildcards (and of the input, if it takes two arguments). {input.x}
    stays a relative path, so params do not change with the checkout's location."""

    def value(v, wildcards, input):
        if not callable(v):
            return v
        return v(wildcards, input) if takes_input(v) else v(wildcards)

    def fill(wildcards, input, output):
        named = {k: value(v, wildcards, input) for k, v in values.items()}
        return template.format(wildcards=wildcards, input=input, output=output, **named)

    return fill


def guest_job_args(template, **values):
    """The params of a guest job's arguments, for `params: **guest_job_args(...)`:
    job_args as guest_args fills them, and job_values, the named values that are not
    drawn from the input (a seed, a size, mkfs options). Snakemake compares only params
    whose function does not read the input or output, so without job_values a changed
    seed or size would leave the job's results standing; a changed input reruns it
    anyway."""

    def tracked(wildcards):
        named = {k: v for k, v in values.items() if not takes_input(v)}
        return " ".join(
            f"{k}={v(wildcards) if callable(v) else v}"
            for k, v in sorted(named.items())
        )

    return {"job_args": guest_args(template, **values), "job_values": tracked}
