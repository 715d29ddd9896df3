"""The lead-in: a search's first levels, run by the driver while Spark starts.

A fresh Spark application is slow to get going: the driver JVM starts, the
cluster launches executor JVMs, each executor starts Python workers that
import the shipped code and build the model's kernels, and the first
shuffle loads its classes. Measured on kip320 with MaxLeaderEpoch=3, on a
2-worker cluster of one 2-core machine: 7.2 s until the first executor had
registered, and 3.3 s more for a first level holding one state.

The driver need not wait. It runs the same step as the executors
(``blocks.step``) in its own process, on the same blocks, writing the same
visited runs, while the context starts in a background thread
(``session.spark_launch``) and a warm-up job readies every executor
(``warm_up``). Where a state is reached from several parents the step keeps
the smallest (parent, action) whatever the partitioning, so the runs, the
counts and the traces are those of a search run wholly on the executors.

Where a level runs (``LeadIn.keeps``): in the driver while the executors are
not ready yet, as long as the level has at most ``--lead-in`` successor
candidates; and in the driver also once they are ready, when the level is
smaller than ``SMALL`` candidates, for which a Spark stage costs more than
the work. Once a level goes to Spark, every later level does too: its
successors are in Spark's shuffle.

Handing over (``hand_over``): the driver's frontier goes to the executors
as files in the visited directory, one per partition, read by the first
Spark level's tasks (Spark's own ``parallelize`` would put the blocks into
the tasks themselves, and a task is limited in size). Before the context is
up the number of partitions may not be known (a spark:// master without
``--partitions`` has Spark's default parallelism, the cores its executors
bring), so the lead-in partitions as best it can know (``lead_partitions``)
and the runs it wrote are re-partitioned at the handover if that was wrong.
"""

from __future__ import annotations

import os
import re
from functools import partial
from typing import NamedTuple

import numpy as np

from modelcheck.spark import blocks, order, successors, visited
from modelcheck.spark.successors import SUCCESSORS, Successors

# Levels with fewer successor candidates than this run in the driver even
# once the executors are ready: a Spark stage's fixed cost (0.1 to 0.3 s a
# level on a cluster of this machine) is more than the driver needs for
# them (kip320's levels of 18,000 to 54,000 candidates took 0.04 to 0.09 s
# in the driver).
SMALL = 50_000

_LOCAL_CORES = re.compile(r"^local(\[(\d+|\*)(,\d+)?\])?$")


class Frontier(NamedTuple):
    """Successor candidates held by the driver: one block per partition."""

    blocks: list[Successors]

    @property
    def partitions(self) -> int:
        return len(self.blocks)

    @property
    def candidates(self) -> int:
        return sum(len(b.fps) for b in self.blocks)


class Report:
    """The driver's stand-in for the summary accumulator."""

    def __init__(self):
        self.value = {}

    def add(self, entries: dict) -> None:
        self.value.update(entries)


def lead_partitions(requested: int | None, master: str | None) -> int:
    """The partitions the lead-in uses: those asked for, or local mode's
    cores; else 1 (a spark:// cluster's cores are known only once its
    executors register, and the handover re-partitions then)."""
    if requested:
        return requested
    m = _LOCAL_CORES.match(master or "local[*]")
    if m:
        cores = m.group(2)
        return 1 if cores is None else (os.cpu_count() or 1) if cores == "*" else int(cores)
    return 1


def initial_frontier(model, partitions: int, canonical=None, bits: int = 64) -> Frontier:
    return Frontier([block for _, (_, block) in successors.initial_blocks(model, partitions, canonical, bits)])


def joined(parts: list[Successors], words: int) -> Successors:
    """Blocks bound for one partition as one block (the step merges repeats)."""
    if not parts:
        empty = np.zeros(0, dtype=np.uint64)
        return Successors(empty, empty, np.zeros(0, np.int32), np.zeros((words, 0), np.uint64), 0, empty)
    return Successors(np.concatenate([p.fps for p in parts]), np.concatenate([p.parents for p in parts]),
                      np.concatenate([p.actions for p in parts]), np.concatenate([p.words for p in parts], axis=1),
                      sum(p.generated for p in parts), np.concatenate([p.deadlocks for p in parts]),
                      np.concatenate([p.orders for p in parts]))


def run_level(config: blocks.StepConfig, report: Report, frontier: Frontier, words: int) -> Frontier:
    """Every partition's step of one level, in this process (under a VIEW,
    both halves of it, the level ranked in between)."""
    bound: list[list[Successors]] = [[] for _ in range(config.partitions)]
    stepped = [list(blocks.step(config, report, p, [(p, (SUCCESSORS, block))]))
               for p, block in enumerate(frontier.blocks)]
    if config.ordered and not config.probe:
        if not all(stepped):  # a partition found a violation: the search ends at this level, unexpanded
            return Frontier([joined([], words) for _ in range(config.partitions)])
        order.assign(config.visited_dir, config.partitions, config.level, config.instances)
        stepped = [list(blocks.expand_step(config, report, p, out)) for p, out in enumerate(stepped)]
    for out in stepped:
        for target, (_, block) in out:
            bound[target].append(block)
    return Frontier([joined(parts, words) for parts in bound])


def rerouted(frontier: Frontier, partitions: int, words: int) -> Frontier:
    """The same candidates, split among ``partitions`` by fingerprint."""
    whole = joined(frontier.blocks, words)
    routed = successors.route(whole.fps, whole.parents, whole.actions, whole.words, partitions, whole.generated, 0,
                          whole.deadlocks, whole.orders if whole.orders.size else None)
    return Frontier([block for _, (_, block) in routed])


# --- handing over to the executors -----------------------------------------------

def handover_path(directory: str, level: int, partition: int) -> str:
    return os.path.join(directory, f"handover-{level:04d}", f"p{partition:05d}.npz")


def write_handover(directory: str, level: int, frontier: Frontier) -> None:
    for p, b in enumerate(frontier.blocks):
        path = handover_path(directory, level, p)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        np.savez(path, fps=b.fps, parents=b.parents, actions=b.actions, words=b.words,
                 generated=np.array(b.generated), deadlocks=b.deadlocks, orders=b.orders)


def read_handover(directory: str, level: int, split: int, _records):
    """What the first Spark level's task for partition ``split`` receives."""
    with np.load(handover_path(directory, level, split)) as d:
        block = Successors(d["fps"], d["parents"], d["actions"], d["words"], int(d["generated"]), d["deadlocks"],
                           d["orders"])
    yield split, (SUCCESSORS, block)


def prepare_handover(frontier: Frontier, directory: str, level: int, done: int, partitions: int, words: int) -> None:
    """Write level ``level``'s arriving blocks for ``partitions`` partitions,
    first re-partitioning the runs of levels 1..``done`` if the lead-in's
    partitioning differs."""
    if frontier.partitions != partitions:
        visited.repartition(directory, done, frontier.partitions, partitions)
        frontier = rerouted(frontier, partitions, words)
    visited.forget(directory)  # the driver runs no more steps: what it kept is dead weight
    write_handover(directory, level, frontier)


def hand_over(sc, frontier: Frontier, directory: str, level: int, done: int, partitions: int, words: int):
    """An RDD of level ``level``'s arriving blocks, partition i holding those
    bound for i, from the driver's frontier (``prepare_handover``)."""
    prepare_handover(frontier, directory, level, done, partitions, words)
    return sc.parallelize(range(partitions), partitions).mapPartitionsWithIndex(
        partial(read_handover, directory, level), preservesPartitioning=True)


# --- readying the executors -------------------------------------------------------

def warm_up(sc, config: blocks.StepConfig) -> None:
    """A job shaped like a level, on nothing: each task builds the model's
    expander and predicates, and routes empty blocks through a shuffle, so
    the executors' Python workers, imports and shuffle machinery are ready
    when the first real level comes."""
    tasks = sc.parallelize(range(config.partitions), config.partitions)
    routed = tasks.mapPartitionsWithIndex(partial(blocks.warm, config)).partitionBy(
        config.partitions, blocks.partition_index)
    routed.count()


class LeadIn:
    """Where each level of a search runs, while its frontier is the driver's."""

    def __init__(self, limit: int, launch):
        self.limit = limit
        self.launch = launch
        self.levels = 0  # levels the driver has run
        self.seconds = 0.0

    def keeps(self, frontier: Frontier) -> bool:
        n = frontier.candidates
        if self.limit == 0 or n > self.limit:
            return False
        return n < SMALL or not self.launch.settled()
