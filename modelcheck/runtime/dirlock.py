"""A checkpoint directory is used by one run at a time.

Two runs saving into one directory would each replace the other's
checkpoint, and the last writer would win. A run that saves into or resumes
from a directory holds ``DIR/.modelcheck.lock`` for its whole search: the
file holds its process id (for the message another run gets), and an
exclusive ``flock`` on it, which the system releases when the process ends
however it ends. So a lock file left by a process that died (killed, or on a
crashed machine) holds no lock, and the next run takes it over; there is no
guessing from process ids, which are reused. The holder removes the file
when it is done.

A checkpoint directory may be shared (Spark's executors must all reach
it), so the lock file is opened without following a symbolic link and used
only if it is a regular file: a link planted there to another file (which
the lock would truncate and write a process id into) is refused in one line.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import stat

from modelcheck.errors import InputError

FILE = ".modelcheck.lock"


class DirectoryLock:
    """``with DirectoryLock(directory, "--checkpoint"):`` holds the directory
    for the block; a second holder is refused with ``InputError``."""

    def __init__(self, directory: str, option: str):
        self.directory, self.option = directory, option
        self.path = os.path.join(directory, FILE)
        self.fd: int | None = None

    def acquire(self) -> None:
        try:
            self._acquire()
        except OSError as e:  # a directory that cannot hold the lock file cannot hold a checkpoint
            raise InputError(f"{self.option} {self.directory}: cannot lock it ({e.strerror or e})") from None

    def _acquire(self) -> None:
        os.makedirs(self.directory, exist_ok=True)
        while True:
            fd = self._open()
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                holder = _holder(fd)
                os.close(fd)
                raise InputError(f"{self.option} {self.directory} is in use by another modelcheck run"
                                 f"{f' (process {holder})' if holder else ''}; wait for it to end or choose "
                                 f"another directory") from None
            if _same_file(fd, self.path):
                break
            os.close(fd)  # the holder ended and removed the file after we opened it: try the new one
        self.fd = fd
        try:  # the process id only names the holder in another run's message: on a full disk, go without it
            os.ftruncate(fd, 0)
            os.write(fd, f"{os.getpid()}\n".encode())
        except OSError:
            pass

    def _open(self) -> int:
        """The lock file, created if need be: never through a symbolic link,
        and only a regular file (opening a FIFO this way does not wait)."""
        refused = (f"{self.option} {self.directory}: its lock file {self.path} is not a regular file "
                   f"(a symbolic link, a FIFO or a device is never used as one); remove it, or choose another "
                   f"directory")
        try:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, 0o644)
        except OSError as e:
            if e.errno == errno.ELOOP or os.path.islink(self.path):
                raise InputError(refused) from None
            raise
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_nlink > 1:  # a hard link is another file's name too
            os.close(fd)
            raise InputError(refused if not stat.S_ISREG(info.st_mode) else
                             f"{self.option} {self.directory}: its lock file {self.path} has other names (hard "
                             f"links), so it is another file too; remove it, or choose another directory")
        return fd

    def release(self) -> None:
        if self.fd is None:
            return
        try:
            if _same_file(self.fd, self.path):
                os.unlink(self.path)
        except OSError:
            pass
        os.close(self.fd)  # closing releases the flock
        self.fd = None

    def __enter__(self) -> "DirectoryLock":
        self.acquire()
        return self

    def __exit__(self, *exc) -> None:
        self.release()


def _holder(fd: int) -> str:
    try:
        text = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
    except OSError:
        return ""
    return text if text.isascii() and text.isdigit() else ""


def _same_file(fd: int, path: str) -> bool:
    try:
        mine, there = os.fstat(fd), os.lstat(path)
    except FileNotFoundError:
        return False
    return (mine.st_dev, mine.st_ino) == (there.st_dev, there.st_ino)


def holding(directory: str | None, option: str):
    """The lock on ``directory`` as a context manager, or nothing without one."""
    return DirectoryLock(directory, option) if directory else contextlib.nullcontext()
