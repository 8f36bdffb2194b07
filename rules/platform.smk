# Platform stage: what runs jobs on the device — the agent, and the runner that boots a
# guest (python -m mobifrag.emulator) with a job script from jobs/.

AGENT = "agent/build/mobifrag-agent"
RUN_GUEST_JOB = (
    f"{PYTHON} -m mobifrag.emulator --device {{wildcards.device}} --kernel {{input.kernel}}"
    " --agent {input.agent} --script {input.job} --out {output.out} --console {log}"
)


rule agent:
    input:
        "agent/Makefile",
        sorted(str(p) for p in Path("agent/src").glob("*.[ch]")),
    output:
        AGENT,
    log:
        "build/logs/agent.log",
    shell:
        "make -C agent > {log} 2>&1"
