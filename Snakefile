# mobifrag: `snakemake all` reproduces the study on the configured device profile.
# Data flows one way: workloads (results/workloads/<scale>) → platform runs
# (results/platform/<key>/<scale>) → device model and tables (results/<device>/<scale>)
# → figures → claims and report; mobifrag/workflow/stages.py defines the layout, docs/methods.md
# describes each stage.
import sys
from pathlib import Path

from snakemake.utils import min_version

min_version("9.0")

sys.path.insert(0, workflow.basedir)

from mobifrag.workflow.study_config import ConfigError, load_config


configfile: "config/config.yaml"


# The experiments' own config files (config/experiments/) join config.yaml and the
# whole is checked against the schema and theirs, the command line's --config and
# --configfile values on top: mobifrag/workflow/study_config.py, which every other
# reader of the config uses too.
try:
    config.update(
        load_config(
            Path(workflow.basedir, "config/config.yaml"),
            overrides=workflow.config_settings.overwrite_config,
            schema_file=Path(workflow.basedir, "config/schema.yaml"),
        )
    )
except ConfigError as error:
    raise WorkflowError(f"Error validating config file.\n{error}") from None


include: "rules/common/paths.smk"
include: "rules/common/devices.smk"
include: "rules/common/guest.smk"
include: "rules/common/runs.smk"
include: "rules/common/outputs.smk"
include: "rules/infra/guest.smk"
include: "rules/infra/device.smk"
include: "rules/infra/kernel.smk"
include: "rules/infra/platform.smk"
include: "rules/infra/filebench.smk"
include: "rules/infra/iozone.smk"


# Every experiment's file (its helpers and rules), by name; the stages after them read
# what the experiments declare (the runs whose phases rule ftl_replay_run models).
for experiment_file in sorted(
    Path(workflow.basedir, "rules/experiments").glob("*.smk")
):

    include: str(experiment_file.relative_to(workflow.basedir))


include: "rules/infra/model.smk"
include: "rules/infra/flashsim.smk"
include: "rules/infra/figures.smk"
include: "rules/infra/report.smk"


rule all:
    default_target: True
    input:
        study_outputs(config["device"], config["scale"]),
        ars_selection_lists(config["device"], config["scale"]),
