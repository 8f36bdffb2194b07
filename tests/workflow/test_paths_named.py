"""Every repository path a comment or a document names exists, so a rename cannot leave
a reader following a dead name: a token such as `rules/infra/kernel.smk` (a tracked
top-level folder first, or `../` from the naming file's folder) in a Markdown or YAML
file (a YAML file's values are prose too: schema descriptions, the claims' text), or in
a comment or docstring of code, names a file or folder of the tree (from the top, or
from the naming file's folder, as a subproject's README does), and a dotted module name
under mobifrag names a module or a name one defines."""

import io
import re
import subprocess
import tokenize
from pathlib import Path

from conftest import REPO

# History names what was true then; it is not a pointer to follow.
HISTORY = {"CHANGELOG.md"}
# The claims file's history entries are never edited (config/claims.yaml's header); the
# names they record as gone, each with the file that records it:
HISTORY_ENTRIES = {
    ("config/claims.yaml", "mobifrag/tile_cache.py"),  # moved to mobifrag/workloads/
}
# Paths the study writes or builds are those .gitignore ignores (results/, build/,
# agent/build/, ftl-sim/target/, paper-figures/<device>/). Other names that are not this
# tree's paths, each with the file that names it:
NOT_OURS = {
    ("kernel-patches/README.md", "scripts/checkpatch.pl"),  # the kernel tree's
    ("rules/infra/model.smk", "model/phases.json"),  # a run's results layout
}
# A path that continues with one of these is a pattern (`rules/experiments/<x>.smk`,
# `jobs/{name}.sh`, `tests/*/test_*.py`), not one file; so is one with a one-letter
# segment (`devices/D.yaml`, `paper-figures/D/S`).
PLACEHOLDER_NEXT = set("<{*[$%…")
ONE_LETTER = re.compile(r"(?:^|/)[A-Za-z](?:\.[\w.]*)?(?:/|$)")
# Comment markers per file kind; Python and Snakemake files are read by their tokens.
ALL_PROSE = {".md", ".yaml", ".yml"}
HASH_COMMENTS = {".sh", ".R", ".toml", ".conf", ".cff", ".nix", ".env"}
SLASH_COMMENTS = {".rs", ".c", ".h", ".cpp"}
BLOCK_COMMENT = re.compile(r"/\*.*?\*/", re.DOTALL)
DASH_COMMENTS = {".sql"}
HASH_COMMENT_NAMES = {"Makefile", ".gitignore", ".lintr", "run", "requirements.txt"}
PYTHON_LIKE = {".py", ".smk"}
PYTHON_LIKE_NAMES = {"Snakefile"}

PATH_CHARS = r"[\w.+/-]"
MODULE = re.compile(r"(?<![\w./-])mobifrag(?:\.\w+)+")
# A document named by its upper-case name alone (`README.md`, `FORMAT.md`): some folder
# of the tree holds one.
DOC_NAME = re.compile(r"(?<![\w./-])[A-Z][A-Z0-9_-]*\.md\b")


def tracked_files(root: Path) -> list[str]:
    listed = subprocess.run(
        ["git", "ls-files", "-z"], cwd=root, capture_output=True, text=True, check=True
    ).stdout
    return [name for name in listed.split("\0") if name and (root / name).is_file()]


def top_folders(files: list[str]) -> list[str]:
    return sorted({name.split("/")[0] for name in files if "/" in name})


def path_pattern(folders: list[str]) -> re.Pattern:
    tops = "|".join(re.escape(f) for f in sorted(folders, key=len, reverse=True))
    return re.compile(rf"(?<![\w./:@~$-])((?:\.\./)*)((?:{tops})/{PATH_CHARS}*)")


def docstring(literal: str) -> bool:
    return literal.lstrip("rRbBuUfF")[:3] in ('"""', "'''")


def python_notes(text: str) -> list[tuple[int, str]]:
    """Comments and docstrings (a triple-quoted string alone on its logical line) of
    Python or Snakemake source, with their first line number."""
    notes, line_start = [], True
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            string = token.type == tokenize.STRING and docstring(token.string)
            if token.type == tokenize.COMMENT or (string and line_start):
                notes.append((token.start[0], token.string))
            if token.type not in (tokenize.INDENT, tokenize.DEDENT, tokenize.NL):
                line_start = token.type in (tokenize.NEWLINE, tokenize.COMMENT)
    except (tokenize.TokenError, SyntaxError) as error:
        raise AssertionError(f"cannot read the comments: {error}") from None
    return notes


def marked_notes(text: str, marker: str) -> list[tuple[int, str]]:
    """The text after a comment marker that starts its line or follows a blank."""
    notes = []
    for number, line in enumerate(text.splitlines(), 1):
        found = re.search(rf"(?:^|\s){re.escape(marker)}", line)
        if found:
            notes.append((number, line[found.end() :]))
    return notes


def block_notes(text: str) -> list[tuple[int, str]]:
    """The /* ... */ comments of C or Rust source, with their first line number."""
    return [(text.count("\n", 0, m.start()) + 1, m.group(0)) for m in BLOCK_COMMENT.finditer(text)]


def notes_of(name: str, text: str) -> list[tuple[int, str]]:
    """(line, text) of what a reader takes as prose in the file: all of a Markdown or
    YAML file, the comments (and docstrings) of code."""
    path = Path(name)
    if path.suffix in ALL_PROSE:
        return list(enumerate(text.splitlines(), 1))
    if path.suffix in PYTHON_LIKE or path.name in PYTHON_LIKE_NAMES:
        return python_notes(text)
    if path.suffix in HASH_COMMENTS or path.name in HASH_COMMENT_NAMES:
        return marked_notes(text, "#")
    if path.suffix in SLASH_COMMENTS:
        return marked_notes(text, "//") + block_notes(text)
    if path.suffix in DASH_COMMENTS:
        return marked_notes(text, "--")
    return []


def module_exists(root: Path, dotted: str) -> bool:
    """The dotted name is a module or package of the tree, or a name one defines."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        base = root.joinpath(*parts[:cut])
        source = base / "__init__.py" if base.is_dir() else base.with_suffix(".py")
        if source.is_file():
            rest = parts[cut:]
            return not rest or (
                len(rest) == 1
                and re.search(rf"\b{re.escape(rest[0])}\b", source.read_text()) is not None
            )
    return False


def named_paths(notes: list[tuple[int, str]], pattern: re.Pattern) -> list[tuple[int, str]]:
    """(line, token) of each concrete path a file's prose names."""
    found = []
    for line, note in notes:
        for match in pattern.finditer(note):
            end = match.end()
            if end < len(note) and note[end] in PLACEHOLDER_NEXT:
                continue
            token = match.group(0).rstrip(".,;:)-")
            if ONE_LETTER.search(token):
                continue
            found.append((line + note.count("\n", 0, match.start()), token))
    return found


def candidates(root: Path, name: str, token: str) -> list[Path]:
    """Where the token may point: from the naming file's folder, and (unless it starts
    with ../) from the top."""
    beside = (root / name).parent / token
    return [beside] if token.startswith("../") else [root / token, beside]


def ignored(root: Path, paths: list[str]) -> set[str]:
    """The paths .gitignore ignores: what the study writes or builds."""
    answer = subprocess.run(
        ["git", "check-ignore", "--no-index", "--stdin", "-z"],
        cwd=root,
        input="\0".join(paths),
        capture_output=True,
        text=True,
    )
    if answer.returncode not in (0, 1):
        raise AssertionError(f"git check-ignore: {answer.stderr.strip()}")
    return set(answer.stdout.split("\0")) - {""}


def unfound_paths(root: Path, name: str, notes: list[tuple[int, str]], pattern: re.Pattern):
    """(line, token, where in the tree it may point) of each named path not there."""
    top = root.resolve()
    for line, token in named_paths(notes, pattern):
        places = [p.resolve() for p in candidates(root, name, token)]
        if (name, token) in NOT_OURS | HISTORY_ENTRIES or any(p.exists() for p in places):
            continue
        slash = "/" if token.endswith("/") else ""
        inside = [p.relative_to(top).as_posix() + slash for p in places if p.is_relative_to(top)]
        if inside:  # a path beside the repository (../shared/) is not ours to check
            yield line, token, inside


def unfound_names(root: Path, notes: list[tuple[int, str]], documents: set[str]):
    """(line, name) of each module or upper-case document named that is not there."""
    for line, note in notes:
        for match in MODULE.finditer(note):
            dotted = match.group(0).rstrip(".")
            if not module_exists(root, dotted):
                yield line, dotted
        for match in DOC_NAME.finditer(note):
            if match.group(0) not in documents:
                yield line, match.group(0)


def missing_paths(root: Path, files: list[str]) -> list[str]:
    """`file:line: token` for every path or module named in prose that is not there."""
    pattern = path_pattern(top_folders(files))
    documents = {Path(name).name for name in files}
    paths, problems = [], []
    for name in files:
        if name in HISTORY:
            continue
        notes = notes_of(name, (root / name).read_text(errors="replace"))
        paths += [(name, *found) for found in unfound_paths(root, name, notes, pattern)]
        problems += [f"{name}:{line}: {n}" for line, n in unfound_names(root, notes, documents)]
    generated = ignored(root, sorted({p for *_, inside in paths for p in inside}))
    problems += [
        f"{name}:{line}: {token}"
        for name, line, token, inside in paths
        if not generated.intersection(inside)
    ]
    return sorted(problems)


def test_every_path_named_in_a_comment_or_doc_exists():
    problems = missing_paths(REPO, tracked_files(REPO))
    assert not problems, "named but not in the repository:\n" + "\n".join(problems)


def fake_repository(tmp_path: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    subprocess.run(["git", "add", "."], cwd=tmp_path, check=True)
    return tmp_path


def test_a_made_up_path_or_module_is_named_with_its_file_and_line(tmp_path):
    root = fake_repository(
        tmp_path,
        {
            "rules/real.smk": (
                '"""Built by rules/made_up.smk."""\n'
                "x = 'rules/not_prose.smk'  # see rules/real.smk\n"
                "# rules/gone.smk, mobifrag.stage.gone\n"
            ),
            "mobifrag/stage/__init__.py": "",
            "mobifrag/stage/real.py": "LIMIT = 1\n",
            "docs/guide.md": (
                "`rules/real.smk`, `rules/<x>.smk`, rules/{name}.smk, rules/*.smk, rules/D.smk\n"
                "results/any/thing.csv, `ftl-sim/target/release/ftl-sim`,\n"
                "mobifrag.stage.real.LIMIT and `mobifrag.stage.real`; `docs/missing.md`.\n"
            ),
            "ftl-sim/README.md": "(`../rules/real.smk`, `../rules/moved.smk`)\n",
            "ftl-sim/src/x.rs": '/// rules/real.smk\n// docs/nowhere.md\nlet s = "rules/no.smk";\n',
            "scripts/x.sh": "# docs/guide.md and docs/gone.md\necho rules/none.smk\n# DESIGN.md\n",
            "agent/src/a.c": "/* Read by\n * docs/guide.md and docs/c-gone.md */\nint x;\n",
            "devices/d.yaml": "description: made by rules/real.smk, not rules/yaml-gone.smk\n",
            "config/claims.yaml": "history:\n  - change: mobifrag/tile_cache.py moved\n",
            "CHANGELOG.md": "- docs/old.md removed\n",
            ".gitignore": "/ftl-sim/target/\n",
        },
    )
    assert sorted(missing_paths(root, tracked_files(root))) == [
        "agent/src/a.c:2: docs/c-gone.md",
        "devices/d.yaml:1: rules/yaml-gone.smk",
        "docs/guide.md:3: docs/missing.md",
        "ftl-sim/README.md:1: ../rules/moved.smk",
        "ftl-sim/src/x.rs:2: docs/nowhere.md",
        "rules/real.smk:1: rules/made_up.smk",
        "rules/real.smk:3: mobifrag.stage.gone",
        "rules/real.smk:3: rules/gone.smk",
        "scripts/x.sh:1: docs/gone.md",
        "scripts/x.sh:3: DESIGN.md",
    ]
