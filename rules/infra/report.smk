# Report stage: the papers' claims checked against the run, and the run's provenance.
# `snakemake --report report.html` collects them with every figure.


rule claims:
    input:
        claims="config/claims.yaml",
        schema="config/claims.schema.yaml",
        tables=claim_tables,
    output:
        markdown=report(results("claims.md"), category="Claims"),
        csv=results("claims.csv"),
    log:
        results("logs/claims.log"),
    params:
        python=PYTHON,
        platform=lambda w: device_profile(w.device)["platform"]["type"],
    shell:
        "{params.python} -m mobifrag.report.claims --claims {input.claims}"
        " --results $(dirname {output.markdown}) --platform {params.platform}"
        " --markdown {output.markdown} --csv {output.csv} 2> {log}"


# A check: the claims of config/claims.yaml `checks.<check>`, which must all be
# reproduced; the rule fails naming each that is not (`make check CHECK=<check>`).
rule check:
    input:
        claims="config/claims.yaml",
        schema="config/claims.schema.yaml",
        tables=check_tables,
    output:
        markdown=results("checks/{check}.md"),
        csv=results("checks/{check}.csv"),
    log:
        results("logs/check-{check}.log"),
    wildcard_constraints:
        check="|".join(CHECKS),
    params:
        python=PYTHON,
        run=lambda w: RESULTS.format(device=w.device, scale=w.scale),
        platform=lambda w: device_profile(w.device)["platform"]["type"],
    shell:
        "{params.python} -m mobifrag.report.claims --claims {input.claims} --check {wildcards.check}"
        " --results {params.run} --platform {params.platform} --markdown {output.markdown} --csv {output.csv}"
        " 2> {log} || {{ cat {log} >&2; exit 1; }}"


rule provenance:
    input:
        # The build record of the kernel the device's jobs run (device_kernel); a phone
        # keeping its own kernel has none, and the shell writes one saying so.
        kernel=lambda w: (
            []
            if device_kernel(w.device) == f"devices/{w.device}.yaml"
            else str(Path(kernel_image(w.device)).parent / "provenance.json")
        ),
        profile="devices/{device}.yaml",
    output:
        report(results("provenance.json"), category="Provenance"),
    log:
        results("logs/provenance.log"),
    params:
        python=PYTHON,
        config=lambda w: json.dumps({**config, "device": w.device, "scale": w.scale}),
        own_kernel=lambda w: json.dumps(
            {
                "built": False,
                "note": "the device keeps its own kernel (platform.flash_kernel: false)",
                "profile": f"devices/{w.device}.yaml",
            }
        ),
    shell:
        "echo {params.config:q} > {output}.config.json && kernel='{input.kernel}' &&"
        ' if [ -z "$kernel" ]; then kernel={output}.kernel.json;'
        " echo {params.own_kernel:q} > $kernel; fi &&"
        " {params.python} -m mobifrag.report.provenance --device {wildcards.device}"
        " --kernel-provenance $kernel --config-json {output}.config.json"
        " --out {output} 2> {log}; status=$?;"
        " rm -f {output}.config.json {output}.kernel.json; exit $status"
