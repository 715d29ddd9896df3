"""Shipping this project's code to the executors.

The driver zips the ``modelcheck`` package it imported, built-in specs
included (not whatever is installed anywhere) and adds the zip with ``addPyFile``; the
executors put it first on their path. The zip's name is a digest of the
sources in it, so the same code is one file however often it is built.
"""

from __future__ import annotations

import hashlib
import io
import os
import py_compile
import tempfile
import zipfile


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
    sources = hashlib.blake2b(digest_size=6)  # names the zip: the bytecode beside them is only a cache
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
    if not os.path.exists(path):
        # written whole under a temporary name: another run may be reading it
        fd, tmp = tempfile.mkstemp(dir=directory, suffix=".tmp")
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    return path


def lasting_code_dir() -> str:
    path = os.path.join(tempfile.gettempdir(), f"modelcheck-code-{os.getuid()}")
    os.makedirs(path, exist_ok=True)
    return path


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
