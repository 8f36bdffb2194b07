# Figures stage: one R script per figure (paper-figures/<stem>.R, registered in
# paper-figures/registry.yaml), drawn from result tables; PDF and PNG under
# paper-figures/<device>/<scale>/. Each carries the run's provenance (commit, device,
# scale, seed, run date) as its last caption line and in its PDF's Title, read from
# provenance.json, an input, so a figure drawn again carries the current record.


rule figure:
    input:
        script="paper-figures/{stem}.R",
        theme="paper-figures/theme.R",
        provenance=results("provenance.json"),
        tables=figure_tables,
        code=python_sources("mobifrag.report.provenance"),
    output:
        pdf=figures("{stem}.pdf"),
        png=report(
            figures("{stem}.png"),
            caption="../../report/figure.rst",
            category="Figures",
        ),
    log:
        results("logs/figure-{stem}.log"),
    wildcard_constraints:
        stem="|".join(FIGURE_REGISTRY),
    params:
        python=PYTHON,
        caption=lambda w: FIGURE_REGISTRY[w.stem]["caption"],
        wall=lambda w: wall_series(w.device),
    shell:
        "stamp=$({params.python} -m mobifrag.report.provenance"
        " --figure-stamp {input.provenance} 2> {log}) &&"
        ' MOBIFRAG_FIGURE_STAMP="$stamp" MOBIFRAG_WALL_SERIES="{params.wall}"'
        " Rscript {input.script} {output.pdf} {output.png}"
        " {input.tables} >> {log} 2>&1"
