import pytest
import yaml

from mobifrag.profiles import DEVICES, ProfileError, load_device, load_profile_file


def write_profile(tmp_path, name, data):
    path = tmp_path / f"{name}.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


def base_profile():
    return yaml.safe_load((DEVICES / "emulator-emmc.yaml").read_text())


PROFILES = sorted(p for p in DEVICES.glob("*.yaml") if p.name != "schema.yaml")


@pytest.mark.parametrize("path", PROFILES, ids=lambda p: p.stem)
def test_shipped_profiles_are_valid(path):
    assert load_device(path.stem)["name"] == path.stem


def test_defaults_are_filled_in(tmp_path):
    data = base_profile()
    del data["platform"]["cpus"]
    profile = load_profile_file(write_profile(tmp_path, "emulator-emmc", data))
    assert profile["platform"]["cpus"] == 1


def test_wrong_type_names_file_and_field(tmp_path):
    data = base_profile()
    data["platform"]["memory_mib"] = "lots"
    path = write_profile(tmp_path, "emulator-emmc", data)
    with pytest.raises(ProfileError) as error:
        load_profile_file(path)
    assert str(path) in str(error.value)
    assert "platform.memory_mib" in str(error.value)


def test_unknown_key_names_the_key(tmp_path):
    data = base_profile()
    data["storage"]["turbo"] = True
    with pytest.raises(ProfileError, match=r"field storage\.turbo"):
        load_profile_file(write_profile(tmp_path, "emulator-emmc", data))


def test_missing_key_names_the_key(tmp_path):
    data = base_profile()
    del data["storage"]["host_overhead_us"]
    with pytest.raises(ProfileError, match=r"field storage\.host_overhead_us"):
        load_profile_file(write_profile(tmp_path, "emulator-emmc", data))


def test_name_must_match_file(tmp_path):
    with pytest.raises(ProfileError, match="differs from the file name"):
        load_profile_file(write_profile(tmp_path, "other", base_profile()))


def test_unknown_device_lists_known_ones():
    with pytest.raises(ProfileError, match="emulator-emmc"):
        load_device("no-such-phone")


def test_malformed_yaml_is_reported(tmp_path):
    path = tmp_path / "emulator-emmc.yaml"
    path.write_text("name: [unclosed\n")
    with pytest.raises(ProfileError, match="not valid YAML"):
        load_profile_file(path)
