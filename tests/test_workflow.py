"""The workflow as a user drives it: dry runs, lint, and errors before any work."""

import yaml

from conftest import REPO, planned_jobs, snakemake


def test_dry_run_shows_the_chain(tmp_path):
    # A fresh results folder (another scale name) so every experiment is planned.
    config = yaml.safe_load((REPO / "config" / "config.yaml").read_text())
    config["scales"]["dryrun"] = config["scales"]["test"]
    override = tmp_path / "config.yaml"
    override.write_text(yaml.safe_dump(config))
    run = snakemake("-n", "all", "--configfile", str(override), "--config", "scale=dryrun")
    jobs = planned_jobs(run.stdout + run.stderr)
    writers = len(config["concurrent_appenders"]["writers"])
    assert jobs["concurrent_appenders"] == writers
    assert jobs["concurrent_appenders_tables"] == 1
    assert jobs["figure"] == len(yaml.safe_load((REPO / "paper-figures/registry.yaml").read_text()))


# Conda-forge has no qemu-system, f2fs-tools or blktrace, so rules carry no conda/container
# directive: the software comes from bootstrap/debian-packages.txt or the Nix shell.
ACCEPTED_LINT = "Specify a conda environment or container for each rule."


def test_lint_finds_nothing_else():
    run = snakemake("--lint", check=False)
    lints = [
        line.strip()[2:].rstrip(":")
        for line in (run.stdout + run.stderr).splitlines()
        if line.strip().startswith("* ")
    ]
    assert lints, "snakemake --lint printed nothing: did its output format change?"
    assert set(lints) == {ACCEPTED_LINT}


def test_unknown_device_fails_before_any_work():
    run = snakemake("-n", "all", "--config", "device=no-such-phone", check=False)
    assert run.returncode != 0
    assert "devices/no-such-phone.yaml: no such device profile" in run.stdout + run.stderr


def test_bad_profile_names_file_and_field():
    path = REPO / "devices" / "test-broken-profile.yaml"
    profile = yaml.safe_load((REPO / "devices" / "emulator-emmc.yaml").read_text())
    profile["name"] = "test-broken-profile"
    profile["platform"]["cpus"] = "two"
    profile["storage"]["warp"] = 9
    path.write_text(yaml.safe_dump(profile))
    try:
        run = snakemake("-n", "all", "--config", "device=test-broken-profile", check=False)
    finally:
        path.unlink()
    output = run.stdout + run.stderr
    assert run.returncode != 0
    assert "test-broken-profile.yaml: field platform.cpus" in output
    assert "field storage.warp" in output


def test_unknown_scale_is_named():
    run = snakemake("-n", "all", "--config", "scale=enormous", check=False)
    assert run.returncode != 0
    assert "scale 'enormous' is not one of" in run.stdout + run.stderr


def test_missing_kernel_source_is_one_line(tmp_path):
    config = yaml.safe_load((REPO / "config" / "config.yaml").read_text())
    config["kernel"]["source"] = str(tmp_path / "linux-source-6.1.tar.xz")
    override = tmp_path / "config.yaml"
    override.write_text(yaml.safe_dump(config))
    run = snakemake("-n", "all", "--configfile", str(override), check=False)
    assert run.returncode != 0
    assert "install it with 'apt-get install linux-source-6.1'" in run.stdout + run.stderr


def test_empty_mkfs_options_stay_one_argument():
    # F2FS's mkfs options are empty by default; the job script still needs the argument.
    target = "results/emulator-emmc/test/concurrent-appenders/f2fs/writers-1"
    run = snakemake("-n", "-p", "-f", target, "--config", "scale=test")
    assert " -- f2fs '' 1 " in run.stdout + run.stderr
