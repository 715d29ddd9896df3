"""A model's compiled kernel, called on numpy batches of packed states.

``compile_kernel`` builds (or loads from the cache, once checked:
``modelcheck.backends.native``) the C kernel of
``modelcheck.backends.c_codegen`` and wraps it for the batch engines:
``successors`` and ``predicates`` take a (words, n) uint64 chunk, as the
numpy kernel's callers hold it, and split its states into ranges, one per
worker thread. C runs without the GIL, so the threads run on separate
cores; each range writes its own part of the output, so the result does not
depend on how many workers there are.
"""

from __future__ import annotations

import ctypes
import mmap
import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import numpy as np

from modelcheck.backends import builder, native
from modelcheck.backends.c_codegen import FLAGS, kernel_source
from modelcheck.backends.native import Built, LibraryUnavailable

__all__ = ["CompiledKernel", "LibraryUnavailable", "compile_kernel", "default_workers", "is_building", "is_built",
           "kernel_source_of", "start_build"]

PREFIX = "kernel"  # of the libraries' names in the kernel cache

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
class Fresh:
    """A chunk's successors that were not visited yet (repeats among them
    included), in the reference engine's order: words, parent index within
    the chunk, action instance, fingerprint; how many successors were made in
    all, and the first state without any (-1 if none)."""

    words: np.ndarray
    parents: np.ndarray
    actions: np.ndarray
    fps: np.ndarray
    generated: int
    stuck: int


@dataclass
class _Run:
    """One thread's part of ``unvisited_successors``."""

    pieces: list = field(default_factory=list)
    made: int = 0
    stuck: int = -1


def joined(runs: list[_Run]) -> Fresh:
    """The parts of consecutive ranges of a chunk, in order, as one ``Fresh``."""
    pieces = [piece for run in runs for piece in run.pieces]
    stuck = [run.stuck for run in runs if run.stuck >= 0]
    return Fresh(np.concatenate([p[0] for p in pieces], axis=1), np.concatenate([p[1] for p in pieces]),
                 np.concatenate([p[2] for p in pieces]), np.concatenate([p[3] for p in pieces]),
                 sum(run.made for run in runs), stuck[0] if stuck else -1)


@dataclass
class CompiledKernel:
    built: Built
    words: int
    instances: int
    predicate_names: list[str]
    workers: int = 1
    fingerprint_dtype: np.dtype = np.dtype(np.uint64)  # of one fingerprint: 64 bits, or 128 (packing.FP128)
    quick: bool = False  # built by the quick compiler (tcc), not the optimising one
    _pool: ThreadPoolExecutor | None = field(default=None, repr=False)
    _fresh_per_state: float = field(default=1.0, repr=False)  # unvisited successors per state, lately

    def __post_init__(self):
        lib = self.built.library
        lib.mc_count.argtypes = [_PTR, _I64, _I64, _I64, _PTR, _PTR]
        lib.mc_fill.argtypes = [_PTR, _I64, _I64, _I64, _PTR, _PTR, _PTR, _I64, _PTR, _PTR, _PTR]
        lib.mc_predicates.argtypes = [_PTR, _I64, _I64, _I64, _PTR]
        lib.mc_expand.argtypes = [_PTR, _I64, _I64, _I64, _PTR, _PTR, _I64, _PTR, _I64, _PTR, _PTR, _PTR, _PTR]
        lib.mc_expand.restype = _I64
        lib.mc_set_add.argtypes = [_PTR, _PTR, _PTR, _I64, _PTR, _I64, _I64, _I64, _PTR]
        lib.mc_set_lacks.argtypes = [_PTR, _PTR, _PTR, _I64, _PTR, _I64, _I64, _I64]
        lib.mc_set_split.argtypes = [_PTR, _I64, _I64, _PTR]
        lib.mc_set_rehash.argtypes = [_PTR, _I64, _PTR, _I64]
        lib.mc_set_remove.argtypes = [_PTR, _PTR, _PTR, _I64, _I64, _I64, _I64, _PTR]
        for f in (lib.mc_count, lib.mc_fill, lib.mc_predicates, lib.mc_set_add, lib.mc_set_lacks, lib.mc_set_split,
                  lib.mc_set_rehash, lib.mc_set_remove):
            f.restype = None
        if self.workers > 1:
            self._pool = ThreadPoolExecutor(self.workers, thread_name_prefix="modelcheck-kernel")

    def _split(self, n: int, call) -> None:
        """``call(lo, hi)`` over ranges of 0..n-1, on the worker threads."""
        self.on_workers([lambda lo=lo, hi=hi: call(lo, hi) for lo, hi in _ranges(n, self.workers)])

    def on_workers(self, calls: list) -> list:
        """Each call's result, the calls run at once on the worker threads
        (the last one on this thread)."""
        if self._pool is None or len(calls) <= 1:
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
        parents, actions = np.empty(total, np.int64), np.empty(total, np.int32)
        fps = np.empty(total, self.fingerprint_dtype)
        pointers = (enabled.ctypes.data, offsets.ctypes.data, out.ctypes.data, total, parents.ctypes.data, actions.ctypes.data,
                    fps.ctypes.data)
        self._split(n, lambda lo, hi: lib.mc_fill(src, n, lo, hi, *pointers))
        return out, parents, actions, fps

    def unvisited_successors(self, words: np.ndarray, visited: "FingerprintSet") -> Fresh:
        """The successors of a chunk that ``visited`` lacks, in the reference
        engine's order, repeats among them included: generated, fingerprinted
        and looked up in one pass (``mc_expand``), so the successors already
        visited, most of them, are never written out."""
        words = np.ascontiguousarray(words, dtype=np.uint64)
        n = words.shape[1]
        tables, caps = visited.lookup_tables()
        return joined(self.on_workers([
            lambda lo=lo, hi=hi: self._expand_range(words, lo, hi, tables, caps, visited.parts)
            for lo, hi in _ranges(n, self.workers)]))

    def _expand_range(self, words: np.ndarray, lo: int, hi: int, tables, caps: np.ndarray, parts: int) -> "_Run":
        """``mc_expand`` over states lo..hi-1, in as many calls as its output
        buffers take: each is sized by the unvisited successors per state of
        the states expanded last."""
        lib, n, run = self.built.library, words.shape[1], _Run()
        status = np.zeros(3, np.int64)
        per_state = self._fresh_per_state
        while lo < hi:
            cap = int((hi - lo) * per_state * 1.25) + 64 + self.instances
            out, fps = np.empty((self.words, cap), np.uint64), np.empty(cap, self.fingerprint_dtype)
            parents, actions = np.empty(cap, np.int64), np.empty(cap, np.int32)
            written = lib.mc_expand(words.ctypes.data, n, lo, hi, tables, caps.ctypes.data, parts, out.ctypes.data,
                                    cap, parents.ctypes.data, actions.ctypes.data, fps.ctypes.data,
                                    status.ctypes.data)
            run.pieces.append((out[:, :written], parents[:written], actions[:written], fps[:written]))
            run.made += int(status[1])
            if run.stuck < 0 and status[2] >= 0:
                run.stuck = int(status[2])
            per_state = max(0.25, 1.5 * written / max(1, int(status[0]) - lo))  # as the states just expanded
            lo = int(status[0])
        self._fresh_per_state = per_state  # the next chunk's first guess (a race between threads is harmless)
        return run

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

    def fingerprint_set(self, fps: np.ndarray | None = None, room=None) -> "FingerprintSet":
        """A set of fingerprints held in a hash table, holding ``fps``;
        ``room``: see ``FingerprintSet``."""
        found = FingerprintSet(self, 0 if fps is None else fps.size, room)
        if fps is not None:  # a slice at a time: ``fps`` may be mapped from a file larger than the memory
            for start in range(0, fps.size, ADD_AT_ONCE):
                found.add(fps[start:start + ADD_AT_ONCE])
        return found

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown()
            self._pool = None


MAX_LOAD = 0.7  # of a table, before it grows
# of a table whose growth was refused (--max-memory): it fills up to this instead, its probes longer (linear
# probing: about 50 slots for a fingerprint not in it, against 6 at MAX_LOAD), rather than stop the search
CROWDED_LOAD = 0.9
ADD_AT_ONCE = 1 << 22  # fingerprints added to a set at a time when it is made from many


def _first_word(fps: np.ndarray) -> np.ndarray:
    """The fingerprints' first words (the 64-bit fingerprints themselves)."""
    return fps if fps.dtype.names is None else fps["hi"]


def _held(slots: np.ndarray) -> np.ndarray:
    """Mask of the table slots that hold a fingerprint (an empty one is all 0)."""
    if slots.dtype.names is None:
        return slots != 0
    return (slots["hi"] != 0) | (slots["lo"] != 0)


def _either(rows: np.ndarray) -> np.ndarray:
    """The workers' flags (one row per worker, each 0 outside its parts) as one boolean mask."""
    if rows.shape[0] == 1:
        return rows[0].view(np.bool_)
    return np.bitwise_or.reduce(rows, axis=0).view(np.bool_)


HUGE_PAGE_TABLE = 1 << 21  # bytes: a table this large is asked to sit on huge pages


def _zeroed_table(slots: int) -> np.ndarray:
    """``slots`` zeroed uint64 slots. A large table gets its own mapping,
    asked to sit on huge pages where the system has them: its probes land
    anywhere in it, and with 4 KiB pages nearly each one would also miss the
    address cache (TLB). The mapping is private: a shared one is shared
    memory to the system, which it puts on huge pages only if told to for
    all shared memory, and which --max-memory, counting the memory not
    backed by a file or shared, would not see."""
    size = slots * 8
    if size < HUGE_PAGE_TABLE or not hasattr(mmap, "MADV_HUGEPAGE"):
        return np.zeros(slots, np.uint64)
    memory = mmap.mmap(-1, size, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    try:
        memory.madvise(mmap.MADV_HUGEPAGE)
    except OSError:  # huge pages switched off: ordinary pages
        pass
    return np.frombuffer(memory, np.uint64)


def _capacity(count: int) -> int:
    """Slots for ``count`` fingerprints: a power of two, at most half full."""
    return max(1 << 14, 1 << (2 * count).bit_length())


def _capacity_for(count: int) -> int:
    """Slots for a table made to hold ``count`` fingerprints and more to
    come: the smallest power of two it fills to at most 60%."""
    cap = 1 << 14
    while count > 0.6 * cap:
        cap <<= 1
    return cap


# Parts of the visited set per worker thread. A table that grows holds its
# old slots and its new ones, twice as many, at once: with one table per
# thread, growing took half as much again as the grown set; with four parts
# per thread, each growing in turn, it takes at most a quarter more.
PARTS_PER_WORKER = 4


class FingerprintSet:
    """Fingerprints in open-addressing hash tables (the kernel's C code):
    adding and looking up a batch cost a probe per fingerprint, not a sort.
    The set is split into parts, each a table of its own, and each worker
    thread owns a run of parts: adding a batch is shared between the
    threads, each part still meets its fingerprints in the batch's order,
    and the tables grow a part at a time."""

    def __init__(self, kernel: CompiledKernel, expected: int = 0, room=None):
        self.kernel = kernel
        # called with the bytes of the tables a growth is about to make, which it may refuse by raising
        # (--max-memory: a table is in memory once made, and a growth can take a quarter of the set more)
        self.room = room if room is not None else (lambda nbytes: None)
        self.parts = kernel.workers * PARTS_PER_WORKER
        self.shares = [(w * PARTS_PER_WORKER, (w + 1) * PARTS_PER_WORKER) for w in range(kernel.workers)]
        # room for its share in each part, as full as a table gets after growing (a set made from a
        # checkpoint of a large search takes the tables the search had, not twice as large)
        self.caps = [_capacity_for(-(-expected // self.parts))] * self.parts
        self.dtype = kernel.fingerprint_dtype
        self.slot_bytes = self.dtype.itemsize  # 8, or 16 for 128-bit fingerprints
        self.room(self.nbytes)  # asked before any table is made: a refusal (raised) leaves nothing allocated
        self.tables = [self._table(cap) for cap in self.caps]
        self.counts = [0] * self.parts
        self.crowded = False  # whether a table filled past MAX_LOAD, its growth refused

    def __len__(self) -> int:
        return sum(self.counts)

    def _table(self, cap: int) -> np.ndarray:
        """A zeroed table of ``cap`` slots and the slot that marks the fingerprint 0."""
        return _zeroed_table((cap + 1) * self.slot_bytes // 8).view(self.dtype)

    @property
    def nbytes(self) -> int:
        """The bytes of its tables."""
        return sum((cap + 1) * self.slot_bytes for cap in self.caps)

    def lookup_tables(self):
        """The parts' tables and capacities as the C functions read them."""
        return (ctypes.c_void_p * self.parts)(*[t.ctypes.data for t in self.tables]), np.array(self.caps, np.int64)

    def _make_room(self, fps: np.ndarray) -> None:
        incoming = [fps.size] * self.parts  # at most; counted per part only when that might not fit
        if any(c + fps.size > MAX_LOAD * cap for c, cap in zip(self.counts, self.caps)):
            incoming = np.zeros(self.parts, np.int64)
            self.kernel.built.library.mc_set_split(fps.ctypes.data, fps.size, self.parts, incoming.ctypes.data)
        growing = [part for part, more in enumerate(incoming) if self.counts[part] + int(more) > MAX_LOAD * self.caps[part]]
        if growing:  # asked before any table changes: a refusal leaves the set as it was
            try:
                self.room(sum(_capacity(self.counts[part] + int(incoming[part])) + 1 for part in growing)
                          * self.slot_bytes)
            except Exception:
                if any(self.counts[part] + int(incoming[part]) > CROWDED_LOAD * self.caps[part] for part in growing):
                    raise
                self.crowded = True  # no room to grow: the tables fill further instead
                return
        self.kernel.on_workers([lambda part=part: self._grow(part, self.counts[part] + int(incoming[part]))
                                for part in growing])

    def _grow(self, part: int, needed: int) -> None:
        """Moves one part into a table with room for ``needed``."""
        cap = _capacity(needed)
        table = self._table(cap)
        self.kernel.built.library.mc_set_rehash(self.tables[part].ctypes.data, self.caps[part], table.ctypes.data, cap)
        self.tables[part], self.caps[part] = table, cap

    def _on_shares(self, call) -> list:
        """``call(worker, lo, hi)`` for each worker's run of parts, on the worker threads."""
        return self.kernel.on_workers([lambda w=w, lo=lo, hi=hi: call(w, lo, hi)
                                       for w, (lo, hi) in enumerate(self.shares)])

    def add(self, fps: np.ndarray) -> np.ndarray:
        """Adds the fingerprints in order; returns which of them were new
        (the first of repeats within ``fps`` counts as new)."""
        fps = np.ascontiguousarray(fps, dtype=self.dtype)
        self._make_room(fps)
        tables, caps = self.lookup_tables()
        fresh = np.empty((len(self.shares), fps.size), np.uint8)
        added = np.zeros(self.parts, np.int64)
        add = self.kernel.built.library.mc_set_add
        self._on_shares(lambda w, lo, hi: add(tables, caps.ctypes.data, fps.ctypes.data, fps.size,
                                              fresh[w].ctypes.data, self.parts, lo, hi, added[lo:].ctypes.data))
        self.counts = [c + int(a) for c, a in zip(self.counts, added)]
        return _either(fresh)

    def remove(self, fps: np.ndarray) -> None:
        """Takes the fingerprints (each in the set) out again."""
        fps = np.ascontiguousarray(fps, dtype=self.dtype)
        tables, caps = self.lookup_tables()
        removed = np.zeros(self.parts, np.int64)
        remove = self.kernel.built.library.mc_set_remove
        self._on_shares(lambda w, lo, hi: remove(tables, caps.ctypes.data, fps.ctypes.data, fps.size, self.parts,
                                                 lo, hi, removed[lo:].ctypes.data))
        self.counts = [c - int(r) for c, r in zip(self.counts, removed)]

    def unseen(self, fps: np.ndarray) -> np.ndarray:
        """Mask of the fingerprints not in the set."""
        fps = np.ascontiguousarray(fps, dtype=self.dtype)
        tables, caps = self.lookup_tables()
        out = np.empty((len(self.shares), fps.size), np.uint8)
        lacks = self.kernel.built.library.mc_set_lacks
        self._on_shares(lambda w, lo, hi: lacks(tables, caps.ctypes.data, fps.ctypes.data, fps.size,
                                                out[w].ctypes.data, self.parts, lo, hi))
        return _either(out)

    def held_chunks(self, slots: int = 1 << 24):
        """Every fingerprint held, in no particular order, a slice of a
        table at a time: never the whole set in memory at once."""
        for table, cap in zip(self.tables, self.caps):
            for start in range(0, cap, slots):
                part = table[start:min(start + slots, cap)]
                yield part[_held(part)]
            if _first_word(table[cap:cap + 1])[0]:
                yield np.zeros(1, self.dtype)

    @property
    def fps(self) -> np.ndarray:
        """Every fingerprint held, sorted."""
        return np.sort(np.concatenate(list(self.held_chunks())))


def kernel_source_of(model, packing, predicate_names: list[str], instances=None) -> str:
    """The C source of a model's Next (or of another list of action
    instances) and of the named predicates."""
    instances = model.instances if instances is None else instances
    exprs = {**model.invariants, **model.sometimes}
    return kernel_source(instances, [exprs[n] for n in predicate_names], packing)


def is_built(source: str, cache_dir: str | None = None, quick: bool = False) -> bool:
    """Whether the kernel cache seems to hold the library of ``source``
    (``compile_kernel`` checks it before loading it); ``quick``: the quick
    compiler's."""
    if quick:
        cc = native.quick_compiler()
        return cc is not None and native.is_cached(source, PREFIX, native.QUICK_FLAGS, cache_dir, cc)
    return native.is_cached(source, PREFIX, FLAGS, cache_dir)


def build(source: str, cache_dir: str | None = None, started_compiler=None, quick: bool = False) -> Built:
    """The library of a kernel's C source, checked from the cache or built
    into it (``quick``: by the quick compiler). Raises ``LibraryUnavailable``."""
    if quick:
        cc = native.quick_compiler()
        if cc is None:
            raise LibraryUnavailable("no quick compiler (tcc) found")
        return native.load(source, PREFIX, native.QUICK_FLAGS, cache_dir, started_compiler, cc)
    return native.load(source, PREFIX, FLAGS, cache_dir, started_compiler)


def start_build(source: str, cache_dir: str | None = None) -> tuple[str, int | None]:
    """Starts the optimised build of a kernel's source in a detached process
    that finishes it even if this one ends first (``builder.start_detached``:
    "cached", "building", "started", or why it failed before; and the
    builder's process id, when one was started). Raises
    ``LibraryUnavailable``."""
    return builder.start_detached(source, PREFIX, FLAGS, cache_dir_given=cache_dir)


def is_building(source: str, cache_dir: str | None = None) -> bool:
    """Whether the optimised build of a kernel's source is under way."""
    try:
        return native.is_building(source, PREFIX, FLAGS, native.compiler(), cache_dir)
    except LibraryUnavailable:
        return False


def compile_kernel(model, packing, predicate_names: list[str], workers: int = 1, instances=None,
                   cache_dir: str | None = None, source: str | None = None,
                   started_compiler=None, quick: bool = False) -> CompiledKernel:
    """The compiled kernel of ``kernel_source_of`` (``source``, when it is
    given already); ``quick``: by the quick compiler. Raises ``LibraryUnavailable``."""
    count = len(model.instances if instances is None else instances)
    source = kernel_source_of(model, packing, predicate_names, instances) if source is None else source
    return CompiledKernel(build(source, cache_dir, started_compiler, quick), packing.words, count,
                          list(predicate_names), workers, getattr(packing, "fingerprint_dtype", np.dtype(np.uint64)),
                          quick=quick)
