"""The fast engine: breadth-first search over whole frontiers at once.

Same search as the reference engine (level by level, invariants checked on
every new state, shortest traces), organised around numpy arrays instead of
Python objects:

* a level is a (words, n) uint64 array of bit-packed states (modelcheck.packing);
* expanding it runs the generated numpy kernel (modelcheck.backends.numpy_codegen)
  chunk by chunk: every guard on every state of the chunk, then each action
  instance's assignments on just the states where it is enabled, written
  straight into copies of the parents' words;
* duplicates are removed by fingerprint: sorted-unique within the level, then
  a binary search against the visited set, which is one sorted uint64 array;
* each state keeps only its parent's number and its action index, from which
  a violation's trace is replayed, as in the reference engine.

Expansion of a level is split across worker processes (``workers``, default:
the number of cores). They hold nothing but the compiled model; the parent
process owns the visited set and hands out chunks.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass

import numpy as np

from modelcheck.engines.base import DEADLOCK, CheckOptions, CheckResult, Violation
from modelcheck.engines.bfs import rebuild_trace
from modelcheck.fingerprint import collision_probability
from modelcheck.packing import Packing, fingerprints

CHUNK = 1 << 15


@dataclass
class Expansion:
    """The successors of one chunk, duplicates within it removed."""

    fps: np.ndarray  # uint64, sorted, unique
    words: np.ndarray  # (words, k) uint64
    parents: np.ndarray  # int64: index of the parent within the level
    actions: np.ndarray  # int32: action instance
    generated: int
    deadlocked: int  # index within the level of a state with no successor, or -1


class Expander:
    """Turns chunks of a level into their successors (one per process)."""

    def __init__(self, model, check_deadlock: bool):
        from modelcheck.backends.numpy_codegen import compile_numpy
        self.kernel = compile_numpy(model, [])
        self.packing = Packing(model.schema)
        self.check_deadlock = check_deadlock

    def expand(self, words: np.ndarray, offset: int) -> Expansion:
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
        deadlocked = -1
        if self.check_deadlock:
            has_successor = np.zeros(words.shape[1], dtype=bool)
            for rows in enabled:
                has_successor[rows] = True
            stuck = np.flatnonzero(~has_successor)
            deadlocked = int(stuck[0]) + offset if stuck.size else -1
        if not parts_words:
            empty = np.zeros(0, dtype=np.uint64)
            return Expansion(empty, np.zeros((packing.words, 0), np.uint64), np.zeros(0, np.int64),
                             np.zeros(0, np.int32), 0, deadlocked)
        all_words = np.concatenate(parts_words, axis=1)
        fps = fingerprints(all_words)
        unique, first = np.unique(fps, return_index=True)
        return Expansion(unique, all_words[:, first], np.concatenate(parts_parents)[first] + offset,
                         np.concatenate(parts_actions)[first], fps.size, deadlocked)


class VisitedFingerprints:
    """The visited set: one sorted array of fingerprints."""

    def __init__(self):
        self.fps = np.zeros(0, dtype=np.uint64)

    def __len__(self) -> int:
        return self.fps.size

    def unseen(self, sorted_fps: np.ndarray) -> np.ndarray:
        """Mask of the (sorted, unique) fingerprints not yet visited."""
        if self.fps.size == 0:
            return np.ones(sorted_fps.size, dtype=bool)
        pos = np.searchsorted(self.fps, sorted_fps)
        pos[pos == self.fps.size] = 0
        return self.fps[pos] != sorted_fps

    def add(self, sorted_fps: np.ndarray) -> None:
        self.fps = np.insert(self.fps, np.searchsorted(self.fps, sorted_fps), sorted_fps)


class ParentStore:
    """Each state's parent number and action, level by level."""

    def __init__(self):
        self.parents: list[np.ndarray] = []
        self.actions: list[np.ndarray] = []
        self.starts: list[int] = []
        self.count = 0

    def add_level(self, parents: np.ndarray, actions: np.ndarray) -> int:
        """Numbers the level's states; returns the first number."""
        start = self.count
        self.starts.append(start)
        self.parents.append(parents)
        self.actions.append(actions)
        self.count += parents.size
        return start

    def path_to(self, number: int) -> list[int]:
        out = []
        while number >= 0:
            level = int(np.searchsorted(self.starts, number, side="right")) - 1
            k = number - self.starts[level]
            out.append(int(self.actions[level][k]))
            number = int(self.parents[level][k])
        out.reverse()
        return out


def _default_workers() -> int:
    return max(1, min(os.cpu_count() or 1, 8))


class FastChecker:
    name = "fast"

    def check(self, model, options: CheckOptions) -> CheckResult:
        started = time.perf_counter()
        progress = options.progress
        from modelcheck.backends.numpy_codegen import compile_numpy
        predicates = compile_numpy(model, list(options.invariants) + list(model.sometimes)).predicates
        packing = Packing(model.schema)
        expander = Expander(model, options.check_deadlock)
        visited, store = VisitedFingerprints(), ParentStore()
        sometimes_seen: dict[str, int | None] = {n: None for n in model.sometimes}
        generated = 0

        def finish(result: str, depth: int, violation: Violation | None = None) -> CheckResult:
            progress.clear()
            r = CheckResult(self.name, result, len(visited), depth, time.perf_counter() - started,
                            violation, generated, sometimes_seen)
            p = collision_probability(len(visited), generated)
            if p > 1e-9:
                r.notes.append(f"fingerprint collision probability (optimistic estimate): {p:.1e}")
            return r

        def trace_to(number: int, invariant: str) -> Violation:
            states, actions = rebuild_trace(model, store.path_to(number))
            return Violation(invariant, states, actions)

        def check_level(words: np.ndarray, first_number: int, depth: int) -> Violation | None:
            for start in range(0, words.shape[1], CHUNK):
                results = predicates(packing.unpack(words[:, start:start + CHUNK]))
                bad_rows = [(int(np.argmin(results[inv])), inv) for inv in options.invariants
                            if not results[inv].all()]
                if bad_rows:
                    row = min(r for r, _ in bad_rows)
                    invariant = next(inv for inv in options.invariants if not results[inv][row])
                    return trace_to(first_number + start + row, invariant)
                for name, seen in sometimes_seen.items():
                    if seen is None and results[name].any():
                        sometimes_seen[name] = depth
            return None

        # level 1: the initial states
        init_words = packing.pack_states(model.init_states)
        init_fps = fingerprints(init_words)
        fps, first = np.unique(init_fps, return_index=True)
        order = np.sort(first)  # keep the spec's order of initial states
        level_words = init_words[:, order]
        generated += len(model.init_states)
        level_start = store.add_level(np.full(order.size, -1, np.int64), (-1 - order).astype(np.int32))
        visited.add(fps)
        bad = check_level(level_words, level_start, 1)
        if bad:
            return finish("violation", 1, bad)

        depth = 1
        while level_words.shape[1]:
            bounded = options.max_depth is not None and depth >= options.max_depth
            fps, words, parents, actions, level_generated, deadlocked = self._expand_level(
                expander, level_words, visited)
            generated += level_generated
            if deadlocked >= 0:
                return finish("violation", depth, trace_to(level_start + deadlocked, DEADLOCK))
            if bounded:
                return finish("bounded-ok" if fps.size else "ok", depth)
            if fps.size == 0:
                break
            visited.add(fps)
            level_start = store.add_level(parents + level_start, actions)
            depth += 1
            bad = check_level(words, level_start, depth)
            if bad:
                return finish("violation", depth, bad)
            level_words = words
            progress.search(depth, len(visited), level_words.shape[1], force=True)
        return finish("ok", depth)

    def _expand_level(self, expander: Expander, level: np.ndarray, visited: VisitedFingerprints):
        parts: list[Expansion] = []
        generated, deadlocked = 0, -1
        for start in range(0, level.shape[1], CHUNK):
            e = expander.expand(level[:, start:start + CHUNK], start)
            generated += e.generated
            if deadlocked < 0 and e.deadlocked >= 0:
                deadlocked = e.deadlocked
            keep = visited.unseen(e.fps)
            parts.append(Expansion(e.fps[keep], e.words[:, keep], e.parents[keep], e.actions[keep], 0, -1))
        fps = np.concatenate([p.fps for p in parts]) if parts else np.zeros(0, np.uint64)
        unique, first = np.unique(fps, return_index=True)
        words = np.concatenate([p.words for p in parts], axis=1)[:, first] if parts else None
        parents = np.concatenate([p.parents for p in parts])[first] if parts else None
        actions = np.concatenate([p.actions for p in parts])[first] if parts else None
        return unique, words, parents, actions, generated, deadlocked
