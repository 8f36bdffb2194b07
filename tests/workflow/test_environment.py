"""The environment the pipeline runs in: the hash-locked Python requirements, the versions
each run's provenance records and compares with the measured ones."""

import io
import json
import re
from pathlib import Path

import pytest

from conftest import REPO
from mobifrag.report import provenance
from mobifrag.report.provenance import VersionReaders


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


# --- one tool list: bootstrap/debian-packages.txt and flake.nix ----------------------

FLAKE = REPO / "flake.nix"

# Debian package -> what provides it in flake.nix: a token of its `tools` or `libraries`
# list, "R:<name>" for an R package of `rLibraries`, or "env:<VARIABLE>" for a file the
# dev shell exports (a source tarball, a static library).
DEBIAN_TO_NIX = {
    "python3": "mine.python",
    "python3-venv": "mine.python",
    "linux-source-6.1": "env:MOBIFRAG_KERNEL_SOURCE",
    "bc": "bc",
    "bison": "bison",
    "flex": "flex",
    "libelf-dev": "elfutils",
    "libssl-dev": "openssl",
    "cpio": "cpio",
    "xz-utils": "xz",
    "lz4": "lz4",
    "patch": "gnupatch",
    "make": "gnumake",
    "gcc": "gcc",
    "g++": "gcc",
    "qemu-system-x86": "qemu",
    "qemu-utils": "qemu",
    "qemu-system-arm": "qemu",
    "e2fsprogs": "e2fsprogs",
    "f2fs-tools": "f2fs-tools",
    "fio": "fio",
    "blktrace": "blktrace",
    "sqlite3": "sqlite",
    "postmark": "mine.postmark",
    "libsqlite3-dev": "sqlite",
    "libboost-dev": "boost",
    "autoconf": "autoconf",
    "automake": "automake",
    "libtool": "libtool",
    "r-base-core": "mine.R",
    "r-cran-ggplot2": "R:ggplot2",
    "r-cran-lintr": "R:lintr",
    "nix-bin": "nix",
    "chromium": "chromium",
    "gcc-aarch64-linux-gnu": "mine.aarch64-linux-gnu",
    "libc6-dev-arm64-cross": "mine.aarch64-linux-gnu",
    "mkbootimg": "android-tools",
    "adb": "android-tools",
    "fastboot": "android-tools",
    "libsqlite3-dev:arm64": "env:MOBIFRAG_ARM64_SQLITE_STATIC",
    "shellcheck": "shellcheck",
}

# In flake.nix and rightly in no Debian package, with where the Debian path gets it.
NIX_ONLY = {
    "ruff": "requirements.lock",
    "snakefmt": "requirements.lock",
    "cargo": "rustup: Debian 12's rustc 1.63 is older than ftl-sim's rust-version 1.82",
    "rustc": "rustup, as cargo",
    "clippy": "rustup, as cargo",
    "rustfmt": "rustup, as cargo",
    "mine.filebench": "no Debian package: built from the pinned source (../shared/vendor)",
    "env:MOBIFRAG_FLASHSIM_SOURCE": "no Debian package: ../shared/vendor/flashsim-53098b0.tar.gz",
}

# requirements.txt name -> token of `pythonLibraries` or of `tools`
PYTHON_TO_NIX = {
    "snakemake": "snakemake",
    "snakemake-executor-plugin-slurm": "snakemake-executor-plugin-slurm",
    "jsonschema": "jsonschema",
    "pyyaml": "pyyaml",
    "pytest": "pytest",
    "scikit-learn": "scikit-learn",
    "scipy": "scipy",
    "tabulate": "tabulate",
    "jinja2": "jinja2",
    "markupsafe": "markupsafe",
    "ruff": "ruff",
    "snakefmt": "snakefmt",
}


def nix_list(name, text=None):
    """The entries of flake.nix's list `name = ...: with ...; [ ... ];`, comments dropped."""
    text = text if text is not None else FLAKE.read_text()
    match = re.search(rf"\b{name} = [^\[]*?with [\w.]+; \[(.*?)\];", text, re.S)
    assert match, f"flake.nix has no list {name}"
    body = re.sub(r"#[^\n]*", "", match.group(1))
    return body.split()


def nix_side():
    """Everything flake.nix provides, spelled as DEBIAN_TO_NIX spells it."""
    provided = set(nix_list("tools")) | set(nix_list("libraries"))
    provided |= {f"R:{name}" for name in nix_list("rLibraries")}
    exported = re.findall(r"^\s*(MOBIFRAG_[A-Z0-9_]+) =", FLAKE.read_text(), re.M)
    provided |= {f"env:{name}" for name in exported}
    return provided


def test_every_debian_package_has_its_nix_counterpart_in_the_flake():
    debian = provenance.debian_list()
    unmapped = [pkg for pkg in debian if pkg not in DEBIAN_TO_NIX]
    assert not unmapped, (
        f"{unmapped} in bootstrap/debian-packages.txt but not in DEBIAN_TO_NIX: add its "
        "nixpkgs attribute to flake.nix's tools (or libraries) and map it here"
    )
    stale = sorted(set(DEBIAN_TO_NIX) - set(debian))
    assert not stale, f"{stale} mapped here but gone from bootstrap/debian-packages.txt"
    provided = nix_side()
    missing = {pkg: DEBIAN_TO_NIX[pkg] for pkg in debian if DEBIAN_TO_NIX[pkg] not in provided}
    assert not missing, f"Debian packages whose counterpart flake.nix lacks: {missing}"


def test_every_flake_tool_is_in_the_debian_list_or_says_why_not():
    accounted = set(DEBIAN_TO_NIX.values()) | set(NIX_ONLY)
    extra = sorted(nix_side() - accounted)
    assert not extra, (
        f"{extra} in flake.nix but in no Debian package: add the Debian package to "
        "bootstrap/debian-packages.txt (and DEBIAN_TO_NIX), or say why in NIX_ONLY"
    )
    unused = sorted(set(NIX_ONLY) - nix_side())
    assert not unused, f"NIX_ONLY names {unused}, which flake.nix no longer has"


def test_the_flake_python_has_exactly_the_direct_requirements():
    required = set(pins(REPO / "requirements.txt"))
    assert required == set(PYTHON_TO_NIX), "map every requirements.txt package to flake.nix"
    provided = set(nix_list("pythonLibraries")) | set(nix_list("tools"))
    missing = sorted(name for name in required if PYTHON_TO_NIX[name] not in provided)
    assert not missing, f"requirements.txt packages the flake's Python lacks: {missing}"
    extra = sorted(set(nix_list("pythonLibraries")) - set(PYTHON_TO_NIX.values()))
    assert not extra, f"flake.nix's pythonLibraries has {extra}, not in requirements.txt"


def test_flake_builds_pypi_packages_at_the_locked_version_and_hash():
    import base64

    lock = lock_entries()
    built = re.findall(r'fromPypi "([^"]+)" "([^"]+)"\s+"sha256-([^"]+)"', FLAKE.read_text())
    assert {canonical(name) for name, _, _ in built} >= {"snakemake-executor-plugin-slurm"}
    for name, version, sri in built:
        locked_version, hashes = lock[canonical(name)]
        assert version == locked_version, f"{name}: flake {version}, lock {locked_version}"
        assert base64.b64decode(sri).hex() in hashes, f"{name}: flake's hash is not the lock's"


def test_nixpkgs_is_pinned_to_a_commit_not_a_branch():
    url = re.search(r'inputs\.nixpkgs\.url = "([^"]+)"', FLAKE.read_text()).group(1)
    assert re.fullmatch(r"github:NixOS/nixpkgs/[0-9a-f]{40}", url), url


def test_flake_parses():
    import shutil
    import subprocess

    if shutil.which("nix-instantiate") is None:
        pytest.skip("nix-instantiate (Debian's nix-bin) is not installed")
    run = subprocess.run(
        ["nix-instantiate", "--parse", str(FLAKE)], capture_output=True, text=True, timeout=60
    )
    assert run.returncode == 0, run.stderr


def test_nix_list_reader_sees_entries_not_comments():
    text = (
        "x = 1;\n  tools = pkgs: mine: with pkgs; [\n    # a comment fio\n"
        "    fio  # fio\n    mine.R\n  ];"
    )
    assert nix_list("tools", text) == ["fio", "mine.R"]


# flake.nix's outputs evaluated offline against a stub nixpkgs (no fetch): this catches
# wrong names, argument orders and shapes in the flake's own code; whether nixpkgs has each
# attribute is only known where `nix flake check` can fetch it (docs/nix.md).
STUB_EVAL = r"""
let
  flake = import FLAKE_PATH;
  fix = f: let x = f x; in x;
  drv = name: { inherit name; out = "/stub/${name}"; outPath = "/stub/${name}"; };
  attrs = ns: builtins.listToAttrs (map (n: { name = n; value = drv n; }) ns);
  basePs = pself: attrs [ "snakemake" "jsonschema" "pyyaml" "pytest" "scikit-learn" "scipy"
      "tabulate" "jinja2" "markupsafe" "numpy" "pandas" "snakemake-interface-common"
      "snakemake-interface-executor-plugins" "throttler" "poetry-core" "hatchling" ] // {
    buildPythonPackage = a:
      assert a ? pname && a ? version && a ? src && a ? build-system; a // drv a.pname;
    fetchPypi = a: assert a ? pname && a ? version && a ? hash; drv "pypi-${a.pname}";
  };
  pkgs = attrs TOOL_NAMES // {
    python3.override = args: assert args ? self; {
      withPackages = f: { libs = f (fix (pself:
        basePs pself // args.packageOverrides pself (basePs pself))); } // drv "python-env";
    };
    rWrapper.override = args: { libs = args.packages; } // drv "R";
    rPackages = attrs [ "ggplot2" "lintr" ];
    stdenv.mkDerivation = a: assert a ? pname && a ? version && a ? src; a // drv a.pname;
    fetchFromGitHub = a: assert a ? owner && a ? repo && a ? rev && a ? hash; drv a.repo;
    fetchurl = a: assert a ? hash && (a ? url || a ? urls); drv "fetchurl";
    runCommand = name: env: script: { inherit script; } // drv name;
    mkShell = a: a;
    linux_6_1.src = drv "linux-6.1-source";
    pkgsCross.aarch64-multiplatform = {
      stdenv.cc = drv "cross-cc" // { bintools = drv "cross-bintools"; };
      pkgsStatic.sqlite = drv "static-sqlite";
    };
  };
  nixpkgs = {
    lib.genAttrs = ns: f: builtins.listToAttrs (map (n: { name = n; value = f n; }) ns);
    legacyPackages = { x86_64-linux = pkgs; aarch64-linux = pkgs; };
  };
  out = flake.outputs { self = out; inherit nixpkgs; };
  shell = out.devShells.x86_64-linux.default;
  names = map (p: p.name);
in {
  shell = names shell.packages ++ names shell.buildInputs;
  python = names out.packages.x86_64-linux.python.libs;
  env = [ shell.MOBIFRAG_KERNEL_SOURCE.name shell.MOBIFRAG_FLASHSIM_SOURCE.name
          shell.MOBIFRAG_ARM64_SQLITE_STATIC ];
  packages = builtins.attrNames out.packages.aarch64-linux;
}
"""


def test_flake_outputs_evaluate_against_a_stub_nixpkgs(tmp_path):
    import shutil
    import subprocess

    if shutil.which("nix-instantiate") is None:
        pytest.skip("nix-instantiate (Debian's nix-bin) is not installed")
    plain = sorted(
        {token for token in nix_list("tools") + nix_list("libraries") if "." not in token}
        | {"autoreconfHook"}
    )
    stub = tmp_path / "eval.nix"
    stub.write_text(
        STUB_EVAL.replace("FLAKE_PATH", str(FLAKE)).replace(
            "TOOL_NAMES", "[ " + " ".join(f'"{name}"' for name in plain) + " ]"
        )
    )
    run = subprocess.run(
        ["nix-instantiate", "--option", "build-users-group", "", "--eval", "--strict", "--json"]
        + [str(stub)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    result = json.loads(run.stdout)
    for tool in ("fio", "qemu", "boost", "cargo", "android-tools", "python-env", "R"):
        assert tool in result["shell"]
    for own in ("filebench", "postmark", "aarch64-linux-gnu"):
        assert own in result["shell"]
    assert "snakemake_executor_plugin_slurm" in result["python"]
    assert result["env"] == [
        "linux-6.1-source",
        "flashsim",
        "/stub/static-sqlite/lib/libsqlite3.a",
    ]
    assert result["packages"] == ["filebench", "flashsim-src", "postmark", "python"]


# --- the guest's PATH follows the host's ---------------------------------------------

GUEST_INIT = REPO / "mobifrag" / "platform" / "guest" / "init.sh"


def guest_path(host_path, fallback):
    """Run init.sh's guest_path function (only it) under /bin/sh."""
    import subprocess

    text = GUEST_INIT.read_text()
    function = re.search(r"^guest_path\(\) \{\n.*?^\}\n", text, re.S | re.M).group(0)
    run = subprocess.run(
        ["sh", "-c", function + 'guest_path "$1" "$2"', "sh", host_path, fallback],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert run.returncode == 0, run.stderr
    return run.stdout.rstrip("\n")


def test_guest_path_puts_the_hosts_existing_entries_first(tmp_path):
    nix_bin = tmp_path / "nix" / "store" / "abc-fio-3.38" / "bin"
    cargo_bin = tmp_path / "cargo" / "bin"
    nix_bin.mkdir(parents=True)
    cargo_bin.mkdir(parents=True)
    host = ":".join(
        [
            str(nix_bin),
            str(tmp_path / "run" / "current-system" / "sw" / "bin"),  # not in the guest's view
            "",  # an empty entry means the working directory: dropped
            ".",
            "relative/bin",
            str(cargo_bin),
            "/usr/bin",
            str(nix_bin),  # listed twice
        ]
    )
    assert guest_path(host, "/usr/local/bin:/usr/bin:/bin") == ":".join(
        [str(nix_bin), str(cargo_bin), "/usr/bin", "/usr/local/bin", "/bin"]
    )


def test_guest_path_without_a_host_path_is_the_fallback():
    assert guest_path("", "/usr/sbin:/usr/bin:/sbin:/bin") == "/usr/sbin:/usr/bin:/sbin:/bin"


def test_guest_path_takes_entries_literally(tmp_path):
    odd = tmp_path / "with space" / "*"
    odd.mkdir(parents=True)
    assert guest_path(f"{odd}:{tmp_path}/*", "/bin") == f"{odd}:/bin"


def test_init_sets_the_jobs_path_from_the_handed_over_host_path_before_the_job():
    lines = GUEST_INIT.read_text().splitlines()

    def first(pattern):
        return next(i for i, line in enumerate(lines) if re.search(pattern, line))

    share = first(r"mount -t 9p .* out /run/mobifrag/out")
    handed_over = first(r'read -r host_path < "\$MOBIFRAG_OUT/host-path"')
    path = first(r'PATH=\$\(guest_path "\$PATH:\$host_path" "\$PATH"\)')
    run = first(r"sh \./job\.sh")
    assert share < handed_over < path < run
    # the fixed list stays, as the fallback and for init's own commands before the share
    assert lines[first(r"^export PATH=")].endswith("/usr/sbin:/usr/bin:/sbin:/bin")


def test_guest_keeps_its_system_directories_before_the_hosts(tmp_path):
    # init.sh's call: the system directories, then the host's, all checked in the guest.
    venv_bin, nix_bin = tmp_path / "venv" / "bin", tmp_path / "nix" / "bin"
    venv_bin.mkdir(parents=True)
    nix_bin.mkdir(parents=True)
    system = "/usr/bin:/bin"
    host = f"{venv_bin}:.:{nix_bin}:/usr/bin"
    assert guest_path(f"{system}:{host}", system) == f"/usr/bin:/bin:{venv_bin}:{nix_bin}"


def test_runner_hands_the_hosts_path_to_the_guest(tmp_path, monkeypatch):
    from mobifrag.platform.emulator import GuestJob, write_job_wrapper

    monkeypatch.setenv("PATH", "/opt/tools/bin:/usr/bin")
    job = GuestJob(kernel=tmp_path / "bzImage", script=REPO / "jobs" / "concurrent-appenders.sh")
    write_job_wrapper(job, tmp_path)
    assert (tmp_path / "host-path").read_text() == "/opt/tools/bin:/usr/bin\n"
