# Guest jobs: the inputs, arguments and resources of a job on a device's platform
# (the base rule every guest job derives from is rules/infra/guest.smk).
import inspect


def guest_cpus(wildcards):
    """Cores a guest job holds: the emulator's vCPUs. Under TCG, guests whose vCPUs
    outnumber the host's cores run several times slower (README, Determinism)."""
    return device_profile(job_device(wildcards))["platform"]["cpus"]


def experiment_cpus(experiment):
    """The runner option giving an experiment's guests the vCPUs of config `guest_cpus`
    (the phone's cores; they share one host thread under TCG), as a params function:
    empty where the config names no count for the experiment, or on a real device; with
    its leading space, so other jobs' commands stay as they were."""

    def option(wildcards):
        cpus = config.get("guest_cpus", {}).get(experiment)
        if cpus is None or not device_runner(job_device(wildcards)).holds_host_cpu:
            return ""
        return f" --cpus {cpus}"

    return option


def guest_mem_mb(wildcards):
    """Host memory of a guest job: the guest's RAM plus QEMU's own (TCG translation
    cache, device models; a 1 GiB guest peaked at 1.2 GiB resident) and the runner."""
    return device_profile(job_device(wildcards))["platform"]["memory_mib"] + 1024


def guest_adb_jobs(wildcards):
    """1 for a job on a real device (adb), which formats the profile's one test
    partition: the run's resource `adb_jobs=1` (profiles/default, Makefile) lets one such
    job run at a time however many cores the run has; 0 for a guest."""
    return int(device_runner(job_device(wildcards)).exclusive_device)


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


# Percent of a host core a guest keeps busy: 100 unless its rule measured less. Busy
# guests share no core: sharing one costs them more CPU than taking turns. A rule whose
# guests idle more (fsync round trips, a benchmark's fixed sleeps) says what it measured
# with K guests at once on two cores, each guest's CPU being QEMU's
# (`emulator_cpu_seconds` in platform-run.json, `python -m mobifrag.report.guest_cpu`):
# docs/measurements.md, "Where a guest's time goes, and three guests on two cores".
BUSY_GUEST = 100


def guest_host_load(busy_percent=BUSY_GUEST):
    """The resource host_load of a guest job, as a resources function: busy_percent per
    vCPU under the emulator, 0 on a real device. `make` hands out 100 per host core
    (Makefile, host_load): guests of 50 run two to a core, of 66 three to two cores."""

    def load(wildcards):
        device = job_device(wildcards)
        if not device_runner(device).holds_host_cpu:
            return 0
        return device_profile(device)["platform"]["cpus"] * busy_percent

    return load


def guest_resources(busy_percent=BUSY_GUEST, runtime=guest_runtime_min):
    """A guest job's resources, for `resources: **guest_resources(...)`: the guest's
    memory, the device's one adb slot, the host load its rule measured and its runtime.
    A derived rule's resources replace the base rule's whole, so one that differs in any
    passes it here and gets the others too."""
    return {
        "mem_mb": guest_mem_mb,
        "adb_jobs": guest_adb_jobs,
        "host_load": guest_host_load(busy_percent),
        "runtime": runtime,
    }


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
