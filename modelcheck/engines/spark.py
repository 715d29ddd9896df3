"""The distributed engine: a level-synchronous breadth-first search on Spark.

Each level is one Spark job of two stages:

1. every partition of the frontier is expanded on an executor with the
   fast engine's vectorised kernels, on its packed states, and the
   successors are shuffled to the partition their fingerprint names;
2. each partition's successors are anti-joined against the partition's
   visited set (both sides partitioned by ``fingerprint % partitions``,
   so the join needs no shuffle of the visited set); the new states are
   checked against the invariants there, on the executor, and become the
   next frontier.

The driver collects one small summary per partition and level. The first
level holding a violation ends the search, which makes the counterexample a
shortest one, as in the breadth-first engine; its trace is rebuilt from the
parent fingerprints kept with the visited set and replayed with the model.
Lineage grows by a level each time, so every few levels the level's RDD is
checkpointed, which bounds what Spark recomputes after losing an executor;
with a checkpoint directory the user named, such a level is also where
``--resume`` continues a run whose driver died (modelcheck.spark.resume).
"""

from __future__ import annotations

import time
from functools import partial

from modelcheck.engines.base import DEADLOCK, CheckOptions, CheckResult, Violation
from modelcheck.engines.bfs import rebuild_trace
from modelcheck.engines.checkpoint import RunIdentity
from modelcheck.limits import MAX_MEMORY
from modelcheck.packing import Packing, fingerprints
from modelcheck.spark import resume
from modelcheck.spark.session import SparkRun, import_pyspark, spark_run
from modelcheck.spark.settings import SparkSettings

import_pyspark()  # without pyspark, choosing this engine is bad input: say so plainly

from modelcheck.spark import blocks  # noqa: E402  (the executor side needs pyspark)


class SparkChecker:
    """``check(model, options)`` on Spark. ``context`` is an existing
    SparkContext to run in (it is left running); by default each check
    starts one from the settings in ``options.engine_options``."""

    name = "spark"

    def __init__(self, context=None):
        self._context = context

    def check(self, model, options: CheckOptions) -> CheckResult:
        settings = SparkSettings.from_engine_options(options.engine_options)
        started = time.perf_counter()
        with spark_run(settings, f"modelcheck {model.spec.name}", self._context) as run:
            options.progress.note(f"spark: {run.master} · {run.partitions} partitions · checkpoint every "
                                  f"{settings.checkpoint_levels} levels · started in {run.startup_seconds:.1f} s")
            result = LevelSearch(model, options, run, settings).run()
        result.seconds = time.perf_counter() - started
        return result


class LevelSearch:
    """One search: the level loop, driven from the Spark driver."""

    def __init__(self, model, options: CheckOptions, run: SparkRun, settings: SparkSettings):
        self.model = model
        self.options = options
        self.run_ = run
        self.sc = run.sc
        self.partitions = run.partitions
        self.checkpoint_levels = settings.checkpoint_levels
        # the manifest goes only into a directory the user named (the default one is removed at the end)
        self.manifest_dir = settings.checkpoint_dir
        self.identity = RunIdentity.of(model, options)
        self.resumed = resume.load(settings.resume, self.identity, settings.partitions) if settings.resume else None
        if self.resumed:
            self.partitions = self.resumed.partitions
        self.last_checkpoint = self.resumed.rdd if self.resumed else None
        self.key = model.key()
        self.canonical, self.rebuild = None, rebuild_trace
        if options.symmetry:
            from modelcheck.canonical import Canonicaliser, genuine_trace
            self.canonical = Canonicaliser(model)
            self.rebuild = partial(genuine_trace, canon=self.canonical)
        self.sometimes: dict[str, int | None] = {name: None for name in model.sometimes}
        self.generated = 0
        self.persisted = []
        self.report = run.sc.accumulator({}, blocks.SummaryParam())
        # a successor on its way to its partition: fingerprint, parent, action, packed state
        self.candidate_bytes = 8 + 8 + 4 + 8 * Packing(model.schema).words

    # --- building a level's RDD -----------------------------------------------
    def _shuffle(self, rdd):
        shuffled = rdd.partitionBy(self.partitions, blocks.partition_index)
        # A shuffle's output reads exactly like a mapPartitions output (batches
        # of pickled records); saying so keeps union() from adding a Python
        # pass that re-pickles every block only to relabel its format.
        shuffled._jrdd_deserializer = self.sc.serializer
        return shuffled

    def _select_new(self, visited, successors, level: int, probe: bool):
        both = visited.union(successors)
        if both.getNumPartitions() != self.partitions or both.partitioner is None:
            raise RuntimeError("the visited set and the successors are not co-partitioned "
                               f"({both.getNumPartitions()} partitions instead of {self.partitions})")
        return self._step(both, level, probe)

    def _step(self, inputs, level: int, probe: bool):
        """Each partition's visited block and incoming successors -> the next level."""
        pending = tuple(name for name, depth in self.sometimes.items() if depth is None)
        step = partial(blocks.select_new, self.key, tuple(self.options.invariants), pending, probe, level,
                       self.report)
        return inputs.mapPartitionsWithIndex(step, preservesPartitioning=True)

    def _first_level(self):
        """Empty visited blocks and the initial states, in one shuffle."""
        n = self.partitions
        empty = [(i, (blocks.VISITED, blocks.empty_visited())) for i in range(n)]
        initial = blocks.initial_blocks(self.model, n, self.canonical)
        inputs = self._shuffle(self.sc.parallelize(empty + initial, n))
        return self._step(inputs, 1, probe=False)

    def _next_level(self, current, level: int, probe: bool = False):
        expand = partial(blocks.expand_partition, self.key, self.partitions,
                         self.options.check_deadlock and not probe, self.canonical is not None)
        return self._select_new(current, self._shuffle(current.mapPartitionsWithIndex(expand)), level, probe)

    def _materialize(self, level_rdd, level: int, keep: bool = True) -> list[blocks.LevelSummary]:
        """Run the level's job and return its summaries, one per partition."""
        if keep:
            level_rdd.persist(level_storage())
            if level % self.checkpoint_levels == 0:
                level_rdd.checkpoint()
        # Counting on the JVM side computes (and caches) the partitions with
        # no further Python pass over them; the summaries arrive through the
        # accumulator.
        level_rdd._jrdd.count()
        if keep:
            self.persisted.append(level_rdd)
            # the level before is now only lineage (for recomputation after a loss)
            while len(self.persisted) > 1:
                self.persisted.pop(0).unpersist()
        reported = self.report.value
        missing = [i for i in range(self.partitions) if (level, i) not in reported]
        if missing:
            raise RuntimeError(f"level {level}: no summary from partitions {missing}")
        return [reported[(level, i)] for i in range(self.partitions)]

    # --- the search ------------------------------------------------------------
    def run(self) -> CheckResult:
        started = time.perf_counter()
        try:
            return self._search(started)
        finally:
            for rdd in self.persisted:
                rdd.unpersist()

    def _search(self, started: float) -> CheckResult:
        options, progress = self.options, self.options.progress
        level_started = time.perf_counter()
        if self.resumed:
            current, depth = self._reload(self.resumed), self.resumed.depth
            progress.note(f"resumed at level {depth} ({self.resumed.total:,} states) from {self.resumed.rdd}")
            level_started = time.perf_counter()
            depth += 1
            current = self._next_level(current, depth)
            summaries = self._materialize(current, depth)
        else:
            depth = 1
            current = self._first_level()
            summaries = self._materialize(current, 1)
        check_code_origin(summaries, self.run_.code_zip)
        total = 0
        while True:
            new = sum(s.new for s in summaries)
            total = sum(s.visited for s in summaries)
            self.generated += sum(s.generated for s in summaries)
            received = sum(s.received for s in summaries)
            cached = cached_bytes(self.sc, current)
            progress.note(f"level {depth:>3} · {new:>11,} new · {total:>13,} total · "
                          f"{time.perf_counter() - level_started:6.2f} s · shuffled {received:,} successors "
                          f"({_mb(received * self.candidate_bytes)}) · cached {_mb(cached)}")
            dead = [s.deadlock for s in summaries if s.deadlock is not None]
            if dead:  # found while expanding the level before this one: a shorter trace
                return self._finish(started, "violation", depth - 1, total - new,
                                    self._violation(current, min(dead), DEADLOCK, depth - 1))
            bad = [s.violation for s in summaries if s.violation is not None]
            if bad:
                rank, fp = min(bad)
                return self._finish(started, "violation", depth, total,
                                    self._violation(current, fp, options.invariants[rank], depth))
            for s in summaries:
                for name in s.sometimes:
                    if self.sometimes[name] is None:
                        self.sometimes[name] = depth
            if new == 0:
                return self._finish(started, "ok", depth - 1, total)
            reason = stop_reason(options.limits, total, cached)
            if reason:
                if self.manifest_dir:  # a run stopped on purpose can be continued later
                    self._record_checkpoint(self._checkpoint_now(current), depth, total)
                return self._finish(started, "bounded-ok", depth, total, stopped=reason)
            self._record_checkpoint(current, depth, total)
            if options.max_depth is not None and depth >= options.max_depth:
                beyond = self._materialize(self._next_level(current, depth + 1, probe=True), depth + 1, keep=False)
                more = sum(s.new for s in beyond)
                return self._finish(started, "bounded-ok" if more else "ok", depth, total)
            level_started = time.perf_counter()
            depth += 1
            current = self._next_level(current, depth)
            summaries = self._materialize(current, depth)

    # --- checkpoints and resuming ----------------------------------------------
    def _checkpoint_now(self, level_rdd):
        """A checkpointed copy of an already computed level. (Spark checkpoints
        an RDD only after its first job, so the level itself can no longer
        be: its copy is read from where Spark keeps the level.)"""
        if level_rdd.isCheckpointed():
            return level_rdd
        copy = level_rdd.mapPartitions(_same, preservesPartitioning=True)
        copy.checkpoint()
        copy._jrdd.count()
        return copy

    def _record_checkpoint(self, level_rdd, depth: int, total: int) -> None:
        """Once a level's checkpoint is written: name it in the manifest, then
        delete the checkpoint before it (no RDD's lineage reaches back past
        the newest checkpoint, and the manifest no longer names the old one)."""
        path = level_rdd.getCheckpointFile()
        if path is None or path == self.last_checkpoint:
            return
        if self.manifest_dir:
            resume.save(self.manifest_dir, self.identity,
                        resume.LevelCheckpoint(path, self.partitions, depth, total, self.generated,
                                               dict(self.sometimes)))
        if self.last_checkpoint:
            resume.delete_files(self.sc, self.last_checkpoint)
        self.last_checkpoint = path

    def _reload(self, saved: resume.LevelCheckpoint):
        """The checkpointed level as an RDD partitioned like the levels to come."""
        self.generated = saved.generated
        self.sometimes.update(saved.sometimes)
        loaded = self.sc._checkpointFile(saved.rdd, self.sc.serializer)
        if loaded.getNumPartitions() != self.partitions:
            raise RuntimeError(f"the checkpoint {saved.rdd} holds {loaded.getNumPartitions()} partitions, "
                               f"not {self.partitions}")
        # Spark does not record a checkpoint's partitioner: one shuffle (each
        # record to the partition it already is in) declares it again.
        current = self._shuffle(loaded)
        self._materialize_plain(current)
        return current

    def _materialize_plain(self, rdd) -> None:
        rdd.persist(level_storage())
        rdd._jrdd.count()
        self.persisted.append(rdd)

    def _finish(self, started: float, result: str, depth: int, total: int,
                violation: Violation | None = None, stopped: str | None = None) -> CheckResult:
        where = f"ran on Spark {self.run_.master} with {self.partitions} partitions"
        return CheckResult("spark", result, total, depth, time.perf_counter() - started, violation,
                           self.generated, dict(self.sometimes), [where], stopped=stopped)

    # --- traces ----------------------------------------------------------------
    def _violation(self, level_rdd, fp: int, invariant: str, depth: int) -> Violation:
        """Walk the parent fingerprints back to an initial state, one lookup
        in the owning partition per step, then replay the actions (under
        symmetry, as a genuine behaviour through the same orbits)."""
        target, path = fp, []
        while True:
            found = self.sc.runJob(level_rdd, partial(blocks.parent_of, fp), [fp % self.partitions])
            if len(found) != 1:
                raise RuntimeError(f"trace rebuilding: state {fp:016x} is not in the visited set")
            parent, action = found[0]
            path.append(action)
            if action < 0:
                break
            fp = parent
        path.reverse()
        states, actions = self.rebuild(self.model, path)
        last_state = self.canonical.states(states[-1:]) if self.canonical is not None else states[-1:]
        last = fingerprints(Packing(self.model.schema).pack_states(last_state))[0]
        if len(states) != depth or int(last) != target:
            raise RuntimeError(f"trace rebuilding: the replayed path does not end in the state found at depth {depth}")
        return Violation(invariant, states, actions)


def level_storage():
    """Where executors keep a level: on their local disk, which the operating
    system caches in whatever memory is free. Not MEMORY_AND_DISK: reading
    back a block it had spilled, Spark reads the whole block (a partition of
    the level) into the executor's heap at once, and with 1g executors
    that ran out of heap on kip320 with 4 replicas."""
    from pyspark import StorageLevel
    return StorageLevel.DISK_ONLY


def _same(records):
    return records


def check_code_origin(summaries: list[blocks.LevelSummary], code_zip: str) -> None:
    """Executors must run the code the driver shipped, not an installed copy
    or a checkout that happens to lie in their working directory."""
    for s in summaries:
        if code_zip not in s.code_origin:
            raise RuntimeError(f"an executor imported modelcheck from {s.code_origin}, not from the shipped {code_zip}")


def cached_bytes(sc, rdd) -> int:
    """What Spark holds for ``rdd`` in memory and on disk (0 if not cached)."""
    for info in sc._jsc.sc().getRDDStorageInfo():
        if info.id() == rdd.id():
            return int(info.memSize()) + int(info.diskSize())
    return 0


def _mb(n: int) -> str:
    return f"{n / 1e6:,.1f} MB"


def stop_reason(limits, states: int, cached: int) -> str | None:
    """Checked between levels (a level is never cut in half): --max-states,
    Ctrl-C, and --max-memory, against the driver's own memory or what Spark
    caches for the search, whichever is larger."""
    reason = limits.reached(states)
    if reason is None and limits.max_memory is not None and cached >= limits.max_memory:
        reason = MAX_MEMORY
    return reason
