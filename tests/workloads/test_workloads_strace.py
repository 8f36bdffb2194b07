"""Import of strace -f -tt logs."""

# ruff: noqa: E501 - the log below keeps strace's own long lines

import pytest

from mobifrag.workloads.__main__ import main
from mobifrag.workloads.iotrace import read_trace
from mobifrag.workloads.strace_import import StraceError, check, import_strace

LOG = """\
1200  10:00:00.000000 execve("/system/bin/app_process", ["app"], 0x7ff /* 20 vars */) = 0
1200  10:00:00.000100 openat(AT_FDCWD, "/data/data/com.x/databases/a.db", O_RDWR|O_CREAT|O_CLOEXEC, 0660) = 40
1200  10:00:00.000200 pwrite64(40, "SQLite format 3\\0\\20\\0"..., 4096, 0) = 4096
1200  10:00:00.000300 clone(child_stack=0x7f00, flags=CLONE_VM|CLONE_FS|CLONE_FILES|CLONE_SIGHAND|CLONE_THREAD, parent_tid=[1201]) = 1201
[pid  1201] 10:00:00.000400 openat(AT_FDCWD, "/data/data/com.x/databases/a.db-journal", O_RDWR|O_CREAT|O_TRUNC|O_CLOEXEC, 0600) = 41
[pid  1201] 10:00:00.000500 write(41, "\\331\\325\\5\\371 \\241c\\327"..., 512 <unfinished ...>
[pid  1200] 10:00:00.000600 fsync(40 <unfinished ...>
[pid  1201] 10:00:00.000700 <... write resumed>) = 512
[pid  1201] 10:00:00.000800 write(41, "\\0\\0\\0\\2", 4) = 4
[pid  1200] 10:00:00.000900 <... fsync resumed>) = 0
[pid  1201] 10:00:00.001000 fdatasync(41) = 0
[pid  1201] 10:00:00.001100 pwrite64(40, "x"..., 4096, 8192) = 4096
[pid  1201] 10:00:00.001200 close(41) = 0
[pid  1201] 10:00:00.001300 unlink("/data/data/com.x/databases/a.db-journal") = 0
[pid  1200] 10:00:00.001400 futex(0x7f01, FUTEX_WAKE_PRIVATE, 1) = 1
[pid  1200] 10:00:00.001500 openat(AT_FDCWD, "/data/data/com.x/files/log.txt", O_WRONLY|O_CREAT|O_APPEND, 0600) = 42
[pid  1200] 10:00:00.001600 write(42, "hello\\n", 6) = 6
[pid  1200] 10:00:00.001700 ftruncate(42, 0) = 0
[pid  1200] 10:00:00.001800 fallocate(42, FALLOC_FL_KEEP_SIZE, 0, 131072) = 0
[pid  1200] 10:00:00.001850 syncfs(42) = 0
[pid  1200] 10:00:00.001900 write(99, "socket data", 11) = 11
[pid  1200] 10:00:00.002000 openat(AT_FDCWD, "/data/data/com.x/missing", O_RDONLY) = -1 ENOENT (No such file or directory)
[pid  1200] 10:00:00.002100 renameat(AT_FDCWD, "/data/data/com.x/files/p.xml.tmp", AT_FDCWD, "/data/data/com.x/files/p.xml") = 0
[pid  1200] 10:00:00.002200 openat(AT_FDCWD, "/proc/self/maps", O_RDONLY) = 43
[pid  1200] 10:00:00.002300 unlinkat(AT_FDCWD, "/data/data/com.x/cache/old", 0) = 0
[pid  1200] 10:00:00.002400 close(40) = 0
[pid  1200] 10:00:00.002500 --- SIGCHLD {si_signo=SIGCHLD} ---
[pid  1201] 10:00:00.002600 +++ exited with 0 +++
"""


def _ops(result):
    return [(op.thread, op.op, op.path, op.args) for op in result.ops]


def test_import_of_a_small_log(tmp_path):
    log = tmp_path / "app.strace"
    log.write_text(LOG)
    result = import_strace(log, root_prefix="/data/data/com.x")
    check(result)
    db, journal = "databases/a.db", "databases/a.db-journal"
    assert _ops(result) == [
        (0, "write", db, (0, 4096)),
        (1, "create", journal, ()),
        (1, "write", journal, (0, 512)),
        (0, "fsync", db, ()),
        (1, "write", journal, (512, 4)),
        (1, "fdatasync", journal, ()),
        (1, "write", db, (8192, 4096)),
        (1, "unlink", journal, ()),
        (0, "append", "files/log.txt", (6,)),
        (0, "truncate", "files/log.txt", (0,)),
        (0, "fallocate", "files/log.txt", (0, 131072, "keep")),
        (0, "syncfs", "files/log.txt", ()),
        (0, "rename", "files/p.xml.tmp", ("files/p.xml",)),
        (0, "unlink", "cache/old", ()),
    ]
    assert result.ops[0].time_us == 200 and result.ops[3].time_us == 600
    summary = result.summary()
    assert summary["skipped"]["unsupported syscall"] == 2  # execve, futex
    assert summary["skipped"]["untracked fd"] == 1
    assert summary["skipped"]["failed call"] == 1
    assert summary["skipped"]["outside root"] == 1
    assert summary["skipped"]["not a syscall line"] == 2  # signal, exit
    assert summary["malformed"] == 0


def test_cli_writes_a_valid_trace(tmp_path):
    log = tmp_path / "app.strace"
    log.write_text(LOG)
    out = tmp_path / "app.iotrace"
    assert main(["strace", "--in", str(log), "--out", str(out)]) == 0
    ops = read_trace(out)
    assert ops[0].path == "data/data/com.x/databases/a.db"
    assert all(not op.path.startswith(("/", "proc")) for op in ops)


def test_malformed_supported_call_is_reported_with_file_and_line(tmp_path, capsys):
    log = tmp_path / "bad.strace"
    lines = LOG.splitlines()
    lines[2] = '1200  10:00:00.000200 pwrite64(40, "abc", 3, 0'  # no ')' and no result
    lines[4] = "[pid  1201] 10:00:00.000400 openat(AT_FDCWD, /unquoted, O_RDWR) = 41"
    log.write_text("\n".join(lines) + "\n")
    result = import_strace(log, root_prefix="/data/data/com.x")
    with pytest.raises(StraceError) as error:
        check(result)
    assert f"{log}:3: pwrite64:" in str(error.value)
    assert f"{log}:5: openat:" in str(error.value)
    out = tmp_path / "bad.iotrace"
    assert main(["strace", "--in", str(log), "--out", str(out)]) == 65
    assert not out.exists()
    assert f"{log}:3:" in capsys.readouterr().err
    assert main(["strace", "--in", str(log), "--out", str(out), "--keep-going"]) == 0
    assert out.exists()


def test_a_number_the_iotrace_cannot_hold_is_named_by_file_and_line(tmp_path, capsys):
    log = tmp_path / "big.strace"
    log.write_text(
        '10:00:00.000001 openat(AT_FDCWD, "/data/x", O_WRONLY|O_CREAT|O_TRUNC, 0600) = 3\n'
        '10:00:00.000002 pwrite64(3, "abc", 3, 9223372036854775807) = 3\n'
        "10:00:00.000003 ftruncate(3, 99999999999999999999999) = 0\n"
    )
    result = import_strace(log)
    assert [e.split(": ")[0] for e in result.errors] == [f"{log}:2", f"{log}:3"]
    assert "beyond the largest file offset" in result.errors[0]
    assert "99999999999999999999999 is not an integer" in result.errors[1]
    out = tmp_path / "big.iotrace"
    assert main(["strace", "--in", str(log), "--out", str(out)]) == 65
    assert f"{log}:2: pwrite64:" in capsys.readouterr().err


def test_more_tasks_than_a_trace_may_have_threads_are_named_by_line(tmp_path):
    log = tmp_path / "tasks.strace"
    log.write_text(
        "".join(
            f'{pid} 10:00:00.{pid:06d} openat(AT_FDCWD, "/data/f{pid}", O_WRONLY|O_CREAT|O_TRUNC)'
            " = 3\n"
            for pid in range(1, 258)
        )
    )
    result = import_strace(log)
    assert result.errors == [
        f"{log}:257: openat: task 257 would be thread 257; a trace may have at most 256"
    ]


def test_shared_fds_and_dirfd_relative_paths(tmp_path):
    log = tmp_path / "attach.strace"
    log.write_text(
        '7  09:00:00.5 openat(AT_FDCWD, "/data/data/com.y/databases", O_RDONLY|O_DIRECTORY) = 3\n'
        '7  09:00:00.6 openat(3, "b.db", O_RDWR|O_CREAT|O_EXCL, 0600) = 4\n'
        '8  09:00:00.7 pwrite64(4, "z", 1, 100) = 1\n'
        "8  09:00:00.8 lseek(4, 0, SEEK_END) = 4096\n"
        '8  09:00:00.9 write(4, "z", 10) = 10\n'
    )
    result = import_strace(log, root_prefix="/data/data/com.y", shared_fds=True)
    check(result)
    assert _ops(result) == [
        (0, "create", "databases/b.db", ()),
        (1, "write", "databases/b.db", (100, 1)),
        (1, "write", "databases/b.db", (4096, 10)),
    ]
    separate = import_strace(log, root_prefix="/data/data/com.y")
    assert separate.summary()["skipped"]["untracked fd"] == 3
