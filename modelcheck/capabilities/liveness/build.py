"""Building the fast engine's state graph from what its search recorded, a
level or a chunk at a time.

The search records, for each chunk of states it expands, the distinct
state-changing steps from them (``BatchedGraph.expanded``). Finishing the
graph then never sorts all the edges at once: the edges from one level's
states stay together (the search recorded them together, and the graph's
numbering keeps every state in its level), so the renumbering and the sort
by source are done one level at a time, in place, and the fairness marks
one chunk of sources at a time. Only the graph's own arrays (12 bytes per
edge, 4 more on a quotient, plus one byte of fairness marks) are as long as
the edge list; every temporary is as long as one level's edges or one
chunk's, and is asked of the ``Store`` before it is made.
"""

from __future__ import annotations

import numpy as np

from modelcheck.capabilities.liveness.graph import unique_sorted


def first_steps(parents: np.ndarray, fps: np.ndarray, source_fps: np.ndarray) -> np.ndarray:
    """Positions of a chunk's distinct state-changing steps: a successor
    whose fingerprint ``fps`` differs from its source's (``source_fps``,
    one per successor), each (parent, successor) pair at its first
    occurrence; in order of parent, then fingerprint."""
    moving = np.flatnonzero(fps != source_fps)
    order = moving[np.lexsort((fps[moving], parents[moving]))]  # stable: the first occurrence comes first
    keep = np.ones(order.size, bool)
    keep[1:] = (parents[order][1:] != parents[order][:-1]) | (fps[order][1:] != fps[order][:-1])
    return order[keep]


def sort_by_source(src: np.ndarray, dst: np.ndarray, instance: np.ndarray, target_fp, new_of: np.ndarray,
                   blocks, count: int, need) -> None:
    """Renumber the edges' ends by ``new_of`` and sort them by source, then
    by target (on a quotient: by the fingerprint ``target_fp`` of the
    genuine state reached), in place, one block of ``blocks`` at a time
    (the edges from one level, which the renumbering keeps in that level)."""
    for lo, hi in zip(blocks[:-1], blocks[1:]):
        lo, hi = int(lo), int(hi)
        if hi == lo:
            continue
        need(48 * (hi - lo))
        s, d = new_of[src[lo:hi]], new_of[dst[lo:hi]]
        order = np.argsort(s * count + d) if target_fp is None else np.lexsort((target_fp[lo:hi], s))
        src[lo:hi], dst[lo:hi] = s[order], d[order]
        instance[lo:hi] = instance[lo:hi][order]
        if target_fp is not None:
            target_fp[lo:hi] = target_fp[lo:hi][order]


def positions(ordered: np.ndarray, values: np.ndarray) -> np.ndarray:
    """``np.searchsorted(ordered, values)``, several times faster on a long
    ``ordered`` when ``values`` are unordered: they are looked up in order,
    so that each binary search starts where the last one ended and stays in
    the cache."""
    order = np.argsort(values)
    out = np.empty(values.size, np.int64)
    out[order] = np.searchsorted(ordered, values[order])
    return out


def row_starts(src: np.ndarray, count: int) -> np.ndarray:
    """CSR row pointers of edges sorted by source."""
    return np.searchsorted(src, np.arange(count + 1))


def mark_taken(indptr: np.ndarray, dst: np.ndarray, target_fp, lo: int, hi: int, parents: np.ndarray,
               found: np.ndarray) -> np.ndarray:
    """Positions of the edges from sources ``lo:hi`` that are among the
    given steps (``parents[k]`` to ``found[k]``: a node number, or on a
    quotient the fingerprint of the genuine state reached). The edges from
    those sources are ``indptr[lo]:indptr[hi]``, sorted by source and then
    by target; the match is exact, on small integer keys."""
    first, last = int(indptr[lo]), int(indptr[hi])
    if first == last or parents.size == 0:
        return np.zeros(0, np.int64)
    rows = np.repeat(np.arange(hi - lo, dtype=np.int64), np.diff(indptr[lo:hi + 1]))
    if target_fp is None:  # node numbers: (row, node) keys fit in 64 bits as they are
        width = indptr.size
        keys = rows * width + dst[first:last]
        asked = (parents - lo).astype(np.int64) * width + found
    else:  # fingerprints: as their ranks among these, so that the keys fit
        ends = target_fp[first:last]
        values = unique_sorted(np.concatenate([ends, found]))
        width = values.size
        keys = rows * width + positions(values, ends)
        asked = (parents - lo).astype(np.int64) * width + positions(values, found)
    asked = np.sort(asked)  # sorted queries: each binary search starts where the last one ended
    pos = np.minimum(np.searchsorted(keys, asked), keys.size - 1)
    return first + pos[keys[pos] == asked]



def bits_dtype(bits: int):
    """The smallest unsigned type with ``bits`` bits."""
    return next(t for t in (np.uint8, np.uint16, np.uint32, np.uint64) if np.dtype(t).itemsize * 8 >= bits)
