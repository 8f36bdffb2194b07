"""A fill to 100 % whose own file needs a new directory block: the writes before it
have left only ext4's reserved clusters, and the fill creates its file from them and
then takes every block (agent/src/space_ops.c, fill_file_fd). Before, the fill failed
with ENOSPC and the disk kept the whole reserve free."""

import json

import pytest

from conftest import REPO
from mobifrag.platform.emulator import GuestJob, run_job

pytestmark = pytest.mark.emulator

AGENT = REPO / "agent/build/mobifrag-agent"
# A 255-character name takes 264 bytes of a 4 KiB directory block: 15 such entries
# fill the directory's first block, and the 16th (the fill's file) needs a second.
NAMES = 15
JOB = r"""set -eu
mkfs.ext4 -F -q -b 4096 -m 0 -E lazy_itable_init=0,lazy_journal_init=0 "$MOBIFRAG_DISK"
mkdir -p "$TMPDIR/fs"
mount -t ext4 "$MOBIFRAG_DISK" "$TMPDIR/fs"
dir=$TMPDIR/fs/d
mkdir "$dir"
name() { printf '%0255d' "$1"; }
i=1
while [ "$i" -le NAMES ]; do : > "$dir/$(name "$i")"; i=$((i + 1)); done
stat -c %s "$dir" > dir-bytes.txt
# Every block but ext4's reserve goes to one file written through the page cache.
dd if=/dev/zero of="$TMPDIR/fs/ballast" bs=1M 2> /dev/null || true
sync
df -B4096 --output=avail "$TMPDIR/fs" | tail -1 > avail-before.txt
printf '#iotrace v1\n0\t0\tfill\td/%s\t100\n' "$(name 0)" > fill.iotrace
"$MOBIFRAG_AGENT" replay --trace fill.iotrace --root "$TMPDIR/fs" > replay.json \
  2> replay.err || true
stat -c %s "$dir" > dir-bytes-after.txt
sync
df -B4096 --output=avail "$TMPDIR/fs" | tail -1 > avail-after.txt
umount "$TMPDIR/fs"
dumpe2fs -h "$MOBIFRAG_DISK" 2> /dev/null | sed -n 's/^Free blocks: *//p' > free-blocks.txt
""".replace("NAMES", str(NAMES))


def test_a_full_fill_creates_its_file_from_the_reserve(tmp_path, emulator_kernel):
    if not AGENT.exists():
        pytest.skip("the agent is not built (make -C agent)")
    script = tmp_path / "job.sh"
    script.write_text(JOB)
    job = GuestJob(
        kernel=emulator_kernel,
        script=script,
        timeout_s=300,
        disk_bytes=64 * 1024 * 1024,
        env=(("MOBIFRAG_AGENT", str(AGENT)),),
    )
    result = run_job(job, tmp_path / "out", tmp_path / "console.log")
    out = tmp_path / "out"
    assert result.exit_status == 0
    # The setup: one directory block full, and only the reserve left free.
    assert (out / "dir-bytes.txt").read_text().strip() == "4096"
    assert int((out / "avail-before.txt").read_text()) == 0
    replay = json.loads((out / "replay.json").read_text())
    assert replay["ops"]["fill"] == 1
    assert replay["errors"]["fill"] == 0, (out / "replay.err").read_text()
    assert "created it with ext4's reserve lowered" in (out / "replay.err").read_text()
    assert int((out / "dir-bytes-after.txt").read_text()) > 4096
    assert int((out / "free-blocks.txt").read_text()) == 0
