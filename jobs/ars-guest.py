"""Guest-side steps of the ARS evaluation jobs (jobs/ars-*.sh), standard library only:
it runs under the guest's (the host's) python3, outside the repo's venv.

    ars-guest.py create ROOT LIST WORKLOAD   (appends to ./create.tsv)
    ars-guest.py marked ROOT LIST
    ars-guest.py pattern PATH OFFSET LENGTH BYTE
    ars-guest.py count PATH FROM BYTE
    ars-guest.py fill PATH BYTE
    ars-guest.py physical PATH OFFSET
    ars-guest.py rawcount DEVICE OFFSET LENGTH BYTE

create — each path of LIST (relative to ROOT, one per line, fragcheck escapes) is created
empty with the user.ars xattr and fsync'd, timed per file; rows of ./create.tsv:
workload, path, ns. A file that already exists is skipped (its creation is not ours).

marked — how many paths of LIST exist below ROOT, and how many carry user.ars (the
agent's replay --mark-list gives it again to a file the workload deletes and recreates,
so a shortfall means a mark went missing, e.g. a file renamed into place). One JSON line.

fill — PATH (new) written with the value BYTE in 1 MiB writes until the file system is
full, then fsync'd; prints the bytes written. physical — the device byte offset of the
block holding byte OFFSET of PATH (FIEMAP), or -1 where it has none. rawcount — how
many of LENGTH bytes of DEVICE from OFFSET on have the value BYTE (read past the page
cache): what the disk holds under a file, whatever the file system maps.

pattern — LENGTH bytes of the value BYTE written at OFFSET of PATH (which must exist,
so that its xattr stays), then fsync'd. count — how many bytes of PATH from offset FROM
on have the value BYTE: the truncation check uses it to find old data that came back.
"""

import errno
import fcntl
import json
import mmap
import os
import struct
import sys
import time

XATTR = "user.ars"
MIB = 1 << 20
FS_IOC_FIEMAP = 0xC020660B  # _IOWR('f', 11, struct fiemap), linux/fs.h
FIEMAP_HEADER = struct.Struct("=QQLLLL")  # start, length, flags, mapped, count, reserved
FIEMAP_EXTENT = struct.Struct("=QQQQQLLLL")  # logical, physical, length, 2 reserved, flags, 3
FIEMAP_FLAG_SYNC = 1


def unescape(text):
    out, i = [], 0
    while i < len(text):
        if text[i] == "\\" and i + 1 < len(text):
            nxt = text[i + 1]
            if nxt == "x":
                out.append(chr(int(text[i + 2 : i + 4], 16)))
                i += 4
                continue
            out.append({"t": "\t", "n": "\n"}.get(nxt, nxt))
            i += 2
            continue
        out.append(text[i])
        i += 1
    return "".join(out)


def read_list(path):
    with open(path) as handle:
        return [unescape(line.rstrip("\n")) for line in handle if line.strip()]


def create(root, listing, workload):
    with open("create.tsv", "a") as out:
        for rel in read_list(listing):
            path = os.path.join(root, rel)
            if os.path.lexists(path):
                continue
            os.makedirs(os.path.dirname(path), exist_ok=True)
            start = time.perf_counter_ns()
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o644)
            try:
                os.setxattr(fd, XATTR, b"1")
                os.fsync(fd)
            finally:
                os.close(fd)
            out.write(f"{workload}\t{rel}\t{time.perf_counter_ns() - start}\n")


def marked(root, listing):
    paths = [os.path.join(root, rel) for rel in read_list(listing)]
    present = [p for p in paths if os.path.isfile(p)]
    carrying = 0
    for path in present:
        try:
            os.getxattr(path, XATTR)
            carrying += 1
        except OSError:
            pass
    return {"listed": len(paths), "present": len(present), "marked": carrying}


def pattern(path, offset, length, value):
    fd = os.open(path, os.O_WRONLY)
    try:
        os.pwrite(fd, bytes([value]) * length, offset)
        os.fsync(fd)
    finally:
        os.close(fd)


def count(path, start, value):
    with open(path, "rb") as handle:
        handle.seek(start)
        return handle.read().count(bytes([value]))


def fill(path, value):
    chunk, written = bytes([value]) * MIB, 0
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    try:
        while True:
            try:
                written += os.write(fd, chunk)
            except OSError as error:
                if error.errno != errno.ENOSPC:
                    raise
                break
        os.fsync(fd)
    finally:
        os.close(fd)
    return written


def physical(path, offset):
    """FIEMAP of the one byte at OFFSET (synced first): the device offset holding it."""
    request = bytearray(FIEMAP_HEADER.size + FIEMAP_EXTENT.size)
    FIEMAP_HEADER.pack_into(request, 0, offset, 1, FIEMAP_FLAG_SYNC, 0, 1, 0)
    with open(path, "rb") as handle:
        fcntl.ioctl(handle.fileno(), FS_IOC_FIEMAP, request)
    if FIEMAP_HEADER.unpack_from(request)[3] == 0:
        return -1
    logical, phys = FIEMAP_EXTENT.unpack_from(request, FIEMAP_HEADER.size)[:2]
    return phys + offset - logical


def rawcount(device, offset, length, value):
    """O_DIRECT reads (page-aligned buffer and range): the disk, not a cached copy."""
    if offset % mmap.PAGESIZE or length % mmap.PAGESIZE:
        raise ValueError(f"rawcount: {offset} and {length} must be multiples of a page")
    fd = os.open(device, os.O_RDONLY | os.O_DIRECT)
    buffer = mmap.mmap(-1, MIB)
    found = 0
    try:
        while length:
            size = os.preadv(fd, [memoryview(buffer)[: min(MIB, length)]], offset)
            if size <= 0:
                raise OSError(f"rawcount: short read of {device} at {offset}")
            found += buffer[:size].count(bytes([value]))
            offset, length = offset + size, length - size
    finally:
        buffer.close()
        os.close(fd)
    return found


def main(argv):
    if len(argv) == 4 and argv[0] == "create":
        create(argv[1], argv[2], argv[3])
    elif len(argv) == 3 and argv[0] == "marked":
        print(json.dumps(marked(argv[1], argv[2])))
    elif len(argv) == 5 and argv[0] == "pattern":
        pattern(argv[1], int(argv[2]), int(argv[3]), int(argv[4], 0))
    elif len(argv) == 4 and argv[0] == "count":
        print(count(argv[1], int(argv[2]), int(argv[3], 0)))
    elif len(argv) == 3 and argv[0] == "fill":
        print(fill(argv[1], int(argv[2], 0)))
    elif len(argv) == 3 and argv[0] == "physical":
        print(physical(argv[1], int(argv[2])))
    elif len(argv) == 5 and argv[0] == "rawcount":
        print(rawcount(argv[1], int(argv[2]), int(argv[3]), int(argv[4], 0)))
    else:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 64
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
