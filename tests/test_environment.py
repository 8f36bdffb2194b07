"""The environment the pipeline runs in: the hash-locked Python requirements, the versions
each run's provenance records and compares with the measured ones."""

import io
import json
import re
from pathlib import Path

import pytest

from mobifrag import provenance
from mobifrag.provenance import VersionReaders

REPO = Path(__file__).resolve().parent.parent


def canonical(name):
    return re.sub(r"[-_.]+", "-", name).lower()


def pins(path):
    """{name: version} of every `name==version` line of a requirements file."""
    found = {}
    for line in Path(path).read_text().splitlines():
        match = re.match(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;#\\]+)", line)
        if match:
            found[canonical(match.group(1))] = match.group(2)
    return found


def lock_entries(path=REPO / "requirements.lock"):
    """{name: (version, [sha256...])} of requirements.lock."""
    entries, current = {}, None
    for line in Path(path).read_text().splitlines():
        match = re.match(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==(\S+)", line)
        if match:
            current = canonical(match.group(1))
            entries[current] = (match.group(2), [])
        hashed = re.search(r"--hash=sha256:([0-9a-f]{64})", line)
        if hashed and current:
            entries[current][1].append(hashed.group(1))
    return entries


# --- the Python lock ---------------------------------------------------------------


def test_lock_pins_every_requirement_at_its_pinned_version():
    lock = lock_entries()
    for name, version in pins(REPO / "requirements.txt").items():
        assert name in lock, f"requirements.lock misses {name}: run scripts/bootstrap.sh --lock"
        assert lock[name][0] == version, (
            f"{name}: requirements.txt pins {version}, lock {lock[name][0]}"
        )


def test_every_locked_package_is_pinned_with_hashes():
    lock = lock_entries()
    assert len(lock) > len(pins(REPO / "requirements.txt"))  # the transitive closure
    unhashed = sorted(name for name, (_, hashes) in lock.items() if not hashes)
    assert not unhashed, f"packages without a hash in requirements.lock: {unhashed}"


def test_bootstrap_installs_the_lock_with_hashes_and_stamps_its_checksum():
    script = (REPO / "scripts" / "bootstrap.sh").read_text()
    assert "--require-hashes" in script and "-r requirements.lock" in script
    assert "sha256sum requirements.lock" in script
    assert "-r requirements.txt" not in script


# --- versions in provenance ----------------------------------------------------------

DPKG = {
    # ${Status}\t${Version}\n per package; Multi-Arch: same packages are listed per arch
    "fio": "install ok installed\t3.33-3\n",
    "libsqlite3-dev": "install ok installed\t3.40.1-2\ninstall ok installed\t3.40.1-2\n",
    "postmark": "deinstall ok config-files\t1.53-2\n",
    "linux-source-6.1": "install ok installed\t6.1.192-2\n",
}
OWNERS = {
    "/usr/src/linux-source-6.1.tar.xz": "linux-source-6.1: /usr/src/linux-source-6.1.tar.xz\n"
}


def fake_run(dpkg=DPKG, owners=OWNERS, qemu="QEMU emulator version 7.2.22 (Debian 1:7.2)\n",
             rscript="R 4.2.2 \nggplot2 3.4.1 \nlintr - \n"):  # fmt: skip
    calls = []

    def run(command):
        calls.append(command)
        if command[:2] == ["dpkg-query", "-W"]:
            return dpkg.get(command[-1])
        if command[:2] == ["dpkg-query", "-S"]:
            return owners.get(command[-1])
        if command[0] == provenance.QEMU:
            return qemu
        if command[0] == "Rscript":
            return rscript
        return None

    run.calls = calls
    return run


def readers(run=None, packages=None, python="3.11.7"):
    return VersionReaders(
        run=run or fake_run(),
        distributions=lambda: packages or {"numpy": "2.4.6", "pip": "26.3", "snakemake": "9.27.1"},
        python_version=lambda: python,
        debian_packages=("fio", "libsqlite3-dev", "postmark", "absent-package"),
    )


def test_versions_come_from_dpkg_qemu_the_kernel_package_rscript_and_python():
    versions = provenance.collect_versions("/usr/src/linux-source-6.1.tar.xz", readers())
    assert versions["debian"] == {
        "fio": "3.33-3",
        "libsqlite3-dev": "3.40.1-2",  # listed twice (amd64, arm64), one version
        "postmark": None,  # removed, only its configuration left
        "absent-package": None,
    }
    assert versions["qemu"] == "7.2.22 (Debian 1:7.2)"
    assert versions["kernel_source"] == {
        "file": "/usr/src/linux-source-6.1.tar.xz",
        "package": "linux-source-6.1",
        "version": "6.1.192-2",
    }
    assert versions["r"] == {"R": "4.2.2", "ggplot2": "3.4.1", "lintr": None}
    assert versions["python"] == {
        "interpreter": "3.11.7",
        "packages": {"numpy": "2.4.6", "pip": "26.3", "snakemake": "9.27.1"},
    }


def test_nothing_installed_reads_as_none_not_an_error():
    versions = provenance.collect_versions(
        "/nix/store/" + "a" * 32 + "-linux-6.1.55.tar.xz", readers(run=lambda command: None)
    )
    assert set(versions["debian"].values()) == {None}
    assert versions["qemu"] is None
    assert versions["r"] == {"R": None, "ggplot2": None, "lintr": None}
    # a tarball no Debian package owns is compared by its file name
    assert versions["kernel_source"]["package"] is None
    assert provenance.flatten(versions)["kernel source file"] == "linux-6.1.55.tar.xz"


def test_r_script_asks_for_every_figure_package():
    run = fake_run()
    provenance.collect_versions(None, readers(run=run))
    (script,) = [command[-1] for command in run.calls if command[0] == "Rscript"]
    for package in provenance.R_PACKAGES:
        assert f'"{package}"' in script


def test_r_packages_cover_every_library_the_figures_load():
    loaded = set()
    for script in (REPO / "paper-figures").glob("*.R"):
        loaded |= set(re.findall(r"library\(\s*\"?([A-Za-z0-9.]+)", script.read_text()))
    assert loaded and loaded <= set(provenance.R_PACKAGES)


def test_differences_name_each_package_and_ignore_installer_tooling():
    measured = provenance.collect_versions("/usr/src/linux-source-6.1.tar.xz", readers())
    here = provenance.collect_versions(
        "/usr/src/linux-source-6.1.tar.xz",
        readers(
            run=fake_run(
                dpkg={**DPKG, "fio": "install ok installed\t3.35-1\n"},
                qemu="QEMU emulator version 8.2.0\n",
            ),
            packages={"numpy": "2.3.0", "pip": "23.2.1", "snakemake": "9.27.1"},
            python="3.13.1",
        ),
    )
    differences = provenance.version_differences(here, measured)
    assert differences == [
        {"name": "debian fio", "here": "3.35-1", "measured": "3.33-3"},
        {"name": "qemu", "here": "8.2.0", "measured": "7.2.22 (Debian 1:7.2)"},
        {"name": "python", "here": "3.13.1", "measured": "3.11.7"},
        {"name": "python numpy", "here": "2.3.0", "measured": "2.4.6"},
    ]
    stream = io.StringIO()
    provenance.warn_differences(differences, Path("config/measured-versions.json"), stream)
    lines = stream.getvalue().splitlines()
    assert len(lines) == 4
    assert lines[0] == (
        "provenance: warning: debian fio is 3.35-1 here; README's numbers were measured "
        "with 3.33-3 (config/measured-versions.json)"
    )
    assert "python numpy is 2.3.0 here" in lines[3]
    assert provenance.version_differences(measured, measured) == []


def test_a_package_missing_here_is_a_difference():
    measured = provenance.collect_versions(None, readers())
    here = provenance.collect_versions(None, readers(packages={"numpy": "2.4.6", "pip": "1"}))
    assert provenance.version_differences(here, measured) == [
        {"name": "python snakemake", "here": None, "measured": "9.27.1"}
    ]


def test_record_then_collect_warns_only_on_what_changed(tmp_path, monkeypatch, capsys):
    reference = tmp_path / "measured-versions.json"
    provenance.record_measured(reference, readers())
    recorded = json.loads(reference.read_text())
    assert recorded["versions"]["debian"]["fio"] == "3.33-3"
    assert recorded["recorded"] and recorded["host"]["machine"]

    monkeypatch.setattr(provenance, "tool_version", lambda command: "fake 1.0")
    monkeypatch.setattr(provenance, "git_commit", lambda: "0" * 40)
    kernel = tmp_path / "kernel-provenance.json"
    kernel.write_text('{"kernel_release": "6.1.192"}')
    config = {"seed": 7, "kernel": {"source": "/usr/src/linux-source-6.1.tar.xz"}}

    same = provenance.collect("emulator-emmc", kernel, config, readers(), reference)
    assert same["version_differences"] == []
    assert capsys.readouterr().err == ""

    changed = readers(packages={"numpy": "2.4.6", "pip": "26.3", "snakemake": "9.28.0"})
    record = provenance.collect("emulator-emmc", kernel, config, changed, reference)
    assert record["versions"]["python"]["packages"]["snakemake"] == "9.28.0"
    assert record["version_differences"] == [
        {"name": "python snakemake", "here": "9.28.0", "measured": "9.27.1"}
    ]
    err = capsys.readouterr().err
    assert "provenance: warning: python snakemake is 9.28.0 here" in err
    assert str(reference) in err


def test_no_reference_is_said_not_silently_skipped(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(provenance, "tool_version", lambda command: "fake 1.0")
    kernel = tmp_path / "kernel-provenance.json"
    kernel.write_text("{}")
    record = provenance.collect("emulator-emmc", kernel, {}, readers(), tmp_path / "none.json")
    assert record["version_differences"] is None
    assert "no measured versions to compare with" in capsys.readouterr().err


def test_record_option_needs_no_run_arguments(tmp_path, monkeypatch):
    monkeypatch.setattr(provenance, "VersionReaders", lambda: readers())
    target = tmp_path / "m.json"
    assert provenance.main(["--record", str(target)]) == 0
    assert json.loads(target.read_text())["versions"]["qemu"] == "7.2.22 (Debian 1:7.2)"
    with pytest.raises(SystemExit):
        provenance.main(["--device", "emulator-emmc"])


def test_committed_reference_covers_the_debian_list_and_the_requirements():
    measured = json.loads((REPO / "config" / "measured-versions.json").read_text())["versions"]
    assert set(measured["debian"]) == set(provenance.debian_list())
    packages = measured["python"]["packages"]
    assert set(pins(REPO / "requirements.txt")) <= set(packages)
    assert measured["qemu"] and measured["kernel_source"]["version"]
    assert set(measured["r"]) == {"R", *provenance.R_PACKAGES}
