"""A swarm of random walks on Spark: every partition runs its own walks.

The walks need no communication, so the whole simulation is one Spark job
of ``partitions`` tasks. Task ``i`` walks with the generator seeded by the
``i``-th child of ``numpy.random.SeedSequence(seed)``, and runs its share of
the behaviours (or all of ``--time``), so a seed and a partition count give
the same behaviours wherever the tasks run. Each task returns its counts,
the fingerprints of the states it went through (the driver unites them for
the distinct count) and its violation, if any; the violation of the lowest
numbered task is the one reported, which keeps the choice reproducible.

Only the SparkContext's setup is shared with the breadth-first Spark engine
(``modelcheck.spark.session``); nothing here touches its executor code. The
simulator that runs it is ``modelcheck.engines.spark.SwarmSimulator``.
"""

from __future__ import annotations

import time
from dataclasses import replace
from functools import partial

import numpy as np

from modelcheck.simulate.walks import WalkPlan, WalkReport


def shares(total: int | None, parts: int) -> list[int | None]:
    """``total`` behaviours split as evenly as possible over ``parts`` tasks."""
    if total is None:
        return [None] * parts
    return [total // parts + (1 if i < total % parts else 0) for i in range(parts)]


def task_rng(seed: int, parts: int, index: int) -> np.random.Generator:
    return np.random.default_rng(np.random.SeedSequence(seed).spawn(parts)[index])


def walk_task(key: tuple, invariants: tuple, plan: WalkPlan, seed: int, parts: int, behaviours: list,
              index: int, _records) -> list:
    """What one executor task does (module-level, so Spark can pickle it)."""
    from modelcheck.simulate.walks import RandomWalks, SeenStates
    from specs import load_model

    if behaviours[index] == 0:
        return [(index, WalkReport(), np.zeros(0, np.uint64))]
    walks = RandomWalks(load_model(key), invariants)
    seen = SeenStates()
    report = walks.run(replace(plan, behaviours=behaviours[index]), task_rng(seed, parts, index), seen=seen)
    return [(index, report, np.concatenate([seen.old, seen.recent]))]


def run_swarm(model, options, plan: WalkPlan, seed: int, context=None) -> WalkReport:
    """The swarm's merged report; ``context`` is an existing SparkContext to
    use (left running), else one is started from the run's Spark settings."""
    from modelcheck.spark.session import spark_run
    from modelcheck.spark.settings import SparkSettings

    settings = SparkSettings.of(options.engine_options)
    with spark_run(settings, f"modelcheck simulate {model.spec.name}", context) as run:
        started = time.perf_counter()  # the job's time: the context's start-up is not simulation
        parts = run.partitions
        options.progress.note(f"spark: {run.master} · {parts} tasks of random walks, seed {seed} · "
                              f"started in {run.startup_seconds:.1f} s")
        task = partial(walk_task, model.key(), tuple(options.invariants), plan, seed, parts,
                       shares(plan.behaviours, parts))
        results = run.sc.parallelize(range(parts), parts).mapPartitionsWithIndex(task).collect()
        seconds = time.perf_counter() - started
    return merge_reports(sorted(results, key=lambda r: r[0]), seconds)


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
