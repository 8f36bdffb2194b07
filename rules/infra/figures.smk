# Figures stage: one R script per figure (paper-figures/<stem>.R, registered in
# paper-figures/registry.yaml), drawn from result tables; PDF and PNG under
# paper-figures/<device>/<scale>/.


rule figure:
    input:
        script="paper-figures/{stem}.R",
        theme="paper-figures/theme.R",
        tables=figure_tables,
    output:
        pdf=figures("{stem}.pdf"),
        png=report(
            figures("{stem}.png"),
            caption="../report/figure.rst",
            category="Figures",
        ),
    log:
        results("logs/figure-{stem}.log"),
    wildcard_constraints:
        stem="|".join(FIGURE_REGISTRY),
    params:
        caption=lambda w: FIGURE_REGISTRY[w.stem]["caption"],
    shell:
        "Rscript {input.script} {output.pdf} {output.png} {input.tables} > {log} 2>&1"
