"""Reading the files users hand in: regular files only, and only up to a size.

Traces, .cfg files and checkpoints are read whole. A device such as
/dev/zero or /dev/urandom never ends, a FIFO may never deliver anything, and
a file far larger than any such input would only fill the memory before
failing; each is refused with one line instead. The file is opened without
blocking (a FIFO opens at once) and checked on the open descriptor, so what
is checked is what is read.
"""

from __future__ import annotations

import os
import stat

from modelcheck.errors import InputError

MiB = 1 << 20
GiB = 1 << 30

# the largest file of each kind modelcheck reads (docs/running.md states them)
TRACE_CAP = 256 * MiB
CONFIG_CAP = 1 * MiB
CHECKPOINT_CAP = 16 * GiB  # a fast checkpoint, and each file a Spark checkpoint names
MANIFEST_CAP = 64 * MiB  # a Spark checkpoint's manifest


class Refused(InputError):
    """A file refused for what it is; ``problem`` says why, after its name."""

    def __init__(self, what: str, path: str, problem: str):
        super().__init__(f"{what} {path} {problem}".strip())
        self.problem = problem


def size_text(n: int) -> str:
    return f"{n // GiB} GiB" if n >= GiB else f"{n // MiB} MiB"


def open_regular(path: str, what: str, cap: int):
    """``path`` opened for reading in binary, refused (``Refused``, its
    message starting with ``what``) unless it is a regular file no larger
    than ``cap``. FileNotFoundError and other OSErrors reach the caller,
    which knows how to word them."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    try:
        check_regular(os.fstat(fd), path, what, cap)
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return os.fdopen(fd, "rb")


def read_bytes(path: str, what: str, cap: int) -> bytes:
    """The bytes of the regular file ``path`` (see ``open_regular``)."""
    with open_regular(path, what, cap) as f:
        data = f.read(cap + 1)
    if len(data) > cap:  # it grew while being read
        raise Refused(what, path, f"is larger than {size_text(cap)}, more than modelcheck reads")
    return data


def check_regular(info: os.stat_result, path: str, what: str, cap: int) -> None:
    if not stat.S_ISREG(info.st_mode):
        raise Refused(what, path, f"is not a regular file ({kind_of(info.st_mode)})")
    if info.st_size > cap:
        raise Refused(what, path, f"is larger than {size_text(cap)}, more than modelcheck reads")


def check_file(path: str, what: str, cap: int) -> None:
    """Refuse ``path`` unless it is a regular file no larger than ``cap``
    (for a file a library opens itself); ``stat`` never blocks on a FIFO."""
    check_regular(os.stat(path), path, what, cap)


def read_text(path: str, what: str, cap: int, encoding: str = "utf-8") -> str:
    return read_bytes(path, what, cap).decode(encoding)


def kind_of(mode: int) -> str:
    for test, name in ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return name
    return "not a file"
