"""The breadth-first engine against TLC's figures and hand-checked models."""

import pytest

from support import model
from modelcheck.language.interpreter import evaluate
from modelcheck.engines.base import CheckOptions
from modelcheck.engines.bfs import BfsChecker


def check(m, invariants=None, **options):
    invariants = tuple(invariants or m.spec.default_invariants)
    return BfsChecker().check(m, CheckOptions(invariants, **options))


# The calibration figures TLC gives on the upstream modules (SPEC_NOTES.md).
def test_kip320_two_replicas_matches_tlc():
    r = check(model("kip320", Replicas=2))
    assert (r.result, r.distinct_states, r.depth) == ("ok", 5973, 18)


def test_kip320_first_try_two_replicas_matches_tlc():
    r = check(model("kip320-first-try", Replicas=2))
    assert (r.result, r.distinct_states, r.depth) == ("ok", 8429, 18)


def test_kip320_first_try_three_replicas_breaks_strong_isr_in_13_states():
    r = check(model("kip320-first-try", Replicas=3), ["StrongIsr"])
    assert r.result == "violation"
    assert r.violation.invariant == "StrongIsr"
    assert r.violation.length == 13 == r.depth


def test_one_replica_counted_by_hand():
    """Replicas={r1}, LogSize=1, MaxRecords=1, MaxLeaderEpoch=0. Only one
    controller update can happen: electing r1 or shrinking the ISR to {}.
    After the election r1 becomes leader, writes its one record and advances
    its high watermark: 1 + 2 + 1 + 1 + 1 = 6 states over 5 levels. No
    follower action exists with one replica, so every family member agrees."""
    for name in ("truncate-to-hw", "kip101", "kip279", "kip320", "kip320-first-try"):
        r = check(model(name, Replicas=1, LogSize=1, MaxRecords=1, MaxLeaderEpoch=0))
        assert (r.result, r.distinct_states, r.depth) == ("ok", 6, 5), name


def test_invariants_are_checked_on_the_initial_state():
    """LeaderInIsr fails at Init: there is no leader yet."""
    r = check(model("kip320", Replicas=2), ["LeaderInIsr"])
    assert r.result == "violation" and r.violation.length == 1 and r.distinct_states == 1


def test_counterexample_is_a_behaviour_that_breaks_only_at_its_end():
    m = model("kip320-first-try", Replicas=3)
    r = check(m, ["StrongIsr"])
    states, actions = r.violation.states, r.violation.actions
    assert states[0] in m.init_states and actions[0] is None
    for before, index, after in zip(states, actions[1:], states[1:]):
        assert (index, after) in m.successors(before)
    strong = m.invariants["StrongIsr"]
    assert all(evaluate(strong, s) for s in states[:-1])
    assert not evaluate(strong, states[-1])


def test_max_depth_bounds_the_search():
    m = model("kip320", Replicas=2)
    r = check(m, max_depth=5)
    assert r.result == "bounded-ok" and r.depth == 5
    levels = [check(m, max_depth=d).distinct_states for d in (1, 2, 3)]
    assert levels[0] == 1 and levels[0] < levels[1] < levels[2]
    # a bound at or past the full depth explores everything and says so
    r = check(m, max_depth=18)
    assert (r.result, r.distinct_states) == ("ok", 5973)


def test_deadlock_is_reported_only_when_asked():
    m = model("kip320", Replicas=1, LogSize=1, MaxRecords=1, MaxLeaderEpoch=0)
    assert check(m).result == "ok"
    r = check(m, check_deadlock=True)
    assert r.result == "violation" and r.violation.invariant == "Deadlock"
    # the shrink to an empty ISR is a dead end one step after Init
    assert r.violation.length == 2


def test_reachability_checks_are_witnessed():
    r = check(model("kip320", Replicas=2))
    assert r.sometimes["LeaderElected"] == 3
    assert r.sometimes["HighWatermarkAdvanced"] is not None


@pytest.mark.parametrize("name, replicas, invariant, length", [
    ("truncate-to-hw", 2, "WeakIsr", 9),
    ("kip101", 2, "WeakIsr", 12),
    ("kip279", 3, "WeakIsr", 11),
])
def test_historical_bugs_are_found(name, replicas, invariant, length):
    r = check(model(name, Replicas=replicas))
    assert r.result == "violation"
    assert (r.violation.invariant, r.violation.length) == (invariant, length)


def test_kip279_two_replicas_holds():
    r = check(model("kip279", Replicas=2))
    assert (r.result, r.distinct_states, r.depth) == ("ok", 9027, 18)


def test_async_isr_defaults():
    r = check(model("async-isr"))
    assert (r.result, r.distinct_states, r.depth) == ("ok", 22456, 21)
    assert all(d is not None for d in r.sometimes.values())


@pytest.mark.slow
def test_kip320_defaults_hold():
    r = check(model("kip320"))
    assert (r.result, r.distinct_states, r.depth) == ("ok", 737794, 26)
