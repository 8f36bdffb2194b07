# What every experiment's tables read of a run: the replay summary of one phase and the
# phase models of a whole run. Which runs an experiment's tables read is the
# experiment's own (rules/experiments/<experiment>.smk).
import re

# Every phase replays on a device written once, then written as the run's earlier
# phases wrote it, with the requests in flight its trace shows: each waits only for
# those the trace completed before issuing it, so readahead's batch stays in flight
# together (the ftl_replay_phase jobs; variant tokens of rules/infra/model.smk).
PHASE_REPLAY = "_fill100_history_overlap"


def phase_summary(w, run, phase, variant=""):
    """The summary an ftl_replay_phase job keeps for one phase of a run (`run`: the run's
    folder below the device's results, wildcards filled in)."""
    return results(f"{run}/model/{phase}/ftl{PHASE_REPLAY}{variant}.json").format(**w)


# Every traced phase of a whole run, each with at least the threads its reports give in
# flight (the ftl_replay_run jobs): where the reports of each experiment's runs are and
# which phase each names (mobifrag.model.run_phases), by the folder that holds the runs.
# Each experiment whose tables read whole-run models adds its folders here, before
# rules/infra/model.smk builds rule ftl_replay_run's pattern from them.
RUN_MODELS = "model/phases.json"
RUN_PHASE_DEPTHS = {}


def run_phase_depths(w):
    """ftl_replay_run's options for one run: how its reports name its phases (a
    repetition's run, <run>/rep-<n>, as its run's)."""
    run = Path(w.experiment)
    folder = str(
        run.parent.parent if re.fullmatch(r"rep-\d+", run.name) else run.parent
    )
    if folder not in RUN_PHASE_DEPTHS:
        raise WorkflowError(
            f"{w.experiment}: no phase models for runs under {folder}"
            f" (known: {', '.join(RUN_PHASE_DEPTHS)})"
        )
    return RUN_PHASE_DEPTHS[folder]


def run_models(w, runs):
    """The kept phase models of runs given by their folder below the platform's runs."""
    return [results(f"{run}/{RUN_MODELS}").format(**w) for run in runs]
