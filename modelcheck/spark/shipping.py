"""Shipping this project's code to the executors.

The driver zips the ``modelcheck`` package it imported, built-in specs
included (not whatever is installed anywhere) and adds the zip with ``addPyFile``; the
executors put it first on their path. The zip's name is a digest of the
sources in it, so the same code is one file however often it is built.

The executors run what the zip holds, so it is kept between runs only in a
directory private to the user (``modelcheck.runtime.private``), and a zip
found there under the name is used only if its sources are the ones its
name gives (else it is written again); a new zip is synced to disk before
it is renamed to its name.
"""

from __future__ import annotations

import hashlib
import io
import os
import py_compile
import stat
import tempfile
import zipfile

from modelcheck.runtime import private


def build_code_zip(directory: str) -> str:
    """Zip the package the driver imported (not whatever is installed) into
    ``directory``; the name carries a digest of the sources.

    Each module goes in as source and as bytecode for this interpreter
    (unchecked hash-based .pyc): every Python worker Spark starts imports
    the whole package, and compiling it each time costs a noticeable part of
    a short run. An executor on another Python version ignores the bytecode.
    """
    import modelcheck

    buffer = io.BytesIO()
    sources = _sources_digest()  # names the zip: the bytecode beside them is only a cache
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as z:
        root = os.path.dirname(os.path.abspath(modelcheck.__file__))
        base = os.path.dirname(root)
        # followlinks: in a checkout, modelcheck/specs links to the specs/ folder at its root
        for folder, dirs, files in os.walk(root, followlinks=True):
            dirs[:] = sorted(d for d in dirs if d != "__pycache__")
            for name in sorted(files):
                if name.endswith(".py"):
                    path = os.path.join(folder, name)
                    inner = os.path.relpath(path, base)
                    with open(path, "rb") as f:
                        source = f.read()
                    z.writestr(_zip_entry(inner), source)
                    sources.update(inner.encode() + b"\0" + source + b"\0")
                    z.writestr(_zip_entry(inner + "c"), _bytecode(path, inner))
    data = buffer.getvalue()
    # a digest of the sources, not of the zip: the bytecode of one source can
    # differ from one compilation to the next (marshal marks objects shared in
    # the compiling process), and the same code must keep one name
    path = os.path.join(directory, f"modelcheck-code-{sources.hexdigest()}.zip")
    if not holds_sources(path, sources.hexdigest()):
        # written whole under a temporary name, synced, then renamed: another run may be reading it
        fd, tmp = tempfile.mkstemp(dir=directory, suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(data)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, path)
        except BaseException:
            if os.path.exists(tmp):
                os.unlink(tmp)
            raise
    return path


def _sources_digest():
    return hashlib.blake2b(digest_size=6)


def holds_sources(path: str, digest: str) -> bool:
    """Whether ``path`` is a regular file, a whole zip whose sources have
    ``digest`` (as ``build_code_zip`` computes it)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return False
    try:
        with os.fdopen(fd, "rb") as f:
            if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
                return False
            with zipfile.ZipFile(f) as z:
                if z.testzip() is not None:
                    return False
                found = _sources_digest()
                for name in z.namelist():
                    if name.endswith(".py"):
                        found.update(name.encode() + b"\0" + z.read(name) + b"\0")
                return found.hexdigest() == digest
    except (OSError, zipfile.BadZipFile, ValueError, EOFError):
        return False


def lasting_code_dir() -> str:
    """Where the zip is kept between runs: ``$TMPDIR/modelcheck-code-UID``
    if it is private to the user, else a private directory of this run's
    (said in one line)."""
    preferred = os.path.join(tempfile.gettempdir(), f"modelcheck-code-{os.geteuid()}")
    return private.choose(preferred, "code", "the directory of the executors' code").path


def _zip_entry(name: str) -> zipfile.ZipInfo:
    info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
    info.compress_type = zipfile.ZIP_DEFLATED
    return info


def _bytecode(path: str, shown_as: str) -> bytes:
    with tempfile.TemporaryDirectory(prefix="modelcheck-pyc-") as scratch:
        target = os.path.join(scratch, "module.pyc")
        py_compile.compile(path, cfile=target, dfile=shown_as, doraise=True,
                           invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH)
        with open(target, "rb") as f:
            return f.read()
