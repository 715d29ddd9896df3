"""Recording the state graph during an engine's own search.

A run that checks temporal properties passes a ``GraphRequest`` in
``CheckOptions.graph``. An engine that declares the state-graph capability
asks it for the recorder that suits its representation and feeds it as it
explores, under the run's limits and stop requests like any search:

* the reference engine (tuples, state by state): ``ExplicitGraph``, told of
  each initial state and of each state it expands with the numbers of its
  successors (TLC's ``addNextState``);
* the fast engine (bit-packed words, level by level): ``BatchedGraph``
  (``modelcheck.capabilities.liveness.batched``), told
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

from modelcheck.language.expr import Expr
from modelcheck.runtime.limits import Limits, SearchStopped
from modelcheck.capabilities.liveness.graph import StateGraph, distinct_moves, distinct_steps, mark_moves, mark_steps, narrow
from modelcheck.capabilities.liveness.search import networkx_scc
from modelcheck.capabilities.liveness.store import Store


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
        # under symmetry, the modelcheck.search.canonical.Stabiliser the engine keeps
        # one state per orbit of: the graph is then the quotient by it
        self.group = group
        # where the graph's large arrays live (spilled to disk past --max-memory); ``close`` removes its files
        self.store = Store(self.limits)

    def close(self) -> None:
        self.store.close()

    def explicit(self, model) -> "ExplicitGraph":
        return ExplicitGraph(model, self)

    def batched(self, model):
        """The fast engine's recorder, a ``modelcheck.capabilities.liveness.batched.BatchedGraph``."""
        from modelcheck.capabilities.liveness.batched import BatchedGraph
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
            from modelcheck.language.fingerprint import fingerprinter
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
        from modelcheck.language.fingerprint import fingerprinter

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
