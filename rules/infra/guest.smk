# The base rule of every guest job: one job script from jobs/ run by the platform runner
# (python -m mobifrag.platform.run) on the device's platform, holding the guest's vCPUs,
# memory and timeout. Each experiment derives its jobs with
#   use rule guest_job as <experiment>_<step> with:
# giving input (unpack(guest_inputs("jobs/<job>.sh")) and its own inputs), output `out`,
# log, benchmark and params: disk_mib, runner (extra runner options, e.g. --keep-disk),
# cpus (the experiment's vCPUs, experiment_cpus("<experiment>"), config guest_cpus),
# **guest_job_args(template, **values) (the job script's arguments), and `then`
# (a shell step after the job, e.g. moving a trace out of the run); and, where its guest
# keeps less than a whole host core busy, resources: **guest_resources(busy_percent=N)
# with the percent it measured (rules/common/guest.smk).
# retries: a failed guest job runs once more on a fresh guest and disk (the runner starts
# from an empty staging folder); every derived job inherits it. On a cluster this covers
# a node lost mid-job or a guest that died under load; a job that fails twice stays failed.
rule guest_job:
    output:
        out=directory(GUEST_JOB_BASE),
    log:
        f"{GUEST_JOB_BASE}.console.log",
    benchmark:
        f"{GUEST_JOB_BASE}.tsv"
    retries: 1
    threads: guest_cpus
    resources:
        **guest_resources(),
    params:
        python=PYTHON,
        device=job_device,
        disk_mib=0,
        runner="",
        cpus="",
        job_args="",
        job_values="",  # compared between runs only (guest_job_args)
        then="",
    shell:
        "{params.python} -m mobifrag.platform.run --device {params.device}"
        " --kernel {input.kernel} --agent {input.agent} --script {input.job}"
        " --disk-mib {params.disk_mib} --out {output.out} --console {log}"
        " {params.runner}{params.cpus} -- {params.job_args} {params.then}"
