"""A model's compiled kernel, called on numpy batches of packed states.

``compile_kernel`` builds (or loads from the cache) the C kernel of
``modelcheck.backends.c_codegen`` and wraps it for the batch engines:
``successors`` and ``predicates`` take a (words, n) uint64 chunk, as the
numpy kernel's callers hold it, and split its states into ranges, one per
worker thread. C runs without the GIL, so the threads run on separate
cores; each range writes its own part of the output, so the result does not
depend on how many workers there are.
"""

from __future__ import annotations

import ctypes
import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import numpy as np

from modelcheck.backends.c_codegen import Built, CompilerUnavailable, build, is_built, kernel_source

__all__ = ["CompiledKernel", "CompilerUnavailable", "compile_kernel", "default_workers", "is_built",
           "kernel_source_of"]

_I64, _PTR = ctypes.c_int64, ctypes.c_void_p


def default_workers() -> int:
    """The cores this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def _ranges(n: int, parts: int) -> list[tuple[int, int]]:
    """``parts`` contiguous ranges covering 0..n-1 (fewer when n is small)."""
    parts = max(1, min(parts, n // 1024 or 1))
    bounds = [n * k // parts for k in range(parts + 1)]
    return [(bounds[k], bounds[k + 1]) for k in range(parts)]


@dataclass
class CompiledKernel:
    built: Built
    words: int
    instances: int
    predicate_names: list[str]
    workers: int = 1
    _pool: ThreadPoolExecutor | None = field(default=None, repr=False)

    def __post_init__(self):
        lib = self.built.library
        lib.mc_count.argtypes = [_PTR, _I64, _I64, _I64, _PTR, _PTR]
        lib.mc_fill.argtypes = [_PTR, _I64, _I64, _I64, _PTR, _PTR, _PTR, _I64, _PTR, _PTR, _PTR]
        lib.mc_predicates.argtypes = [_PTR, _I64, _I64, _I64, _PTR]
        lib.mc_set_add.argtypes = [_PTR, _I64, _PTR, _I64, _PTR, _I64, _I64]
        lib.mc_set_add.restype = _I64
        lib.mc_set_lacks.argtypes = [_PTR, _I64, _PTR, _I64, _PTR, _I64, _I64]
        lib.mc_set_split.argtypes = [_PTR, _I64, _I64, _PTR]
        lib.mc_set_rehash.argtypes = [_PTR, _I64, _PTR, _I64]
        for f in (lib.mc_count, lib.mc_fill, lib.mc_predicates, lib.mc_set_lacks, lib.mc_set_split,
                  lib.mc_set_rehash):
            f.restype = None
        if self.workers > 1:
            self._pool = ThreadPoolExecutor(self.workers, thread_name_prefix="modelcheck-kernel")

    def _split(self, n: int, call) -> None:
        """``call(lo, hi)`` over ranges of 0..n-1, on the worker threads."""
        self.on_workers([lambda lo=lo, hi=hi: call(lo, hi) for lo, hi in _ranges(n, self.workers)])

    def on_workers(self, calls: list) -> list:
        """Each call's result, the calls run at once on the worker threads
        (the last one on this thread)."""
        if self._pool is None or len(calls) == 1:
            return [call() for call in calls]
        futures = [self._pool.submit(call) for call in calls[:-1]]
        last = calls[-1]()
        return [f.result() for f in futures] + [last]

    def successors(self, words: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Every successor of a chunk, repeats included, in the reference
        engine's order: (words, parent index within the chunk, action
        instance, fingerprint)."""
        words = np.ascontiguousarray(words, dtype=np.uint64)
        n = words.shape[1]
        lib, src = self.built.library, words.ctypes.data
        counts, enabled = np.empty(n, np.int64), np.empty(n * self.instances, np.uint8)
        self._split(n, lambda lo, hi: lib.mc_count(src, n, lo, hi, counts.ctypes.data, enabled.ctypes.data))
        offsets = np.empty(n + 1, np.int64)
        offsets[0] = 0
        np.cumsum(counts, out=offsets[1:])
        total = int(offsets[-1])
        out = np.empty((self.words, total), np.uint64)
        parents, actions, fps = np.empty(total, np.int64), np.empty(total, np.int32), np.empty(total, np.uint64)
        pointers = (enabled.ctypes.data, offsets.ctypes.data, out.ctypes.data, total, parents.ctypes.data, actions.ctypes.data,
                    fps.ctypes.data)
        self._split(n, lambda lo, hi: lib.mc_fill(src, n, lo, hi, *pointers))
        return out, parents, actions, fps

    def predicates(self, words: np.ndarray) -> dict[str, np.ndarray]:
        """Each predicate on each state of the chunk, by name."""
        words = np.ascontiguousarray(words, dtype=np.uint64)
        n = words.shape[1]
        out = np.empty((len(self.predicate_names), n), np.bool_)
        lib, src = self.built.library, words.ctypes.data
        self._split(n, lambda lo, hi: lib.mc_predicates(src, n, lo, hi, out.ctypes.data))
        return dict(zip(self.predicate_names, out))

    def first_occurrences(self, fps: np.ndarray) -> np.ndarray:
        """The positions of the first occurrence of each fingerprint, in order."""
        scratch = FingerprintSet(self, fps.size)
        return np.flatnonzero(scratch.add(fps))

    def fingerprint_set(self, fps: np.ndarray | None = None) -> "FingerprintSet":
        """A set of fingerprints held in a hash table, holding ``fps``."""
        found = FingerprintSet(self, 0 if fps is None else fps.size)
        if fps is not None:
            found.add(fps)
        return found

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown()
            self._pool = None


MAX_LOAD = 0.7  # of a table, before it grows


def _either(rows: np.ndarray) -> np.ndarray:
    """The parts' flags (one row per part, each 0 outside its part) as one boolean mask."""
    if rows.shape[0] == 1:
        return rows[0].view(np.bool_)
    return np.bitwise_or.reduce(rows, axis=0).view(np.bool_)


def _capacity(count: int) -> int:
    """Slots for ``count`` fingerprints: a power of two, at most half full."""
    return max(1 << 14, 1 << (2 * count).bit_length())


class FingerprintSet:
    """Fingerprints in open-addressing hash tables (the kernel's C code):
    adding and looking up a batch cost a probe per fingerprint, not a sort.
    The set is split into one part per worker thread, each part a table of
    its own, so adding a batch is shared between the threads while each part
    still meets its fingerprints in the batch's order."""

    def __init__(self, kernel: CompiledKernel, expected: int = 0):
        self.kernel = kernel
        self.parts = kernel.workers
        self.caps = [_capacity(expected)] * self.parts  # room for all of them in any part
        self.tables = [np.zeros(cap + 1, np.uint64) for cap in self.caps]
        self.counts = [0] * self.parts

    def __len__(self) -> int:
        return sum(self.counts)

    def _make_room(self, fps: np.ndarray) -> None:
        incoming = [fps.size] * self.parts  # at most; counted per part only when that might not fit
        if self.parts > 1 and any(c + fps.size > MAX_LOAD * cap for c, cap in zip(self.counts, self.caps)):
            incoming = np.zeros(self.parts, np.int64)
            self.kernel.built.library.mc_set_split(fps.ctypes.data, fps.size, self.parts, incoming.ctypes.data)
        for part, more in enumerate(incoming):
            needed = self.counts[part] + int(more)
            if needed > MAX_LOAD * self.caps[part]:
                cap = _capacity(needed)
                table = np.zeros(cap + 1, np.uint64)
                self.kernel.built.library.mc_set_rehash(self.tables[part].ctypes.data, self.caps[part],
                                                        table.ctypes.data, cap)
                self.tables[part], self.caps[part] = table, cap

    def add(self, fps: np.ndarray) -> np.ndarray:
        """Adds the fingerprints in order; returns which of them were new
        (the first of repeats within ``fps`` counts as new)."""
        fps = np.ascontiguousarray(fps, dtype=np.uint64)
        self._make_room(fps)
        fresh = np.empty((self.parts, fps.size), np.uint8)
        add = self.kernel.built.library.mc_set_add
        added = self.kernel.on_workers([
            lambda part=part: add(self.tables[part].ctypes.data, self.caps[part], fps.ctypes.data, fps.size,
                                  fresh[part].ctypes.data, self.parts, part)
            for part in range(self.parts)])
        self.counts = [c + a for c, a in zip(self.counts, added)]
        return _either(fresh)

    def unseen(self, fps: np.ndarray) -> np.ndarray:
        """Mask of the fingerprints not in the set."""
        fps = np.ascontiguousarray(fps, dtype=np.uint64)
        out = np.empty((self.parts, fps.size), np.uint8)
        lacks = self.kernel.built.library.mc_set_lacks
        self.kernel.on_workers([
            lambda part=part: lacks(self.tables[part].ctypes.data, self.caps[part], fps.ctypes.data, fps.size,
                                    out[part].ctypes.data, self.parts, part)
            for part in range(self.parts)])
        return _either(out)

    def held(self) -> np.ndarray:
        """Every fingerprint held, in no particular order."""
        found = []
        for table, cap in zip(self.tables, self.caps):
            slots = table[:cap]
            found.append(slots[slots != 0])
            if table[cap]:
                found.append(np.zeros(1, np.uint64))
        return np.concatenate(found)

    @property
    def fps(self) -> np.ndarray:
        """Every fingerprint held, sorted (as a checkpoint keeps them)."""
        return np.sort(self.held())


def kernel_source_of(model, packing, predicate_names: list[str], instances=None) -> str:
    """The C source of a model's Next (or of another list of action
    instances) and of the named predicates."""
    instances = model.instances if instances is None else instances
    exprs = {**model.invariants, **model.sometimes}
    return kernel_source(instances, [exprs[n] for n in predicate_names], packing)


def compile_kernel(model, packing, predicate_names: list[str], workers: int = 1, instances=None,
                   cache_dir: str | None = None, source: str | None = None,
                   started_compiler=None) -> CompiledKernel:
    """The compiled kernel of ``kernel_source_of`` (``source``, when it is
    given already). Raises ``CompilerUnavailable``."""
    count = len(model.instances if instances is None else instances)
    source = kernel_source_of(model, packing, predicate_names, instances) if source is None else source
    return CompiledKernel(build(source, cache_dir, started_compiler), packing.words, count, list(predicate_names),
                          workers)
