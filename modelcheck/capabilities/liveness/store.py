"""Where the state graph's large arrays live: in memory, or spilled to disk.

The graph that temporary properties are checked on is kept as flat arrays
(``modelcheck.capabilities.liveness.graph``). A run with ``--max-memory`` gives the
graph's recorder a ``Store``, which checks each allocation against the limit
*before* making it, since polling resident memory between steps misses a
short peak:

* ``plan`` is told, before the graph is built, how many bytes building it
  in memory would take at most; when the memory in use plus that would pass
  the limit, the graph's own arrays (the edges, their fairness marks) are
  made by ``array`` as ``np.memmap`` files, in a private temporary
  directory (``tempfile.mkdtemp``: the system's temporary directory, never
  one of the user's);
* ``log`` keeps the steps recorded during the search in chunks, appended to
  files in that directory once the next chunk would pass the limit;
* ``need`` is asked before a temporary of the given size is made (a sort of
  one level's edges); when it would not fit, the run stops as any search
  stops at ``--max-memory``.

A write the disk has no room for stops the run as a limit does
(``DISK_FULL``); the files of the arrays are given their blocks when they
are made, so that a full disk is met there and not, fatally, on a later
write to the mapping.

``close`` removes the directory; the run calls it when the properties are
decided, and on a limit, Ctrl-C, SIGTERM or an error; the directory is also
removed when the interpreter exits.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import weakref
from pathlib import Path

import numpy as np

from modelcheck.runtime.limits import Limits, room_on_disk


class Store:
    def __init__(self, limits: Limits | None = None):
        self.limits = limits or Limits()
        self.directory: Path | None = None
        self._files = 0
        self._cleanup = None

    @property
    def spilled(self) -> bool:
        return self.directory is not None

    def _over(self, nbytes: int) -> bool:
        return self.limits.would_pass(nbytes)

    def need(self, nbytes: int) -> None:
        """Stop the run if a temporary of ``nbytes`` would pass the limit."""
        self.limits.make_room(nbytes)

    def _spill(self) -> None:
        if self.directory is None:
            with room_on_disk():
                self.directory = Path(tempfile.mkdtemp(prefix="modelcheck-graph-"))
            self._cleanup = weakref.finalize(self, shutil.rmtree, str(self.directory), True)

    def _path(self, name: str) -> Path:
        self._spill()
        self._files += 1
        return self.directory / f"{self._files}-{name}"

    def plan(self, nbytes: int) -> None:
        """Spill the arrays made from here on if ``nbytes`` more would pass the limit."""
        if self._over(nbytes):
            self._spill()

    def array(self, size: int, dtype, name: str, fill=None) -> np.ndarray:
        """A new array of ``size`` items: in memory unless ``plan`` chose disk."""
        dtype = np.dtype(dtype)
        if not self.spilled:
            return np.empty(size, dtype) if fill is None else np.full(size, fill, dtype)
        path, nbytes = self._path(name), max(size, 1) * dtype.itemsize
        with room_on_disk():
            # the file's blocks taken now: a page of a mapping the disk has no room for ends the
            # process (SIGBUS) when it is first written, where this raises ENOSPC at once
            with open(path, "wb") as f:
                os.posix_fallocate(f.fileno(), 0, nbytes)
        out = np.memmap(path, dtype, "r+", shape=(max(size, 1),))[:size]
        if fill is not None:
            out[:] = fill
        return out

    def log(self, *dtypes) -> "EdgeLog":
        return EdgeLog(self, [np.dtype(d) for d in dtypes])

    def close(self) -> None:
        if self._cleanup is not None:
            self._cleanup()
        self.directory = None


class EdgeLog:
    """Columns of equal length appended in chunks (the successors a search
    records), in memory until the limit would be passed, then in files."""

    def __init__(self, store: Store, dtypes: list[np.dtype]):
        self.store, self.dtypes = store, dtypes
        self.chunks: list[tuple[np.ndarray, ...]] = []
        self.files: list | None = None
        self.on_disk: list[int] = []  # the length of each chunk written to the files
        self.size = 0

    @property
    def nbytes(self) -> int:
        return self.size * sum(d.itemsize for d in self.dtypes)

    def append(self, *columns: np.ndarray) -> None:
        n = columns[0].size
        if self.files is None and self.store._over(sum(c.nbytes for c in columns)):
            self.files = [open(self.store._path(f"log{k}"), "wb") for k in range(len(self.dtypes))]
        if self.files is not None:
            with room_on_disk():
                for f, c, d in zip(self.files, columns, self.dtypes):
                    f.write(np.ascontiguousarray(c, d).tobytes())
            self.on_disk.append(n)
        else:
            self.chunks.append(tuple(np.asarray(c, d) for c, d in zip(columns, self.dtypes)))
        self.size += n

    def drain(self):
        """The chunks in the order they came, each let go once yielded."""
        self.chunks.reverse()
        while self.chunks:
            yield self.chunks.pop()
        if self.files is None:
            return
        with room_on_disk():
            for f in self.files:
                f.close()
        maps = [np.memmap(f.name, d, "r") for f, d in zip(self.files, self.dtypes)] if any(self.on_disk) else []
        at = 0
        for n in self.on_disk:
            yield tuple(np.array(m[at:at + n]) for m in maps) if n else tuple(np.zeros(0, d) for d in self.dtypes)
            at += n
        self.files = None
