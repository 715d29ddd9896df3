"""The fast engine's visited set, and how each level's new states join it.

A level is expanded chunk by chunk; a successor is new if no earlier level
and no earlier successor of this level has its fingerprint, and the level's
new states are numbered in the reference engine's order (parent by parent,
each parent's action instances in order). The two forms of the set reach
that differently:

* ``SortedVisited`` (numpy kernels): one sorted array. A chunk's successors
  are checked against the levels before; the level's are made unique by
  sorting once the level is done, then inserted at once (an insert into a
  sorted array moves the whole array, so it happens once a level), and put
  back in discovery order.
* ``HashedVisited`` (compiled kernels): the kernel's hash tables
  (``FingerprintSet``). Each chunk's new states go in as they are found, so
  a later chunk's repeats of them are dropped at once, and the level, its
  chunks in order and each chunk in discovery order, needs no sorting. A
  search stopped part way through a level takes that level's states out
  again, so that the set, its count and a checkpoint hold whole levels only.
"""

from __future__ import annotations

import numpy as np

from modelcheck.search.expansion import Expansion, in_discovery_order

CHUNKS_OF = 1 << 22  # fingerprints handed out at a time


class SortedVisited:
    """The visited set as one sorted array of fingerprints."""

    hashed = None  # no hash table for the compiled kernel to look successors up in
    crowded = False

    def __init__(self, fps: np.ndarray | None = None, dtype=np.uint64):
        self.fps = fps if fps is not None else np.zeros(0, dtype=dtype)

    def __len__(self) -> int:
        return self.fps.size

    @property
    def nbytes(self) -> int:
        return self.fps.nbytes

    def unseen(self, sorted_fps: np.ndarray) -> np.ndarray:
        """Mask of the (sorted, unique) fingerprints not yet visited."""
        if self.fps.size == 0:
            return np.ones(sorted_fps.size, dtype=bool)
        pos = np.searchsorted(self.fps, sorted_fps)
        pos[pos == self.fps.size] = 0
        return self.fps[pos] != sorted_fps

    def add(self, sorted_fps: np.ndarray) -> None:
        self.fps = np.insert(self.fps, np.searchsorted(self.fps, sorted_fps), sorted_fps)

    def keep_new(self, e: Expansion) -> Expansion:
        """A chunk's successors (unique, by fingerprint) not in earlier levels."""
        return e.select(self.unseen(e.fps))

    def close_level(self, level, words: int, instances: int) -> Expansion:
        """The level's new states (a ``LevelWriter``'s, in memory), in
        discovery order, now visited."""
        merged = Expansion.merge(level.parts, words)
        self.add(merged.fps)
        return in_discovery_order(merged, instances)

    def forget(self, parts: list[Expansion]) -> None:
        """Nothing of an unfinished level was added."""

    def chunks(self):
        """Every fingerprint held, a slice at a time (for a checkpoint)."""
        for start in range(0, self.fps.size, CHUNKS_OF):
            yield self.fps[start:start + CHUNKS_OF]


class HashedVisited:
    """The visited set in a compiled kernel's hash tables."""

    def __init__(self, table):
        self.hashed = table  # a modelcheck.backends.compiled.FingerprintSet

    def __len__(self) -> int:
        return len(self.hashed)

    @property
    def nbytes(self) -> int:
        """The bytes of its tables."""
        return self.hashed.nbytes

    @property
    def crowded(self) -> bool:
        """Whether its tables filled past their usual load, --max-memory refusing their growth."""
        return self.hashed.crowded

    @property
    def fps(self) -> np.ndarray:
        return self.hashed.fps

    def unseen(self, fps: np.ndarray) -> np.ndarray:
        return self.hashed.unseen(fps)

    def add(self, fps: np.ndarray) -> None:
        self.hashed.add(fps)

    def keep_new(self, e: Expansion) -> Expansion:
        """A chunk's successors (in discovery order) seen nowhere before,
        the first of repeats among them kept; they are visited from now on."""
        return e.select(self.hashed.add(e.fps))

    def close_level(self, level, words: int, instances: int) -> Expansion:
        """The level's new states (a ``LevelWriter``'s), in discovery order
        (visited already)."""
        return level.level()

    def chunks(self):
        """Every fingerprint held, a slice of a table at a time (for a checkpoint)."""
        return self.hashed.held_chunks()

    def forget(self, parts: list[Expansion]) -> None:
        """Takes an unfinished level's states out again."""
        if parts:
            self.hashed.remove(np.concatenate([p.fps for p in parts]))
