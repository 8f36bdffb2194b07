"""The tests mirror the study's stages: a folder of tests per package of mobifrag, one for
the figures (paper-figures/) and one for the modules that boot a guest (emulator); the
fixtures and helpers they share sit beside tests/conftest.py."""

from collections import Counter

from conftest import REPO

TESTS = REPO / "tests"
STAGES = {p.name for p in (REPO / "mobifrag").iterdir() if (p / "__init__.py").is_file()}
FOLDERS = STAGES | {"figures", "emulator"}


def module_paths():
    return sorted(TESTS.rglob("test_*.py"))


def test_no_test_module_sits_directly_in_tests():
    assert not sorted(p.name for p in TESTS.glob("test_*.py"))


def test_each_stage_has_a_folder_of_tests():
    assert {"workloads", "platform", "measure", "model", "tables", "report", "workflow"} <= STAGES
    assert not sorted(f for f in FOLDERS if not list((TESTS / f).glob("test_*.py")))


def test_every_test_module_sits_in_a_stage_folder():
    astray = [p for p in module_paths() if p.parent.parent != TESTS or p.parent.name not in FOLDERS]
    assert not [str(p.relative_to(REPO)) for p in astray]


def test_no_two_test_modules_share_a_name():
    # pytest imports each module by its file's name, its folder on sys.path (no folder is a
    # package: tests/platform/ would shadow the standard library's platform), so two
    # modules of one name in two folders would clash.
    names = Counter(p.name for p in module_paths())
    assert not sorted(name for name, count in names.items() if count > 1)
