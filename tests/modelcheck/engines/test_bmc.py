"""Bounded model checking with z3 against the breadth-first engine: the same
shortest violations, traces that replay, and no false alarms."""

import pytest

from support import async_isr_ignoring_the_pending_isr, model
from modelcheck.engines.base import DEADLOCK, CheckOptions
from modelcheck.engines.bfs import BfsChecker
from modelcheck.engines.bmc import DEFAULT_MAX_DEPTH, BmcChecker, BmcSettings, run_bmc

PLAIN = BmcSettings(selectors="binary", partial_order_window=0, symmetry=False, invariant_lemmas=False)


def bfs(m, invariants=None, **options):
    return BfsChecker().check(m, CheckOptions(tuple(invariants or m.spec.default_invariants), **options))


def bmc(m, invariants=None, settings=None, **options):
    engine_options = {"z3": settings} if settings else {}
    return BmcChecker().check(m, CheckOptions(tuple(invariants or m.spec.default_invariants),
                                              engine_options=engine_options, **options))


def assert_replays(m, violation, invariants):
    """A behaviour from Init, each step one the explicit engine takes, every
    state but the last satisfying the invariants and the last breaking the
    one reported."""
    states, actions = violation.states, violation.actions
    assert states[0] in m.init_states and actions[0] is None
    for before, index, after in zip(states, actions[1:], states[1:]):
        assert (index, after) in m.successors(before)
    predicates = m.compiled.predicates
    assert all(predicates[n](s) for s in states[:-1] for n in invariants)
    assert violation.invariant in invariants and not predicates[violation.invariant](states[-1])


# The configurations where the breadth-first engine finds a violation. kip320-first-try's
# 13-state trace takes z3 two minutes here: bench/bench_z3.py runs it.
VIOLATIONS = [
    ("truncate-to-hw", {"Replicas": 2}, None),
    ("kip101", {"Replicas": 2}, None),
    ("kip279", {"Replicas": 3}, None),
    ("kip320-consumer", {"ConsumerFencing": "false"}, None),
    ("kafka-clients", {}, ["NoWriteToStaleLeader"]),
]


@pytest.mark.parametrize("name, consts, invariants", VIOLATIONS, ids=[v[0] for v in VIOLATIONS])
def test_shortest_violation_has_the_breadth_first_length(name, consts, invariants):
    m = model(name, **consts)
    invariants = invariants or list(m.spec.default_invariants)
    expected = bfs(m, invariants)
    assert expected.result == "violation"
    depths = []
    outcome = run_bmc(m, invariants, expected.depth + 2, on_depth=depths.append)
    assert outcome.result == "violation"
    assert outcome.depth == outcome.violation.length == expected.violation.length
    # every shorter depth was searched and came up empty
    assert [(d.depth, d.found) for d in depths[:-1]] == [(d, None) for d in range(1, outcome.depth)]
    assert_replays(m, outcome.violation, invariants)


def test_no_false_alarm_on_kip320_to_depth_8():
    m = model("kip320", Replicas=3)
    r = bmc(m, max_depth=8)
    assert (r.result, r.depth, r.distinct_states, r.violation) == ("bounded-ok", 8, None, None)
    # the reachability checks are found at the depths breadth-first search finds them
    assert r.sometimes == bfs(m).sometimes == {"LeaderElected": 3, "HighWatermarkAdvanced": 7}


def test_every_encoding_choice_finds_the_same_length():
    """The reductions prune behaviours but keep the shortest counterexample:
    without any of them (and with binary action selectors) the length is the same.
    Every choice on two replicas; on three, the default reductions (symmetry
    breaking among three replicas), each of the others taking minutes."""
    every = (PLAIN, BmcSettings(symmetry=False), BmcSettings(partial_order_window=0),
             BmcSettings(partial_order_window=4))
    for replicas, choices in ((2, every), (3, (BmcSettings(),))):
        m = model("truncate-to-hw", Replicas=replicas)
        expected = bfs(m)
        assert expected.result == "violation"
        for settings in choices:
            r = bmc(m, settings=settings, max_depth=expected.depth + 1)
            assert (r.result, r.violation.length) == ("violation", expected.violation.length), settings
            assert_replays(m, r.violation, m.spec.default_invariants)


def test_async_isr_agrees_with_breadth_first_search():
    """No symmetry here (the leader is fixed): the plain unrolling finds no
    violation and reaches each reachability check at the same depth."""
    m = model("async-isr")
    expected = bfs(m)
    r = bmc(m, max_depth=12)
    assert (expected.result, r.result) == ("ok", "bounded-ok")
    assert r.sometimes == expected.sometimes


def test_async_isr_mutation_is_found_at_the_same_depth(monkeypatch):
    """With the high watermark computed over the current ISR alone,
    ValidHighWatermark breaks; both engines find the same length."""
    m = async_isr_ignoring_the_pending_isr(monkeypatch)
    expected = bfs(m)
    r = bmc(m, max_depth=expected.depth)
    assert expected.result == r.result == "violation"
    assert r.violation.length == expected.violation.length
    assert_replays(m, r.violation, ["ValidHighWatermark"])


def test_invariant_broken_in_the_initial_state():
    r = bmc(model("kip320", Replicas=2), ["LeaderInIsr"], max_depth=5)
    assert (r.result, r.depth, r.violation.length, r.violation.invariant) == ("violation", 1, 1, "LeaderInIsr")


def test_deadlock_is_found_at_the_breadth_first_length():
    m = model("kip320", Replicas=1, LogSize=1, MaxRecords=1, MaxLeaderEpoch=0)
    assert bmc(m, max_depth=6).result == "bounded-ok"
    r = bmc(m, max_depth=6, check_deadlock=True)
    expected = bfs(m, check_deadlock=True)
    assert r.violation.invariant == expected.violation.invariant == DEADLOCK
    assert r.violation.length == expected.violation.length == 2
    assert m.successors(r.violation.states[-1]) == []


def test_max_depth_counts_states_as_breadth_first_search_does():
    m = model("truncate-to-hw", Replicas=2)  # breadth-first: a 9-state violation
    assert bmc(m, max_depth=8).result == "bounded-ok"
    r = bmc(m, max_depth=9)
    assert (r.result, r.depth, r.violation.length, r.distinct_states) == ("violation", 9, 9, None)
    r = bmc(model("kip320", Replicas=2), max_depth=1)
    assert (r.result, r.depth) == ("bounded-ok", 1)


def test_default_depth_is_said_out_loud():
    r = bmc(model("kip320", Replicas=2))
    assert (r.result, r.depth) == ("bounded-ok", DEFAULT_MAX_DEPTH)
    assert any(f"depth {DEFAULT_MAX_DEPTH}" in note for note in r.notes)
