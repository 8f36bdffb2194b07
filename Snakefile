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


include: "rules/common/paths.smk"
include: "rules/common/devices.smk"
include: "rules/common/guest.smk"
include: "rules/common/runs.smk"
include: "rules/common/outputs.smk"
include: "rules/common/local.smk"
include: "rules/infra/guest.smk"
include: "rules/infra/device.smk"
include: "rules/infra/kernel.smk"
include: "rules/infra/platform.smk"
include: "rules/infra/model.smk"
include: "rules/infra/filebench.smk"
include: "rules/infra/iozone.smk"
include: "rules/experiments/concurrent_appenders.smk"
include: "rules/experiments/autoage.smk"
include: "rules/experiments/filldelete.smk"
include: "rules/experiments/capacity.smk"
include: "rules/experiments/scan.smk"
include: "rules/experiments/dispersed.smk"
include: "rules/experiments/user_latency.smk"
include: "rules/experiments/treat.smk"
include: "rules/experiments/janusd.smk"
include: "rules/experiments/ars.smk"
include: "rules/experiments/ars_selection.smk"
include: "rules/experiments/ars_eval.smk"
include: "rules/experiments/ext4tune.smk"
include: "rules/infra/flashsim.smk"
include: "rules/infra/figures.smk"
include: "rules/infra/report.smk"


rule all:
    default_target: True
    input:
        study_outputs(config["device"], config["scale"]),
        ars_selection_lists(config["device"], config["scale"]),
