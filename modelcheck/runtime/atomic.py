"""Writing a file whole or not at all.

Every file modelcheck writes (traces, HTML viewers, graphs, checkpoints,
sweep output) goes through ``write_atomically``: the content is written to a
temporary name in the destination's own directory, flushed and synced to
disk, and only then renamed to its name. So a full disk, a write error or a
signal during the write leaves no partial or empty file behind (the
temporary one is removed), and replacing a file (``--overwrite``, the next
checkpoint) replaces it only with a complete new one: until the rename, the
old file is there, whole. Only a regular file is ever replaced: a device, a
FIFO or a socket under the name is refused (``OSError``).

Without ``replace``, the new file is linked to its name, which fails if the
name is taken: an existing file is never replaced, even by a file that
appears there while the content is being written.
"""

from __future__ import annotations

import errno
import itertools
import os
import stat
import tempfile
from typing import BinaryIO, Callable, Iterable, TextIO

TEMPORARY_SUFFIX = ".tmp"


def write_atomically(path: str, write: Callable[[TextIO | BinaryIO], None], replace: bool = False,
                     binary: bool = False) -> None:
    """Make ``path`` hold exactly what ``write(f)`` writes to ``f``, or leave
    it as it was. Raises ``FileExistsError`` if ``path`` exists and not
    ``replace``, and the ``OSError`` of a failed write."""
    write_first_free([path], write, replace, binary)


def write_first_free(paths: Iterable[str], write: Callable[[TextIO | BinaryIO], None], replace: bool = False,
                     binary: bool = False) -> str:
    """Write once, then give the file the first of ``paths`` (all in one
    directory) that is free, or the first one with ``replace``; returns it.
    Raises ``FileExistsError`` when every one is taken."""
    names = iter(paths)
    first = next(names)
    if replace:
        _check_replaceable(first)
    tmp = _temporary(first, write, binary)
    try:
        if replace:
            _check_replaceable(first)  # again: it may have become something else while the content was written
            os.replace(tmp, first)
            return _synced(first)
        for name in itertools.chain([first], names):
            if _link(tmp, name):
                return _synced(name)
        raise FileExistsError(errno.EEXIST, "file exists", first)
    finally:
        _remove(tmp)


def _check_replaceable(path: str) -> None:
    """Only a regular file (or a name not taken) is replaced: never a
    device, a FIFO or a socket, which renaming over would destroy."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return
    if not stat.S_ISREG(mode):
        raise OSError(errno.EINVAL, "not a regular file, and only regular files are replaced", path)


def _temporary(path: str, write, binary: bool) -> str:
    """The content, complete and on disk, under a temporary name beside ``path``."""
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=f".{os.path.basename(path)}.", suffix=TEMPORARY_SUFFIX)
    try:
        with os.fdopen(fd, "wb" if binary else "w", **({} if binary else {"encoding": "utf-8"})) as f:
            write(f)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, 0o666 & ~current_umask())  # as an ordinary new file would have (mkstemp's is private)
    except BaseException:
        _remove(tmp)
        raise
    return tmp


def _link(tmp: str, name: str) -> bool:
    """Give ``tmp``'s content the name ``name`` unless it is taken: a hard
    link fails on a taken name, where a rename would replace it."""
    try:
        os.link(tmp, name)
        return True
    except FileExistsError:
        return False
    except OSError as e:
        if e.errno not in (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EXDEV, errno.EMLINK):
            raise
    # a filesystem without hard links: claim the name, then rename over the claim
    try:
        os.close(os.open(name, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))
    except FileExistsError:
        return False
    try:
        os.replace(tmp, name)
    except BaseException:
        _remove(name)
        raise
    return True


def _synced(path: str) -> str:
    """Sync the directory too, so the new name survives a crash."""
    try:
        fd = os.open(os.path.dirname(os.path.abspath(path)), os.O_RDONLY)
    except OSError:
        return path
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
    return path


def _remove(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


def current_umask() -> int:
    """The process's umask, read without changing it where Linux tells it
    (setting it to read it back races with other threads creating files)."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask
