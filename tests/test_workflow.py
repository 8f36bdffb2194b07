"""The workflow as a user drives it: dry runs, lint, and errors before any work."""

import yaml

from conftest import REPO, planned_jobs, snakemake, write_snapshot


def test_dry_run_shows_the_chain(tmp_path):
    # A fresh results folder (another scale name) so every experiment is planned.
    config = yaml.safe_load((REPO / "config" / "config.yaml").read_text())
    config["scales"]["dryrun"] = config["scales"]["test"]
    override = tmp_path / "config.yaml"
    override.write_text(yaml.safe_dump(config))
    run = snakemake("-n", "all", "--configfile", str(override), "--config", "scale=dryrun")
    jobs = planned_jobs(run.stdout + run.stderr)
    appenders = config["concurrent_appenders"]
    assert jobs["concurrent_appenders"] == len(appenders["writers"]) * len(appenders["filesystems"])
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


def test_figure_over_a_broken_table_names_the_rule_and_file(tmp_path):
    # Experiments done but one snapshot malformed: the figure must fail in the rule that
    # turns snapshots into its table, naming the file, and keep the experiments.
    import shutil

    scale = "brokentable"
    config = yaml.safe_load((REPO / "config" / "config.yaml").read_text())
    config["scales"][scale] = config["scales"]["test"]
    override = tmp_path / "config.yaml"
    override.write_text(yaml.safe_dump(config))
    run_dir = REPO / "results/emulator-emmc" / scale
    shutil.rmtree(run_dir, ignore_errors=True)
    try:
        appenders = run_dir / "concurrent-appenders"
        for fs in config["concurrent_appenders"]["filesystems"]:
            for n in config["concurrent_appenders"]["writers"]:
                write_snapshot(appenders / f"{fs}/writers-{n}/snapshot", files=[], extents=[])
        broken = appenders / "ext4/writers-1/snapshot/files.tsv"
        broken.write_text("path\tsize\n")
        figure = f"paper-figures/emulator-emmc/{scale}/tmc-fig06-layout.pdf"
        run = snakemake(
            figure,
            "--configfile",
            str(override),
            "--config",
            f"scale={scale}",
            "--allowed-rules",
            "concurrent_appenders_tables",
            "figure",
            check=False,
        )
        assert run.returncode != 0
        assert "Error in rule concurrent_appenders_tables" in run.stdout + run.stderr
        log = run_dir / "logs/concurrent-appenders-tables.log"
        assert str(broken.relative_to(REPO)) in log.read_text()
        assert broken.is_file()
    finally:
        shutil.rmtree(run_dir, ignore_errors=True)
        shutil.rmtree(REPO / "paper-figures/emulator-emmc" / scale, ignore_errors=True)
