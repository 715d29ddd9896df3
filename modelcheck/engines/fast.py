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

Each level is kept in the reference engine's order: a state is credited to
the first (parent, action) that reaches it, and the level is sorted by that
pair, as the breadth-first engine finds states one parent and one action at
a time. So both engines number the states alike and stop at the same
violating state, with the same trace and the same count: the distinct states
found up to and including it (see ``found_before``).

Engine options: ``checkpoint`` (a directory to save the search into at level
boundaries, at most every ``checkpoint_every`` seconds, and when a limit or
Ctrl-C stops the run), ``resume`` (a directory to continue from) and, under
symmetry, ``orbit_sizes`` (add up how many states the representatives stand
for: a complete search's sum is the count without symmetry).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from functools import partial

import numpy as np

from modelcheck.engines import checkpoint as ckpt
from modelcheck.engines.base import DEADLOCK, CheckOptions, CheckResult, Violation
from modelcheck.engines.bfs import rebuild_trace
from modelcheck.packing import Packing

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

    def __init__(self, model, check_deadlock: bool = False, instances=None, coverage=None, canonical=None):
        from modelcheck.backends.numpy_codegen import compile_numpy
        self.kernel = compile_numpy(model, [], instances)
        self.packing = Packing(model.schema)
        self.check_deadlock = check_deadlock
        self.coverage = coverage  # a modelcheck.coverage.Coverage told of every state expanded, or None
        self.canonical = canonical  # a modelcheck.canonical.Canonicaliser under symmetry

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

    def expand(self, words: np.ndarray, offset: int, visited: "VisitedFingerprints | None" = None) -> Expansion:
        """Successors of the chunk, each credited to its first (parent, action);
        under symmetry, each replaced by its orbit's representative."""
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
        if self.canonical is not None:  # each successor's representative, then unique again
            if visited is not None:  # a successor that is a visited representative needs no renaming
                fresh = visited.unseen(unique)
                first, successors = first[fresh], successors[:, fresh]
            successors = self.canonical.words(successors)
            canonical_fps = self.packing.fingerprints(successors)
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


class VisitedFingerprints:
    """The visited set: one sorted array of fingerprints."""

    def __init__(self, fps: np.ndarray | None = None):
        self.fps = fps if fps is not None else np.zeros(0, dtype=np.uint64)

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

    def __init__(self, parents: list[np.ndarray] | None = None, actions: list[np.ndarray] | None = None):
        self.parents: list[np.ndarray] = []
        self.actions: list[np.ndarray] = []
        self.starts: list[int] = []
        self.count = 0
        for p, a in zip(parents or [], actions or []):
            self.add_level(p, a)

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


class FastChecker:
    name = "fast"
    collects_coverage = True

    def check(self, model, options: CheckOptions) -> CheckResult:
        return _Search(model, options).run()


class _Search:
    """One run of the fast engine; its fields are the search state."""

    def __init__(self, model, options: CheckOptions):
        from modelcheck.backends.numpy_codegen import compile_numpy
        self.model, self.options = model, options
        self.started = time.perf_counter()
        self.packing = Packing(model.schema)
        self.predicates = compile_numpy(model, list(options.invariants) + list(model.sometimes)).predicates
        self.canonical, self.rebuild = None, rebuild_trace
        if options.symmetry:  # one representative per orbit of the symmetric constants
            from modelcheck.canonical import Canonicaliser, genuine_trace
            self.canonical = Canonicaliser(model, self.packing)
            self.rebuild = partial(genuine_trace, canon=self.canonical)
        self.expander = Expander(model, options.check_deadlock, coverage=options.coverage, canonical=self.canonical)
        self.orbit_states = 0 if self.canonical is not None and options.engine_options.get("orbit_sizes") else None
        engine_options = options.engine_options
        self.checkpoint_dir = engine_options.get("resume") or engine_options.get("checkpoint")
        self.checkpoint_every = float(engine_options.get("checkpoint_every", 60.0))
        self.identity = ckpt.RunIdentity.of(model, options)
        self.visited, self.store = VisitedFingerprints(), ParentStore()
        self.sometimes_seen: dict[str, int | None] = {n: None for n in model.sometimes}
        self.generated = 0
        self.notes: list[str] = []

    # --- results --------------------------------------------------------------
    def finish(self, result: str, depth: int, violation: Violation | None = None,
               stopped: str | None = None, found: int | None = None) -> CheckResult:
        """``found``: at a violation, the states the reference engine had found when it stopped."""
        self.options.progress.clear()
        found = len(self.visited) if found is None else found
        r = CheckResult("fast", result, found, depth, time.perf_counter() - self.started,
                        violation, self.generated, self.sometimes_seen, list(self.notes), stopped)
        if self.orbit_states is not None:
            r.notes.append(f"the representatives stand for {self.orbit_states:,} states (the sum of their orbit sizes)")
        return r

    def trace_to(self, number: int, invariant: str) -> Violation:
        states, actions = self.rebuild(self.model, self.store.path_to(number))
        return Violation(invariant, states, actions)

    def check_level(self, words: np.ndarray, first_number: int, depth: int) -> CheckResult | None:
        """The result if a state of the level breaks an invariant: the first
        such state in the reference engine's order, counted as it counts it
        (every state found up to and including that one)."""
        invariants = self.options.invariants
        if self.orbit_states is not None:
            self.orbit_states += int(self.canonical.orbit_sizes(words).sum())
        for start in range(0, words.shape[1], CHUNK):
            results = self.predicates(self.packing.unpack(words[:, start:start + CHUNK]))
            failing = [int(np.argmin(results[inv])) for inv in invariants if not results[inv].all()]
            row = min(failing) if failing else None
            for name, seen in self.sometimes_seen.items():  # only states before a violating one count
                if seen is None and results[name][:row].any():
                    self.sometimes_seen[name] = depth
            if row is not None:
                invariant = next(inv for inv in invariants if not results[inv][row])
                number = first_number + start + row
                violation = self.trace_to(number, invariant)
                violation.first_in_level = number == first_number
                return self.finish("violation", depth, violation, found=number + 1)
        return None

    # --- checkpoints ------------------------------------------------------------
    def snapshot(self, depth: int, level_words: np.ndarray, level_start: int) -> ckpt.SearchState:
        return ckpt.SearchState(depth, level_words, level_start, self.visited.fps, self.store.parents,
                                self.store.actions, self.generated, dict(self.sometimes_seen))

    def save(self, depth: int, level_words: np.ndarray, level_start: int) -> None:
        seconds = ckpt.save(self.checkpoint_dir, self.identity, self.snapshot(depth, level_words, level_start))
        self.options.progress.note(f"checkpoint saved at depth {depth} ({len(self.visited):,} states, "
                                   f"{seconds:.1f} s) in {self.checkpoint_dir}")

    def restore(self) -> tuple[int, np.ndarray, int]:
        state = ckpt.load(self.options.engine_options["resume"], self.identity)
        self.visited = VisitedFingerprints(state.visited)
        self.store = ParentStore(state.parents, state.actions)
        self.generated = state.generated
        self.sometimes_seen.update(state.sometimes)
        self.notes.append(f"resumed at depth {state.depth} with {len(self.visited):,} states")
        return state.depth, state.level_words, state.level_start

    # --- the search ----------------------------------------------------------------
    def start(self) -> tuple[int, np.ndarray, int] | CheckResult:
        model = self.model
        init_words = self.packing.pack_states(model.init_states)
        if self.canonical is not None:
            init_words = self.canonical.words(init_words)
        fps, first = np.unique(self.packing.fingerprints(init_words), return_index=True)
        order = np.sort(first)  # the spec's order of initial states
        self.generated += len(model.init_states)
        level_start = self.store.add_level(np.full(order.size, -1, np.int64), (-1 - order).astype(np.int32))
        self.visited.add(fps)
        if self.options.coverage is not None:
            self.options.coverage.initial(order.size)
        level_words = init_words[:, order]
        bad = self.check_level(level_words, level_start, 1)
        if bad:
            return bad
        return 1, level_words, level_start

    def run(self) -> CheckResult:
        options, progress = self.options, self.options.progress
        if options.engine_options.get("resume"):
            depth, level_words, level_start = self.restore()
        else:
            started = self.start()
            if isinstance(started, CheckResult):
                return started
            depth, level_words, level_start = started
        last_save = time.monotonic()
        while level_words.shape[1]:
            bounded = options.max_depth is not None and depth >= options.max_depth
            stopped = None if bounded else options.limits.reached(len(self.visited))
            if stopped:
                if self.checkpoint_dir:
                    self.save(depth, level_words, level_start)
                return self.finish("bounded-ok", depth, stopped=stopped)
            expansion, stopped = self.expand_level(level_words)
            if stopped:
                if self.checkpoint_dir:
                    self.save(depth, level_words, level_start)
                return self.finish("bounded-ok", depth, stopped=stopped)
            if bounded:  # as in the reference engine, the last level is only looked past, not checked
                return self.finish("bounded-ok" if expansion.fps.size else "ok", depth)
            if expansion.deadlocked >= 0:
                # the reference engine stops there, having found the successors of the states before it
                found = len(self.visited) + int(np.count_nonzero(expansion.parents < expansion.deadlocked))
                return self.finish("violation", depth, self.trace_to(level_start + expansion.deadlocked, DEADLOCK),
                                   found=found)
            if expansion.fps.size == 0:
                break
            self.visited.add(expansion.fps)
            if options.coverage is not None:
                options.coverage.new_states(expansion.actions)
            expansion = in_discovery_order(expansion, len(self.expander.kernel.updates))
            level_start = self.store.add_level(expansion.parents + level_start, expansion.actions)
            depth += 1
            bad = self.check_level(expansion.words, level_start, depth)
            if bad:
                return bad
            level_words = expansion.words
            progress.search(depth, len(self.visited), level_words.shape[1], force=True)
            if self.checkpoint_dir and time.monotonic() - last_save >= self.checkpoint_every:
                self.save(depth, level_words, level_start)
                last_save = time.monotonic()
        return self.finish("ok", depth)

    def expand_level(self, level: np.ndarray) -> tuple[Expansion, str | None]:
        """The level's new successors, or the reason a limit stopped it."""
        parts: list[Expansion] = []
        generated, deadlocked = 0, -1
        limits = self.options.limits
        for start in range(0, level.shape[1], CHUNK):
            e = self.expander.expand(level[:, start:start + CHUNK], start, self.visited)
            generated += e.generated
            if deadlocked < 0 and e.deadlocked >= 0:
                deadlocked = e.deadlocked
            parts.append(e.select(self.visited.unseen(e.fps)))
            reason = limits.reached()
            if reason:
                return Expansion.empty(self.packing.words), reason
        self.generated += generated
        merged = Expansion.merge(parts, self.packing.words)
        merged.deadlocked = deadlocked
        return merged, None
