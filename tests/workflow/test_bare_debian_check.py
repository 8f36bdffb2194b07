"""scripts/bare-debian-check.sh --mirror: the Debian archive debootstrap is pointed at,
read from the host's apt sources in either of apt's two formats."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from conftest import REPO

SCRIPT = REPO / "scripts" / "bare-debian-check.sh"

# Debian 12's own layout: a deb822 file whose "Types: deb" line is followed by a comment
DEB822 = """\
Types: deb
# a snapshot of the archive
URIs: http://archive.example/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: http://archive.example/debian-security
Suites: bookworm-security
Components: main
"""


def mirror(apt_etc: Path, **env) -> subprocess.CompletedProcess:
    environment = {k: v for k, v in os.environ.items() if k != "MIRROR"}
    return subprocess.run(
        [str(SCRIPT), "--mirror"],
        env={**environment, "APT_ETC": str(apt_etc), **env},
        capture_output=True,
        text=True,
    )


def apt_etc(tmp_path: Path, sources: dict[str, str]) -> Path:
    folder = tmp_path / "apt"
    (folder / "sources.list.d").mkdir(parents=True)
    for name, text in sources.items():
        (folder / name).write_text(text)
    return folder


def test_a_deb822_stanza_names_the_archive(tmp_path):
    result = mirror(apt_etc(tmp_path, {"sources.list.d/debian.sources": DEB822}))
    assert result.returncode == 0, result.stderr
    assert result.stdout == "http://archive.example/debian\n"


def test_source_stanzas_and_other_suites_are_passed_over(tmp_path):
    text = DEB822.replace("Types: deb\n# a", "Types: deb-src\n# a", 1)
    result = mirror(apt_etc(tmp_path, {"sources.list.d/debian.sources": text}))
    assert result.returncode == 1
    assert "no bookworm source in" in result.stderr
    assert "MIRROR=" in result.stderr


def test_a_one_line_source_with_options_names_the_archive(tmp_path):
    line = "deb [signed-by=/usr/share/keyrings/k.gpg] http://one.example/debian bookworm main\n"
    result = mirror(apt_etc(tmp_path, {"sources.list": line}))
    assert result.stdout == "http://one.example/debian\n"


def test_mirror_overrides_the_hosts_sources(tmp_path):
    result = mirror(apt_etc(tmp_path, {}), MIRROR="http://chosen.example/debian")
    assert result.stdout == "http://chosen.example/debian\n"
