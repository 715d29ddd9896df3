"""Random walks: reproducible from the seed, checking every successor, and
finding violations whose traces are genuine behaviours."""

import numpy as np

from support import model
from modelcheck.engines.base import DEADLOCK
from modelcheck.search.simulate.shrink import run_path
from modelcheck.search.simulate.walks import RandomWalks, SeenStates, WalkPlan


def walk(m, invariants, seed, **plan):
    return RandomWalks(m, invariants).run(WalkPlan(**plan), np.random.default_rng(seed))


def test_the_same_seed_gives_the_same_behaviours():
    m = model("kip320", Replicas=2)
    a = walk(m, ("WeakIsr",), 7, behaviours=300, batch=64, depth=30)
    b = walk(m, ("WeakIsr",), 7, behaviours=300, batch=64, depth=30)
    c = walk(m, ("WeakIsr",), 8, behaviours=300, batch=64, depth=30)
    assert (a.behaviours, a.steps, a.generated, a.distinct, a.longest) == \
        (b.behaviours, b.steps, b.generated, b.distinct, b.longest)
    assert a.behaviours == 300 and a.violation is None
    assert (a.steps, a.distinct) != (c.steps, c.distinct)


def test_walks_stay_within_the_reachable_states():
    m = model("kip320", Replicas=2)  # 5,973 reachable states (pinned in the engine tests)
    r = walk(m, ("WeakIsr",), 1, behaviours=2000, batch=256)
    assert 1000 < r.distinct <= 5973
    assert r.longest <= 101


def test_a_violation_is_a_behaviour_that_breaks_the_invariant():
    m = model("truncate-to-hw", Replicas=2)
    r = walk(m, ("WeakIsr",), 3, behaviours=20000, batch=512)
    invariant, path = r.violation
    assert invariant == "WeakIsr"
    # replayed step by step with the model's own successors, it ends where WeakIsr first breaks
    assert run_path(m, path, lambda s: not m.compiled.predicates["WeakIsr"](s)) == path


def test_invariants_are_checked_on_successors_not_only_on_states_taken():
    # with one step per behaviour the walks only ever take one transition,
    # so a violation two steps deep can only be found from successors checked one step ahead
    m = model("truncate-to-hw", Replicas=2)
    r = walk(m, ("WeakIsr",), 0, behaviours=50, batch=50, depth=1)
    assert r.violation is None and r.longest == 2
    assert r.generated > r.steps


def test_deadlock_is_reported_when_asked():
    m = model("kip320", Replicas=2)  # bounded: its behaviours end in states without successors
    r = walk(m, ("WeakIsr",), 0, behaviours=10, batch=4, check_deadlock=True)
    invariant, path = r.violation
    assert invariant == DEADLOCK
    assert run_path(m, path, lambda s: not m.successors(s)) == path


def test_seen_states_counts_each_fingerprint_once():
    seen = SeenStates()
    seen.MERGE_AT = 4
    assert seen.add(np.array([5, 3, 5, 9], np.uint64)).tolist() == [True, True, False, True]
    assert seen.add(np.array([9, 1, 2, 7, 3], np.uint64)).tolist() == [False, True, True, True, False]
    assert len(seen) == 6 and seen.recent.size == 0
    assert seen.add(np.array([7, 8], np.uint64)).tolist() == [False, True]


def test_long_behaviours_are_walked_fewer_at_a_time_within_the_paths_budget():
    from modelcheck.search.simulate.settings import MAX_DEPTH
    from modelcheck.search.simulate.walks import BATCH, PATHS_BUDGET, batch_for
    assert batch_for(100) == batch_for(32_767) == BATCH  # the behaviours a seed gives stay the same
    for depth in (32_768, 100_000, MAX_DEPTH):
        assert 1 <= batch_for(depth) < BATCH and 4 * (depth + 1) * batch_for(depth) <= PATHS_BUDGET
