"""scripts/lint-workflow.py ignores exactly the conda-or-container lint, nothing else."""

import importlib.util
import io

import pytest

from conftest import REPO

_spec = importlib.util.spec_from_file_location(
    "lint_workflow", REPO / "scripts" / "lint-workflow.py"
)
lint_workflow = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(lint_workflow)

CONDA = {
    "title": "Specify a conda environment or container for each rule.",
    "body": "This way, the used software for each specific step is documented, and the "
    "workflow can be executed on any machine without prerequisites.",
    "links": [
        "https://snakemake.readthedocs.io/en/latest/snakefiles/deployment.html"
        "#integrated-package-management"
    ],
}
NO_LOG = {
    "title": "No log directive defined",
    "body": "Without a log directive, all output will be printed to the terminal.",
    "links": [],
}
ENV_MODULES = {
    "title": "Additionally specify a conda environment or container for each rule, "
    "environment modules are not enough",
    "body": "While environment modules allow to document and deploy the required software.",
    "links": [],
}
ABS_PATH = {"title": 'Absolute path "/data/x" in line 12', "body": "Do not.", "links": []}


def rule(name, line, *lints, snakefile="/repo/rules/infra/kernel.smk"):
    return {"for": {"rule": name, "line": line, "snakefile": snakefile}, "lints": list(lints)}


def run(report):
    out = io.StringIO()
    return lint_workflow.report_findings(report, out=out), out.getvalue()


def test_only_conda_or_container_lints_pass_with_the_reason_printed_once():
    report = {
        "snakefiles": [],
        "rules": [rule("kernel_emulator", 6, CONDA), rule("ftl_replay", 68, CONDA)],
    }
    status, out = run(report)
    assert status == 0
    assert out.count(lint_workflow.IGNORED_REASON) == 1
    assert "ignoring 2 x" in out


def test_a_rule_lint_of_another_kind_fails_and_is_printed_with_rule_file_and_line():
    report = {
        "snakefiles": [],
        "rules": [
            rule("kernel_emulator", 6, CONDA, NO_LOG),
            rule("ftl_replay", 68, CONDA, snakefile="/repo/rules/infra/model.smk"),
        ],
    }
    status, out = run(report)
    assert status == 1
    assert "rule kernel_emulator (/repo/rules/infra/kernel.smk:6): No log directive defined" in out
    assert "ftl_replay" not in out
    assert "1 finding(s)" in out


def test_the_env_modules_variant_of_the_conda_lint_is_not_ignored():
    status, out = run({"snakefiles": [], "rules": [rule("r", 3, ENV_MODULES)]})
    assert status == 1
    assert "environment modules are not enough" in out


def test_a_snakefile_lint_fails():
    report = {"snakefiles": [{"for": {"snakefile": "/repo/Snakefile"}, "lints": [ABS_PATH]}]}
    status, out = run({**report, "rules": [rule("r", 3, CONDA)]})
    assert status == 1
    assert 'rule - (/repo/Snakefile): Absolute path "/data/x" in line 12' in out


def test_an_empty_report_passes():
    assert run({"snakefiles": [], "rules": []})[0] == 0


@pytest.mark.parametrize("title", [CONDA["title"] + " ", CONDA["title"].lower()])
def test_the_ignored_title_matches_exactly(title):
    status, _ = run({"snakefiles": [], "rules": [rule("r", 1, {**CONDA, "title": title})]})
    assert status == 1


def test_the_installed_snakemake_reports_json_with_a_log_lint(tmp_path):
    (tmp_path / "Snakefile").write_text(
        'rule hello:\n    output:\n        "x"\n    shell:\n        "touch {output}"\n'
    )
    report = lint_workflow.run_lint(tmp_path)
    kept, ignored = lint_workflow.split(lint_workflow.findings(report))
    assert ("hello", f"{tmp_path / 'Snakefile'}:1", "No log directive defined") in kept
    assert [f[0] for f in ignored] == ["hello"]
