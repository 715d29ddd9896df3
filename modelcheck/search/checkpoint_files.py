"""The array files of a fast checkpoint: written a chunk at a time, each
with its SHA-256, and read back through memory maps.

At the sizes that need checkpoints most (hundreds of millions of states,
levels of tens of gigabytes) a checkpoint must never be one array in
memory: saving streams each array to its own file from wherever it lives
(the hash tables' slots, the parent store's levels, a level already on
file), and resuming maps the files, whose pages are the system's to drop.
A level the search already keeps in a file is hard-linked into the
checkpoint where the filesystem allows it: no copy, and no second 20 GB
on the disk.
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import shutil
from typing import Iterable

import numpy as np

from modelcheck.runtime.reading import Refused, check_regular, open_regular

# every array a checkpoint holds, and its element type (little-endian, as written); a search with 128-bit
# fingerprints keeps its visited set as pairs of words (``dtypes(128)``)
DTYPES = {"level_sizes": "<i8", "parents": "<i8", "actions": "<i4", "visited": "<u8", "frontier": "<u8"}


def dtypes(fingerprint_bits: int = 64) -> dict:
    """Each array's element type, for a search with fingerprints of ``fingerprint_bits``."""
    if fingerprint_bits == 64:
        return dict(DTYPES)
    return {**DTYPES, "visited": np.dtype([("hi", "<u8"), ("lo", "<u8")])}
BLOCK = 1 << 26  # bytes read at a time to hash a file
_NO_LINK = (errno.EXDEV, errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EMLINK)


class ArrayWriter:
    """Writes a checkpoint's arrays into one new directory and records, per
    array, its shape and the SHA-256 of its bytes (``described``)."""

    def __init__(self, directory: str, types: dict | None = None):
        self.directory = directory
        self.types = types or DTYPES
        self.described: dict[str, dict] = {}

    def write(self, name: str, chunks: Iterable[np.ndarray], row: tuple[int, ...] = ()) -> None:
        """The array ``name`` as the chunks, one after the other (each of
        shape ``(k, *row)``)."""
        digest, rows = hashlib.sha256(), 0
        with open(os.path.join(self.directory, name), "xb") as f:
            for chunk in chunks:
                chunk = np.ascontiguousarray(chunk, dtype=self.types[name])
                data = memoryview(chunk.reshape(-1)).cast("B")
                f.write(data)
                digest.update(data)
                rows += chunk.shape[0] if chunk.ndim else 1
            f.flush()
            os.fsync(f.fileno())
        self.described[name] = {"shape": [rows, *row], "sha256": digest.hexdigest()}

    def link(self, name: str, source: str, shape: tuple[int, ...]) -> None:
        """The array ``name`` as the file ``source`` holds it (raw, of
        ``shape``): hard-linked, or copied where it cannot be."""
        target = os.path.join(self.directory, name)
        try:
            os.link(source, target)
        except OSError as e:
            if e.errno not in _NO_LINK:
                raise
            with open(source, "rb") as src, open(target, "xb") as dst:
                shutil.copyfileobj(src, dst, BLOCK)
                dst.flush()
                os.fsync(dst.fileno())
        expected = int(np.prod(shape)) * np.dtype(self.types[name]).itemsize
        if os.path.getsize(target) != expected:
            raise OSError(errno.EIO, f"{source} holds {os.path.getsize(target)} bytes, not {expected}")
        self.described[name] = {"shape": list(shape), "sha256": file_digest(target)[1]}

    def sync(self) -> None:
        """The directory's entries on disk, so the names survive a crash."""
        fd = os.open(self.directory, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def file_digest(path: str, cap: int | None = None) -> tuple[int, str]:
    """The size and SHA-256 of a file's bytes, read a block at a time; with
    ``cap``, refused (``Refused``) unless it is a regular file of at most
    ``cap`` bytes."""
    digest, size = hashlib.sha256(), 0
    with (open(path, "rb") if cap is None else open_regular(path, "", cap)) as f:
        while block := f.read(BLOCK):
            digest.update(block)
            size += len(block)
    return size, digest.hexdigest()


def json_digest(body: dict) -> str:
    """SHA-256 of a header or manifest, all of it but its ``digest``, as
    canonical JSON: it covers whatever digests of files the body records."""
    covered = {k: v for k, v in body.items() if k != "digest"}
    return hashlib.sha256(json.dumps(covered, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


class Damaged(Exception):
    """What is wrong with a checkpoint's files, in a few words."""


def map_arrays(directory: str, described: dict, what: str, types: dict | None = None) -> dict[str, np.ndarray]:
    """Each array the header describes, mapped read-only from its file, once
    the file is found to be a regular file of exactly its size whose bytes
    have the recorded SHA-256. Raises ``Damaged`` (``Refused`` for a file
    that is not a regular file)."""
    if not isinstance(described, dict) or set(described) != set(DTYPES):
        raise Damaged("its header does not list its arrays")
    arrays = {}
    for name, dtype in (types or DTYPES).items():
        entry = described[name]
        try:
            shape = tuple(int(n) for n in entry["shape"])
            recorded = str(entry["sha256"])
        except (KeyError, TypeError, ValueError):
            raise Damaged(f"its header does not describe {name}") from None
        if not shape or any(n < 0 for n in shape):
            raise Damaged(f"its header gives {name} an impossible shape")
        path = os.path.join(directory, name)
        try:
            info = os.stat(path)
        except FileNotFoundError:
            raise Damaged(f"{name} is missing") from None
        check_regular(info, path, what, info.st_size)
        expected = int(np.prod(shape)) * np.dtype(dtype).itemsize
        if info.st_size != expected:
            raise Damaged(f"{name} holds {info.st_size} bytes, not the {expected} its header gives")
        if file_digest(path)[1] != recorded:
            raise Damaged(f"{name} does not match the digest saved with it")
        arrays[name] = np.memmap(path, dtype, "r", shape=shape) if expected else np.zeros(shape, dtype)
    return arrays


__all__ = ["ArrayWriter", "DTYPES", "Damaged", "Refused", "dtypes", "map_arrays", "file_digest", "json_digest"]
