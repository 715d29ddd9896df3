"""The fast engine's state graph: recorded level by level over bit-packed
states during its search, and built once the search is complete, a level
or a chunk at a time (``modelcheck.capabilities.liveness.build``), in memory or on disk
(``modelcheck.capabilities.liveness.store``)."""

from __future__ import annotations

import numpy as np

from modelcheck.language.expr import Expr
from modelcheck.errors import InputError
from modelcheck.runtime.limits import SearchStopped
from modelcheck.capabilities.liveness.build import bits_dtype, first_steps, mark_taken, positions, row_starts, sort_by_source
from modelcheck.capabilities.liveness.graph import StateGraph, narrow
from modelcheck.capabilities.liveness.order import chunked_order
from modelcheck.capabilities.liveness.search import scipy_scc
from modelcheck.language.packing import fingerprints


class BatchedGraph:
    """The graph of a level-by-level search over bit-packed states.

    The fast engine numbers each level in the reference engine's order; the
    graph keeps the numbering its level-by-level builder has always given
    (``modelcheck.capabilities.liveness.order``), so its lassos stay what they were.
    While the search runs, each chunk's distinct state-changing steps are
    kept in the request's ``Store`` (in memory, or on disk past
    ``--max-memory``); ``finish`` builds the graph from them a level at a
    time (``modelcheck.capabilities.liveness.build``)."""

    records_steps = True  # the search hands it every step, with representatives under symmetry

    def __init__(self, model, request):
        from modelcheck.language.packing import Packing
        self.model, self.request = model, request
        self.packing = Packing(model.schema)
        self.canonical = None
        if request.group is not None:  # the steps are genuine, their targets the representatives
            from modelcheck.search.canonical import Canonicaliser
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
        if start + fps.size >= 2 ** 31:  # node numbers are int32
            raise InputError("temporal properties are checked on at most 2**31 - 1 states; "
                             "this graph has more (try --symmetry, or smaller constants)")
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
        from modelcheck.search.expansion import CHUNK, Expander
        from modelcheck.language.packing import fingerprints
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
        from modelcheck.search.expansion import CHUNK, Expander
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
