"""Fingerprints as the Spark steps sort, search and route them: 64 bits, or 128.

A 128-bit fingerprint is a pair (``modelcheck.language.packing.FP128``)
whose first word, ``hi``, is the 64-bit fingerprint itself and whose second,
``lo``, is a second mix of the state's words. Everything structural works
on ``hi``, as at 64 bits: the partition a state belongs to, and the
searches of the anti-join. ``lo`` goes along and decides equality: two
states are the same only if both words are.

So a run of the visited set is sorted by ``hi``, then ``lo``, and two of
its states share a ``hi`` only where their 64-bit fingerprints collide
(the event the 128 bits are for: about n^2/2^65 over a search of n
states). A search first compares the entry ``hi`` leads to, and only where
``hi`` matches and ``lo`` does not looks at the other entries of that
``hi``, one by one: a path that rare collisions alone take. Sorting takes
``lo`` in as a second key, which costs more than sorting 64-bit words.

On disk a run holds ``hi`` as ``fps`` (as at 64 bits) and ``lo`` as ``fps_lo``.
"""

from __future__ import annotations

import numpy as np

from modelcheck.language.packing import FP128


def wide(fps: np.ndarray) -> bool:
    return fps.dtype == FP128


def empty(like: np.ndarray | np.dtype) -> np.ndarray:
    return np.zeros(0, like if isinstance(like, np.dtype) else like.dtype)


def head(fps: np.ndarray) -> np.ndarray:
    """The 64-bit fingerprints: the whole of them, or the first word of 128."""
    return fps["hi"] if wide(fps) else fps


def partition_of(fps: np.ndarray, partitions: int) -> np.ndarray:
    return head(fps) % np.uint64(partitions)


def as_int(fp) -> int:
    """One fingerprint as a Python integer (a 128-bit one as hi * 2^64 + lo)."""
    if isinstance(fp, np.void) or (hasattr(fp, "dtype") and fp.dtype == FP128):
        return (int(fp["hi"]) << 64) | int(fp["lo"])
    return int(fp)


def smallest(fps: np.ndarray) -> int:
    """The smallest fingerprint of a non-empty array, as an integer."""
    if not wide(fps):
        return int(fps.min())
    hi = fps["hi"]
    low = hi == hi.min()
    return as_int(fps[low][np.argmin(fps["lo"][low])])


def order_of(fps: np.ndarray) -> np.ndarray:
    """The positions that sort distinct fingerprints by ``hi``, then ``lo``.
    At 128 bits the sort is by ``hi`` alone, as fast as at 64, unless two
    share a ``hi`` (a 64-bit collision): then by both."""
    if not wide(fps):
        return np.argsort(fps, kind="stable")
    order = np.argsort(fps["hi"], kind="stable")
    hi = fps["hi"][order]
    if np.any(hi[1:] == hi[:-1]):
        return np.lexsort((fps["lo"], fps["hi"]))
    return order


def first_of_each(fps: np.ndarray, key: np.ndarray) -> np.ndarray:
    """Positions of the distinct fingerprints, each the one with the least
    ``key``, in the order of ``order_of``. At 128 bits the candidates are
    sorted by ``hi`` and key, as at 64; only if some ``hi`` comes with two
    ``lo`` (a 64-bit collision) by all three."""
    order = np.lexsort((key, head(fps)))
    ordered = head(fps)[order]
    first = np.ones(order.size, dtype=bool)
    first[1:] = ordered[1:] != ordered[:-1]
    if wide(fps):
        lo = fps["lo"][order]
        run_start = np.flatnonzero(first)[np.cumsum(first) - 1]
        if np.any(lo != lo[run_start]):  # a hi of two states: sort by both words
            order = np.lexsort((key, fps["lo"], fps["hi"]))
            ordered = fps[order]
            first = np.ones(order.size, dtype=bool)
            first[1:] = (ordered["hi"][1:] != ordered["hi"][:-1]) | (ordered["lo"][1:] != ordered["lo"][:-1])
    return order[first]


def contains(sorted_fps: np.ndarray, fps: np.ndarray) -> np.ndarray:
    """A mask over ``fps``: which appear in ``sorted_fps`` (sorted by ``order_of``)."""
    if len(sorted_fps) == 0 or len(fps) == 0:
        return np.zeros(len(fps), dtype=bool)
    hi_sorted, hi = head(sorted_fps), head(fps)
    at = np.searchsorted(hi_sorted, hi)
    at[at == len(sorted_fps)] = 0
    same_hi = hi_sorted[at] == hi
    if not wide(fps):
        return same_hi
    found = same_hi & (sorted_fps["lo"][at] == fps["lo"])
    for k in np.flatnonzero(same_hi & ~found):  # a 64-bit collision: look at the others of that hi
        j = at[k] + 1
        while j < len(sorted_fps) and hi_sorted[j] == hi[k]:
            if sorted_fps["lo"][j] == fps["lo"][k]:
                found[k] = True
                break
            j += 1
    return found


def merged(before: np.ndarray, new: np.ndarray) -> np.ndarray:
    """Two sorted arrays of distinct fingerprints, none in both, as one."""
    if len(before) == 0 or len(new) == 0:
        return new if len(before) == 0 else before
    at = np.searchsorted(head(before), head(new))
    if not wide(before):
        return np.insert(before, at, new)
    hits = at < len(before)
    if np.any(head(before)[at[hits]] == head(new)[hits]) or np.any(head(new)[1:] == head(new)[:-1]):
        both = np.concatenate([before, new])  # a hi shared with another state: sort by both words
        return both[order_of(both)]
    return np.insert(before, at, new)


def locate(sorted_fps: np.ndarray, fp: int) -> int | None:
    """Where the fingerprint ``fp`` (an integer) is in a sorted array, or None."""
    hi, lo = (fp >> 64, fp & ((1 << 64) - 1)) if wide(sorted_fps) else (fp, None)
    heads = head(sorted_fps)
    at = int(np.searchsorted(heads, np.uint64(hi)))
    while at < len(sorted_fps) and int(heads[at]) == hi:
        if lo is None or int(sorted_fps["lo"][at]) == lo:
            return at
        at += 1
    return None


def is_sorted_and_distinct(fps: np.ndarray) -> bool:
    if not wide(fps):
        return not np.any(fps[1:] <= fps[:-1])
    hi, lo = fps["hi"], fps["lo"]
    return not np.any((hi[1:] < hi[:-1]) | ((hi[1:] == hi[:-1]) & (lo[1:] <= lo[:-1])))


def to_arrays(name: str, fps: np.ndarray) -> dict[str, np.ndarray]:
    """A fingerprint array as the uint64 arrays a file holds: ``name`` (and ``name_lo``)."""
    if not wide(fps):
        return {name: fps}
    return {name: np.ascontiguousarray(fps["hi"]), f"{name}_lo": np.ascontiguousarray(fps["lo"])}


def from_arrays(data, name: str) -> np.ndarray:
    """The fingerprint array ``to_arrays`` wrote under ``name``."""
    if f"{name}_lo" not in getattr(data, "files", data):
        return data[name]
    out = np.empty(len(data[name]), FP128)
    out["hi"], out["lo"] = data[name], data[f"{name}_lo"]
    return out
