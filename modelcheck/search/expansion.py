"""Successor generation over whole batches of bit-packed states.

The fast engine's way of expanding states, shared by everything that works
on packed states: the fast engine itself, the Spark executors, the random
walks of the simulator, shrinking, and the recorder of the fast engine's
state graph. A chunk of states (a (words, n) uint64 array,
``modelcheck.language.packing``) is expanded by the generated numpy kernel
(``modelcheck.backends.numpy_codegen``): every guard on every state of the
chunk, then each action instance's assignments on just the states where it
is enabled, written straight into copies of the parents' words. Given a
compiled kernel (``modelcheck.backends.compiled``), the chunk is expanded by
machine code generated from the same expression trees instead.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial

import numpy as np

from modelcheck.language.packing import Packing

DEADLOCK = "Deadlock"  # what a state without successors is reported as breaking, with --check-deadlock


class _NoGraph:
    records_steps = False  # no state graph: the search need not work out representatives for it

    def expanded(self, *args) -> None:
        pass


CHUNK = 1 << 15


@dataclass
class Expansion:
    """Successors of a chunk: unique by fingerprint (sorted by fingerprint
    from the numpy kernel, in discovery order from a compiled one), or, from
    a compiled kernel's fused pass, those not yet visited, in discovery order
    with repeats (``Expander.expand``)."""

    fps: np.ndarray  # uint64, or 128-bit records (modelcheck.language.packing.FP128)
    words: np.ndarray  # (words, k) uint64
    parents: np.ndarray  # int64: index of the parent within its level
    actions: np.ndarray  # int32: action instance
    generated: int = 0
    deadlocked: int = -1  # index within the level of a state with no successor

    def select(self, keep: np.ndarray) -> "Expansion":
        """The successors ``keep`` (a mask) marks, in order."""
        at = np.flatnonzero(keep)  # positions, not the mask: numpy gathers a (words, n) array faster by them
        return Expansion(self.fps[at], self.words.take(at, axis=1), self.parents[at], self.actions[at])

    @staticmethod
    def empty(words: int, fp_dtype=np.uint64) -> "Expansion":
        return Expansion(np.zeros(0, fp_dtype), np.zeros((words, 0), np.uint64), np.zeros(0, np.int64),
                         np.zeros(0, np.int32))

    @staticmethod
    def merge(parts: list["Expansion"], words: int) -> "Expansion":
        """Concatenate and keep the first of each fingerprint, sorted by fingerprint."""
        if not parts:
            return Expansion.empty(words)
        fps = np.concatenate([p.fps for p in parts])
        first = first_by_fingerprint(fps)
        unique = fps[first]
        return Expansion(unique, np.concatenate([p.words for p in parts], axis=1)[:, first],
                         np.concatenate([p.parents for p in parts])[first],
                         np.concatenate([p.actions for p in parts])[first])

    @staticmethod
    def concat(parts: list["Expansion"], words: int) -> "Expansion":
        """The parts one after the other. It takes them: each part is let go
        once copied, so a level is held about once, not twice, while it is
        put together."""
        total = sum(p.fps.size for p in parts)
        out = Expansion(np.empty(total, parts[0].fps.dtype if parts else np.uint64), np.empty((words, total), np.uint64),
                        np.empty(total, np.int64), np.empty(total, np.int32))
        at = 0
        parts.reverse()
        while parts:
            p = parts.pop()
            k = p.fps.size
            out.fps[at:at + k], out.words[:, at:at + k] = p.fps, p.words
            out.parents[at:at + k], out.actions[at:at + k] = p.parents, p.actions
            at += k
        return out


@dataclass
class Generated:
    """Every successor of a chunk, repeats included: their words, each one's
    parent (index within the chunk) and action instance, and, from a
    compiled kernel, their fingerprints."""

    words: np.ndarray
    parents: np.ndarray
    actions: np.ndarray
    fps: np.ndarray | None = None
    rows: list | None = None  # per action instance, the chunk's states where it is enabled

    def enabled(self, instances: int) -> list[np.ndarray]:
        """Per action instance, the (sorted) chunk indices of the states where it is enabled."""
        if self.rows is None:
            order = np.argsort(self.actions, kind="stable")
            bounds = np.searchsorted(self.actions[order], np.arange(instances + 1))
            parents = self.parents[order]
            self.rows = [parents[bounds[k]:bounds[k + 1]] for k in range(instances)]
        return self.rows


class NumpySuccessors:
    """Successors by the numpy kernel: every guard on the whole chunk, then
    each enabled instance's assignments on its states."""

    def __init__(self, model, instances=None):
        from modelcheck.backends.numpy_codegen import compile_numpy
        self.kernel = compile_numpy(model, [], instances)
        self.packing = Packing(model.schema)

    @staticmethod
    def first(fps: np.ndarray, key) -> np.ndarray:
        """The first discovery of each fingerprint; ``key()`` gives the discovery order."""
        return first_of_each(fps, key())

    def apply(self, words: np.ndarray, instances: np.ndarray) -> np.ndarray:
        """The state that action instance ``instances[k]`` leads to from state
        k of ``words`` (each instance enabled where it is applied)."""
        out = words.copy()
        columns = self.packing.unpack(words)
        order = np.argsort(instances, kind="stable")  # each instance's rows, by one sort
        ordered = instances[order]
        kinds, starts = np.unique(ordered, return_index=True)
        for index, a, b in zip(kinds.tolist(), starts.tolist(), starts[1:].tolist() + [order.size]):
            rows = order[a:b]
            successor = out[:, rows]
            for slot, values in self.kernel.updates[index](columns, rows):
                self.packing.overwrite(successor, slot, values)
            out[:, rows] = successor
        return out

    def __call__(self, words: np.ndarray) -> Generated:
        packing, kernel = self.packing, self.kernel
        columns = packing.unpack(words)
        enabled = kernel.enabled(columns)
        parts_words, parts_parents, parts_actions = [], [], []
        for index, rows in enumerate(enabled):
            if rows.size == 0:
                continue
            successor = words[:, rows]
            for slot, values in kernel.updates[index](columns, rows):
                packing.overwrite(successor, slot, values)
            parts_words.append(successor)
            parts_parents.append(rows)
            parts_actions.append(np.full(rows.size, index, dtype=np.int32))
        if not parts_words:
            return Generated(np.zeros((packing.words, 0), np.uint64), np.zeros(0, np.int64), np.zeros(0, np.int32),
                             rows=enabled)
        return Generated(np.concatenate(parts_words, axis=1), np.concatenate(parts_parents),
                         np.concatenate(parts_actions), rows=enabled)


class CompiledSuccessors:
    """Successors by a compiled kernel (``modelcheck.backends.compiled``),
    fingerprinted and in the reference engine's order as they are made."""

    def __init__(self, kernel):
        self.kernel = kernel

    def unvisited(self, words: np.ndarray, offset: int, visited) -> Expansion:
        """The chunk's successors that the hash tables ``visited`` lack, in
        discovery order (repeats among them included)."""
        f = self.kernel.unvisited_successors(words, visited)
        return Expansion(f.fps, f.words, f.parents + offset, f.actions, f.generated,
                         f.stuck + offset if f.stuck >= 0 else -1)

    def first(self, fps: np.ndarray, key) -> np.ndarray:
        """In discovery order already, the first of each fingerprint is its first occurrence."""
        return self.kernel.first_occurrences(fps)

    def __call__(self, words: np.ndarray) -> Generated:
        return Generated(*self.kernel.successors(words))


class Expander:
    """Turns chunks of a level into their successors. ``compiled``: a
    compiled kernel of the same action instances, used instead of the
    numpy kernel."""

    def __init__(self, model, check_deadlock: bool = False, instances=None, coverage=None, canonical=None,
                 graph=_NoGraph(), compiled=None, packing: Packing | None = None):
        self.model = model
        self.instances = len(model.instances if instances is None else instances)
        self.generate = NumpySuccessors(model, instances) if compiled is None else CompiledSuccessors(compiled)
        self.packing = packing or Packing(model.schema)  # its fingerprints (64 or 128 bits) are the search's
        self.check_deadlock = check_deadlock
        self.coverage = coverage  # a modelcheck.capabilities.coverage.Coverage told of every state expanded, or None
        self.canonical = canonical  # a modelcheck.search.canonical.Canonicaliser under symmetry
        self.graph = graph  # a state-graph recorder told of every successor generated

    def use_compiled(self, compiled) -> None:
        """Expand with a compiled kernel of the same action instances from now on."""
        self.generate = CompiledSuccessors(compiled)

    def generated(self, words: np.ndarray) -> Generated:
        """Every successor of a chunk, repeats included, with coverage told."""
        found = self.generate(words)
        if self.coverage is not None:
            self.coverage.expanded(self.packing.unpack(words), found.enabled(self.instances))
        return found

    def successors(self, words: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, list]:
        """Every successor of a chunk, repeats included: (words, parent index
        within the chunk, action instance, the enabled rows per instance)."""
        found = self.generated(words)
        return found.words, found.parents, found.actions, found.enabled(self.instances)

    def apply(self, words: np.ndarray, instances: np.ndarray, *_) -> np.ndarray:
        """The state that action instance ``instances[k]`` leads to from state
        k of ``words`` (each instance enabled where it is applied)."""
        generate = self.generate if isinstance(self.generate, NumpySuccessors) else None
        return (generate or NumpySuccessors(self.model)).apply(words, instances)

    def needs_every_successor(self) -> bool:
        """Whether coverage, symmetry or the state graph look at successors
        already visited too (else a compiled kernel leaves those out)."""
        return self.coverage is not None or self.canonical is not None or self.graph.records_steps

    def expand(self, words: np.ndarray, offset: int, visited=None) -> Expansion:
        """Successors of the chunk, each credited to its first (parent, action);
        under symmetry, each replaced by its orbit's representative (those
        ``visited`` already holds, a ``modelcheck.engines.visited`` set, need
        no renaming). From a compiled kernel they come in discovery order, and
        with a hashed ``visited`` and nothing that needs every successor, only
        the unvisited ones, repeats among them left to ``visited.keep_new``."""
        hashed = getattr(visited, "hashed", None)
        if hashed is not None and isinstance(self.generate, CompiledSuccessors) and not self.needs_every_successor():
            e = self.generate.unvisited(words, offset, hashed)
            if not self.check_deadlock:
                e.deadlocked = -1
            return e
        found = self.generated(words)
        all_words, parents, actions = found.words, found.parents, found.actions
        deadlocked = -1
        if self.check_deadlock:
            has_successor = np.zeros(words.shape[1], dtype=bool)
            has_successor[parents] = True
            stuck = np.flatnonzero(~has_successor)
            deadlocked = int(stuck[0]) + offset if stuck.size else -1
        if all_words.shape[1] == 0:
            result = Expansion.empty(self.packing.words, self.packing.fingerprint_dtype)
            result.deadlocked = deadlocked
            return result
        fps = self.packing.fingerprints(all_words) if found.fps is None else found.fps
        key = partial(discovery_key, parents, actions, self.instances)  # computed only where needed
        first = self.generate.first(fps, key)
        unique, successors = fps[first], all_words[:, first]
        if self.canonical is None:
            self.graph.expanded(parents + offset, fps, actions, all_words)
        else:  # each successor's representative, then unique again
            representatives = unique.copy()  # a visited representative is its own
            renamed = np.arange(unique.size)
            if visited is not None:  # a successor that is a visited representative needs no renaming
                fresh = visited.unseen(unique)
                first, successors, renamed = first[fresh], successors[:, fresh], renamed[fresh]
            successors = self.canonical.words(successors)
            canonical_fps = self.packing.fingerprints(successors)
            if self.graph.records_steps:
                # the graph is told each successor's representative; ``unique`` is in
                # fingerprint order from the numpy kernel, in discovery order from the compiled one
                representatives[renamed] = canonical_fps
                by_fingerprint = np.argsort(unique, kind="stable")
                at = by_fingerprint[np.searchsorted(unique, fps, sorter=by_fingerprint)]
                self.graph.expanded(parents + offset, fps, actions, all_words, representatives[at])
            again = np.sort(first_of_each(canonical_fps, key()[first]))  # kept in discovery order
            first, successors, unique = first[again], successors[:, again], canonical_fps[again]
        return Expansion(unique, successors, parents[first] + offset, actions[first], fps.size, deadlocked)


def first_by_fingerprint(fps: np.ndarray) -> np.ndarray:
    """The first position of each fingerprint, sorted by fingerprint."""
    return np.unique(fps, return_index=True)[1]


def first_of_each(fps: np.ndarray, key: np.ndarray) -> np.ndarray:
    """Positions of the distinct fingerprints, sorted by fingerprint, each
    the one with the least key (its first discovery)."""
    order = np.lexsort((key, fps))
    if order.size == 0:
        return order
    ordered = fps[order]
    return order[np.concatenate(([True], ordered[1:] != ordered[:-1]))]


def discovery_key(parents: np.ndarray, actions: np.ndarray, instances: int) -> np.ndarray:
    """The order in which the reference engine meets successors: parent by
    parent, and each parent's action instances in order."""
    return parents.astype(np.int64) * instances + actions


def in_discovery_order(e: Expansion, instances: int) -> Expansion:
    """A level's new states in the reference engine's order (they arrive sorted by fingerprint)."""
    order = np.argsort(discovery_key(e.parents, e.actions, instances), kind="stable")
    return Expansion(e.fps[order], e.words[:, order], e.parents[order], e.actions[order], e.generated,
                     e.deadlocked)
