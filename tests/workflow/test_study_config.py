"""The study's config as every reader gets it (mobifrag/workflow/study_config.py):
config/config.yaml with each experiment's own file merged in, checked against the schema
and the experiments' fragments, overrides on top."""

from __future__ import annotations

import shutil

import pytest
import yaml

from conftest import REPO
from mobifrag.workflow.study_config import (
    EXPERIMENTS,
    ConfigError,
    experiment_files,
    load_config,
    schema_fragments,
)


@pytest.fixture
def folder(tmp_path):
    """config.yaml, schema.yaml and the experiments' files copied aside."""
    for name in ("config.yaml", "schema.yaml"):
        shutil.copy(REPO / "config" / name, tmp_path / name)
    shutil.copytree(REPO / "config" / EXPERIMENTS, tmp_path / EXPERIMENTS)
    return tmp_path


def load(folder, overrides=None):
    return load_config(folder / "config.yaml", overrides, folder / "schema.yaml")


def test_each_experiments_file_has_its_schema_fragment_and_sets_its_own_key():
    files = experiment_files()
    assert files, "no config/experiments/<experiment>.yaml"
    assert [p.name.removesuffix(".schema.yaml") for p in schema_fragments()] == [
        p.stem for p in files
    ]
    config = load_config()
    for path in files:
        assert path.stem in yaml.safe_load(path.read_text()), path
        assert path.stem in config


def test_an_experiments_preset_joins_each_scale(folder):
    config = load(folder)
    scan = yaml.safe_load((folder / EXPERIMENTS / "scan.yaml").read_text())
    for scale in ("test", "quick", "paper"):
        assert config["scales"][scale]["scan"] == scan["scales"][scale]["scan"]
        # the shared part of the preset stays
        assert "repetitions" in config["scales"][scale]


def test_overrides_win_and_merge_key_by_key(folder):
    config = load(folder, {"scan": {"filesystems": ["f2fs"]}, "scales": {"test": {"disk_mib": 96}}})
    assert config["scan"]["filesystems"] == ["f2fs"]
    assert config["scales"]["test"]["disk_mib"] == 96
    assert "scan" in config["scales"]["test"] and "autoage" in config["scales"]["test"]


def test_a_key_set_in_two_files_is_refused_naming_both(folder):
    text = (folder / "config.yaml").read_text()
    (folder / "config.yaml").write_text(text + "scan: {filesystems: [ext4]}\n")
    clash = r"experiments/scan.yaml: scan.filesystems already set \(in config.yaml"
    with pytest.raises(ConfigError, match=clash):
        load(folder)


def test_an_experiments_missing_preset_is_named_by_its_fragment(folder):
    own = folder / EXPERIMENTS / "scan.yaml"
    data = yaml.safe_load(own.read_text())
    del data["scales"]["quick"]
    own.write_text(yaml.safe_dump(data))
    with pytest.raises(ConfigError, match="'scan' is a required property"):
        load(folder)


def test_a_bad_value_in_an_experiments_file_is_named(folder):
    with pytest.raises(ConfigError, match=r"'xfs' is not one of"):
        load(folder, {"scan": {"filesystems": ["xfs"]}})


def test_a_file_without_experiments_beside_it_is_read_whole(tmp_path):
    whole = tmp_path / "config.yaml"
    whole.write_text(yaml.safe_dump(load_config()))
    assert load_config(whole) == load_config()
