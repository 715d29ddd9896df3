"""The reachable state graph that liveness is checked on, as flat arrays.

The engines that declare the state-graph capability record it during their
own search (``modelcheck/capabilities/liveness/record.py``): the reference engine state by
state, the fast engine level by level. Both give the same ``StateGraph``, up
to the numbering of its nodes, which is breadth-first, so the tree of first
discoveries gives a shortest path to every node.

Edges are the distinct state-changing steps (s, t) with t != s: a step that
leaves the state unchanged is a stuttering step, which TLA+ allows anywhere
and the cycle search adds by itself. For each fairness condition of the
chosen specification the graph records

* where its action is enabled as ``<<A>>_vars`` (some instance has a
  successor different from the state), and
* which edges are A-steps: some instance of A, applied to s, gives t. An edge
  found through one action may satisfy another one too, and a fair action
  need not belong to Next at all; what counts is the step.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from modelcheck.language.expr import Expr


@dataclass
class StateGraph:
    count: int
    initial: np.ndarray  # node numbers of the initial states
    tree_parent: np.ndarray  # int64: first-discovery parent, -1 for an initial state
    tree_instance: np.ndarray  # int32: the Next instance of that tree edge (-1 - k for initial state k)
    src: np.ndarray  # int32 (int64 past 2**31 states), one entry per distinct state-changing step
    dst: np.ndarray  # the same
    instance: np.ndarray  # int32: a Next instance that takes the step
    fair_taken: np.ndarray  # uint64 bitmask per edge: fairness condition i's action is satisfied by it
    fair_enabled: np.ndarray  # uint64 bitmask per node: <<A_i>>_vars enabled there
    on_nodes: Callable[[dict[str, Expr]], dict[str, np.ndarray]]  # state conditions on every node
    on_edges: Callable[[dict[str, Expr]], dict[str, np.ndarray]]  # step conditions on every edge
    state: Callable[[int], tuple]  # a node's state
    depth: int  # breadth-first levels, the initial states being level 1
    # strongly connected components of (count, src, dst): a label per node
    scc: Callable[[int, np.ndarray, np.ndarray], np.ndarray] | None = None
    # on a quotient (under symmetry): the renamings the nodes stand for, a
    # modelcheck.search.canonical.Stabiliser; each edge is then a genuine step from
    # its source, and ``dst`` the representative of the state it reaches
    group: object = None
    indptr: np.ndarray | None = None  # CSR row pointers of the edges (sorted by source), once known

    @property
    def edges(self) -> int:
        return int(self.src.size)


def unique_sorted(a: np.ndarray) -> np.ndarray:
    """The distinct values of ``a``, sorted. (Sorting beats numpy's hashing
    ``unique`` by several times on the arrays this module handles.)"""
    a = np.sort(a)
    keep = np.ones(a.size, bool)
    keep[1:] = a[1:] != a[:-1]
    return a[keep]


def distinct_steps(src: np.ndarray, dst: np.ndarray, instance: np.ndarray, count: int):
    """Drop stuttering steps and repeated (s, t) pairs, keeping the first
    instance that takes each step; sorted by source."""
    moving = src != dst
    src, dst, instance = src[moving], dst[moving], instance[moving]
    keys, first = np.unique(src.astype(np.int64) * count + dst, return_index=True)
    return keys // count, keys % count, instance[first]


def narrow(numbers: np.ndarray, count: int) -> np.ndarray:
    """Node numbers in 4 bytes each when the graph has fewer than 2**31 nodes."""
    return numbers.astype(np.int32) if count < 2 ** 31 and numbers.dtype != np.int32 else numbers


def _pairs(first: np.ndarray, second: np.ndarray) -> np.ndarray:
    pairs = np.empty(first.size, dtype=[("a", "<i8"), ("b", "<u8")])
    pairs["a"], pairs["b"] = first, second
    return pairs


def distinct_moves(src: np.ndarray, dst: np.ndarray, instance: np.ndarray, target_fp: np.ndarray,
                   node_fp: np.ndarray):
    """The steps of a quotient graph: from each representative, its genuine
    state-changing steps, one per distinct target state (``target_fp``, the
    fingerprint of the state reached before it is replaced by its
    representative ``dst``), keeping the first instance that takes each;
    sorted by source, then target fingerprint. A step whose target is
    another member of its source's orbit stays, as an edge from a node to
    itself: it changes the state, so it is no stuttering step."""
    moving = target_fp != node_fp[src]
    src, dst, instance, target_fp = src[moving], dst[moving], instance[moving], target_fp[moving]
    _, first = np.unique(_pairs(src, target_fp), return_index=True)
    return src[first], dst[first], instance[first], target_fp[first]


def mark_moves(src: np.ndarray, target_fp: np.ndarray, taken_src: np.ndarray, taken_fp: np.ndarray) -> np.ndarray:
    """Which quotient steps (as ``distinct_moves`` leaves them) are among the
    given genuine steps (source node, fingerprint of the state reached)."""
    marked = np.zeros(src.size, dtype=bool)
    if taken_src.size == 0 or src.size == 0:
        return marked
    keys, taken = _pairs(src, target_fp), _pairs(taken_src, taken_fp)
    pos = np.minimum(np.searchsorted(keys, taken), keys.size - 1)
    marked[pos[keys[pos] == taken]] = True
    return marked


def mark_steps(src: np.ndarray, dst: np.ndarray, count: int, taken_src: np.ndarray, taken_dst: np.ndarray):
    """Which (src, dst) edges (sorted and distinct, as distinct_steps leaves
    them) are among the given steps."""
    marked = np.zeros(src.size, dtype=bool)
    if taken_src.size == 0 or src.size == 0:
        return marked
    keys = src.astype(np.int64) * count + dst
    taken = taken_src.astype(np.int64) * count + taken_dst
    pos = np.minimum(np.searchsorted(keys, taken), keys.size - 1)
    marked[pos[keys[pos] == taken]] = True
    return marked
