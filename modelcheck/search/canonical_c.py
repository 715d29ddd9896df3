"""Orbit representatives of packed states, in C.

The same function of the state as ``Canonicaliser.columns`` in
``modelcheck.search.canonical`` (signatures, a stable sort of the replicas by
signature, the least image over the orderings of tied replicas), worked out
state by state in a small C routine instead of over whole numpy batches: it
unpacks a state's words, canonicalises it and packs it back, with no
temporaries the size of the batch. Its source is fixed; what it needs of a
model (where each slot lives in the words, which slots a renaming moves, the
signature weights, the permutations of each tie pattern) is passed as arrays.

The routine is built once with the system C compiler (``$CC``, else ``cc``,
``gcc`` or ``clang``) into the kernel cache and loaded from there once
checked, as the fast engine's kernels are (``modelcheck.backends.native``).
When it can be neither built nor loaded, ``load()`` gives None and the
canonicaliser stays on numpy, with the same results (said in one line,
unless there is no compiler at all).
"""

from __future__ import annotations

import ctypes
import os
from concurrent.futures import ThreadPoolExecutor
from functools import lru_cache

import numpy as np

from modelcheck.backends import native

SOURCE = r"""
#include <stdint.h>
#include <string.h>

typedef struct {
    int64_t width, words, replicas, m, fixed;
    const int64_t *slot_word, *slot_shift, *slot_lo;
    const uint64_t *slot_mask;
    const int64_t *blocks;                       /* replicas x m */
    const int64_t *replica_slots; int64_t n_replica_slots;
    const int64_t *set_slots; int64_t n_set_slots;
    const int64_t *plain_weights;                /* m */
    const int64_t *named; int64_t n_named;       /* block positions holding a replica */
    const int64_t *sets; int64_t n_sets;         /* block positions holding a set */
    const int64_t *shared_replica; int64_t n_shared_replica;
    const int64_t *shared_set; int64_t n_shared_set;
    const int64_t *feature_weights;
    const int64_t *perm_start;                   /* per tie pattern, into perms (in permutations) */
    const int64_t *perms;                        /* replicas entries each */
} roles_t;

static int popcount8(int64_t v) {
    static const unsigned char bits[16] = {0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4};
    return bits[v & 0xF] + bits[(v >> 4) & 0xF];
}

static void signatures(const roles_t *r, const int64_t *col, int64_t *sig) {
    int64_t R = r->replicas, m = r->m;
    for (int64_t q = 0; q < R; q++) {
        const int64_t *b = r->blocks + q * m;
        const int64_t *w = r->feature_weights;
        uint64_t s = 0;
        for (int64_t j = 0; j < m; j++) s += (uint64_t)col[b[j]] * (uint64_t)r->plain_weights[j];
        for (int64_t i = 0; i < r->n_named; i++) {
            int64_t v = col[b[r->named[i]]];
            s += (uint64_t)(v < 0 ? 0 : (v == q ? 1 : 2)) * (uint64_t)*w++;
        }
        for (int64_t i = 0; i < r->n_sets; i++) {
            int64_t v = col[b[r->sets[i]]];
            s += (uint64_t)(popcount8(v) * 2 + ((v >> q) & 1)) * (uint64_t)*w++;
        }
        for (int64_t i = 0; i < r->n_shared_replica; i++)
            s += (uint64_t)(col[r->shared_replica[i]] == q) * (uint64_t)*w++;
        for (int64_t i = 0; i < r->n_shared_set; i++)
            s += (uint64_t)((col[r->shared_set[i]] >> q) & 1) * (uint64_t)*w++;
        sig[q] = (int64_t)s;
    }
    if (r->fixed) {
        int64_t low = INT64_MIN;
        for (int64_t q = 0; q < R; q++)
            sig[q] = q < r->fixed ? low + q : (sig[q] > low + r->fixed ? sig[q] : low + r->fixed);
    }
}

/* the state col with replica order[i] renamed to i */
static void image(const roles_t *r, const int64_t *col, const int64_t *order, int64_t *out) {
    int64_t R = r->replicas, m = r->m, name[64];
    memcpy(out, col, sizeof(int64_t) * r->width);
    for (int64_t i = 0; i < R; i++) {
        const int64_t *to = r->blocks + i * m, *from = r->blocks + order[i] * m;
        for (int64_t j = 0; j < m; j++) out[to[j]] = col[from[j]];
        name[order[i]] = i;
    }
    for (int64_t i = 0; i < r->n_replica_slots; i++) {
        int64_t s = r->replica_slots[i];
        if (out[s] >= 0) out[s] = name[out[s]];
    }
    for (int64_t i = 0; i < r->n_set_slots; i++) {
        int64_t s = r->set_slots[i], v = out[s], renamed = 0;
        for (int64_t q = 0; q < R; q++) renamed |= ((v >> q) & 1) << name[q];
        out[s] = renamed;
    }
}

static int less(const int64_t *a, const int64_t *b, int64_t width) {
    for (int64_t j = 0; j < width; j++)
        if (a[j] != b[j]) return a[j] < b[j];
    return 0;
}

void mc_canonical(const roles_t *r, const uint64_t *in, uint64_t *out, int64_t n, int64_t lo, int64_t hi) {
    int64_t W = r->width, R = r->replicas;
    int64_t col[W], best[W], img[W], sig[R], order[R], permuted[R];
    uint64_t word[r->words];
    for (int64_t k = lo; k < hi; k++) {
        for (int64_t w = 0; w < r->words; w++) word[w] = in[w * n + k];
        for (int64_t j = 0; j < W; j++)
            col[j] = (int64_t)((word[r->slot_word[j]] >> r->slot_shift[j]) & r->slot_mask[j]) + r->slot_lo[j];
        signatures(r, col, sig);
        for (int64_t i = 0; i < R; i++) {  /* a stable insertion sort by signature */
            int64_t x = i, p = i;
            while (p > 0 && sig[order[p - 1]] > sig[x]) { order[p] = order[p - 1]; p--; }
            order[p] = x;
        }
        int64_t ties = 0;
        for (int64_t i = 0; i + 1 < R; i++) ties |= (int64_t)(sig[order[i]] == sig[order[i + 1]]) << i;
        int64_t moved = 0;
        for (int64_t i = 0; i < R; i++) moved |= order[i] != i;
        if (moved) image(r, col, order, best);
        else memcpy(best, col, sizeof(int64_t) * W);  /* the identity's image is the state itself */
        for (int64_t p = r->perm_start[ties] + 1; p < r->perm_start[ties + 1]; p++) {
            const int64_t *q = r->perms + p * R;
            for (int64_t i = 0; i < R; i++) permuted[i] = order[q[i]];
            image(r, col, permuted, img);
            if (less(img, best, W)) memcpy(best, img, sizeof(int64_t) * W);
        }
        /* the slots fill the words in order: each word is built in a register */
        for (int64_t w = 0; w < r->words; w++) out[w * n + k] = 0;
        uint64_t acc = 0;
        for (int64_t j = 0, w = 0; j < W; j++) {
            if (r->slot_word[j] != w) { out[w * n + k] = acc; acc = 0; w = r->slot_word[j]; }
            acc |= (uint64_t)(best[j] - r->slot_lo[j]) << r->slot_shift[j];
            if (j == W - 1) out[w * n + k] = acc;
        }
    }
}
"""

MAX_REPLICAS = 8  # beyond this the tables of tie permutations grow large: numpy then


class Roles(ctypes.Structure):
    _fields_ = [(name, ctypes.c_int64) for name in ("width", "words", "replicas", "m", "fixed")] + [
        (name, ctypes.c_void_p) for name in ("slot_word", "slot_shift", "slot_lo", "slot_mask", "blocks")] + [
        ("replica_slots", ctypes.c_void_p), ("n_replica_slots", ctypes.c_int64),
        ("set_slots", ctypes.c_void_p), ("n_set_slots", ctypes.c_int64),
        ("plain_weights", ctypes.c_void_p),
        ("named", ctypes.c_void_p), ("n_named", ctypes.c_int64),
        ("sets", ctypes.c_void_p), ("n_sets", ctypes.c_int64),
        ("shared_replica", ctypes.c_void_p), ("n_shared_replica", ctypes.c_int64),
        ("shared_set", ctypes.c_void_p), ("n_shared_set", ctypes.c_int64),
        ("feature_weights", ctypes.c_void_p), ("perm_start", ctypes.c_void_p), ("perms", ctypes.c_void_p)]


def default_workers() -> int:
    """The cores this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


SPLIT = 1 << 12  # states per thread, at least: below that one thread does it all


class CompiledCanonical:
    """``words(words)``: the representatives of a (words, n) uint64 batch,
    its states split between ``workers`` threads (C runs without the GIL;
    each thread writes its own columns, so the result does not depend on
    how many there are).

    ``tables`` maps the C struct's array fields to arrays (kept here, so
    that the pointers stay valid); ``sizes`` its integer fields."""

    def __init__(self, library, tables: dict[str, np.ndarray], sizes: dict[str, int], workers: int | None = None):
        self._function = library.mc_canonical
        self._function.argtypes = [ctypes.c_void_p] * 3 + [ctypes.c_int64] * 3
        self._function.restype = None
        self._tables = {k: np.ascontiguousarray(v) for k, v in tables.items()}
        self._roles = Roles(**sizes, **{k: v.ctypes.data for k, v in self._tables.items()})
        self.workers = workers or default_workers()
        self._pool = ThreadPoolExecutor(self.workers - 1, "modelcheck-canonical") if self.workers > 1 else None

    def words(self, words: np.ndarray) -> np.ndarray:
        """The representatives of the batch's states, in its order."""
        words = np.ascontiguousarray(words, dtype=np.uint64)
        out = np.empty_like(words)
        n = words.shape[1]
        parts = max(1, min(self.workers, n // SPLIT))
        bounds = [n * k // parts for k in range(parts + 1)]
        futures = [self._pool.submit(self._run, words, out, lo, hi) for lo, hi in zip(bounds[1:-1], bounds[2:])]
        try:
            self._run(words, out, bounds[0], bounds[1])  # the first part on this thread
        finally:  # the threads hold the arrays they write until they are done, even on an interrupt
            for f in futures:
                f.result()
        return out

    def _run(self, words: np.ndarray, out: np.ndarray, lo: int, hi: int) -> None:
        self._function(ctypes.byref(self._roles), words.ctypes.data, out.ctypes.data, words.shape[1], lo, hi)


FLAGS = ("-O2", "-shared", "-fPIC")  # no -march: the library may be loaded on another machine sharing the cache


def compiler() -> str | None:
    """The C compiler, or None."""
    try:
        return native.compiler()
    except native.LibraryUnavailable:
        return None


@lru_cache(maxsize=None)
def load():
    """The built routine (a ctypes library), or None when it can be neither
    built nor loaded."""
    if compiler() is None:
        return None  # numpy, as the fast engine says once when it runs
    try:
        return native.load(SOURCE, "canonical", FLAGS).library
    except native.LibraryUnavailable as e:
        native.fall_back(str(e), "the compiled orbit canonicaliser", "canonicalising with numpy")
        return None
