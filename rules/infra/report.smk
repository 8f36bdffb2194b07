# Report stage: the papers' claims checked against the run, and the run's provenance;
# results/<device>/<scale>/report.html (rule report_html) gathers them with the claims
# chart and every figure into one self-contained page.


rule claims:
    input:
        claims="config/claims.yaml",
        experiment_claims=EXPERIMENT_CLAIMS,
        schema="config/claims.schema.yaml",
        tables=claim_tables,
        code=python_sources("mobifrag.report.claims"),
    output:
        markdown=report(results("claims.md"), category="Claims"),
        csv=results("claims.csv"),
    log:
        results("logs/claims.log"),
    localrule: True
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
        experiment_claims=EXPERIMENT_CLAIMS,
        schema="config/claims.schema.yaml",
        tables=check_tables,
        code=python_sources("mobifrag.report.claims"),
    output:
        markdown=results("checks/{check}.md"),
        csv=results("checks/{check}.csv"),
    log:
        results("logs/check-{check}.log"),
    wildcard_constraints:
        check="|".join(CHECKS),
    localrule: True
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
        profile=device_profile_files,
        code=python_sources("mobifrag.report.provenance"),
    output:
        report(results("provenance.json"), category="Provenance"),
    log:
        results("logs/provenance.log"),
    localrule: True
    params:
        python=PYTHON,
        # keys sorted: the record does not change with the file a key is kept in
        config=lambda w: json.dumps(
            {**config, "device": w.device, "scale": w.scale}, sort_keys=True
        ),
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


# The claims chart of the report, one per paper: every claim of the paper a row, its
# band and its measured interval, coloured by verdict, the axis at top and bottom. Not a
# paper figure (not in paper-figures/registry.yaml): it is drawn from claims.csv, with
# the shared theme and its provenance line. The papers by claim-id prefix.
from mobifrag.workflow.claim_tables import PAPERS as CHART_PAPERS


rule claims_chart:
    input:
        script="paper-figures/claims-chart.R",
        theme="paper-figures/theme.R",
        provenance=results("provenance.json"),
        claims=results("claims.csv"),
        code=python_sources("mobifrag.report.provenance"),
    output:
        pdf=results("claims-chart-{paper}.pdf"),
        png=results("claims-chart-{paper}.png"),
    log:
        results("logs/claims-chart-{paper}.log"),
    benchmark:
        results("benchmarks/claims_chart-{paper}.tsv")
    wildcard_constraints:
        paper="|".join(CHART_PAPERS),
    localrule: True
    params:
        python=PYTHON,
    shell:
        "stamp=$({params.python} -m mobifrag.report.provenance"
        " --figure-stamp {input.provenance} 2> {log}) &&"
        ' MOBIFRAG_FIGURE_STAMP="$stamp" Rscript {input.script} {output.pdf} {output.png}'
        " {input.claims} {wildcards.paper} >> {log} 2>&1"


# The report a reviewer opens first: one self-contained HTML page per device and scale
# (mobifrag/report/html.py) with the claims summary, the misses and their reasons, the
# comparison with the reference run (docs/reference/, where one is committed), the claims
# charts, every claim linked to its figure and tables, every figure with its caption and
# claims, the tables, and the provenance.
rule report_html:
    input:
        claims=results("claims.csv"),
        claims_file="config/claims.yaml",
        experiment_claims=EXPERIMENT_CLAIMS,
        provenance=results("provenance.json"),
        charts=expand(
            results("claims-chart-{paper}.png"), paper=CHART_PAPERS, allow_missing=True
        ),
        reference=reference_verdicts,
        registry="paper-figures/registry.yaml",
        experiment_figures=EXPERIMENT_FIGURES,
        figures=lambda w: [
            path for path in study_figures(w.device, w.scale) if path.endswith(".png")
        ],
        code=python_sources("mobifrag.report.html"),
        templates=report_templates(),
    output:
        results("report.html"),
    log:
        results("logs/report-html.log"),
    benchmark:
        results("benchmarks/report_html.tsv")
    localrule: True
    params:
        python=PYTHON,
        charts=lambda w, input: " ".join(f"--chart {path}" for path in input.charts),
        reference=lambda w, input: " ".join(f"--reference {p}" for p in input.reference),
        figures=lambda w: FIGURES.format(device=w.device, scale=w.scale),
        benchmarks=lambda w: [
            f"{RESULTS.format(device=w.device, scale=w.scale)}/benchmarks",
            f"{PLATFORM_RUNS.format(platform=platform_key(w.device), scale=w.scale)}/benchmarks",
        ],
    shell:
        "{params.python} -m mobifrag.report.html --claims-csv {input.claims}"
        " --claims {input.claims_file} --provenance {input.provenance}"
        " {params.charts} {params.reference}"
        " --registry {input.registry} --figures {params.figures}"
        " --benchmarks {params.benchmarks[0]} --benchmarks {params.benchmarks[1]}"
        " --out {output} 2> {log}"
