import pytest
import yaml

from mobifrag.workflow import profiles
from mobifrag.workflow.profiles import DEVICES, ProfileError, load_device, load_profile_file


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


def test_an_edited_profile_is_read_afresh_and_copies_stay_apart(tmp_path):
    data = base_profile()
    path = write_profile(tmp_path, "emulator-emmc", data)
    first = load_profile_file(path)
    first["platform"]["memory_mib"] = 1  # a caller's change must not reach the next load
    assert load_profile_file(path)["platform"]["memory_mib"] == data["platform"]["memory_mib"]
    data["platform"]["memory_mib"] = 2048
    write_profile(tmp_path, "emulator-emmc", data)
    assert load_profile_file(path)["platform"]["memory_mib"] == 2048
    path.write_text("name: [unclosed")
    with pytest.raises(ProfileError, match="not valid YAML"):
        load_profile_file(path)


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


# --- the adb platform's fences ---------------------------------------------------------------


def phone_profile(**platform_keys):
    data = yaml.safe_load((DEVICES / "android-rooted.yaml").read_text())
    data["platform"].update(platform_keys)
    return data


@pytest.mark.parametrize(
    "partition",
    [
        "/dev/block/mmcblk0",
        "/dev/block/sda",
        "/dev/block/nvme0n1",
        "/dev/block/mmcblk0boot0",
        "/dev/block/by-name/USERDATA",
        "/dev/block/bootdevice/by-name/Vendor",
        "/dev/block/by-name/system_a",
        "/dev/block/platform/soc/1d84000.ufshc/by-name/metadata",
        "/dev/block/by-name/persist",
        "/dev/block/by-name/modem",
        "/dev/block/../../dev/block/mmcblk0",
        "/dev/block/by-name/./userdata-test",
        "/dev/block//sda",
        "/dev/block/dm-3",
        "/dev/block/loop7",
        "/dev/block/zram0",
    ],
)
def test_unsafe_test_partitions_are_refused_by_field(tmp_path, partition):
    path = write_profile(tmp_path, "android-rooted", phone_profile(test_partition=partition))
    with pytest.raises(ProfileError) as error:
        load_profile_file(path)
    assert f"{path}: field platform.test_partition: {partition}" in str(error.value)


@pytest.mark.parametrize(
    "partition",
    ["/dev/block/by-name/userdata-test", "/dev/block/mmcblk0p30", "/dev/block/sda17"],
)
def test_partitions_by_their_own_name_pass(tmp_path, partition):
    path = write_profile(tmp_path, "android-rooted", phone_profile(test_partition=partition))
    assert load_profile_file(path)["platform"]["test_partition"] == partition


@pytest.mark.parametrize(
    "workdir",
    [
        "/data",
        "/data/..",
        "/data/local/tmp",
        "/data/local/tmp/",
        "/data/local/tmp/..",
        "/data/local/tmp/a/b",
        "/data/local/tmp/../../..",
        "/sdcard/mobifrag",
    ],
)
def test_workdirs_outside_their_own_folder_are_refused_by_field(tmp_path, workdir):
    path = write_profile(tmp_path, "android-rooted", phone_profile(workdir=workdir))
    with pytest.raises(ProfileError, match=rf"{path}: field platform\.workdir: "):
        load_profile_file(path)


def test_the_checker_reports_every_unsafe_field(tmp_path, capsys):
    from mobifrag.workflow.profiles import main

    data = phone_profile(test_partition="/dev/block/sda", workdir="/data")
    path = write_profile(tmp_path, "android-rooted", data)
    assert main([str(path)]) == 1
    err = capsys.readouterr().err
    assert "field platform.test_partition:" in err and "field platform.workdir:" in err


# Storage models the schema takes and ftl-sim refuses: each must stop the profile check,
# named, before any job is planned.
FTL_REFUSED = [
    ("geometry", "blocks_per_plane", 18446744073709551617, "blocks_per_plane"),
    ("geometry", "channels", 2.0, "expected u32"),
    ("cache", "entry_bytes", 8192, "entry_bytes"),
    ("gc", "high_watermark", 3, None),
    ("timing", "page_read_us", float("inf"), "page_read_us"),
    (None, "over_provisioning", 0.0001, "raise over_provisioning"),
]


@pytest.mark.parametrize(("section", "key", "value", "named"), FTL_REFUSED)
def test_a_storage_model_ftl_sim_refuses_stops_the_check(tmp_path, section, key, value, named):
    from mobifrag.workflow.profiles import FTL_SIM

    if not FTL_SIM.is_file():
        pytest.skip("ftl-sim is not built (make bootstrap builds it)")
    data = base_profile()
    ftl = data["storage"]["ftl"]
    if key == "high_watermark":
        ftl["gc"]["low_watermark"], value = 4, 3  # high below low
    (ftl[section] if section else ftl)[key] = value
    path = write_profile(tmp_path, "emulator-emmc", data)
    with pytest.raises(ProfileError, match="field storage") as error:
        load_profile_file(path)
    assert str(path) in str(error.value)
    if named:
        assert named in str(error.value)


def test_a_nan_or_infinite_number_is_refused_by_field(tmp_path):
    data = base_profile()
    data["storage"]["host_overhead_us"] = float("nan")
    with pytest.raises(ProfileError, match=r"field storage\.host_overhead_us: nan is not a finite"):
        load_profile_file(write_profile(tmp_path, "emulator-emmc", data))


# --- local device files: a board's own values, untracked -------------------------------


@pytest.fixture
def local_devices(tmp_path, monkeypatch):
    folder = tmp_path / "local"
    folder.mkdir()
    monkeypatch.setenv(profiles.LOCAL_ENV, str(folder))
    return folder


def test_a_local_file_sets_the_boards_values_over_the_tracked_profile(local_devices):
    shipped = load_device("hikey960")
    assert profiles.placeholders(shipped) == [("platform.serial", "CHANGEME0123")]
    (local_devices / "hikey960.yaml").write_text(
        "platform:\n  serial: 0123ABCD\n  allow_destructive: true\n"
    )
    board = load_device("hikey960")
    assert board["platform"]["serial"] == "0123ABCD"
    assert board["platform"]["allow_destructive"] is True
    # everything else stays the tracked file's
    assert board["platform"]["test_partition"] == shipped["platform"]["test_partition"]
    assert board["platform"]["boot"] == shipped["platform"]["boot"]
    assert board["storage"] == shipped["storage"]
    assert (
        profiles.placeholders(board) == [] and profiles.placeholder_problem("hikey960", board) == ""
    )
    # a profile without a local file is the tracked one
    assert load_device("android-rooted")["platform"]["serial"] == "CHANGEME0123"


def test_a_local_file_is_checked_by_field_and_sets_only_platform_keys(local_devices):
    local = local_devices / "hikey960.yaml"
    local.write_text("storage:\n  class: emmc\n")
    with pytest.raises(ProfileError, match=r"hikey960.yaml: field storage: a local device file"):
        load_device("hikey960")
    local.write_text("platform:\n  test_partition: /dev/block/by-name/system\n")
    with pytest.raises(ProfileError) as error:
        load_device("hikey960")
    assert f"{local} over " in str(error.value)
    assert "field platform.test_partition" in str(error.value)
    local.write_text("platform: [unclosed\n")
    with pytest.raises(ProfileError, match="not valid YAML"):
        load_device("hikey960")


def test_a_placeholder_serial_names_the_local_file_to_fill(local_devices):
    problem = profiles.placeholder_problem("hikey960", load_device("hikey960"))
    assert "devices/hikey960.yaml: field platform.serial is the placeholder 'CHANGEME0123'" in (
        problem
    )
    assert str(local_devices / "hikey960.yaml") in problem and "MOBIFRAG_DRY_RUN=1" in problem
    assert profiles.placeholder_problem("emulator-emmc", load_device("emulator-emmc")) == ""


def test_the_checker_reads_a_local_file_over_its_profile(local_devices, capsys):
    (local_devices / "hikey960.yaml").write_text("platform:\n  serial: 0123ABCD\n")
    assert profiles.main([str(local_devices / "hikey960.yaml")]) == 0
    assert profiles.main([str(DEVICES / "hikey960.yaml")]) == 0
    assert "a run on it fails its plan until then" in capsys.readouterr().err
