"""Guest-side steps of the ARS evaluation jobs (jobs/ars-*.sh), standard library only:
it runs under the guest's (the host's) python3, outside the repo's venv.

    ars-guest.py create ROOT LIST WORKLOAD   (appends to ./create.tsv)
    ars-guest.py marked ROOT LIST
    ars-guest.py pattern PATH OFFSET LENGTH BYTE
    ars-guest.py count PATH FROM BYTE

create — each path of LIST (relative to ROOT, one per line, fragcheck escapes) is created
empty with the user.ars xattr and fsync'd, timed per file; rows of ./create.tsv:
workload, path, ns. A file that already exists is skipped (its creation is not ours).

marked — how many paths of LIST exist below ROOT, and how many carry user.ars (the
agent's replay --mark-list gives it again to a file the workload deletes and recreates,
so a shortfall means a mark went missing, e.g. a file renamed into place). One JSON line.

pattern — LENGTH bytes of the value BYTE written at OFFSET of PATH (which must exist,
so that its xattr stays), then fsync'd. count — how many bytes of PATH from offset FROM
on have the value BYTE: the truncation check uses it to find old data that came back.
"""

import json
import os
import sys
import time

XATTR = "user.ars"


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


def main(argv):
    if len(argv) == 4 and argv[0] == "create":
        create(argv[1], argv[2], argv[3])
    elif len(argv) == 3 and argv[0] == "marked":
        print(json.dumps(marked(argv[1], argv[2])))
    elif len(argv) == 5 and argv[0] == "pattern":
        pattern(argv[1], int(argv[2]), int(argv[3]), int(argv[4], 0))
    elif len(argv) == 4 and argv[0] == "count":
        print(count(argv[1], int(argv[2]), int(argv[3], 0)))
    else:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 64
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
