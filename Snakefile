# mobifrag: `snakemake all` reproduces the study on the configured device profile.
# Data flows one way: workloads (results/workloads/<scale>) → platform runs
# (results/platform/<key>/<scale>) → device model and tables (results/<device>/<scale>)
# → figures → claims and report; mobifrag/workflow/stages.py defines the layout, docs/methods.md
# describes each stage.
import sys

from snakemake.utils import min_version, validate

min_version("9.0")

sys.path.insert(0, workflow.basedir)


configfile: "config/config.yaml"


validate(config, "config/schema.yaml")


include: "rules/common.smk"
include: "rules/kernel.smk"
include: "rules/ftl.smk"
include: "rules/platform.smk"
include: "rules/age.smk"
include: "rules/treat.smk"
include: "rules/janusd.smk"
include: "rules/measure.smk"
include: "rules/figures.smk"
include: "rules/report.smk"
include: "rules/device.smk"
include: "rules/ars_selection.smk"
include: "rules/user_latency.smk"
include: "rules/ext4tune.smk"
include: "rules/ars.smk"
include: "rules/ars_eval.smk"
include: "rules/flashsim.smk"


rule all:
    default_target: True
    input:
        study_outputs(config["device"], config["scale"]),
        ars_selection_lists(config["device"], config["scale"]),
