"""The simulator: random walks as an engine, ``check(model, options)``.

It runs the random walks in this process (``modelcheck.search.simulate.walks``,
batched on the fast engine's kernels), shrinks a violation's path
(``modelcheck.search.simulate.shrink``), and returns a ``CheckResult`` whose
violation is the shrunk behaviour, so that ``modelcheck.runs.run.execute``
writes, shows and explains it like any other engine's. What only a
simulation has (behaviours, steps, the seed, the length before shrinking)
is kept in ``stats``. The Spark engine's swarm of walks is the same
simulator with the walks run elsewhere (``modelcheck.engines.spark``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from modelcheck.engines.base import CheckOptions, CheckResult, Violation
from modelcheck.engines.bfs import rebuild_trace
from modelcheck.search.simulate.settings import SimulationSettings
from modelcheck.search.simulate.shrink import shrink
from modelcheck.search.simulate.walks import RandomWalks, WalkReport


class Simulator:
    name = "simulate"

    def __init__(self, settings: SimulationSettings):
        self.settings = settings
        self.stats: dict[str, Any] = {}

    def walk(self, model, options: CheckOptions) -> WalkReport:
        """The walks' merged report."""
        walks = RandomWalks(model, options.invariants, options.coverage)
        return walks.run(self.settings.plan, np.random.default_rng(self.settings.seed), options.limits,
                         options.progress)

    def check(self, model, options: CheckOptions) -> CheckResult:
        report = self.walk(model, options)
        options.progress.clear()
        return self._result(model, report)

    def _result(self, model, report: WalkReport) -> CheckResult:
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
        return CheckResult(self.name, result, report.distinct, report.longest, report.seconds, violation,
                           report.generated, stopped=report.stopped)
