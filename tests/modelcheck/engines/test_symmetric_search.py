"""Searches over orbit representatives (--symmetry): the reference and fast
engines count TLC's orbits, agree with each other, and report shortest
counterexamples that are genuine behaviours of the same length as without
symmetry."""

import pytest

from support import model
from modelcheck.search.canonical import Canonicaliser
from modelcheck.engines.base import CheckOptions
from modelcheck.engines.bfs import BfsChecker
from modelcheck.engines.fast import FastChecker

ENGINES = [BfsChecker, FastChecker]
SMALL3 = {"Replicas": 3, "LogSize": 1, "MaxRecords": 1, "MaxLeaderEpoch": 1}


def check(checker, m, invariants=None, **options):
    return checker().check(m, CheckOptions(tuple(invariants or m.spec.default_invariants), **options))


@pytest.mark.parametrize("engine", ENGINES)
def test_kip320_with_two_replicas_has_tlcs_orbit_count(engine):
    """TLC, SYMMETRY Permutations(Replicas): 2,987 distinct states, depth 18."""
    r = check(engine, model("kip320", Replicas=2), symmetry=True)
    assert (r.result, r.distinct_states, r.depth) == ("ok", 2987, 18)


@pytest.mark.parametrize("name, consts, invariants", [
    ("kip320-first-try", {"Replicas": 2}, None),
    ("kip279", {"Replicas": 2}, None),
    ("truncate-to-hw", {"Replicas": 2}, None),
    ("kip101", {"Replicas": 2}, None),
    ("kip320", SMALL3, None),
    ("kip320-first-try", SMALL3, None),
    ("kip320-consumer", {"MaxRecords": 1, "LogSize": 1}, None),
])
def test_engines_agree_under_symmetry(name, consts, invariants):
    m = model(name, **consts)
    reference = check(BfsChecker, m, invariants, symmetry=True)
    fast = check(FastChecker, m, invariants, symmetry=True)
    plain = check(FastChecker, m, invariants)
    assert (fast.result, fast.depth) == (reference.result, reference.depth)
    assert reference.result == plain.result and reference.depth == plain.depth
    if plain.result == "violation":  # (a violation ends the search part-way through a level)
        assert reference.violation.invariant == fast.violation.invariant == plain.violation.invariant
        assert reference.violation.length == fast.violation.length == plain.violation.length
    else:
        assert fast.distinct_states == reference.distinct_states < plain.distinct_states


def test_the_orbit_sizes_add_up_to_the_count_without_symmetry():
    """kip320 with 3 replicas: 737,794 states without symmetry, as TLC counts them."""
    m = model("kip320", Replicas=3)
    r = check(FastChecker, m, symmetry=True, engine_options={"orbit_sizes": True})
    plain = check(FastChecker, m)
    assert plain.distinct_states == 737_794
    assert r.distinct_states == 123_311
    assert f"stand for {plain.distinct_states:,} states" in r.notes[0]


@pytest.mark.parametrize("engine", ENGINES)
def test_a_counterexample_is_mapped_back_to_a_genuine_behaviour(engine):
    m = model("kip101", Replicas=2)
    r = check(engine, m, symmetry=True)
    v = r.violation
    assert v.invariant == "WeakIsr" and v.length == 12
    assert v.states[0] == m.init_states[0]
    for before, action, after in zip(v.states, v.actions[1:], v.states[1:]):
        assert (action, after) in m.successors(before)
    assert not m.compiled.predicates["WeakIsr"](v.states[-1])
    canon = Canonicaliser(m)
    assert canon.states(v.states) != v.states  # not just the representatives


def test_the_first_try_keeps_its_13_state_trace_with_three_replicas():
    m = model("kip320-first-try", Replicas=3)
    r = check(FastChecker, m, ("StrongIsr",), symmetry=True)
    assert r.violation.invariant == "StrongIsr" and r.violation.length == 13 and r.depth == 13
    for before, action, after in zip(r.violation.states, r.violation.actions[1:], r.violation.states[1:]):
        assert (action, after) in m.successors(before)
