"""Recording the state graph during an engine's own search.

A run that checks temporal properties passes a ``GraphRequest`` in
``CheckOptions.graph``. An engine that declares the state-graph capability
asks it for the recorder that suits its representation and feeds it as it
explores, under the run's limits and stop requests like any search:

* the reference engine (tuples, state by state): ``ExplicitGraph``, told of
  each initial state and of each state it expands with the numbers of its
  successors (TLC's ``addNextState``);
* the fast engine (bit-packed words, level by level): ``BatchedGraph``, told
  of each level's new states and of each chunk's successors.

Once the search is complete, ``finish`` turns the record into a
``StateGraph``: the distinct state-changing steps and, for each fairness
condition, where its action is enabled and which steps are its steps (an
edge found through one action may be a step of another, and a fair action
need not belong to Next at all). That work polls the stop request too.
"""

from __future__ import annotations

from array import array
from typing import Callable

import numpy as np

from modelcheck.expr import Expr
from modelcheck.limits import MAX_STATES, Limits, SearchStopped
from modelcheck.liveness.build import bits_dtype, first_steps, mark_taken, positions, row_starts, sort_by_source
from modelcheck.liveness.graph import StateGraph, distinct_moves, distinct_steps, mark_moves, mark_steps, narrow
from modelcheck.liveness.order import chunked_order
from modelcheck.liveness.search import networkx_scc, scipy_scc
from modelcheck.liveness.store import Store
from modelcheck.packing import fingerprints


class GraphRequest:
    """What a run asks of the engine: the state graph, with a record of
    each action of ``fair_actions`` (the fairness of the chosen
    specification). ``cap``: refuse a graph of more states, with the
    exception ``too_many()`` (``modelcheck graph``'s --max-states)."""

    def __init__(self, fair_actions=(), limits: Limits | None = None, cap: int | None = None,
                 too_many: Callable[[], Exception] | None = None, group=None):
        self.fair_actions = tuple(fair_actions)
        self.limits = limits or Limits()
        self.cap, self.too_many = cap, too_many
        # under symmetry, the modelcheck.canonical.Stabiliser the engine keeps
        # one state per orbit of: the graph is then the quotient by it
        self.group = group
        # where the graph's large arrays live (spilled to disk past --max-memory); ``close`` removes its files
        self.store = Store(self.limits)

    def close(self) -> None:
        self.store.close()

    def explicit(self, model) -> "ExplicitGraph":
        return ExplicitGraph(model, self)

    def batched(self, model) -> "BatchedGraph":
        return BatchedGraph(model, self)


def _poll(limits: Limits, done: int) -> None:
    if done & 0x3FF == 0:
        reason = limits.reached()
        if reason:
            raise SearchStopped(reason)


class ExplicitGraph:
    """The graph of a state-by-state search: states as tuples, numbered as
    the engine numbers them (breadth-first, in discovery order)."""

    def __init__(self, model, request: GraphRequest):
        self.model, self.request = model, request
        self.states: list[tuple] = []
        self.tree_parent, self.tree_instance, self.levels = array("q"), array("q"), array("q")
        self.src, self.dst, self.instance = array("q"), array("q"), array("i")
        self.target_fp = array("Q")  # under symmetry: the genuine state each step reaches
        if request.group is not None:
            from modelcheck.fingerprint import fingerprinter
            self._fingerprint = fingerprinter(model.schema)

    def _new(self, state: tuple, parent: int, entry: int, level: int) -> None:
        if self.request.cap is not None and len(self.states) >= self.request.cap:
            raise self.request.too_many()
        self.states.append(state)
        self.tree_parent.append(parent)
        self.tree_instance.append(entry)
        self.levels.append(level)

    def initial(self, number: int, state: tuple, entry: int) -> None:
        """Initial state ``number`` (the spec's ``-1 - entry``-th)."""
        self._new(state, -1, entry, 1)

    def expanded(self, parent: int, successors: list[tuple[int, tuple]], numbers: list[int]) -> None:
        """The successors of ``parent``, each with its number (``~n`` when it was found before)."""
        level = self.levels[parent] + 1
        if self.request.group is not None:  # the engine hands representatives; the steps are the genuine ones
            fingerprint = self._fingerprint
            self.target_fp.extend(fingerprint(t) for _, t in self.model.compiled.successors(self.states[parent]))
        for (index, state), number in zip(successors, numbers):
            if number >= 0:
                self._new(state, parent, index, level)
            else:
                number = ~number
            self.src.append(parent)
            self.dst.append(number)
            self.instance.append(index)

    @property
    def count(self) -> int:
        return len(self.states)

    def finish(self, depth: int) -> StateGraph:
        from modelcheck.backends.python_codegen import compile_conditions, compile_successors
        from modelcheck.fingerprint import fingerprinter

        model, states, count = self.model, self.states, len(self.states)
        quotient = self.request.group is not None
        src, dst, inst = (np.frombuffer(self.src, np.int64), np.frombuffer(self.dst, np.int64),
                          np.frombuffer(self.instance, np.int32))
        fingerprint = fingerprinter(model.schema)
        node_fp = np.fromiter((fingerprint(st) for st in states), np.uint64, count)
        if quotient:
            s_arr, d_arr, i_arr, t_arr = distinct_moves(src, dst, inst, np.frombuffer(self.target_fp, np.uint64),
                                                        node_fp)
        else:
            s_arr, d_arr, i_arr = distinct_steps(src, dst, inst, count)
        number = {int(fp): n for n, fp in enumerate(node_fp)}
        fair_taken, fair_enabled = np.zeros(s_arr.size, np.uint64), np.zeros(count, np.uint64)
        width, limits = model.schema.width, self.request.limits
        for bit, act in enumerate(self.request.fair_actions):
            step = compile_successors(model.instances_of(act), width, act.name)
            t_src, t_dst, t_fp = [], [], []
            for node, state in enumerate(states):
                _poll(limits, node)
                for _, t in step(state):
                    if t == state:
                        continue
                    fair_enabled[node] |= np.uint64(1 << bit)
                    fp = fingerprint(t)
                    target = number.get(fp)
                    if quotient or target is not None:
                        t_src.append(node)
                        t_dst.append(target)
                        t_fp.append(fp)
            if quotient:
                taken = mark_moves(s_arr, t_arr, np.array(t_src, np.int64), np.array(t_fp, np.uint64))
            else:
                taken = mark_steps(s_arr, d_arr, count, np.array(t_src, np.int64), np.array(t_dst, np.int64))
            fair_taken[taken] |= np.uint64(1 << bit)
        targets = _genuine_targets(model, states, s_arr, i_arr) if quotient else [states[b] for b in d_arr.tolist()]
        s_arr, d_arr = narrow(s_arr, count), narrow(d_arr, count)

        def on_nodes(exprs: dict[str, Expr]) -> dict[str, np.ndarray]:
            fns = compile_conditions(exprs, width)
            return {name: np.fromiter((fn(st) for st in states), bool, count) for name, fn in fns.items()}

        def on_edges(exprs: dict[str, Expr]) -> dict[str, np.ndarray]:
            fns = compile_conditions(exprs, 2 * width)
            return {name: np.fromiter((fn(states[a] + t) for a, t in zip(s_arr.tolist(), targets)),
                                      bool, s_arr.size) for name, fn in fns.items()}

        initial = np.flatnonzero(np.frombuffer(self.tree_parent, np.int64) < 0)
        return StateGraph(count, initial, np.array(self.tree_parent, np.int64),
                          np.array(self.tree_instance, np.int32), s_arr, d_arr, i_arr,
                          fair_taken, fair_enabled, on_nodes, on_edges, lambda n: states[n], depth, networkx_scc,
                          self.request.group)


def _genuine_targets(model, states: list[tuple], src: np.ndarray, instance: np.ndarray) -> list[tuple]:
    """The state each quotient step reaches (its instance applied to its source)."""
    out, here, made = [], -1, {}
    for a, i in zip(src.tolist(), instance.tolist()):
        if a != here:
            here, made = a, dict(model.compiled.successors(states[a]))
        out.append(made[i])
    return out


class BatchedGraph:
    """The graph of a level-by-level search over bit-packed states.

    The fast engine numbers each level in the reference engine's order; the
    graph keeps the numbering its level-by-level builder has always given
    (``modelcheck.liveness.order``), so its lassos stay what they were.
    While the search runs, each chunk's distinct state-changing steps are
    kept in the request's ``Store`` (in memory, or on disk past
    ``--max-memory``); ``finish`` builds the graph from them a level at a
    time (``modelcheck.liveness.build``)."""

    def __init__(self, model, request: GraphRequest):
        from modelcheck.packing import Packing
        self.model, self.request = model, request
        self.packing = Packing(model.schema)
        self.canonical = None
        if request.group is not None:  # the steps are genuine, their targets the representatives
            from modelcheck.canonical import Canonicaliser
            self.canonical = Canonicaliser(model, self.packing, request.group)
        self.words: list[np.ndarray] = []
        self.fps: list[np.ndarray] = []
        self.starts: list[int] = []
        self.blocks: list[int] = []  # where the steps from each level's states begin
        self.entries = np.zeros(0, np.int32)
        # each step: its source, the fingerprint of its target (the representative's on a quotient),
        # the instance taking it, and on a quotient the fingerprint of the genuine state reached
        columns = (np.int32, np.uint64, np.int32) + ((np.uint64,) if self.canonical is not None else ())
        self.steps = request.store.log(*columns)
        self.generated = 0

    def initial(self, words: np.ndarray, fps: np.ndarray, entries: np.ndarray) -> None:
        self.level(0, words, fps)
        self.entries = entries

    def level(self, start: int, words: np.ndarray, fps: np.ndarray) -> None:
        """A level's new states, numbered from ``start``."""
        if start + fps.size >= 2 ** 31:
            raise SearchStopped(MAX_STATES)
        self.words.append(words)
        self.fps.append(fps)
        self.starts.append(start)
        self.blocks.append(self.steps.size)

    def expanded(self, parents: np.ndarray, fps: np.ndarray, instances: np.ndarray, words: np.ndarray,
                 representatives: np.ndarray | None = None) -> None:
        """Every successor of a chunk of the last level (``parents``: positions
        in that level), with its fingerprint and its packed ``words``; on a
        quotient, the fingerprint of each one's representative when the
        engine knows it already."""
        self.generated += fps.size
        kept = first_steps(parents, fps, self.fps[-1][parents])
        src = (parents[kept] + self.starts[-1]).astype(np.int32)
        if self.canonical is None:
            self.steps.append(src, fps[kept], instances[kept])
            return
        targets = (representatives[kept] if representatives is not None
                   else fingerprints(self.canonical.words(words[:, kept])))
        self.steps.append(src, targets, instances[kept], fps[kept])

    def build_bytes(self, count: int | None = None) -> tuple[int, int]:
        """What building the graph in memory takes at most, in bytes: (its
        edges, the rest: the states' numbering and row pointers, and the
        temporaries of the widest level's sort)."""
        count = sum(f.size for f in self.fps) if count is None else count
        size, fair = self.steps.size, np.dtype(bits_dtype(max(len(self.request.fair_actions), 1))).itemsize
        widest = int(np.diff(self.blocks + [size]).max(initial=0))
        return (size * (12 + fair + (8 if self.canonical is not None else 0)),
                count * (16 * self.packing.words + 56) + 48 * widest)

    def finish(self, depth: int) -> StateGraph:
        store, quotient = self.request.store, self.canonical is not None
        words = np.concatenate(self.words, axis=1)
        node_fps = np.concatenate(self.fps)
        self.words, self.fps = [], []  # the graph holds them from here on
        count = node_fps.size
        by_fp = np.argsort(node_fps, kind="stable")
        seen_fps = node_fps[by_fp]

        def node_of(fps: np.ndarray) -> np.ndarray:
            """Node numbers (the engine's) of fingerprints, -1 where the state is not in the graph."""
            pos = positions(seen_fps, fps)
            pos[pos == seen_fps.size] = 0
            return np.where(seen_fps[pos] == fps, by_fp[pos], -1)

        size = self.steps.size
        blocks = self.blocks + [size]
        store.plan(sum(self.build_bytes(count)))
        src, dst, inst = (store.array(size, np.int32, "src"), store.array(size, np.int32, "dst"),
                          store.array(size, np.int32, "instance"))
        target_fp = store.array(size, np.uint64, "target") if quotient else None
        at = 0
        for chunk in self.steps.drain():
            n = chunk[0].size
            store.need(32 * n)
            src[at:at + n], dst[at:at + n], inst[at:at + n] = chunk[0], node_of(chunk[1]), chunk[2]
            if quotient:
                target_fp[at:at + n] = chunk[3]
            at += n
        new_of, tree_parent, tree_instance = chunked_order(self.starts, node_fps, src, dst, inst,
                                                           len(self.model.instances), self.entries, blocks,
                                                           need=store.need)
        sort_by_source(src, dst, inst, target_fp, new_of, blocks, count, store.need)
        inverse = np.empty(count, np.int64)
        inverse[new_of] = np.arange(count)
        words = words[:, inverse]
        indptr = row_starts(src, count)
        fair_taken, fair_enabled = self._fairness(words, indptr, dst, target_fp,
                                                  lambda fps: _renumbered(node_of(fps), new_of))
        del target_fp
        graph = self._graph(words, src, dst, inst, tree_parent, tree_instance, fair_taken, fair_enabled, depth)
        graph.indptr = indptr
        return graph

    def _fairness(self, words: np.ndarray, indptr: np.ndarray, dst: np.ndarray, target_fp, node_of):
        from modelcheck.expansion import CHUNK, Expander
        from modelcheck.packing import fingerprints
        count, store = words.shape[1], self.request.store
        fair_actions = self.request.fair_actions
        fair_taken = store.array(dst.size, bits_dtype(max(len(fair_actions), 1)), "fair", fill=0)
        fair_enabled = np.zeros(count, np.uint64)
        node_fps = fingerprints(words)
        limits = self.request.limits
        for bit, act in enumerate(fair_actions):
            step = Expander(self.model, instances=self.model.instances_of(act))
            mark = fair_taken.dtype.type(1 << bit)
            for lo in range(0, count, CHUNK):
                reason = limits.reached()
                if reason:
                    raise SearchStopped(reason)
                hi = min(lo + CHUNK, count)
                found, parents, _, _ = step.successors(words[:, lo:hi])
                if found.shape[1] == 0:
                    continue
                parents = parents + lo
                fps = fingerprints(found)
                moving = fps != node_fps[parents]
                parents, fps = parents[moving], fps[moving]
                fair_enabled[parents] |= np.uint64(1 << bit)
                if target_fp is None:  # steps known by the node they reach
                    fps = node_of(fps)
                    inside = fps >= 0
                    parents, fps = parents[inside], fps[inside]
                fair_taken[mark_taken(indptr, dst, target_fp, lo, hi, parents, fps)] |= mark
        return fair_taken, fair_enabled

    def _graph(self, words, s_arr, d_arr, i_arr, tree_parent, tree_instance, fair_taken, fair_enabled,
               depth: int) -> StateGraph:
        from modelcheck.backends.numpy_codegen import compile_conditions
        from modelcheck.expansion import CHUNK, Expander
        packing, count = self.packing, words.shape[1]
        s_arr, d_arr = narrow(s_arr, count), narrow(d_arr, count)
        # on a quotient, a step's target is its instance applied to its source, not the representative
        target = (Expander(self.model).apply if self.canonical is not None
                  else lambda source_words, instances, dst: words[:, dst])

        def on_nodes(exprs: dict[str, Expr]) -> dict[str, np.ndarray]:
            conditions = compile_conditions(exprs)
            out = {name: np.zeros(count, bool) for name in exprs}
            for lo in range(0, count, CHUNK):
                results = conditions(packing.unpack(words[:, lo:lo + CHUNK]))
                for name in exprs:
                    out[name][lo:lo + CHUNK] = results[name]
            return out

        def on_edges(exprs: dict[str, Expr]) -> dict[str, np.ndarray]:
            conditions = compile_conditions(exprs)
            out = {name: np.zeros(s_arr.size, bool) for name in exprs}
            for lo in range(0, s_arr.size, CHUNK):
                sources = words[:, s_arr[lo:lo + CHUNK]]
                columns = np.concatenate([packing.unpack(sources),
                                          packing.unpack(target(sources, i_arr[lo:lo + CHUNK], d_arr[lo:lo + CHUNK]))])
                results = conditions(columns)
                for name in exprs:
                    out[name][lo:lo + CHUNK] = results[name]
            return out

        initial = np.arange(self.entries.size, dtype=np.int64)
        return StateGraph(count, initial, tree_parent, tree_instance, s_arr, d_arr, i_arr, fair_taken, fair_enabled,
                          on_nodes, on_edges, lambda n: packing.unpack_state(words[:, n]), depth, scipy_scc,
                          self.request.group)


def _renumbered(nodes: np.ndarray, new_of: np.ndarray) -> np.ndarray:
    """Engine node numbers as the graph's, keeping -1 (not in the graph)."""
    return np.where(nodes >= 0, new_of[np.maximum(nodes, 0)], -1)
