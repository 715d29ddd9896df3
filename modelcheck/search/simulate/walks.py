"""Random walks, many at once, over packed states.

A batch holds one current state per walk. Each step generates every
successor of every walk with the fast engine's ``Expander`` (the same
generated numpy kernel), checks the invariants on all of them, as TLC's
simulation mode does, and moves each walk to one of its own successors,
chosen uniformly among those its enabled action instances generate. A walk
ends after ``depth`` steps or in a state without successors, and its slot
starts a new behaviour from an initial state while more are wanted.

Every random choice comes from the ``numpy.random.Generator`` passed in, in
a fixed order, so a seed and a batch size give the same behaviours. A
violation is reported as the path (initial-state entry, then action
indices) that ``modelcheck.engines.bfs.rebuild_trace`` replays into states.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from modelcheck.search.expansion import DEADLOCK, Expander
from modelcheck.language.packing import fingerprints

BATCH = 8192
PATHS_BUDGET = 1 << 30  # bytes of paths the walks of one batch may hold: past it, fewer walks at once


def batch_for(depth: int) -> int:
    """Walks advanced together at this depth: ``BATCH`` up to 32,767 steps
    (1 GiB of paths), fewer beyond, so that the paths stay within ``PATHS_BUDGET``."""
    return max(1, min(BATCH, PATHS_BUDGET // (4 * (depth + 1))))


@dataclass(frozen=True)
class WalkPlan:
    """How many walks, how long, and how to stop."""

    depth: int = 100  # steps per behaviour
    behaviours: int | None = 1000  # stop after this many behaviours ...
    seconds: float | None = None  # ... or after this long
    batch: int = BATCH  # walks advanced together
    check_deadlock: bool = False


@dataclass
class WalkReport:
    behaviours: int = 0  # behaviours begun
    steps: int = 0  # transitions taken
    generated: int = 0  # successors generated (and checked)
    distinct: int = 0  # distinct states the walks went through
    longest: int = 0  # the most states in one behaviour
    seconds: float = 0.0
    violation: tuple[str, list[int]] | None = None  # invariant, path
    stopped: str | None = None
    sometimes: dict[str, bool] = field(default_factory=dict)


@dataclass
class Walks:
    """One slot per walk: its current words, its path so far (initial
    entry, then actions), the steps it took, and whether it is running."""

    words: np.ndarray  # (words, slots) uint64
    paths: np.ndarray  # (depth + 1, slots) int32
    steps: np.ndarray  # (slots,) int64
    active: np.ndarray  # (slots,) bool

    @classmethod
    def empty(cls, words: int, plan: WalkPlan) -> "Walks":
        slots = plan.batch
        return cls(np.zeros((words, slots), np.uint64), np.zeros((plan.depth + 1, slots), np.int32),
                   np.zeros(slots, np.int64), np.zeros(slots, bool))

    @property
    def free(self) -> np.ndarray:
        return np.flatnonzero(~self.active)

    def begin(self, slots: np.ndarray, init_words: np.ndarray, rng: np.random.Generator) -> None:
        """A new behaviour in each of ``slots``, from an initial state drawn at random."""
        starts = rng.integers(0, init_words.shape[1], size=slots.size)
        self.words[:, slots] = init_words[:, starts]
        self.paths[0, slots] = -1 - starts
        self.steps[slots] = 0
        self.active[slots] = True

    def move(self, slots: np.ndarray, words: np.ndarray, actions: np.ndarray) -> None:
        self.words[:, slots] = words
        self.steps[slots] += 1
        self.paths[self.steps[slots], slots] = actions

    def path(self, slot: int) -> list[int]:
        return self.paths[:self.steps[slot] + 1, slot].tolist()


class SeenStates:
    """Distinct fingerprints so far: a large sorted array and a small recent
    one, merged when the recent one grows, so that adding a batch costs
    little however many states were seen."""

    MERGE_AT = 1 << 16

    def __init__(self):
        self.old = np.zeros(0, np.uint64)
        self.recent = np.zeros(0, np.uint64)

    def __len__(self) -> int:
        return self.old.size + self.recent.size

    @staticmethod
    def _contains(sorted_fps: np.ndarray, fps: np.ndarray) -> np.ndarray:
        if sorted_fps.size == 0:
            return np.zeros(fps.size, bool)
        pos = np.minimum(np.searchsorted(sorted_fps, fps), sorted_fps.size - 1)
        return sorted_fps[pos] == fps

    def add(self, fps: np.ndarray) -> np.ndarray:
        """Adds ``fps``; returns the mask of those first seen now (the first
        of equal ones in a batch counts)."""
        order = np.argsort(fps, kind="stable")
        ordered = fps[order]
        first = np.ones(ordered.size, bool)
        first[1:] = ordered[1:] != ordered[:-1]
        unique, where = ordered[first], order[first]
        fresh = ~(self._contains(self.old, unique) | self._contains(self.recent, unique))
        new = unique[fresh]
        self.recent = np.insert(self.recent, np.searchsorted(self.recent, new), new)
        if self.recent.size >= self.MERGE_AT:
            merged = np.concatenate([self.old, self.recent])
            merged.sort()
            self.old, self.recent = merged, np.zeros(0, np.uint64)
        mask = np.zeros(fps.size, bool)
        mask[where[fresh]] = True
        return mask


class RandomWalks:
    """The walks over one model, checking ``invariants``."""

    def __init__(self, model, invariants: tuple[str, ...], coverage=None):
        from modelcheck.backends.numpy_codegen import compile_numpy
        self.model = model
        self.invariants = tuple(invariants)
        self.expander = Expander(model, coverage=coverage)
        self.packing = self.expander.packing
        self.predicates = compile_numpy(model, list(invariants) + list(model.sometimes)).predicates
        self.coverage = coverage
        self.init_words = self.packing.pack_states(model.init_states)

    def first_broken(self, words: np.ndarray) -> tuple[int, str] | None:
        """The first column of ``words`` that breaks an invariant, and which."""
        results = self.predicates(self.packing.unpack(words))
        self.sometimes_seen.update(n for n in self.model.sometimes if results[n].any())
        bad = [(int(np.argmin(results[n])), k) for k, n in enumerate(self.invariants) if not results[n].all()]
        if not bad:
            return None
        column, k = min(bad)
        return column, self.invariants[k]

    def run(self, plan: WalkPlan, rng: np.random.Generator, limits=None, progress=None,
            seen: SeenStates | None = None) -> WalkReport:
        """Walk until ``plan`` says stop, a limit is reached or an invariant
        breaks. ``seen`` receives the fingerprints of the states walked through."""
        started = time.perf_counter()
        report = WalkReport()
        self.sometimes_seen: set[str] = set()
        seen = seen if seen is not None else SeenStates()
        deadline = started + plan.seconds if plan.seconds is not None else None
        broken = self.first_broken(self.init_words)
        if broken:
            column, invariant = broken
            report.behaviours, report.violation = 1, (invariant, [-1 - column])
            return self._finish(report, seen, started)
        fresh = seen.add(fingerprints(self.init_words))
        if self.coverage is not None:
            self.coverage.initial(int(fresh.sum()))

        def wanted(free: int) -> int:
            """In how many of ``free`` slots to start a behaviour."""
            if deadline is not None:
                return free if time.perf_counter() < deadline else 0
            return min(free, plan.behaviours - report.behaviours)

        walks = Walks.empty(self.packing.words, plan)
        while True:
            free = walks.free
            if free.size and (k := wanted(free.size)) > 0:
                walks.begin(free[:k], self.init_words, rng)
                report.behaviours += k
            live = np.flatnonzero(walks.active)
            if live.size == 0:
                break
            reason = limits.reached(len(seen)) if limits is not None else None
            if reason:
                report.stopped = reason
                break
            if self.step(walks, live, plan, rng, report, seen):
                break
            if progress is not None:
                elapsed = max(time.perf_counter() - started, 1e-9)
                progress.update(f"{report.behaviours:,} behaviours · {report.steps:,} steps · {len(seen):,} distinct "
                                f"states · {report.steps / elapsed:,.0f} steps/s · {elapsed:.1f} s")
        if walks.active.any():
            report.longest = max(report.longest, int(walks.steps[walks.active].max()) + 1)
        return self._finish(report, seen, started)

    def step(self, walks: "Walks", live: np.ndarray, plan: WalkPlan, rng: np.random.Generator,
             report: WalkReport, seen: SeenStates) -> bool:
        """One step of every live walk: to a successor chosen at random, or
        ended. True when a successor breaks an invariant, or a walk is
        stuck and deadlock is checked (``report.violation`` then says which)."""
        current = walks.words if live.size == walks.active.size else walks.words[:, live]
        successors, parents, actions, _ = self.expander.successors(current)
        counts = np.bincount(parents, minlength=live.size)
        if successors.shape[1]:
            report.generated += successors.shape[1]
            broken = self.first_broken(successors)
            if broken:
                column, invariant = broken
                report.violation = (invariant, walks.path(live[parents[column]]) + [int(actions[column])])
                return True
        stuck = counts == 0
        if plan.check_deadlock and stuck.any():
            report.violation = (DEADLOCK, walks.path(live[np.argmax(stuck)]))
            return True
        local = np.flatnonzero(~stuck)
        if local.size:
            # the successors of live walk w are order[start[w] : start[w] + counts[w]]
            order = np.argsort(parents, kind="stable")
            start = np.cumsum(counts) - counts
            pick = order[start[local] + (rng.random(local.size) * counts[local]).astype(np.int64)]
            moving = live[local]
            walks.move(moving, successors[:, pick], actions[pick])
            report.steps += moving.size
            fresh = seen.add(fingerprints(walks.words[:, moving]))
            if self.coverage is not None:
                self.coverage.new_states(actions[pick][fresh])
        done = stuck | (walks.steps[live] >= plan.depth)
        if done.any():
            ended = live[done]
            report.longest = max(report.longest, int(walks.steps[ended].max()) + 1)
            if self.coverage is not None:  # the last states of walks at full depth are seen, not expanded
                self.coverage.seen(self.packing.unpack(walks.words[:, live[done & ~stuck]]))
            walks.active[ended] = False
        return False

    def _finish(self, report: WalkReport, seen: SeenStates, started: float) -> WalkReport:
        report.distinct = len(seen)
        report.seconds = time.perf_counter() - started
        report.sometimes = {n: n in self.sometimes_seen for n in self.model.sometimes}
        return report
