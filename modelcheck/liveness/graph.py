"""The reachable state graph that liveness is checked on, as flat arrays.

Both explicit engines build the same ``StateGraph``: the reference engine
state by state with the compiled Python successor function, the fast engine
level by level with its numpy kernels. Nodes are numbered in breadth-first
order, so the tree of first discoveries gives a shortest path to every node.

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

from modelcheck.expr import Expr


@dataclass
class StateGraph:
    count: int
    initial: np.ndarray  # node numbers of the initial states
    tree_parent: np.ndarray  # int64: first-discovery parent, -1 for an initial state
    tree_instance: np.ndarray  # int32: the Next instance of that tree edge (-1 - k for initial state k)
    src: np.ndarray  # int64, one entry per distinct state-changing step
    dst: np.ndarray  # int64
    instance: np.ndarray  # int32: a Next instance that takes the step
    fair_taken: np.ndarray  # uint64 bitmask per edge: fairness condition i's action is satisfied by it
    fair_enabled: np.ndarray  # uint64 bitmask per node: <<A_i>>_vars enabled there
    on_nodes: Callable[[dict[str, Expr]], dict[str, np.ndarray]]  # state conditions on every node
    on_edges: Callable[[dict[str, Expr]], dict[str, np.ndarray]]  # step conditions on every edge
    state: Callable[[int], tuple]  # a node's state
    depth: int  # breadth-first levels, the initial states being level 1

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
    keys, first = np.unique(src * count + dst, return_index=True)
    return keys // count, keys % count, instance[first]


def mark_steps(src: np.ndarray, dst: np.ndarray, count: int, taken_src: np.ndarray, taken_dst: np.ndarray):
    """Which (src, dst) edges (sorted and distinct, as distinct_steps leaves
    them) are among the given steps."""
    marked = np.zeros(src.size, dtype=bool)
    if taken_src.size == 0 or src.size == 0:
        return marked
    keys = src * count + dst
    taken = taken_src * count + taken_dst
    pos = np.minimum(np.searchsorted(keys, taken), keys.size - 1)
    marked[pos[keys[pos] == taken]] = True
    return marked


# --- the reference builder: state by state ------------------------------------------

def explore_explicit(model, fair_actions, progress) -> StateGraph:
    """Breadth-first over tuples with the compiled Python successor function."""
    from modelcheck.backends.python_codegen import compile_conditions, compile_successors
    from modelcheck.fingerprint import fingerprinter

    fingerprint = fingerprinter(model.schema)
    successors = model.compiled.successors
    number: dict[int, int] = {}
    states: list[tuple] = []
    tree_parent, tree_instance, level = [], [], []
    src, dst_fp, inst = [], [], []
    for k, state in enumerate(model.init_states):
        fp = fingerprint(state)
        if fp not in number:
            number[fp] = len(states)
            states.append(state)
            tree_parent.append(-1)
            tree_instance.append(-1 - k)
            level.append(1)
    initial = np.arange(len(states), dtype=np.int64)
    head = 0
    while head < len(states):
        state = states[head]
        for index, t in successors(state):
            fp = fingerprint(t)
            if fp not in number:
                number[fp] = len(states)
                states.append(t)
                tree_parent.append(head)
                tree_instance.append(index)
                level.append(level[head] + 1)
            src.append(head)
            dst_fp.append(number[fp])
            inst.append(index)
        head += 1
        if head & 0x3FF == 0:
            progress.note_graph(len(states), len(src))
    count = len(states)
    s_arr, d_arr, i_arr = distinct_steps(np.array(src, np.int64), np.array(dst_fp, np.int64),
                                         np.array(inst, np.int32), count)

    fair_taken = np.zeros(s_arr.size, np.uint64)
    fair_enabled = np.zeros(count, np.uint64)
    width = model.schema.width
    for bit, act in enumerate(fair_actions):
        step = compile_successors(model.instances_of(act), width, act.name)
        t_src, t_dst = [], []
        for node, state in enumerate(states):
            for _, t in step(state):
                if t == state:
                    continue
                fair_enabled[node] |= np.uint64(1 << bit)
                target = number.get(fingerprint(t))
                if target is not None:
                    t_src.append(node)
                    t_dst.append(target)
        taken = mark_steps(s_arr, d_arr, count, np.array(t_src, np.int64), np.array(t_dst, np.int64))
        fair_taken[taken] |= np.uint64(1 << bit)

    def on_nodes(exprs: dict[str, Expr]) -> dict[str, np.ndarray]:
        fns = compile_conditions(exprs, width)
        return {name: np.fromiter((fn(st) for st in states), bool, count) for name, fn in fns.items()}

    def on_edges(exprs: dict[str, Expr]) -> dict[str, np.ndarray]:
        fns = compile_conditions(exprs, 2 * width)
        return {name: np.fromiter((fn(states[a] + states[b]) for a, b in zip(s_arr.tolist(), d_arr.tolist())),
                                  bool, s_arr.size) for name, fn in fns.items()}

    return StateGraph(count, initial, np.array(tree_parent, np.int64), np.array(tree_instance, np.int32),
                      s_arr, d_arr, i_arr, fair_taken, fair_enabled, on_nodes, on_edges, lambda n: states[n],
                      max(level))


# --- the fast builder: whole levels at once ----------------------------------------------

def explore_batched(model, fair_actions, progress) -> StateGraph:
    """Level by level over packed states with the fast engine's kernels."""
    from modelcheck.backends.numpy_codegen import compile_conditions
    from modelcheck.engines.fast import CHUNK, Expander
    from modelcheck.packing import Packing, fingerprints

    packing = Packing(model.schema)
    expander = Expander(model)
    init_words = packing.pack_states(model.init_states)
    _, first = np.unique(fingerprints(init_words), return_index=True)
    order = np.sort(first)  # initial states keep the spec's order
    level = init_words[:, order]
    levels = [level]
    # the visited set: sorted fingerprints and the node number of each
    fp_of_node = fingerprints(level)
    seen_order = np.argsort(fp_of_node, kind="stable")
    seen_fps, seen_ids = fp_of_node[seen_order], seen_order.astype(np.int64)
    tree_parent = [np.full(level.shape[1], -1, np.int64)]
    tree_instance = [(-1 - order).astype(np.int32)]
    src_parts, dst_fp_parts, inst_parts = [], [], []
    count = level.shape[1]
    start = 0
    while level.shape[1]:
        new_words, new_parent, new_instance, new_fps = [], [], [], []
        for lo in range(0, level.shape[1], CHUNK):
            words, parents, instances, _ = expander.successors(level[:, lo:lo + CHUNK])
            if words.shape[1] == 0:
                continue
            fps = fingerprints(words)
            parents = parents + start + lo
            src_parts.append(parents)
            dst_fp_parts.append(fps)
            inst_parts.append(instances)
            unique, keep = np.unique(fps, return_index=True)
            pos = np.searchsorted(seen_fps, unique)
            pos[pos == seen_fps.size] = 0
            fresh = seen_fps[pos] != unique if seen_fps.size else np.ones(unique.size, bool)
            keep = keep[fresh]
            new_words.append(words[:, keep])
            new_parent.append(parents[keep])
            new_instance.append(instances[keep])
            new_fps.append(fps[keep])
        if not new_words:
            break
        fps = np.concatenate(new_fps)
        unique, keep = np.unique(fps, return_index=True)  # the same state from two chunks
        keep = np.sort(keep)
        level = np.concatenate(new_words, axis=1)[:, keep]
        ids = np.arange(count, count + keep.size, dtype=np.int64)
        tree_parent.append(np.concatenate(new_parent)[keep])
        tree_instance.append(np.concatenate(new_instance)[keep])
        level_fps = fps[keep]
        merged_fps = np.concatenate([seen_fps, level_fps])
        merged_ids = np.concatenate([seen_ids, ids])
        by_fp = np.argsort(merged_fps, kind="stable")
        seen_fps, seen_ids = merged_fps[by_fp], merged_ids[by_fp]
        start, count = count, count + keep.size
        if level.shape[1]:
            levels.append(level)
        progress.note_graph(count, sum(p.size for p in src_parts))
    all_words = np.concatenate(levels, axis=1)

    def node_of(fps: np.ndarray) -> np.ndarray:
        """Node numbers of fingerprints, -1 where the state is not in the graph."""
        pos = np.searchsorted(seen_fps, fps)
        pos[pos == seen_fps.size] = 0
        return np.where(seen_fps[pos] == fps, seen_ids[pos], -1)

    src = np.concatenate(src_parts) if src_parts else np.zeros(0, np.int64)
    dst = node_of(np.concatenate(dst_fp_parts)) if dst_fp_parts else np.zeros(0, np.int64)
    inst = np.concatenate(inst_parts) if inst_parts else np.zeros(0, np.int32)
    del src_parts, dst_fp_parts, inst_parts
    s_arr, d_arr, i_arr = distinct_steps(src, dst, inst, count)
    del src, dst, inst

    fair_taken = np.zeros(s_arr.size, np.uint64)
    fair_enabled = np.zeros(count, np.uint64)
    node_fps = fingerprints(all_words)
    for bit, act in enumerate(fair_actions):
        step = Expander(model, instances=model.instances_of(act))
        t_src, t_dst = [], []
        for lo in range(0, count, CHUNK):
            words, parents, _, _ = step.successors(all_words[:, lo:lo + CHUNK])
            if words.shape[1] == 0:
                continue
            parents = parents + lo
            fps = fingerprints(words)
            moving = fps != node_fps[parents]
            parents, fps = parents[moving], fps[moving]
            fair_enabled[parents] |= np.uint64(1 << bit)
            targets = node_of(fps)
            inside = targets >= 0
            t_src.append(parents[inside])
            t_dst.append(targets[inside])
        if t_src:
            taken = mark_steps(s_arr, d_arr, count, np.concatenate(t_src), np.concatenate(t_dst))
            fair_taken[taken] |= np.uint64(1 << bit)

    def on_nodes(exprs: dict[str, Expr]) -> dict[str, np.ndarray]:
        conditions = compile_conditions(exprs)
        out = {name: np.zeros(count, bool) for name in exprs}
        for lo in range(0, count, CHUNK):
            results = conditions(packing.unpack(all_words[:, lo:lo + CHUNK]))
            for name in exprs:
                out[name][lo:lo + CHUNK] = results[name]
        return out

    def on_edges(exprs: dict[str, Expr]) -> dict[str, np.ndarray]:
        conditions = compile_conditions(exprs)
        out = {name: np.zeros(s_arr.size, bool) for name in exprs}
        for lo in range(0, s_arr.size, CHUNK):
            columns = np.concatenate([packing.unpack(all_words[:, s_arr[lo:lo + CHUNK]]),
                                      packing.unpack(all_words[:, d_arr[lo:lo + CHUNK]])])
            results = conditions(columns)
            for name in exprs:
                out[name][lo:lo + CHUNK] = results[name]
        return out

    return StateGraph(count, np.arange(tree_parent[0].size, dtype=np.int64), np.concatenate(tree_parent),
                      np.concatenate(tree_instance), s_arr, d_arr, i_arr, fair_taken, fair_enabled,
                      on_nodes, on_edges, lambda n: packing.unpack_state(all_words[:, n]), len(levels))
