"""Each fact of the workflow has one owner, so a change is made once: the results layout
is spelled only in mobifrag/workflow/stages.py; the rules ask a platform's runner what it
does (mobifrag/platform/run.py, RUNNERS) rather than test the platform's type; planning
imports no report code."""

import ast
import io
import re
import tokenize
from pathlib import Path

from conftest import REPO
from mobifrag.platform.run import RUNNERS

STAGES = REPO / "mobifrag" / "workflow" / "stages.py"
# A path of a stage's folder spelled out: results/{device}/..., results/<device>/...,
# results/DEV/..., results/platform/..., results/workloads/..., the figures' folder of a
# device, a reference run's file.
LAYOUT = re.compile(
    r"(?<![\w.-])(?:"
    r"results/(?:\{|<|[A-Z]+/|platform/|workloads/|\.guest-job)"
    r"|paper-figures/(?:\{device\}|<device>|[A-Z]+/)"
    r"|docs/reference/[{<]"
    r")"
)
# A stage's folder joined by name: Path(...) / "results" / ...
LAYOUT_NAMES = {"results", "workloads", "benchmarks", "reference"}
COMPARISONS = {"==", "!=", "in", "not"}


def workflow_files() -> list[Path]:
    return sorted([*(REPO / "rules").rglob("*.smk"), REPO / "Snakefile"])


def python_modules() -> list[Path]:
    return sorted(
        p for p in (REPO / "mobifrag").rglob("*.py") if "__pycache__" not in p.parts and p != STAGES
    )


def tokens(path: Path) -> list[tokenize.TokenInfo]:
    """A Snakemake or Python file's tokens but comments and line breaks."""
    skipped = {tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT}
    found = tokenize.generate_tokens(io.StringIO(path.read_text()).readline)
    return [t for t in found if t.type not in skipped]


def docstrings(tree: ast.AST) -> set[int]:
    kinds = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)
    return {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, kinds)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
        and isinstance(node.body[0].value.value, str)
    }


def python_layout(path: Path) -> list[tuple[int, str]]:
    """Layout spelled in a module's strings (its docstrings describe, and may) or built
    by joining a stage folder's name to a path."""
    tree = ast.parse(path.read_text())
    described = docstrings(tree)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
            joined = {s.value for s in (node.left, node.right) if isinstance(s, ast.Constant)}
            if joined & LAYOUT_NAMES:
                found.append((node.lineno, ast.unparse(node)))
            continue
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            text = "" if id(node) in described else node.value
        elif isinstance(node, ast.JoinedStr):
            text = ast.unparse(node)
        else:
            continue
        if LAYOUT.search(text):
            found.append((node.lineno, text))
    return found


def workflow_layout(path: Path) -> list[tuple[int, str]]:
    return [
        (t.start[0], t.string)
        for t in tokens(path)
        if t.type == tokenize.STRING and LAYOUT.search(t.string)
    ]


def platform_type_tests(path: Path) -> list[tuple[int, str]]:
    """Lines that name a runner's platform type or compare a profile's `["type"]`."""
    found = {}
    toks = tokens(path)
    for i, t in enumerate(toks):
        if t.type != tokenize.STRING:
            continue
        try:
            value = ast.literal_eval(t.string)
        except (ValueError, SyntaxError):  # an f-string
            continue
        compared = (
            value == "type"
            and 0 < i < len(toks) - 2
            and toks[i - 1].string in ("[", "(")
            and toks[i + 2].string in COMPARISONS
        )
        if value in RUNNERS or compared:
            found[t.start[0]] = t.line.strip()
    return sorted(found.items())


def report_imports(path: Path) -> list[tuple[int, str]]:
    """Import statements of report code (a shell command's `python -m` is a string)."""
    return [
        (t.start[0], t.line.strip())
        for t, module in zip(tokens(path), tokens(path)[1:], strict=False)
        if t.string in ("from", "import")
        and t.type == tokenize.NAME
        and module.string == "mobifrag"
        and re.match(r"(?:from|import)\s+mobifrag\.report\b", t.line.strip())
    ]


def listed(finder, paths: list[Path]) -> list[str]:
    return [
        f"{path.relative_to(REPO)}:{line}: {text[:100]}"
        for path in paths
        for line, text in finder(path)
    ]


def test_the_results_layout_is_spelled_only_in_stages():
    found = listed(python_layout, python_modules()) + listed(workflow_layout, workflow_files())
    assert not found, "name these by mobifrag/workflow/stages.py:\n" + "\n".join(found)


def test_the_rules_ask_the_runner_not_the_platform_type():
    found = listed(platform_type_tests, workflow_files())
    assert not found, "ask device_runner(device) (rules/common/paths.smk):\n" + "\n".join(found)


def test_planning_imports_no_report_code():
    assert not listed(report_imports, workflow_files())


def test_the_checks_see_what_they_guard_against(tmp_path):
    module = tmp_path / "probe.py"
    module.write_text(
        '"""A docstring may describe results/<device>/<scale>."""\n'
        'RUN = f"results/{device}/{scale}"\n'
        'BENCH = root / "workloads" / scale\n'
        'GUEST = REPO / "mobifrag" / "platform" / "guest"\n'
    )
    rule = tmp_path / "probe.smk"
    rule.write_text(
        "from mobifrag.report.claims import load_claims\n"
        "# results/{device}/{scale} in a comment is prose\n"
        "def on_phone(d):\n"
        '    return device_profile(d)["platform"]["type"] == "adb"\n'
        "rule r:\n"
        "    output:\n"
        '        "paper-figures/{device}/{scale}/x.pdf",\n'
        "    shell:\n"
        '        "python -m mobifrag.report.claims {output}"\n'
    )
    assert [line for line, _ in python_layout(module)] == [2, 3]
    assert [line for line, _ in workflow_layout(rule)] == [7]
    assert [line for line, _ in platform_type_tests(rule)] == [4]
    assert [line for line, _ in report_imports(rule)] == [1]
