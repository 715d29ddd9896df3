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
"""

from __future__ import annotations

import contextlib
import fcntl
import os

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
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
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
        mine, there = os.fstat(fd), os.stat(path)
    except FileNotFoundError:
        return False
    return (mine.st_dev, mine.st_ino) == (there.st_dev, there.st_ino)


def holding(directory: str | None, option: str):
    """The lock on ``directory`` as a context manager, or nothing without one."""
    return DirectoryLock(directory, option) if directory else contextlib.nullcontext()
