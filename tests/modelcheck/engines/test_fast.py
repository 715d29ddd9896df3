"""The fast engine must agree with the reference engine exactly."""

import pytest

from support import model
from modelcheck.engines.base import CheckOptions
from modelcheck.engines.bfs import BfsChecker
from modelcheck.engines.fast import FastChecker

CASES = [
    ("kip320", {"Replicas": 2}, None),
    ("kip320-first-try", {"Replicas": 2}, None),
    ("kip279", {"Replicas": 2}, None),
    ("truncate-to-hw", {"Replicas": 2}, None),
    ("kip101", {"Replicas": 2}, None),
    ("kip279", {"Replicas": 3}, None),
    ("kip320-first-try", {"Replicas": 3}, ("StrongIsr",)),
    ("async-isr", {}, None),
    ("kip320-consumer", {}, None),
    ("kip320-consumer", {"TruncationCheck": "FALSE"}, None),
    ("kip320-consumer", {"UncleanElection": "FALSE", "ConsumerFencing": "FALSE", "TruncationCheck": "FALSE"}, None),
    ("kafka-clients", {"MaxLeaderEpoch": 1}, None),
    ("kafka-clients", {"UncleanElection": "TRUE", "AcksAll": "FALSE"}, ("NoAckedWriteLost",)),
    ("kip320", {"Replicas": 1, "LogSize": 1, "MaxRecords": 1, "MaxLeaderEpoch": 0}, ("LeaderInIsr",)),
]


def run(checker, m, invariants=None, **options):
    return checker.check(m, CheckOptions(tuple(invariants or m.spec.default_invariants), **options))


@pytest.mark.parametrize("name, consts, invariants", CASES)
def test_fast_agrees_with_bfs(name, consts, invariants):
    m = model(name, **consts)
    reference = run(BfsChecker(), m, invariants)
    fast = run(FastChecker(), m, invariants)
    assert fast.result == reference.result
    assert fast.depth == reference.depth
    if reference.result == "violation":
        assert fast.violation.invariant == reference.violation.invariant
        assert fast.violation.length == reference.violation.length
        states = fast.violation.states
        assert states[0] in m.init_states
        for before, index, after in zip(states, fast.violation.actions[1:], states[1:]):
            assert (index, after) in m.successors(before)
    else:
        assert fast.distinct_states == reference.distinct_states
        assert fast.sometimes == reference.sometimes


def test_calibration_figures():
    r = run(FastChecker(), model("kip320", Replicas=2))
    assert (r.result, r.distinct_states, r.depth) == ("ok", 5973, 18)
    r = run(FastChecker(), model("kip320-first-try", Replicas=2))
    assert (r.result, r.distinct_states, r.depth) == ("ok", 8429, 18)


def test_bounded_and_deadlock_agree():
    m = model("kip320", Replicas=2)
    for depth in (1, 4, 18):
        a, b = run(BfsChecker(), m, max_depth=depth), run(FastChecker(), m, max_depth=depth)
        assert (a.result, a.distinct_states, a.depth) == (b.result, b.distinct_states, b.depth)
    tiny = model("kip320", Replicas=1, LogSize=1, MaxRecords=1, MaxLeaderEpoch=0)
    a, b = run(BfsChecker(), tiny, check_deadlock=True), run(FastChecker(), tiny, check_deadlock=True)
    assert b.result == "violation" and b.violation.invariant == "Deadlock"
    assert a.violation.length == b.violation.length
    for depth in (1, 2, 5, 6):
        a = run(BfsChecker(), tiny, check_deadlock=True, max_depth=depth)
        b = run(FastChecker(), tiny, check_deadlock=True, max_depth=depth)
        assert (a.result, a.depth) == (b.result, b.depth), depth
        if a.violation:  # the count at a violation depends on the engine's order; the trace does not
            assert a.violation.length == b.violation.length
        else:
            assert a.distinct_states == b.distinct_states


@pytest.mark.slow
def test_kip320_defaults():
    r = run(FastChecker(), model("kip320"))
    assert (r.result, r.distinct_states, r.depth) == ("ok", 737794, 26)
