"""The simulator behind the engines' interface: ``check(model, options)``.

It runs the random walks (in this process, or as a swarm on Spark), shrinks
a violation's path, and returns a ``CheckResult`` whose violation is the
shrunk behaviour, so that ``modelcheck.run.execute`` writes, shows and
explains it like any other engine's. What only a simulation has (behaviours,
steps, the seed, the length before shrinking) is kept in ``stats``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from modelcheck.engines.base import CheckOptions, CheckResult, Violation
from modelcheck.engines.bfs import rebuild_trace
from modelcheck.simulate.shrink import shrink
from modelcheck.simulate.walks import RandomWalks, WalkPlan, WalkReport


@dataclass(frozen=True)
class SimulationSettings:
    plan: WalkPlan
    seed: int
    shrink: bool = True
    swarm: bool = False  # on Spark, with the run's Spark settings
    shrink_budget: float = 30.0


class Simulator:
    name = "simulate"
    collects_coverage = True  # in process; the Spark swarm does not (checked before it starts)

    def __init__(self, settings: SimulationSettings, context=None):
        self.settings = settings
        self._context = context  # a SparkContext for the swarm to use, else it starts its own
        self.stats: dict[str, Any] = {}

    def check(self, model, options: CheckOptions) -> CheckResult:
        s = self.settings
        if s.swarm:
            from modelcheck.simulate.swarm import run_swarm
            report = run_swarm(model, options, s.plan, s.seed, self._context)
            engine = "simulate-spark"
        else:
            walks = RandomWalks(model, options.invariants, options.coverage)
            report = walks.run(s.plan, np.random.default_rng(s.seed), options.limits, options.progress)
            engine = "simulate"
        options.progress.clear()
        return self._result(model, report, engine)

    def _result(self, model, report: WalkReport, engine: str) -> CheckResult:
        s = self.settings
        self.stats = {"behaviours": report.behaviours, "steps": report.steps, "seed": s.seed,
                      "states_generated": report.generated}
        violation = None
        if report.violation is not None:
            invariant, path = report.violation
            self.stats["trace_length_before_shrink"] = len(path)
            if s.shrink:
                path = shrink(model, path, invariant, s.shrink_budget)
            states, actions = rebuild_trace(model, path)
            violation = Violation(invariant, states, actions)
        self.stats["reached"] = [n for n, seen in report.sometimes.items() if seen]
        result = "violation" if violation else "bounded-ok"
        return CheckResult(engine, result, report.distinct, report.longest, report.seconds, violation,
                           report.generated, stopped=report.stopped)
