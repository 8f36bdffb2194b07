"""The device-profile loader under seeded random mutations of the shipped profiles: every
input either loads or is refused with ProfileError naming the file; nothing else escapes
(docs/fuzzing.md). MOBIFRAG_PROFILE_FUZZ sets the mutations per profile."""

import os
import random

import pytest

from conftest import REPO
from mobifrag.workflow.profiles import ProfileError, load_profile_file

MUTATIONS = int(os.environ.get("MOBIFRAG_PROFILE_FUZZ", "300"))
PROFILES = sorted(p for p in (REPO / "devices").glob("*.yaml") if p.name != "schema.yaml")
ODD_VALUES = ["", "-1", "0", "1e309", "~", "[]", "{}", "'/dev/sda'", "/data/..", "!!binary AA=="]
ODD_VALUES += ["18446744073709551616", "true", "&a x", "*a", "'\\x00'", "9" * 400, "ünïcode"]


def mutate(text: str, rng: random.Random) -> str:
    lines = text.splitlines()
    line = rng.randrange(len(lines)) if lines else 0
    kind = rng.randrange(6)
    if kind == 0 and lines:
        del lines[line]
    elif kind == 1 and lines and ":" in lines[line]:
        key, _, _ = lines[line].partition(":")
        lines[line] = f"{key}: {rng.choice(ODD_VALUES)}"
    elif kind == 2 and lines:
        lines.insert(line, lines[rng.randrange(len(lines))])
    elif kind == 3:
        cut = rng.randrange(len(text) + 1)
        return text[:cut]
    elif kind == 4 and lines:
        at = rng.randrange(len(lines[line]) + 1)
        lines[line] = lines[line][:at] + rng.choice("\t:{}[]-#&*!|>'\"%@`") + lines[line][at:]
    else:
        raw = bytearray(text.encode())
        if raw:
            raw[rng.randrange(len(raw))] = rng.randrange(256)
        return raw.decode("utf-8", errors="replace")
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("profile", PROFILES, ids=lambda p: p.stem)
def test_mutated_profiles_load_or_are_refused_by_name(profile, tmp_path):
    rng = random.Random(f"{profile.stem}-20261125")
    text = profile.read_text()
    target = tmp_path / profile.name
    refused = 0
    for _ in range(MUTATIONS):
        mutated = text
        for _ in range(rng.randint(1, 3)):
            mutated = mutate(mutated, rng)
        target.write_text(mutated)
        try:
            loaded = load_profile_file(target)
        except ProfileError as error:
            assert str(target) in str(error), str(error)
            refused += 1
            continue
        assert isinstance(loaded, dict) and loaded["name"] == profile.stem
    assert refused > MUTATIONS // 10, "the mutations should break most profiles"


def test_a_null_key_is_refused_by_field(tmp_path):
    # Found by the mutations above: a YAML key `~` (null) crashed the field naming.
    target = tmp_path / "emulator-emmc.yaml"
    target.write_text((REPO / "devices/emulator-emmc.yaml").read_text() + "~: 1\n")
    with pytest.raises(ProfileError, match=r"field None: Additional properties"):
        load_profile_file(target)
