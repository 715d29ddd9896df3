"""Shrinking keeps a genuine behaviour that breaks the same invariant, and
never makes it longer."""

import numpy as np
import pytest

from support import model
from modelcheck.engines.bfs import rebuild_trace
from modelcheck.search.simulate.shrink import badness, run_path, shrink
from modelcheck.search.simulate.walks import RandomWalks, WalkPlan


@pytest.mark.parametrize("name, invariant, seed, shortest", [("truncate-to-hw", "WeakIsr", 3, 9),
                                                               ("kip101", "WeakIsr", 3, 12)])
def test_shrinking_keeps_the_violation_and_never_lengthens(name, invariant, seed, shortest):
    m = model(name, Replicas=2)
    found = RandomWalks(m, (invariant,)).run(WalkPlan(behaviours=50000, batch=1024), np.random.default_rng(seed))
    _, path = found.violation
    shrunk = shrink(m, path, invariant)
    assert shortest <= len(shrunk) <= len(path)  # never shorter than breadth-first search's shortest
    states, _ = rebuild_trace(m, shrunk)  # every step is a legal transition
    bad = badness(m, invariant)
    assert bad(states[-1]) and not any(bad(s) for s in states[:-1])


def test_dropping_a_step_that_matters_is_refused():
    m = model("truncate-to-hw", Replicas=2)
    found = RandomWalks(m, ("WeakIsr",)).run(WalkPlan(behaviours=50000, batch=1024), np.random.default_rng(3))
    path = shrink(m, found.violation[1], "WeakIsr")
    bad = badness(m, "WeakIsr")
    # a shrunk trace is 1-minimal: removing any single step loses the violation or keeps the length
    for i in range(1, len(path)):
        candidate = run_path(m, path[:i] + path[i + 1:], bad)
        assert candidate is None or len(candidate) >= len(path)
