"""What the Spark executors run: one step of the search per partition and level.

Executors work on the fast engine's representation: states are bit-packed
words (``modelcheck.language.packing``), expanded with the fast engine's own
``Expander`` on its C kernel (``modelcheck.spark.kernels``; the generated
numpy kernels where C is unavailable), fingerprinted as the fast engine
fingerprints them and checked with the same kernel's predicates.

Spark moves *blocks*, not states: one record carries the numpy arrays of
many states, so the per-record costs of Spark and of Python's pickling are
paid a few times per partition and level rather than once per state.

Every state lives in the partition ``fingerprint % partitions``. The only
records Spark moves are successor blocks, keyed by the partition they are
bound for (``partition_index`` is the shuffle's partition function). The
visited set stays out of Spark, in files per partition and level
(``modelcheck.spark.visited``), so the anti-join of a partition's
successors against its visited states is local to the executor that runs
the partition's step.

A level is one step per partition (``step``): merge the successor blocks
that arrived, keep those not visited before, write them as the partition's
run of this level, check the invariants on them, expand them, and route
their successors, which the shuffle takes to the next level's steps. Each
step reports a ``LevelSummary`` (counts, the best violation, the
reachability checks that held) through an accumulator keyed by (level,
partition), which is all the driver collects. Keying makes a re-run task
(after a lost executor) overwrite its own entry with the same value instead
of counting twice.

Under symmetry (``--symmetry``) every state that reaches the shuffle is
already its orbit's representative: the expander canonicalises successors
before fingerprinting them, exactly as in the fast engine, so the
partitioning, the visited set and the anti-join are unchanged.

Where a state is reached from several parents, the one kept is the smallest
(parent fingerprint, action index), whatever the partitioning and whatever
order shuffle blocks arrive in, so runs are reproducible.

Under a VIEW the state kept must be the one TLC finds first, so a level
runs in two steps (``modelcheck.spark.order``): ``step`` keeps, per view,
the candidate with the smallest order key, checks the new states and sends
them on as the partition's frontier, unexpanded; once the driver has ranked
the whole level, ``expand_step`` expands each partition's frontier and keys
the successors by their parents' ranks.
"""

from __future__ import annotations

from functools import partial
from typing import Iterable, Iterator, NamedTuple

import numpy as np

from pyspark.accumulators import AccumulatorParam

from modelcheck.search.expansion import CHUNK
from modelcheck.spark import order, prints, visited
from modelcheck.spark.kernels import KernelPlan, kernels_for
from modelcheck.spark.successors import FRONTIER, Successors, contains, expand_frontier, merge_candidates, route
from modelcheck.spark.timing import Stopwatch, times_key

_EMPTY_FPS = np.zeros(0, dtype=np.uint64)
_EMPTY_ACTIONS = np.zeros(0, dtype=np.int32)


class StepConfig(NamedTuple):
    """What every partition's step of one level is told."""

    model_key: tuple
    partitions: int
    level: int
    visited_dir: str  # where the partitions' visited runs are (modelcheck.spark.visited)
    invariants: tuple[str, ...]
    sometimes: tuple[str, ...]  # reachability checks not yet met
    check_deadlock: bool
    symmetric: bool
    probe: bool = False  # only count the new states (the search is at --max-depth)
    ordered: bool = False  # under a VIEW: keep TLC's first state of each view (modelcheck.spark.order)
    instances: int = 0  # the model's action instances (order keys count in them)
    kernel: KernelPlan | None = None  # the run's C kernel, once the driver has one (else numpy)
    fingerprint_bits: int = 64  # 64, or 128 (modelcheck.spark.prints)


class LevelSummary(NamedTuple):
    partition: int
    new: int
    visited: int
    generated: int
    received: int  # successor candidates this partition received through the shuffle
    violation: tuple[int, int] | None  # (invariant rank, fingerprint), the smallest in this partition
    sometimes: tuple[str, ...]  # reachability checks some new state satisfies
    deadlock: int | None  # the smallest fingerprint of a state without successors
    code_origin: str  # where this executor imported modelcheck from
    numpy_because: str = ""  # why this task expanded with numpy though the run has a C kernel, if it did
    compiled: bool = False  # whether this task expanded and checked on the C kernel


class SummaryParam(AccumulatorParam):
    """Accumulates {(level, partition): LevelSummary}; a repeated key is the
    same task run again and carries the same summary."""

    def zero(self, value):
        return {}

    def addInPlace(self, a, b):
        a.update(b)
        return a


def partition_index(key: int) -> int:
    """The shuffle's partition function: its keys are partition numbers."""
    return key


# --- what an executor builds once per model (Python workers are reused) ----------

def warm(config: StepConfig, split: int, _records) -> Iterator[tuple[int, tuple[str, Successors]]]:
    """A warm-up task (``modelcheck.spark.lead``): build what the steps of
    ``config``'s model will use, and route empty blocks, as a step would."""
    expand = kernels_for(config, config.invariants + config.sometimes).expand
    empty = np.zeros((expand.packing.words, 0), dtype=np.uint64)
    none = np.zeros(0, expand.packing.fingerprint_dtype)
    yield from route(none, none, _EMPTY_ACTIONS, empty, config.partitions, 0, split, none)


# --- a partition's step ---------------------------------------------------------

def step(config: StepConfig, report, split: int, records: Iterable) -> Iterator[tuple[int, tuple[str, Successors]]]:
    """One partition's step of level ``config.level``: keep the successors
    that arrived and were not visited before, record them as the
    partition's run of this level, check the invariants on them, and expand
    them into the next level's successor blocks, one per target partition.
    Under a VIEW (``config.ordered``) it stops short of expanding: it sends
    its new states on, in TLC's order, as its frontier (``expand_step``).

    The summary goes to the ``report`` accumulator under (level, split).
    Its ``generated`` and ``deadlock`` are the previous level's, carried by
    the blocks (so the driver meets a deadlock before the states after it).
    """
    import modelcheck

    watch = Stopwatch()
    task = kernels_for(config, config.invariants + config.sometimes)
    expand = task.expand
    watch.lap("kernel")
    parts = arrivals(records, split)
    watch.lap("arrive")
    candidates = merge_candidates(parts, expand.packing.words, config.ordered, expand.packing.fingerprint_dtype,
                                  getattr(expand.generate, "kernel", None) if task.compiled else None)
    before = visited.seen_before(config.visited_dir, split, config.level)
    new = candidates.select(np.flatnonzero(~contains(before, candidates.fps)))  # sorted by fingerprint, as runs are
    run = visited.Run(new.fps, new.parents, new.actions)
    if config.ordered:  # its frontier goes on in TLC's order
        new = new.select(np.argsort(new.orders))
    fps, parents, actions, orders = new.fps, new.parents, new.actions, new.orders
    words = new.words(expand.packing.words)
    generated = sum(p.generated for p in parts)
    arrived = sum(len(p.fps) for p in parts)
    dead = np.concatenate([p.deadlocks for p in parts]) if parts else _EMPTY_FPS
    deadlock = prints.smallest(dead) if len(dead) else None
    summary = partial(LevelSummary, split, len(fps), len(before) + len(fps), generated, arrived)
    if config.probe:
        report.add({(config.level, split): summary(None, (), None, modelcheck.__file__, task.numpy_because, task.compiled)})
        return
    visited.add_level(config.visited_dir, split, config.level, before, run)
    watch.lap("visited")
    violation, seen = check_states(task.check, config.invariants, config.sometimes, fps, words)
    report.add({(config.level, split): summary(violation, seen, deadlock, modelcheck.__file__, task.numpy_because, task.compiled)})
    if violation is None:  # else the search ends at this level: its successors are not needed
        if config.ordered:  # expanded once the driver has ranked the level (expand_step)
            watch.lap("kernel")
            order.write_orders(config.visited_dir, split, config.level, orders)
            yield from watch.handed([(split, (FRONTIER, Successors(fps, parents, actions, words, 0,
                                                                   prints.empty(fps), orders)))], "route")
        else:
            out_fps, out_rows, out_actions, out_words, out_generated, stuck = expand_frontier(expand, fps, words)
            watch.lap("kernel")
            yield from watch.handed(route(out_fps, fps[out_rows], out_actions, out_words, config.partitions,
                                          out_generated, split % config.partitions, stuck), "route")
    report.add({times_key(config.level, split, "step"): watch.times()})


def arrivals(records: Iterable, split: int) -> list[Successors]:
    """The blocks that arrived for partition ``split``."""
    parts = []
    for target, (_, value) in records:
        if target != split:
            raise RuntimeError(f"partition {split} received successors bound for partition {target}")
        parts.append(value)
    return parts


def expand_step(config: StepConfig, report, split: int, records: Iterable) -> Iterator[tuple[int, tuple[str, Successors]]]:
    """Under a VIEW, the second half of partition ``split``'s step of level
    ``config.level``: expand its new states (its frontier, in TLC's order),
    each successor keyed by its parent's rank over the whole level, which
    the driver has written (``modelcheck.spark.order``)."""
    watch = Stopwatch()
    expand = kernels_for(config, config.invariants + config.sometimes).expand
    watch.lap("kernel")
    parts = arrivals(records, split)
    watch.lap("arrive")
    if len(parts) != 1:
        raise RuntimeError(f"partition {split} received {len(parts)} frontiers for level {config.level}, not one")
    frontier = parts[0]
    ranks = order.read_ranks(config.visited_dir, split, config.level)
    if ranks.size != frontier.fps.size:
        raise RuntimeError(f"partition {split} has {frontier.fps.size} states at level {config.level} but "
                           f"{ranks.size} ranks")
    watch.lap("route")
    out_fps, out_rows, out_actions, out_words, out_generated, stuck = expand_frontier(expand, frontier.fps,
                                                                                     frontier.words)
    watch.lap("kernel")
    yield from watch.handed(route(out_fps, frontier.fps[out_rows], out_actions, out_words, config.partitions,
                                  out_generated, split % config.partitions, stuck,
                                  order.keys(ranks[out_rows], out_actions, config.instances)), "route")
    report.add({times_key(config.level, split, "expand"): watch.times()})


def check_states(check, invariants: tuple[str, ...], sometimes: tuple[str, ...],
                 fps: np.ndarray, words: np.ndarray) -> tuple[tuple[int, int] | None, tuple[str, ...]]:
    """The smallest (invariant rank, fingerprint) among states that break an
    invariant, where a state's rank is that of the first invariant it breaks
    in the order the user gave; and the reachability checks some state meets.
    ``check``: packed words -> each predicate's values."""
    best, seen = None, set()
    for start in range(0, fps.size, CHUNK):
        results = check(words[:, start:start + CHUNK])
        rank = np.full(min(CHUNK, fps.size - start), len(invariants))
        for r in reversed(range(len(invariants))):
            rank[~np.asarray(results[invariants[r]], dtype=bool)] = r
        low = int(rank.min())
        if low < len(invariants):
            candidate = (low, prints.smallest(fps[start:start + CHUNK][rank == low]))
            best = candidate if best is None or candidate < best else best
        seen.update(name for name in sometimes if np.any(results[name]))
    return best, tuple(name for name in sometimes if name in seen)
