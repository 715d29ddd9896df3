"""Kip320Live's properties on kip320 with two replicas: TLC's verdicts, on both engines."""

import pytest

from modelcheck.capabilities.liveness.check import check_liveness
from modelcheck.capabilities.liveness.lasso import LassoShape, is_fair, violates
from modelcheck.runtime.progress import Silent
from support import model

# TLC (tlaplus/tlaplus cc6b616, -deadlock) on Kip320Live.tla, Replicas = {r1, r2},
# LogSize = MaxRecords = MaxLeaderEpoch = 2, one run per specification and property.
VIOLATED_UNDER_EVERY_SPECIFICATION = {"LeaderEventuallyElected", "EpochsConverge", "WrittenLeadsToCommitted",
                                      "InSyncInfinitelyOften", "IsrSettles"}
HOLDING_UNLESS_UNFAIR = {"LeaderAdoptsItsRequest", "WritesWhenLed", "QuorumIsrStabilizes"}


@pytest.fixture(scope="module")
def kip320():
    return model("kip320", Replicas="2")


def check(m, engine, specification):
    chosen = m.spec.specification(specification)
    result = check_liveness(m, engine, m.spec.property_names(), chosen, Silent())
    assert (result.states, result.graph.depth) == (5973, 18)
    for v in result.verdicts:
        if v.lasso is not None:
            shape = LassoShape([result.graph.state(n) for n in v.lasso.nodes], v.lasso.loop, v.lasso.stutters)
            assert is_fair(m, chosen, shape), v.case.label
            assert violates(m, v.case, shape), v.case.label
    return result


@pytest.mark.parametrize("engine", ["bfs", "fast"])
@pytest.mark.parametrize("specification", ["Spec", "NoFairSpec", "FairFetchSpec"])
def test_verdicts_match_tlc(kip320, engine, specification):
    verdicts = check(kip320, engine, specification).property_verdicts()
    violated = {name for name, ok in verdicts.items() if not ok}
    if specification == "NoFairSpec":
        assert violated == VIOLATED_UNDER_EVERY_SPECIFICATION | HOLDING_UNLESS_UNFAIR
    else:
        assert violated == VIOLATED_UNDER_EVERY_SPECIFICATION


@pytest.mark.parametrize("engine", ["bfs", "fast"])
def test_the_calibration_lassos_have_the_shapes_tlc_reports(kip320, engine):
    unfair = {v.case.property: v.lasso for v in check(kip320, engine, "NoFairSpec").verdicts if v.lasso}
    # LeaderAdoptsItsRequest fails by stuttering after a request names a leader
    assert unfair["LeaderAdoptsItsRequest"].stutters
    # QuorumIsrStabilizes can only fail on a real cycle: a shrink and an expand forever
    assert not unfair["QuorumIsrStabilizes"].stutters


def test_the_engines_build_the_same_graph(kip320):
    spec = kip320.spec.specification("Spec")
    a = check_liveness(kip320, "bfs", [], spec, Silent()).graph
    b = check_liveness(kip320, "fast", [], spec, Silent()).graph
    states_a = sorted(a.state(n) for n in range(a.count))
    assert states_a == sorted(b.state(n) for n in range(b.count))
    steps = lambda g: sorted((g.state(int(s)), g.state(int(t)), int(f))  # noqa: E731
                             for s, t, f in zip(g.src, g.dst, g.fair_taken))
    assert steps(a) == steps(b)
    enabled = lambda g: sorted((g.state(n), int(g.fair_enabled[n])) for n in range(g.count))  # noqa: E731
    assert enabled(a) == enabled(b)
