# Figures stage: one R script per figure (paper-figures/<stem>.R), drawn from result
# tables; outputs under paper-figures/<device>/<scale>/<stem>.pdf and .png.


def study_figures(device, scale):
    folder = FIGURES.format(device=device, scale=scale)
    return [
        f"{folder}/{stem}.{ext}" for stem in FIGURE_INPUTS for ext in ("pdf", "png")
    ]


# Figure stem → the result tables it is drawn from (relative to results/<device>/<scale>).
FIGURE_INPUTS = {
    "tmc-fig06-layout": [
        "concurrent-appenders/layout.csv",
        "concurrent-appenders/dof.csv",
    ],
}


rule figure:
    input:
        script="paper-figures/{stem}.R",
        theme="paper-figures/theme.R",
        tables=lambda w: [
            f"{RESULTS}/{t}".format(device=w.device, scale=w.scale)
            for t in FIGURE_INPUTS[w.stem]
        ],
    output:
        pdf=FIGURES + "/{stem}.pdf",
        png=FIGURES + "/{stem}.png",
    log:
        RESULTS + "/logs/figure-{stem}.log",
    wildcard_constraints:
        stem="|".join(FIGURE_INPUTS),
    shell:
        "Rscript {input.script} {output.pdf} {output.png} {input.tables} > {log} 2>&1"
