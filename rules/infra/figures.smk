# Figures stage: one R script per figure (paper-figures/<stem>.R, registered in
# paper-figures/registry.yaml), drawn from result tables; PDF and PNG under
# paper-figures/<device>/<scale>/. Below a figure that shows claims, a panel sets the
# paper's value and band of each beside this run's (rule figure writes the table from
# config/claims.yaml and the claims' tables). Each figure carries the run's stamp
# (commit, device, scale, seed, date) as its last caption line and in its PDF's Title,
# read from figure-stamp.json, an input, so a figure drawn again carries the current record.
# A script that leaves an empty PDF or PNG fails its job, naming the file.


# The stamp of the run's figures. Not provenance.json, which records the kernel the guests
# ran: a figure depends on the provenance only of what it draws, and one drawn from the
# device model alone (janusd Fig. 7) must not wait for a kernel build.
rule figure_stamp:
    input:
        code=python_sources("mobifrag.report.provenance"),
    output:
        results("figure-stamp.json"),
    log:
        results("logs/figure-stamp.log"),
    localrule: True
    params:
        python=PYTHON,
        config=lambda w: json.dumps(
            {"device": w.device, "scale": w.scale, "seed": config["seed"]}
        ),
    shell:
        "echo {params.config:q} > {output}.config.json &&"
        " {params.python} -m mobifrag.report.provenance --stamp-record {output}.config.json"
        " --out {output} 2> {log}; status=$?; rm -f {output}.config.json; exit $status"


rule figure:
    input:
        script="paper-figures/{stem}.R",
        theme="paper-figures/theme.R",
        stamp=results("figure-stamp.json"),
        claims="config/claims.yaml",
        experiment_claims=EXPERIMENT_CLAIMS,
        tables=figure_tables,
        claim_tables=figure_claim_tables,
        code=python_sources("mobifrag.report.provenance")
        + python_sources("mobifrag.report.figure_reference"),
    output:
        pdf=figures("{stem}.pdf"),
        png=report(
            figures("{stem}.png"),
            caption="../../report/figure.rst",
            category="Figures",
        ),
        reference=results("figures/{stem}-paper.csv"),
    log:
        results("logs/figure-{stem}.log"),
    wildcard_constraints:
        stem="|".join(FIGURE_REGISTRY),
    localrule: True
    params:
        python=PYTHON,
        caption=lambda w: FIGURE_REGISTRY[w.stem]["caption"],
        wall=lambda w: wall_series(w.device),
        run=lambda w: RESULTS.format(device=w.device, scale=w.scale),
        platform=lambda w: device_profile(w.device)["platform"]["type"],
    shell:
        "{params.python} -m mobifrag.report.figure_reference --figure {wildcards.stem}"
        " --claims {input.claims} --results {params.run} --platform {params.platform}"
        " --out {output.reference} 2> {log} &&"
        " stamp=$({params.python} -m mobifrag.report.provenance"
        " --figure-stamp {input.stamp} 2>> {log}) &&"
        ' MOBIFRAG_FIGURE_STAMP="$stamp" MOBIFRAG_FIGURE_REFERENCE={output.reference}'
        ' MOBIFRAG_WALL_SERIES="{params.wall}"'
        " Rscript {input.script} {output.pdf} {output.png}"
        " {input.tables} >> {log} 2>&1 &&"
        ' for drawn in {output.pdf:q} {output.png:q}; do [ -s "$drawn" ] || {{'
        ' echo "figure {wildcards.stem}: $drawn is empty: its script drew nothing" >> {log};'
        " exit 1; }}; done"
