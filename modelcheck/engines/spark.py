"""The distributed engine: a level-synchronous breadth-first search on Spark
(and, for ``modelcheck simulate``, a swarm of random walks).

Each level is one Spark stage. Every partition's task (``blocks.step``)
reads the successor blocks the shuffle brought it, keeps those its visited
set does not hold, checks the invariants on them, expands them with the
fast engine's vectorised kernels, and writes their successors into the
shuffle, each to the partition its fingerprint names. The visited set never
passes through Spark: each partition's is a sorted run of fingerprints per
level, in files under the checkpoint directory (``modelcheck.spark.visited``),
which the driver and every executor reach.

The driver collects one small summary per partition and level. The first
level holding a violation ends the search, which makes the counterexample a
shortest one, as in the breadth-first engine; its trace is rebuilt from the
parent fingerprints kept in the visited runs and replayed with the model.
Lineage grows by a level each time, so every few levels the level's
successors are checkpointed, which bounds what Spark recomputes after
losing an executor; with a checkpoint directory the user named, such a
level is also where ``--resume`` continues a run whose driver died
(modelcheck.spark.resume).

Under a VIEW, the state kept for each view is the first TLC finds, so a
level is two stages with the driver between them: the partitions keep
their new states, the driver ranks the whole level in TLC's order, and the
partitions expand their states keyed by those ranks (``modelcheck.spark.order``).
"""

from __future__ import annotations

import dataclasses
import os
import time
from functools import partial

from modelcheck.engines.base import DEADLOCK, CheckOptions, CheckResult, Violation
from modelcheck.engines.bfs import rebuild_trace
from modelcheck.engines.simulate import Simulator
from modelcheck.search.checkpoint import RunIdentity
from modelcheck.runtime.dirlock import holding
from modelcheck.runtime.limits import MAX_MEMORY
from modelcheck.language.packing import Packing
from modelcheck.engines.kernels import generated_source
from modelcheck.runtime.private import tell_once
from modelcheck.spark import integrity, kernels, order, prints, resume, successors, timing
from modelcheck.spark.session import SparkRun, import_pyspark, run_master, spark_launch
from modelcheck.spark.settings import WIDEN_AT, SparkSettings

import_pyspark()  # without pyspark, choosing this engine is bad input: say so plainly

from modelcheck.spark import blocks, lead, visited  # noqa: E402  (the executor side needs pyspark)


class SparkChecker:
    """``check(model, options)`` on Spark. ``context`` is an existing
    SparkContext to run in (it is left running); by default each check
    starts one from the settings in ``options.engine_options``."""

    name = "spark"

    def __init__(self, context=None):
        self._context = context

    def check(self, model, options: CheckOptions) -> CheckResult:
        settings = SparkSettings.of(options.engine_options)
        with holding(settings.checkpoint_dir, "--resume" if settings.resume else "--checkpoint-dir"):
            return self._check(model, options, settings)

    def _check(self, model, options: CheckOptions, settings: SparkSettings) -> CheckResult:
        started = time.perf_counter()
        search = LevelSearch(model, options, settings)
        warm_up = search.warm_up if settings.lead_in > 0 and not settings.resume else None
        with spark_launch(settings, f"modelcheck {model.spec.name}", self._context, then=warm_up) as launch:
            try:
                result = search.run(launch)
            except Widen as grown:
                search.abandon()
                said = (f"the search passed {grown.states:,} states at depth {grown.depth}, where two of them sharing "
                        f"a 64-bit fingerprint becomes more likely than one in a million: it started again with "
                        f"128-bit fingerprints (--fingerprint-bits 64 or 128 chooses)")
                options.progress.note(f"spark: {said}")
                search = LevelSearch(model, options, dataclasses.replace(settings, fingerprint_bits=128))
                result = search.run(launch)
                result.notes.insert(0, said)
        result.seconds = time.perf_counter() - started
        return result


class Widen(Exception):
    """A search of 64-bit fingerprints the user did not choose has grown past
    ``WIDEN_AT`` states: it starts again with 128."""

    def __init__(self, states: int, depth: int):
        super().__init__(states, depth)
        self.states, self.depth = states, depth


class SwarmSimulator(Simulator):
    """``modelcheck simulate --engine spark``: the simulator, with its walks
    run as a swarm, one Spark task per partition (``modelcheck.spark.swarm``).
    ``context`` is an existing SparkContext to run in (it is left running)."""

    name = "simulate-spark"

    def __init__(self, settings, context=None):
        super().__init__(settings)
        self._context = context

    def walk(self, model, options: CheckOptions):
        from modelcheck.spark.swarm import run_swarm
        return run_swarm(model, options, self.settings.plan, self.settings.seed, self._context)


class LevelSearch:
    """One search: the level loop, driven from the Spark driver.

    A level's input (``current``) is either an RDD (the shuffled successors
    of a level run on Spark) or a ``lead.Frontier`` held by the driver
    during the lead-in (``modelcheck.spark.lead``)."""

    def __init__(self, model, options: CheckOptions, settings: SparkSettings):
        self.model = model
        self.options = options
        self.settings = settings
        self.launch = None
        self.run_: SparkRun | None = None  # the open context, once a level needs it
        self.checkpoint_levels = settings.checkpoint_levels
        # the manifest goes only into a directory the user named (the default one is removed at the end)
        self.manifest_dir = settings.checkpoint_dir
        # only a run that saves or resumes needs it (the model's digest takes a second on a large spec)
        chosen = settings.fingerprint_bits
        if chosen is None and settings.resume:  # a resumed search keeps its checkpoint's width
            chosen = resume.saved_width(settings.resume)
        self.bits = chosen or 64
        self.widen_at = WIDEN_AT if chosen is None else None  # not chosen: 128 past this many states
        self.identity = RunIdentity.of(model, options, self.bits) if settings.checkpoint_dir or settings.resume \
            else None
        self.resumed, self.ledger = None, integrity.Ledger()
        self.resume_seconds = 0.0  # reading the checkpoint back: its manifest, every file's digest, its level
        if settings.resume:
            reading = time.perf_counter()
            self.resumed, self.ledger = resume.load(settings.resume, self.identity, settings.partitions,
                                                    options.max_depth)
            self.resume_seconds = time.perf_counter() - reading
        self.partitions = (self.resumed.partitions if self.resumed
                           else lead.lead_partitions(settings.partitions, run_master(settings)))
        self.last_checkpoint = self.resumed.rdd if self.resumed else None
        self.key = model.key()
        self.canonical, self.rebuild = None, rebuild_trace
        if options.symmetry:
            from modelcheck.search.canonical import Canonicaliser, genuine_trace
            self.canonical = Canonicaliser(model)
            self.rebuild = partial(genuine_trace, canon=self.canonical)
        self.sometimes: dict[str, int | None] = {name: None for name in model.sometimes}
        self.generated = 0
        self.levels: list[dict] = []  # each level's figures, for the report (CheckResult.levels)
        self.counted_times: set = set()  # the tasks' times already counted in a level's figures
        self.visited_dir = None
        self.report = None  # the summary accumulator, once on Spark
        self.driver_report = lead.Report()
        self.lead_in = None
        self.kernel = kernels.DriverKernel(model, tuple(dict.fromkeys(tuple(options.invariants)
                                                                      + tuple(model.sometimes))),
                                           settings.kernels, self.bits, generated_source)
        self.kernel_broadcast = None  # the plan with its source broadcast, once on Spark
        self.told_numpy: set[str] = set()
        self.compiled_from: int | None = None  # the first level the executors ran on the C kernel
        self.origin_checked = False
        self.words = Packing(model.schema).words
        self.ordered = bool(model.view)  # keep TLC's first state of each view (modelcheck.spark.order)
        # a successor on its way to its partition: fingerprint, parent, action, packed state
        self.candidate_bytes = 2 * self.bits // 8 + 4 + 8 * self.words

    # --- Spark, once it is needed ------------------------------------------------
    def warm_up(self, run: SparkRun) -> None:
        """Runs in the launch's thread once the context is up (and so must not
        touch the search's state): ready the executors for this model."""
        config = blocks.StepConfig(self.key, run.partitions, 0, "", tuple(self.options.invariants),
                                   tuple(self.sometimes), self.options.check_deadlock, self.canonical is not None,
                                   ordered=self.ordered, instances=len(self.model.instances),
                                   kernel=self.kernel.plan(), fingerprint_bits=self.bits)
        lead.warm_up(run.sc, config)

    def _spark(self) -> SparkRun:
        """The open context (waiting for it if need be), noted once."""
        if self.run_ is None:
            self.run_ = self.launch.result()
            self.sc = self.run_.sc
            self.report = self.sc.accumulator({}, blocks.SummaryParam())
            if self.lead_in is None and not self.resumed:
                self.partitions = self.run_.partitions
            self.options.progress.note(
                f"spark: {self.run_.master} · {self.run_.partitions} partitions · checkpoint every "
                f"{self.checkpoint_levels} levels · started in {self.run_.startup_seconds:.1f} s")
        return self.run_

    # --- building a level's RDDs ----------------------------------------------
    def _shuffle(self, rdd):
        shuffled = rdd.partitionBy(self.partitions, blocks.partition_index)
        # A shuffle's output reads exactly like a mapPartitions output (batches
        # of pickled records); saying so keeps the next step from adding a
        # Python pass that re-pickles every block only to relabel its format.
        shuffled._jrdd_deserializer = self.sc.serializer
        return shuffled

    def _config(self, level: int, probe: bool = False) -> blocks.StepConfig:
        pending = tuple(name for name, depth in self.sometimes.items() if depth is None)
        return blocks.StepConfig(self.key, self.partitions, level, self.visited_dir, tuple(self.options.invariants),
                                 pending, self.options.check_deadlock, self.canonical is not None, probe,
                                 self.ordered, len(self.model.instances), self._kernel_plan(), self.bits)

    def _kernel_plan(self):
        """The C kernel the level's steps use: its plan with the source as a
        Spark broadcast once Spark runs (made once), as text in the driver's
        lead-in; None while it is being built, and for numpy."""
        plan = self.kernel.plan()
        if plan is None:
            return None
        if self.run_ is None:
            return plan
        if self.kernel_broadcast is None:
            self.kernel_broadcast = plan._replace(source=self.sc.broadcast(plan.source))
        return self.kernel_broadcast

    def _first_level(self):
        """Level 1 on the initial states, routed to their partitions, in the
        driver (the lead-in) or on Spark. ``initial_blocks`` gives one block
        per partition, in partition order, and parallelizing P records into P
        slices puts block i in slice i: they arrive where a shuffle would
        have sent them, without one."""
        if self.lead_in is not None:
            return self._next_level(lead.initial_frontier(self.model, self.partitions, self.canonical, self.bits), 1)
        self._spark()
        initial = successors.initial_blocks(self.model, self.partitions, self.canonical, self.bits)
        return self._level(self.sc.parallelize(initial, self.partitions), 1)

    def _next_level(self, current, level: int):
        """Run level ``level`` where it belongs (see ``lead.LeadIn``)."""
        current = self._successors(current)
        if isinstance(current, lead.Frontier):
            if self.lead_in.keeps(current):
                self._note_launch()
                started = time.perf_counter()
                out = lead.run_level(self._config(level), self.driver_report, current, self.words)
                self.lead_in.levels, self.lead_in.seconds = level, self.lead_in.seconds + time.perf_counter() - started
                return out
            current = self._hand_over(current, level)
        return self._level(current, level)

    def _note_launch(self) -> None:
        if self.run_ is None and self.launch.opened():
            self._spark()

    def _hand_over(self, frontier, level: int, stopping: bool = False):
        """The driver's frontier as an RDD for level ``level`` on Spark."""
        run = self._spark()
        if self.lead_in.levels and not stopping:
            self.options.progress.note(f"lead-in: levels 1 to {self.lead_in.levels} ran in the driver while Spark "
                                       f"started ({self.lead_in.seconds:.1f} s); the executors take over")
        arriving = lead.hand_over(self.sc, frontier, self.visited_dir, level, level - 1, run.partitions, self.words)
        self.partitions = run.partitions
        return arriving

    def _level(self, arriving, level: int):
        """Run level ``level``: each partition's step on the successor blocks
        ``arriving`` for it. Returns its own successors, shuffled to their
        partitions: the next level's input, computed and kept by Spark.
        Under a VIEW it returns the level's new states, to be expanded once
        ranked (``_successors``)."""
        step = partial(blocks.step, self._config(level), self.report)
        out = self._shuffle(arriving.mapPartitionsWithIndex(step))
        run_map_stage(self.sc, out)
        return OrderedLevel(level, out) if self.ordered else out

    def _successors(self, current):
        """The successors of ``current``: itself, unless it is a level of
        new states under a VIEW, which is then ranked and expanded (once)."""
        if not isinstance(current, OrderedLevel):
            return current
        if current.successors is None:
            order.assign(self.visited_dir, self.partitions, current.level, len(self.model.instances))
            expand = partial(blocks.expand_step, self._config(current.level), self.report)
            current.successors = self._shuffle(current.frontier.mapPartitionsWithIndex(expand))
            run_map_stage(self.sc, current.successors)
        return current.successors

    def _probe(self, arriving, level: int) -> list[blocks.LevelSummary]:
        """How many states lie one level beyond --max-depth (nothing is kept)."""
        arriving = self._successors(arriving)
        if isinstance(arriving, lead.Frontier):
            lead.run_level(self._config(level, probe=True), self.driver_report, arriving, self.words)
            return self._summaries(level)
        step = partial(blocks.step, self._config(level, probe=True), self.report)
        arriving.mapPartitionsWithIndex(step)._jrdd.count()
        return self._summaries(level)

    def _summaries(self, level: int) -> list[blocks.LevelSummary]:
        reported = self.driver_report.value
        on_spark = (level, 0) not in reported
        if on_spark:
            reported = self.report.value
        missing = [i for i in range(self.partitions) if (level, i) not in reported]
        if missing:
            raise RuntimeError(f"level {level}: no summary from partitions {missing}")
        summaries = [reported[(level, i)] for i in range(self.partitions)]
        if on_spark and not self.origin_checked:  # the first level the executors ran
            check_code_origin(summaries, self.run_.code_zip)
            self.origin_checked = True
        if on_spark and self.compiled_from is None and all(s.compiled for s in summaries):
            self.compiled_from = level
        for why in sorted({s.numpy_because for s in summaries} - self.told_numpy - {""}):
            self.told_numpy.add(why)
            tell_once(f"spark: an executor expands with numpy, not the C kernel ({why})")
        return summaries

    # --- the search ------------------------------------------------------------
    def run(self, launch) -> CheckResult:
        """The search, in the context ``launch`` (a ``session.Launch``) is
        starting. Without a resumed run and with ``--lead-in`` above 0 the
        first levels run in the driver meanwhile."""
        self.launch = launch
        self.kernel.start(lambda: self.options.limits.stop.requested)
        self.visited_dir = visited.prepare(launch.checkpoint_dir, self.resumed.visited if self.resumed else None)
        if not self.resumed and self.settings.lead_in > 0:
            self.lead_in = lead.LeadIn(self.settings.lead_in, launch)
        return self._search(time.perf_counter())

    def _search(self, started: float) -> CheckResult:
        options, progress = self.options, self.options.progress
        level_started = time.perf_counter()
        if self.resumed:
            self._spark()
            reading = time.perf_counter()
            arriving, depth = self._reload(self.resumed), self.resumed.depth
            self.resume_seconds += time.perf_counter() - reading
            progress.note(f"resumed at level {depth} ({self.resumed.total:,} states) from {self.resumed.rdd}")
            if options.max_depth is not None and depth >= options.max_depth:  # only looked past, as below
                more = sum(s.new for s in self._probe(arriving, depth + 1))
                return self._finish(started, "bounded-ok" if more else "ok", depth, self.resumed.total)
            level_started = time.perf_counter()
            depth += 1
            current = self._level(arriving, depth)
        else:
            depth = 1
            current = self._first_level()
        summaries = self._summaries(depth)
        total = 0
        while True:
            new = sum(s.new for s in summaries)
            total = sum(s.visited for s in summaries)
            self.generated += sum(s.generated for s in summaries)
            received = sum(s.received for s in summaries)
            kept = visited.stored_bytes(self.visited_dir)
            figures = self._level_figures(depth, new, total, time.perf_counter() - level_started, received, kept,
                                          isinstance(current, lead.Frontier), summaries)
            progress.note(f"level {depth:>3} · {new:>11,} new · {total:>13,} total · "
                          f"{figures['seconds']:6.2f} s · shuffled {received:,} successors "
                          f"({_mb(received * self.candidate_bytes)}) · visited files {_mb(kept)} · "
                          + timing.describe(figures["task_seconds"])
                          + (" · in the driver" if figures["driver"] else ""))
            dead = [s.deadlock for s in summaries if s.deadlock is not None]
            if dead:  # found while expanding the level before this one: a shorter trace
                return self._finish(started, "violation", depth - 1, total - new,
                                    self._violation(min(dead), DEADLOCK, depth - 1))
            bad = [s.violation for s in summaries if s.violation is not None]
            if bad:
                rank, fp = min(bad)
                return self._finish(started, "violation", depth, total,
                                    self._violation(fp, options.invariants[rank], depth))
            for s in summaries:
                for name in s.sometimes:
                    if self.sometimes[name] is None:
                        self.sometimes[name] = depth
            if new == 0:
                return self._finish(started, "ok", depth - 1, total)
            if self.widen_at is not None and total >= self.widen_at:
                raise Widen(total, depth)
            reason = stop_reason(options.limits, total, kept)
            if reason:
                if self.manifest_dir:  # a run stopped on purpose can be continued later
                    if isinstance(current, lead.Frontier):  # Spark keeps what the checkpoint holds
                        current = self._hand_over(current, depth + 1, stopping=True)
                    self._checkpoint(current, depth, total)
                result = self._finish(started, "bounded-ok", depth, total, stopped=reason)
                result.saved = self.manifest_dir
                return result
            if depth % self.checkpoint_levels == 0 and not isinstance(current, lead.Frontier):
                self._checkpoint(current, depth, total)
            if options.max_depth is not None and depth >= options.max_depth:
                more = sum(s.new for s in self._probe(current, depth + 1))
                return self._finish(started, "bounded-ok" if more else "ok", depth, total)
            level_started = time.perf_counter()
            depth += 1
            current = self._next_level(current, depth)
            summaries = self._summaries(depth)

    def abandon(self) -> None:
        """Drop what this search checkpointed: a search started again replaces it."""
        if self.last_checkpoint and self.run_ is not None:
            resume.delete_files(self.sc, self.last_checkpoint)
        if self.manifest_dir and os.path.exists(resume.manifest_path(self.manifest_dir)):
            os.remove(resume.manifest_path(self.manifest_dir))

    def _level_figures(self, depth: int, new: int, total: int, seconds: float, received: int, kept: int,
                       in_driver: bool, summaries) -> dict:
        """The level's figures for the report (``timing.level_figures``)."""
        figures = timing.level_figures(depth, new, total, seconds, received, kept, in_driver, summaries,
                                       [self.driver_report.value, self.report.value if self.report is not None else {}],
                                       self.counted_times)
        self.levels.append(figures)
        return figures

    # --- checkpoints and resuming ----------------------------------------------
    def _checkpoint(self, successors, depth: int, total: int) -> None:
        """Write level ``depth``'s successors (the next level's whole input;
        the visited set is in its files already) where Spark keeps
        checkpoints. That cuts the lineage Spark would recompute after
        losing an executor, and, in a directory the user named, is where
        ``--resume`` continues: the manifest names it once it is written,
        and only then is the checkpoint before it deleted."""
        successors = self._successors(successors)
        successors.checkpoint()
        successors._jrdd.count()  # the shuffle is done: this only reads its blocks, and writes them
        path = successors.getCheckpointFile()
        if path is None or path == self.last_checkpoint:
            return
        if self.manifest_dir:
            files = {"runs": self.ledger.up_to(self.visited_dir, self.partitions, depth),
                     "level": integrity.level_files(path.removeprefix("file:"))}
            resume.save(self.manifest_dir, self.identity,
                        resume.LevelCheckpoint(path, self.partitions, depth, total, self.generated,
                                               dict(self.sometimes), self.visited_dir), files)
        if self.last_checkpoint:
            resume.delete_files(self.sc, self.last_checkpoint)
        self.last_checkpoint = path
        if self.ordered:  # no task will run again for these levels: the lineage starts at the checkpoint
            order.forget_before(self.visited_dir, self.partitions, depth + 1)
        # the shuffles before the checkpoint are no longer anyone's lineage:
        # a JVM collection lets Spark's cleaner delete their files now
        self.sc._jvm.System.gc()

    def _reload(self, saved: resume.LevelCheckpoint):
        """The checkpointed successors, partition i holding those bound for i."""
        self.generated = saved.generated
        self.sometimes.update(saved.sometimes)
        loaded = self.sc._checkpointFile(saved.rdd, self.sc.serializer)
        if loaded.getNumPartitions() != self.partitions:
            raise RuntimeError(f"the checkpoint {saved.rdd} holds {loaded.getNumPartitions()} partitions, "
                               f"not {self.partitions}")
        return loaded

    def _finish(self, started: float, result: str, depth: int, total: int,
                violation: Violation | None = None, stopped: str | None = None) -> CheckResult:
        on_executors = self.report is not None and bool(self.report.value)  # some level's summaries came from them
        if self.lead_in is not None and self.lead_in.levels and not on_executors:
            # done in the driver: Spark, if it is still starting, is not waited for (it is stopped beside)
            master = self.run_.master if self.run_ is not None else run_master(self.settings) or "spark-submit's"
            waited = "" if self.run_ is not None else ", which was not waited for"
            self.launch.not_needed()
            notes = [f"the search finished in the driver before executors were needed: levels 1 to "
                     f"{self.lead_in.levels} ran there while Spark {master} started (the lead-in, "
                     f"{self.lead_in.seconds:.1f} s), and no level ran on Spark{waited}; use --lead-in 0 to run "
                     f"every level on the executors"]
        else:
            run = self._spark()
            notes = [f"ran on Spark {run.master} with {self.partitions if on_executors else run.partitions} "
                     f"partitions"]
            if self.lead_in is not None and self.lead_in.levels:
                notes.append(f"levels 1 to {self.lead_in.levels} ran in the driver while Spark started "
                             f"(the lead-in, {self.lead_in.seconds:.1f} s)")
        if self.resumed:  # as the fast engine says it: the report's rate counts only the states found since
            notes.insert(0, f"resumed at depth {self.resumed.depth} with {self.resumed.total:,} states")
        notes += [f"an executor expanded with numpy, not the C kernel ({why})" for why in sorted(self.told_numpy)]
        notes += self.kernel.notes(on_executors, self.compiled_from)
        found = CheckResult("spark", result, total, depth, time.perf_counter() - started, violation,
                            self.generated, dict(self.sometimes), notes, stopped=stopped, fingerprint_bits=self.bits,
                            levels=self.levels)
        if self.resumed:
            found.resumed_with, found.resume_seconds = self.resumed.total, self.resume_seconds
        return found

    # --- traces ----------------------------------------------------------------
    def _violation(self, fp: int, invariant: str, depth: int) -> Violation:
        """Walk the parent fingerprints back to an initial state, one run per
        step (the run of the state's level, in the partition it belongs to),
        then replay the actions (under symmetry, as a genuine behaviour
        through the same orbits)."""
        target, path, level = fp, [], depth
        while True:
            found = visited.lookup(self.visited_dir, (fp >> (self.bits - 64)) % self.partitions, fp, level)
            if found is None:
                raise RuntimeError(f"trace rebuilding: state {fp:016x} is not in the visited set at level {level}")
            parent, action = found
            path.append(action)
            if action < 0:
                break
            fp, level = parent, level - 1
        path.reverse()
        states, actions = self.rebuild(self.model, path)
        last_state = self.canonical.states(states[-1:]) if self.canonical is not None else states[-1:]
        packing = Packing(self.model.schema, self.bits)
        last = packing.fingerprints(packing.pack_states(last_state))[0]
        if len(states) != depth or prints.as_int(last) != target:
            raise RuntimeError(f"trace rebuilding: the replayed path does not end in the state found at depth {depth}")
        return Violation(invariant, states, actions)


class OrderedLevel:
    """A level's new states under a VIEW, partition by partition in TLC's
    order (a shuffle's output), and, once ranked and expanded, its successors."""

    def __init__(self, level: int, frontier):
        self.level = level
        self.frontier = frontier
        self.successors = None


def run_map_stage(sc, shuffled) -> None:
    """Compute a shuffle's map side only: the step that writes the blocks.
    Reading them is the next level's work, so a count here would read every
    block once more for nothing."""
    values = shuffled._jrdd.rdd()  # the shuffle's values, over the ShuffledRDD
    dependency = values.dependencies().head().rdd().dependencies().head()
    sc._jsc.sc().submitMapStage(dependency).get()


def check_code_origin(summaries: list[blocks.LevelSummary], code_zip: str) -> None:
    """Executors must run the code the driver shipped, not an installed copy
    or a checkout that happens to lie in their working directory."""
    for s in summaries:
        if code_zip not in s.code_origin:
            raise RuntimeError(f"an executor imported modelcheck from {s.code_origin}, not from the shipped {code_zip}")


def _mb(n: int) -> str:
    return f"{n / 1e6:,.1f} MB"


def stop_reason(limits, states: int, kept: int) -> str | None:
    """Checked between levels (a level is never cut in half): --max-states,
    Ctrl-C, and --max-memory, against the driver's own memory or the size
    of the visited set's files (what the executors keep), whichever is larger."""
    reason = limits.reached(states)
    if reason is None and limits.max_memory is not None and kept >= limits.max_memory:
        reason = MAX_MEMORY
    return reason
