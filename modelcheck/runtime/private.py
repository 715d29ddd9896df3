"""Directories that code is loaded from, kept private to the user.

Compiled kernels (shared libraries, whose constructors run when they are
loaded) and the code shipped to Spark executors are kept between runs in
cache directories, and what is in them is run. So a directory is used only
when nobody else can put a file there: it belongs to this user and no one
else may write to it, and each directory above it belongs to this user or
to root and lets no one else rename what it holds (it is not writable by
others, or it has the sticky bit, as /tmp has).

When the preferred directory fails that (a shared cache, a HOME that cannot
be written, a name in /tmp that another user took first), ``choose`` falls
back to ``$TMPDIR/modelcheck-NAME-UID``, made with mode 700 and used only if
it passes the same test; else to a new directory of its own (``mkdtemp``,
mode 700), removed when the process ends. Either way it says why in one
line (``tell_once``).
"""

from __future__ import annotations

import atexit
import os
import shutil
import stat
import sys
import tempfile
from dataclasses import dataclass

_told: set[str] = set()  # lines already said in this process


def tell_once(line: str) -> None:
    """Say ``line`` on stderr (prefixed ``modelcheck:``), once per process."""
    if line not in _told:
        _told.add(line)
        sys.stderr.write(f"modelcheck: {line}\n")
        sys.stderr.flush()


def problem_with(directory: str) -> str | None:
    """Why ``directory`` may not hold code this process loads, or None."""
    me = os.geteuid()
    try:
        info = os.stat(directory)  # through a symbolic link: the directory it leads to holds the files
    except OSError as e:
        return f"cannot be read ({e.strerror or e})"
    if not stat.S_ISDIR(info.st_mode):
        return "is not a directory"
    if info.st_uid != me:
        return f"belongs to another user (uid {info.st_uid})"
    if info.st_mode & 0o022:
        return "can be written by other users"
    if not os.access(directory, os.W_OK | os.X_OK):
        return "cannot be written"
    return _unsafe_ancestor(directory, me)


def replaceable_by_others(path: str) -> str | None:
    """Why the code at ``path`` (a file, such as a spec file) could be
    changed by another user, or None: the file, and each directory above it
    (where its name is, and where a symbolic link leads), must belong to this
    user or to root, the file be writable by no one else, and the
    directories let no one else rename what they hold."""
    me = os.geteuid()
    info = os.stat(path)
    if info.st_uid not in (me, 0):
        return f"belongs to another user (uid {info.st_uid})"
    if info.st_mode & 0o022:
        return "can be written by other users"
    return _unsafe_ancestor(path, me)


def _unsafe_ancestor(path: str, me: int) -> str | None:
    """Why a directory above ``path`` (where the name itself is, and where a
    symbolic link leads) would let another user replace what it holds, or None."""
    above = _ancestors(os.path.abspath(path)) + _ancestors(os.path.realpath(path))
    for parent in dict.fromkeys(above):
        try:
            info = os.stat(parent)
        except OSError as e:
            return f"lies in {parent}, which cannot be read ({e.strerror or e})"
        if info.st_uid not in (me, 0):
            return f"lies in {parent}, which belongs to another user (uid {info.st_uid})"
        if info.st_mode & 0o022 and not info.st_mode & stat.S_ISVTX:
            return f"lies in {parent}, which other users can write to"
    return None


def _ancestors(path: str) -> list[str]:
    out = []
    parent = os.path.dirname(path)
    while True:
        out.append(parent)
        if os.path.dirname(parent) == parent:
            return out
        parent = os.path.dirname(parent)


def make_private(directory: str) -> str | None:
    """Create ``directory`` (mode 700, its missing parents too) unless it
    exists; then why it may not hold code, or None."""
    try:
        os.makedirs(directory, mode=0o700, exist_ok=True)
    except OSError as e:
        return f"cannot be created ({e.strerror or e})"
    return problem_with(directory)


@dataclass(frozen=True)
class Chosen:
    """The directory to use, and the line that says why it is not the
    preferred one (None when it is)."""

    path: str
    note: str | None = None
    temporary: bool = False  # private to this run, removed at its end


def choose(preferred: str, name: str, what: str) -> Chosen:
    """``preferred`` if it is (or can be made) private, else a private
    directory in the temporary directory; ``what`` names it in the note
    ("the kernel cache"), said once when it is not the one used. Raises
    ``OSError`` only when not even a new temporary directory can be made."""
    problem = make_private(preferred)
    if problem is None:
        return Chosen(preferred)
    fallback = os.path.join(tempfile.gettempdir(), f"modelcheck-{name}-{os.geteuid()}")
    if os.path.abspath(fallback) != os.path.abspath(preferred):
        try:
            os.mkdir(fallback, 0o700)
        except OSError:
            pass  # it exists (it is checked below), or cannot be made
        if problem_with(fallback) is None:
            return _told_of(Chosen(fallback, f"{what} {preferred} {problem}; using {fallback} instead"))
    fresh = tempfile.mkdtemp(prefix=f"modelcheck-{name}-")
    atexit.register(shutil.rmtree, fresh, True)
    return _told_of(Chosen(fresh, f"{what} {preferred} {problem}; using {fresh}, private to this run, instead",
                           temporary=True))


def _told_of(chosen: Chosen) -> Chosen:
    tell_once(chosen.note)
    return chosen
