# Platform stage: what runs jobs on the device — the agent here; the runner that boots a
# guest or drives a device (python -m mobifrag.platform.run) is called by each experiment
# rule with a job script from jobs/.


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
