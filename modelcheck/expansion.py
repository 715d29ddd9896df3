"""Successor generation over whole batches of bit-packed states.

The fast engine's way of expanding states, shared by everything that works
on packed states: the fast engine itself, the Spark executors, the random
walks of the simulator, shrinking, and the recorder of the fast engine's
state graph. A chunk of states (a (words, n) uint64 array,
``modelcheck.packing``) is expanded by the generated numpy kernel
(``modelcheck.backends.numpy_codegen``): every guard on every state of the
chunk, then each action instance's assignments on just the states where it
is enabled, written straight into copies of the parents' words.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from modelcheck.packing import Packing

DEADLOCK = "Deadlock"  # what a state without successors is reported as breaking, with --check-deadlock


class _NoGraph:
    def expanded(self, *args) -> None:
        pass


CHUNK = 1 << 15


@dataclass
class Expansion:
    """Successors of a chunk, unique by fingerprint (sorted)."""

    fps: np.ndarray  # uint64
    words: np.ndarray  # (words, k) uint64
    parents: np.ndarray  # int64: index of the parent within its level
    actions: np.ndarray  # int32: action instance
    generated: int = 0
    deadlocked: int = -1  # index within the level of a state with no successor

    def select(self, keep: np.ndarray) -> "Expansion":
        return Expansion(self.fps[keep], self.words[:, keep], self.parents[keep], self.actions[keep])

    @staticmethod
    def empty(words: int) -> "Expansion":
        return Expansion(np.zeros(0, np.uint64), np.zeros((words, 0), np.uint64), np.zeros(0, np.int64),
                         np.zeros(0, np.int32))

    @staticmethod
    def merge(parts: list["Expansion"], words: int) -> "Expansion":
        """Concatenate and keep the first of each fingerprint."""
        if not parts:
            return Expansion.empty(words)
        fps = np.concatenate([p.fps for p in parts])
        unique, first = np.unique(fps, return_index=True)
        return Expansion(unique, np.concatenate([p.words for p in parts], axis=1)[:, first],
                         np.concatenate([p.parents for p in parts])[first],
                         np.concatenate([p.actions for p in parts])[first])


class Expander:
    """Turns chunks of a level into their successors."""

    def __init__(self, model, check_deadlock: bool = False, instances=None, coverage=None, canonical=None,
                 graph=_NoGraph()):
        from modelcheck.backends.numpy_codegen import compile_numpy
        self.kernel = compile_numpy(model, [], instances)
        self.packing = Packing(model.schema)
        self.check_deadlock = check_deadlock
        self.coverage = coverage  # a modelcheck.coverage.Coverage told of every state expanded, or None
        self.canonical = canonical  # a modelcheck.canonical.Canonicaliser under symmetry
        self.graph = graph  # a state-graph recorder told of every successor generated

    def successors(self, words: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, list]:
        """Every successor of a chunk, repeats included: (words, parent index
        within the chunk, action instance, the enabled rows per instance)."""
        packing, kernel = self.packing, self.kernel
        columns = packing.unpack(words)
        enabled = kernel.enabled(columns)
        if self.coverage is not None:
            self.coverage.expanded(columns, enabled)
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
            return (np.zeros((packing.words, 0), np.uint64), np.zeros(0, np.int64), np.zeros(0, np.int32), enabled)
        return (np.concatenate(parts_words, axis=1), np.concatenate(parts_parents),
                np.concatenate(parts_actions), enabled)

    def apply(self, words: np.ndarray, instances: np.ndarray, *_) -> np.ndarray:
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

    def expand(self, words: np.ndarray, offset: int, visited=None) -> Expansion:
        """Successors of the chunk, each credited to its first (parent, action);
        under symmetry, each replaced by its orbit's representative (those
        ``visited`` already holds, a ``VisitedFingerprints``, need no renaming)."""
        all_words, parents, actions, enabled = self.successors(words)
        deadlocked = -1
        if self.check_deadlock:
            has_successor = np.zeros(words.shape[1], dtype=bool)
            for rows in enabled:
                has_successor[rows] = True
            stuck = np.flatnonzero(~has_successor)
            deadlocked = int(stuck[0]) + offset if stuck.size else -1
        if all_words.shape[1] == 0:
            result = Expansion.empty(self.packing.words)
            result.deadlocked = deadlocked
            return result
        fps = self.packing.fingerprints(all_words)
        key = discovery_key(parents, actions, len(self.kernel.updates))
        first = first_of_each(fps, key)
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
            representatives[renamed] = canonical_fps
            # the graph is told each successor's representative (``unique`` is sorted)
            self.graph.expanded(parents + offset, fps, actions, all_words,
                                representatives[np.searchsorted(unique, fps)])
            again = first_of_each(canonical_fps, key[first])
            first, successors, unique = first[again], successors[:, again], canonical_fps[again]
        return Expansion(unique, successors, parents[first] + offset, actions[first], fps.size, deadlocked)


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
