"""The source files a rule's `python -m mobifrag.…` step runs, and that rules list them."""

import re

import pytest

from conftest import REPO
from mobifrag.workflow.sources import SourceError, module_sources


def write(root, files):
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def test_a_module_brings_what_it_imports_directly_or_not(tmp_path):
    write(
        tmp_path,
        {
            "mobifrag/__init__.py": "",
            "mobifrag/tables/__init__.py": "",
            "mobifrag/tables/scan.py": "from mobifrag.tables import shared\nimport json\n",
            "mobifrag/tables/shared.py": "from .. import measure\n",
            "mobifrag/measure/__init__.py": "from .snapshot import read\n",
            "mobifrag/measure/snapshot.py": "read = 1\n",
            "mobifrag/tables/unused.py": "",
        },
    )
    assert module_sources("mobifrag.tables.scan", tmp_path) == (
        "mobifrag/__init__.py",
        "mobifrag/measure/__init__.py",
        "mobifrag/measure/snapshot.py",
        "mobifrag/tables/__init__.py",
        "mobifrag/tables/scan.py",
        "mobifrag/tables/shared.py",
    )


def test_a_module_of_the_repo_brings_its_helpers():
    sources = module_sources("mobifrag.tables.scan")
    assert "mobifrag/tables/scan.py" in sources
    assert "mobifrag/tables/repetitions.py" in sources
    assert "mobifrag/report/claims.py" not in sources


@pytest.mark.parametrize("module", ["mobifrag.tables.nothing", "json", "mobifrag.tables.scan.x"])
def test_a_name_that_is_no_module_of_the_package_is_refused(module):
    with pytest.raises(SourceError, match=re.escape(module)):
        module_sources(module)


def rule_blocks():
    for path in sorted((REPO / "rules").rglob("*.smk")):
        text = path.read_text()
        for block in re.split(r"\n(?=(?:rule|checkpoint) \w+:)", text):
            name = re.match(r"(?:rule|checkpoint) (\w+):", block)
            if name:
                yield path.name, name.group(1), block


def test_every_rule_running_a_table_model_or_report_module_lists_its_sources():
    missing = []
    for file, rule, block in rule_blocks():
        inputs = block.split("    output:")[0]
        for module in set(re.findall(r"-m (mobifrag\.(?:tables|model|report)\.\w+)", block)):
            if f'python_sources("{module}")' not in inputs:
                missing.append(f"{file}: rule {rule}: {module}")
    assert not missing, missing
