"""Where the fast engine keeps its levels' packed states: in memory, or,
for a level too large, in a file.

The fast engine holds two levels at a time, the one it expands and the one
it finds, and needs no other: a state's trace is rebuilt from its parent's
number and its action. On a spec with wide states (the KRaft specs: 39 and
47 words, over 300 bytes, a state) those two levels are most of the memory
a large search takes. So a level goes to a file once its states would take
more than ``spill_above`` bytes (a quarter of ``--max-memory``, or of the
machine's memory without it): the states found so far and every later
chunk are appended to it as they are found, and the level is then read
back a chunk at a time through a memory map, whose pages the system writes
back and drops as it needs the memory (and which ``--max-memory``, counting
memory not backed by a file, leaves out).

Once the levels go to files, each level's parent numbers and actions (the
parent store's 12 bytes a state, kept for the whole search and read only to
rebuild a trace) go to files of their own as well.

The files are state after state, ``(n, words)``, so that each chunk of new
states is one sequential write; a chunk read back is turned into the
``(words, k)`` columns the kernels take. They live in a private temporary
directory, removed when the search ends, however it ends. A write the disk
has no room for raises its ``OSError`` (ENOSPC) and leaves no fragment;
the engine stops the search there, as at a limit.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import weakref

import numpy as np

from modelcheck.search.expansion import Expansion
from modelcheck.language.packing import transposed


def physical_memory() -> int:
    """The machine's memory in bytes (0 where the system does not say)."""
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, ValueError, OSError):
        return 0


def spill_threshold(max_memory: int | None) -> int | None:
    """Bytes of one level's states kept in memory before the level goes to a file."""
    budget = max_memory or physical_memory()
    return budget // 4 if budget else None


def level_spill_limit(spill_above: int | None, budget: int | None, resident: int, reserved: int) -> int | None:
    """Bytes of the next level's states kept in memory before it goes to a
    file: ``spill_above``, or less when the memory left is short. The visited
    set may double (``reserved``: its tables' bytes) while the level is
    found, and the level may take half of what is left after that. Late in
    a large search, when the set's tables are most of ``budget``, every
    level goes to a file from its first state."""
    if spill_above is None or not budget:
        return spill_above
    return max(0, min(spill_above, (budget - resident - reserved) // 2))


PREFIX = "modelcheck-levels-"


def remove_abandoned() -> None:
    """Removes level directories left by searches whose process is gone (a
    run killed outright, with no chance to clean up), so that their files,
    gigabytes at the sizes that need them, do not pile up."""
    root = tempfile.gettempdir()
    for name in os.listdir(root):
        pid = name[len(PREFIX):].split("-", 1)[0]
        if not name.startswith(PREFIX) or not pid.isdigit() or int(pid) == os.getpid():
            continue
        try:
            os.kill(int(pid), 0)
        except ProcessLookupError:  # no such process: the directory is abandoned
            shutil.rmtree(os.path.join(root, name), ignore_errors=True)
        except PermissionError:  # another user's live process
            pass


class FileLevel:
    """A level's states in a file, read back a chunk at a time: ``level[:, a:b]``
    is a ``(words, b - a)`` array, as a slice of an in-memory level would be."""

    def __init__(self, path: str, words: int, n: int, owned: bool = True):
        """``owned``: the file is the search's own, removed once the level
        is done with (not so a level mapped from a checkpoint)."""
        self.path, self.words, self.n, self.owned = path, words, n, owned
        self._map = np.memmap(path, np.uint64, "r", shape=(n, words)) if n else np.zeros((0, words), np.uint64)

    @property
    def shape(self) -> tuple[int, int]:
        return self.words, self.n

    def __getitem__(self, key) -> np.ndarray:
        rows, columns = key
        if rows != slice(None):
            raise IndexError("a level on file is read by states, all words at once")
        return transposed(self._map[columns])

    def close(self) -> None:
        self._map = None
        if not self.owned:
            return
        try:
            os.remove(self.path)
        except FileNotFoundError:
            pass


class Frontier:
    """The levels' storage for one search: hands out ``LevelWriter``s and
    owns the directory of the levels that went to files."""

    def __init__(self, words: int, spill_above: int | None):
        self.words, self.spill_above = words, spill_above
        self.directory: str | None = None
        self._files = 0
        self._cleanup = None

    def writer(self, may_spill: bool = True, spill_above: int | None = None) -> "LevelWriter":
        """A writer for the next level; ``may_spill``: whether it may go to
        a file, past ``spill_above`` bytes (the frontier's own by default)."""
        if not may_spill:
            return LevelWriter(self, None)
        return LevelWriter(self, self.spill_above if spill_above is None else spill_above)

    def new_file(self) -> str:
        if self.directory is None:
            remove_abandoned()
            self.directory = tempfile.mkdtemp(prefix=f"{PREFIX}{os.getpid()}-")
            self._cleanup = weakref.finalize(self, shutil.rmtree, self.directory, True)
        self._files += 1
        return os.path.join(self.directory, f"level-{self._files}")

    @property
    def spilled(self) -> bool:
        """Whether a level has gone to a file in this search."""
        return self.directory is not None

    def keep_on_file(self, array: np.ndarray) -> np.ndarray:
        """``array`` written to a file of its own and mapped back read-only:
        the same values, its pages the system's to drop."""
        path = self.new_file()
        array = np.ascontiguousarray(array)
        try:
            with open(path, "wb") as f:  # not ndarray.tofile: its error on a full disk has no errno
                f.write(array.reshape(-1).view(np.uint8))
        except OSError:  # a full disk: no fragment left behind
            os.remove(path)
            raise
        if array.size == 0:
            return array
        return np.memmap(path, array.dtype, "r", shape=array.shape)

    def release(self, level) -> None:
        """A level the search is done with: its file, if it has one, goes."""
        if isinstance(level, FileLevel):
            level.close()

    def close(self) -> None:
        if self._cleanup is not None:
            self._cleanup()
        self.directory = None


class LevelWriter:
    """A level's new states as the chunks find them, in discovery order. Each
    chunk's part keeps its fingerprints, parents and actions in memory; its
    states stay in memory too until the level would pass ``spill_above``,
    from when on they are appended to a file."""

    def __init__(self, frontier: Frontier, spill_above: int | None):
        self.frontier, self.spill_above = frontier, spill_above
        self.parts: list[Expansion] = []
        self.in_memory = 0  # bytes of states held in the parts
        self.file = None
        self.path: str | None = None
        self.on_file = 0  # states written to the file

    def add(self, part: Expansion) -> None:
        self.parts.append(part)
        self.in_memory += part.words.nbytes
        if self.file is None and self.spill_above is not None and self.in_memory > self.spill_above:
            self.path = self.frontier.new_file()
            self.file = open(self.path, "wb")
        if self.file is not None:  # every part held so far, then each as it comes
            for p in self.parts:
                if p.words.shape[1]:
                    self.file.write(transposed(p.words))
                    self.on_file += p.words.shape[1]
                    # a new empty array: an empty slice of the old one would keep all of it in memory
                    p.words = np.empty((p.words.shape[0], 0), np.uint64)
            self.in_memory = 0

    def level(self) -> Expansion:
        """The level, the parts one after the other; its states in memory or
        as a ``FileLevel``. It takes the parts."""
        if self.file is None:
            return Expansion.concat(self.parts, self.frontier.words)
        self.file.close()
        parts, self.parts = self.parts, []
        return Expansion(np.concatenate([p.fps for p in parts]), FileLevel(self.path, self.frontier.words, self.on_file),
                         np.concatenate([p.parents for p in parts]), np.concatenate([p.actions for p in parts]))

    def discard(self) -> None:
        """An unfinished level, not wanted: its file goes."""
        if self.file is not None:
            try:
                self.file.close()
            except OSError:  # what was still buffered found the disk full: the file goes all the same
                pass
            os.remove(self.path)
            self.file = None
