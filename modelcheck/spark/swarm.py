"""A swarm of random walks on Spark: every partition runs its own walks.

The walks need no communication, so the whole simulation is one Spark job
of ``partitions`` tasks. Task ``i`` walks with the generator seeded by the
``i``-th child of ``numpy.random.SeedSequence(seed)``, and runs its share of
the behaviours (or all of ``--time``), so a seed and a partition count give
the same behaviours wherever the tasks run. Each task returns its counts,
the fingerprints of the states it went through (the driver unites them for
the distinct count) and its violation, if any; the violation of the lowest
numbered task is the one reported, which keeps the choice reproducible.

Ctrl-C (or SIGTERM) stops a swarm as it stops any search: the driver waits
for the job while it polls the run's stop request, and once asked it
leaves a stop file in the checkpoint directory (which every executor
reaches, as the breadth-first engine's visited runs do). Each task polls
for that file between batches of steps and returns what it has walked, so
the report counts every behaviour run. Executors that cannot see the file
have their tasks cancelled after a grace period, and the report says so.

Only the SparkContext's setup is shared with the breadth-first Spark engine
(``modelcheck.spark.session``); nothing here touches its executor code. The
simulator that runs it is ``modelcheck.engines.spark.SwarmSimulator``.
"""

from __future__ import annotations

import os
import threading
import time
import uuid
from dataclasses import replace
from functools import partial

import numpy as np

from modelcheck.runtime.limits import INTERRUPTED
from modelcheck.search.simulate.walks import WalkPlan, WalkReport

# how long tasks have to notice the stop file before their job is cancelled: a
# task polls it between steps, and once its kernels are built (seconds, on a
# busy machine, for the larger specs)
STOP_GRACE_SECONDS = 15.0
JOB_GROUP = "modelcheck-swarm"


class StopFile:
    """An executor task's stop request: the driver's stop file exists.
    Polled as ``Limits.reached`` is, at most every ``poll`` seconds."""

    def __init__(self, path: str, poll: float = 0.2):
        self.path, self.poll, self._last = path, poll, 0.0

    def reached(self, states: int | None = None) -> str | None:
        now = time.monotonic()
        if now - self._last < self.poll:
            return None
        self._last = now
        return INTERRUPTED if os.path.exists(self.path) else None


def shares(total: int | None, parts: int) -> list[int | None]:
    """``total`` behaviours split as evenly as possible over ``parts`` tasks."""
    if total is None:
        return [None] * parts
    return [total // parts + (1 if i < total % parts else 0) for i in range(parts)]


def task_rng(seed: int, parts: int, index: int) -> np.random.Generator:
    return np.random.default_rng(np.random.SeedSequence(seed).spawn(parts)[index])


def walk_task(key: tuple, invariants: tuple, plan: WalkPlan, seed: int, parts: int, behaviours: list,
              stop_path: str, index: int, _records) -> list:
    """What one executor task does (module-level, so Spark can pickle it)."""
    from modelcheck.search.simulate.walks import RandomWalks, SeenStates
    from modelcheck.loading.registry import load_model

    if behaviours[index] == 0:
        return [(index, WalkReport(), np.zeros(0, np.uint64))]
    walks = RandomWalks(load_model(key), invariants)
    seen = SeenStates()
    report = walks.run(replace(plan, behaviours=behaviours[index]), task_rng(seed, parts, index),
                       StopFile(stop_path), seen=seen)
    return [(index, report, np.concatenate([seen.old, seen.recent]))]


def run_swarm(model, options, plan: WalkPlan, seed: int, context=None) -> WalkReport:
    """The swarm's merged report; ``context`` is an existing SparkContext to
    use (left running), else one is started from the run's Spark settings."""
    from modelcheck.spark.session import spark_run
    from modelcheck.spark.settings import SparkSettings

    settings = SparkSettings.of(options.engine_options)
    with spark_run(settings, f"modelcheck simulate {model.spec.name}", context) as run:
        started = time.perf_counter()  # the job's time: the context's start-up is not simulation
        if options.limits.reached():  # stopped while Spark started: no walk was begun
            return WalkReport(stopped=INTERRUPTED)
        parts = run.partitions
        options.progress.note(f"spark: {run.master} · {parts} tasks of random walks, seed {seed} · "
                              f"started in {run.startup_seconds:.1f} s")
        stop_path = os.path.join(run.checkpoint_dir, f"stop-swarm-{uuid.uuid4().hex}")
        task = partial(walk_task, model.key(), tuple(options.invariants), plan, seed, parts,
                       shares(plan.behaviours, parts), stop_path)
        try:
            results = collect_until_stopped(run.sc, run.sc.parallelize(range(parts), parts)
                                            .mapPartitionsWithIndex(task), options.limits, stop_path)
        finally:
            if os.path.exists(stop_path):
                os.unlink(stop_path)
        seconds = time.perf_counter() - started
    if results is None:  # the tasks could not be told, and were cancelled
        options.progress.note("spark: the executors did not see the stop request; their walks were cancelled")
        return WalkReport(seconds=seconds, stopped=INTERRUPTED)
    report = merge_reports(sorted(results, key=lambda r: r[0]), seconds)
    if options.limits.stop.requested and report.violation is None:
        report.stopped = INTERRUPTED
    return report


def collect_until_stopped(sc, rdd, limits, stop_path: str, tick: float = 0.1) -> list | None:
    """``rdd.collect()``, run in a thread while this one polls ``limits``:
    once a stop is asked for, the stop file tells the tasks; if they have not
    ended ``STOP_GRACE_SECONDS`` later, the job is cancelled (None)."""
    outcome: dict = {}

    def collect() -> None:
        try:
            sc.setJobGroup(JOB_GROUP, "random walks", True)
            outcome["results"] = rdd.collect()
        except BaseException as e:  # handed to the waiting thread
            outcome["error"] = e

    worker = threading.Thread(target=collect, name="modelcheck-swarm", daemon=True)
    worker.start()
    stop_deadline = None
    while worker.is_alive():
        worker.join(tick)
        if stop_deadline is None and limits.reached():
            with open(stop_path, "w"):
                pass
            stop_deadline = time.monotonic() + STOP_GRACE_SECONDS
        elif stop_deadline is not None and time.monotonic() > stop_deadline:
            sc.cancelJobGroup(JOB_GROUP)
            worker.join()
            return None
    if "error" in outcome:
        raise outcome["error"]
    return outcome["results"]


def merge_reports(results: list, seconds: float) -> WalkReport:
    """One report for the swarm: counts added, distinct states united, the
    first task's violation."""
    total = WalkReport(seconds=seconds)
    for _, r, _fps in results:
        total.behaviours += r.behaviours
        total.steps += r.steps
        total.generated += r.generated
        total.longest = max(total.longest, r.longest)
        if total.violation is None and r.violation is not None:
            total.violation = r.violation
        for name, seen in r.sometimes.items():
            total.sometimes[name] = total.sometimes.get(name, False) or seen
    total.distinct = int(np.unique(np.concatenate([fps for _, _, fps in results])).size) if results else 0
    return total
