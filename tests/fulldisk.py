"""A real full filesystem for the tests: a small tmpfs mounted in the
test's own directory and filled to the last block, so that every write to it
fails with ENOSPC as on a full disk (creating empty files still works, as
it does on most full disks). Mounting needs root (CAP_SYS_ADMIN); without
it the tests that need one are skipped, saying why."""

from __future__ import annotations

import errno
import os
import subprocess
from contextlib import contextmanager

import pytest

FILLER = "filler"


def mount_tmpfs(directory: str, size: str) -> str | None:
    """Mount a tmpfs of ``size`` on ``directory``; the reason it failed, or None."""
    try:
        done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size},mode=0777", "tmpfs", directory],
                              capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"mount: {e}"
    return None if done.returncode == 0 else (done.stderr.strip() or f"mount exited {done.returncode}")


def fill(directory: str) -> int:
    """Write a filler file until the filesystem refuses more; returns its size."""
    written = 0
    with open(os.path.join(directory, FILLER), "wb", buffering=0) as f:
        block = b"\0" * 4096
        while True:
            try:
                written += f.write(block)
            except OSError as e:
                assert e.errno == errno.ENOSPC, e
                return written


@contextmanager
def small_filesystem(directory: str, size: str = "64k", full: bool = True):
    """A tmpfs of ``size`` on ``directory`` (created), filled unless not
    ``full``; unmounted on the way out, whatever happened."""
    os.makedirs(directory, exist_ok=True)
    problem = mount_tmpfs(directory, size)
    if problem:
        pytest.skip(f"needs a small real filesystem to fill, and mounting a tmpfs failed ({problem}); "
                    f"run as root to include these tests")
    try:
        if full:
            fill(directory)
        yield directory
    finally:
        subprocess.run(["umount", "-l", directory], capture_output=True, timeout=30)


def files_in(directory: str) -> list[str]:
    """Every file and directory under ``directory``, relative, sorted."""
    out = []
    for root, dirs, files in os.walk(directory):
        out += [os.path.relpath(os.path.join(root, n), directory) for n in dirs + files]
    return sorted(out)
