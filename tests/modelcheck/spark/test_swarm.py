"""The Spark swarm in local mode: reproducible from the seed, its tasks'
behaviours adding up, and its violation a genuine, shrunk behaviour."""

import pytest

from support import model
from modelcheck.engines.base import CheckOptions
from modelcheck.engines.bfs import rebuild_trace
from modelcheck.engines.spark import SwarmSimulator
from modelcheck.search.simulate.settings import SimulationSettings
from modelcheck.spark.swarm import shares
from modelcheck.search.simulate.walks import WalkPlan
from spark_support import local_context


@pytest.fixture(scope="module")
def context():
    with local_context("modelcheck swarm tests") as sc:
        yield sc


def swarm(context, m, invariants, seed, behaviours):
    simulator = SwarmSimulator(SimulationSettings(WalkPlan(behaviours=behaviours, batch=512), seed), context)
    result = simulator.check(m, CheckOptions(invariants, engine_options={"partitions": 3}))
    return result, simulator.stats


def test_shares_split_the_behaviours():
    assert shares(10, 3) == [4, 3, 3] and shares(2, 3) == [1, 1, 0] and shares(None, 2) == [None, None]


def test_the_same_seed_gives_the_same_swarm(context):
    m = model("kip320", Replicas=2)
    a, sa = swarm(context, m, ("WeakIsr",), 11, 900)
    b, sb = swarm(context, m, ("WeakIsr",), 11, 900)
    assert sa["behaviours"] == 900 and a.result == "bounded-ok"
    assert (sa, a.distinct_states) == (sb, b.distinct_states)
    assert 0 < a.distinct_states <= 5973


def test_a_swarm_violation_replays(context):
    m = model("truncate-to-hw", Replicas=2)
    result, stats = swarm(context, m, ("WeakIsr",), 3, 20000)
    v = result.violation
    assert v.invariant == "WeakIsr" and 9 <= v.length <= stats["trace_length_before_shrink"]
    path = [-1] + v.actions[1:]
    assert rebuild_trace(m, path)[0] == v.states
    assert not m.compiled.predicates["WeakIsr"](v.states[-1])
