"""k-induction with z3: proofs, real counterexamples from the base case, and
counterexamples to induction checked state by state with the explicit engine."""

import pytest

from support import model
from modelcheck.engines.base import CheckOptions
from modelcheck.engines.bfs import BfsChecker
from modelcheck.capabilities.induction import NOT_INDUCTIVE, PROVED, VIOLATION, prove
from modelcheck.specs.kip320_lemmas import LEMMAS

TINY = {"Replicas": 2, "LogSize": 1, "MaxRecords": 1, "MaxLeaderEpoch": 1}
LEMMA_NAMES = [lemma.name for lemma in LEMMAS]


def test_an_inductive_invariant_is_proved_by_plain_induction():
    o = prove(model("kip320", Replicas=3), ["RequestsSentBelowNextEpoch"], 1)
    assert (o.result, o.k) == (PROVED, 1)


def test_base_case_failure_is_the_shortest_real_counterexample():
    m = model("truncate-to-hw", Replicas=2)
    invariants = list(m.spec.default_invariants)
    o = prove(m, invariants, 12)
    expected = BfsChecker().check(m, CheckOptions(tuple(invariants)))
    assert o.result == VIOLATION
    assert o.k == o.violation.length == expected.violation.length == 9
    states, actions = o.violation.states, o.violation.actions
    assert states[0] in m.init_states
    assert all((i, t) in m.successors(s) for s, i, t in zip(states, actions[1:], states[1:]))


@pytest.mark.parametrize("k", [1, 3])
def test_counterexample_to_induction(k):
    """StrongIsr alone is not inductive: k + 1 distinct states linked by
    Next, the first k satisfying it, the last breaking it."""
    m = model("kip320", Replicas=2)
    o = prove(m, ["StrongIsr"], k)
    assert (o.result, o.k) == (NOT_INDUCTIVE, k)
    c = o.counterexample
    strong = m.compiled.predicates["StrongIsr"]
    assert c.length == k + 1 and len(set(c.states)) == k + 1 and c.broken == ["StrongIsr"]
    assert all(strong(s) for s in c.states[:-1]) and not strong(c.states[-1])
    assert all((i, t) in m.successors(s) for s, i, t in zip(c.states, c.actions[1:], c.states[1:]))
    assert c.actions[0] is None


def test_kip320_offers_its_lemmas():
    spec = model("kip320", Replicas=2).spec
    assert spec.lemmas == tuple(LEMMA_NAMES) and set(LEMMA_NAMES) <= set(spec.invariant_names())
    assert len(LEMMA_NAMES) == 20


def test_lemmas_hold_in_every_reachable_state():
    """The lemmas are facts about kip320, checked by breadth-first search."""
    for consts in ({"Replicas": 2}, {"Replicas": 3, "MaxLeaderEpoch": 1}):
        r = BfsChecker().check(model("kip320", **consts), CheckOptions(tuple(LEMMA_NAMES)))
        assert r.result == "ok", (consts, r.violation and r.violation.invariant)


def test_strong_isr_is_proved_with_the_lemmas():
    """On the tiny configuration StrongIsr with TypeOk is not 1-inductive;
    with the lemmas it is (the conjunction is an inductive invariant)."""
    m = model("kip320", **TINY)
    assert prove(m, ["TypeOk", "StrongIsr"], 1).result == NOT_INDUCTIVE
    o = prove(m, ["TypeOk", "StrongIsr", *LEMMA_NAMES], 12)
    assert (o.result, o.k) == (PROVED, 1)
    assert [s.step_holds for s in o.steps] == [True]


def test_strong_isr_is_proved_by_5_induction_with_two_replicas():
    """With the upstream model's other constants, 5 is the least k at which
    the step holds (whether a step holds is a fact about the model, not a
    solver heuristic)."""
    o = prove(model("kip320", Replicas=2), ["TypeOk", "StrongIsr", *LEMMA_NAMES], 8)
    assert (o.result, o.k) == (PROVED, 5)
    assert [s.step_holds for s in o.steps] == [False] * 4 + [True]
