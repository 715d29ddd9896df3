"""The fast engine must agree with the reference engine exactly."""

import itertools
from functools import lru_cache

import pytest

from support import model
from modelcheck.engines.base import CheckOptions
from modelcheck.engines.bfs import BfsChecker
from modelcheck.engines import fast
from modelcheck.engines.fast import FastChecker
from modelcheck.runtime.limits import Limits

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


@lru_cache(maxsize=None)
def reference_run(name, consts, invariants):
    return run(BfsChecker(), model(name, **dict(consts)), invariants)


# the compiled kernel on two threads, and the numpy kernel it is held to
KERNELS = [{"kernels": "compiled", "workers": 2}, {"kernels": "numpy"}]


@pytest.mark.parametrize("kernels", KERNELS, ids=lambda k: k["kernels"])
@pytest.mark.parametrize("name, consts, invariants", CASES)
def test_fast_agrees_with_bfs(name, consts, invariants, kernels):
    m = model(name, **consts)
    reference = reference_run(name, tuple(sorted(consts.items())), invariants)
    fast = run(FastChecker(), m, invariants, engine_options=kernels)
    assert fast.result == reference.result
    assert fast.depth == reference.depth
    # the same count, also at a violation: both stop at the same state, having found the same states
    assert fast.distinct_states == reference.distinct_states
    assert fast.sometimes == reference.sometimes
    if reference.result == "violation":
        assert fast.violation.invariant == reference.violation.invariant
        # the very same counterexample, state by state and action by action
        assert fast.violation.states == reference.violation.states
        assert fast.violation.actions == reference.violation.actions


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
    assert a.distinct_states == b.distinct_states
    assert (a.violation.states, a.violation.actions) == (b.violation.states, b.violation.actions)
    for depth in (1, 2, 5, 6):
        a = run(BfsChecker(), tiny, check_deadlock=True, max_depth=depth)
        b = run(FastChecker(), tiny, check_deadlock=True, max_depth=depth)
        assert (a.result, a.depth, a.distinct_states) == (b.result, b.depth, b.distinct_states), depth
        if a.violation:
            assert a.violation.states == b.violation.states


@pytest.mark.slow
def test_kip320_defaults():
    r = run(FastChecker(), model("kip320"))
    assert (r.result, r.distinct_states, r.depth) == ("ok", 737794, 26)


def stop_requested_at_poll(poll: int) -> Limits:
    """Limits whose stop is requested, as by Ctrl-C, at the given poll made
    between two chunks of a level."""
    limits, polls = Limits(), itertools.count()
    between_levels = limits.reached

    def reached(states=None):
        if states is None and next(polls) == poll:
            limits.stop.request()
        return between_levels(states)

    limits.reached = reached
    return limits


@pytest.mark.parametrize("kernels", KERNELS, ids=lambda k: k["kernels"])
def test_a_stop_within_a_level_counts_and_saves_whole_levels(monkeypatch, tmp_path, kernels):
    """The compiled kernel's visited set takes each chunk's new states as they
    are found; stopped part way through a level, it must give them back, so
    that the count is that of the whole levels and a resumed search ends as
    an uninterrupted one."""
    monkeypatch.setattr(fast, "CHUNK", 128)  # levels of many chunks
    m = model("kip320", Replicas=2)
    for poll in (9, 17, 30):
        saved = str(tmp_path / f"ck{poll}")
        stopped = run(FastChecker(), m, limits=stop_requested_at_poll(poll),
                      engine_options={**kernels, "checkpoint": saved})
        assert stopped.stopped == "interrupted"
        assert stopped.distinct_states == run(FastChecker(), m, max_depth=stopped.depth).distinct_states
        resumed = run(FastChecker(), m, engine_options={**kernels, "resume": saved})
        assert (resumed.result, resumed.distinct_states, resumed.depth) == ("ok", 5973, 18)


def test_a_visited_set_too_large_for_max_memory_stops_the_search_before_it_grows(monkeypatch):
    """The hash tables ask before they grow; a growth --max-memory refuses
    lets them fill up to 90%, then stops the search with the levels it found
    whole (here every growth past 4 MB is refused, as if the limit were that
    close)."""
    from modelcheck.runtime.limits import MAX_MEMORY, SearchStopped
    refused = []

    def make_room(limits, nbytes):
        if nbytes > 4 << 20:
            refused.append(nbytes)
            raise SearchStopped(MAX_MEMORY)

    monkeypatch.setattr(Limits, "make_room", make_room)
    m = model("kip320", Replicas=3)
    engine = {"kernels": "compiled", "workers": 2}
    r = run(FastChecker(), m, engine_options=engine)
    assert (r.result, r.stopped) == ("bounded-ok", MAX_MEMORY) and len(refused) >= 1
    assert any("filled past 70%" in n for n in r.notes)
    monkeypatch.undo()
    assert r.distinct_states == run(FastChecker(), m, engine_options=engine, max_depth=r.depth).distinct_states


def test_the_tables_made_for_each_worker_are_counted_under_max_memory(tmp_path, monkeypatch):
    """Each worker's parts of the visited set are made before the first
    state is found (four tables of 128 KiB each): --max-memory counts them
    before they are made."""
    from modelcheck.backends.compiled import PARTS_PER_WORKER
    from modelcheck.engines.settings import max_workers
    from modelcheck.runtime.limits import MAX_MEMORY, resident_bytes
    monkeypatch.setenv("MODELCHECK_KERNEL_CACHE", str(tmp_path))
    m = model("kip320", Replicas=2, MaxLeaderEpoch=1)
    engine = {"kernels": "compiled", "workers": max_workers()}
    assert run(FastChecker(), m, engine_options=engine).distinct_states == 957  # the kernel built, and loaded
    made = max_workers() * PARTS_PER_WORKER * ((1 << 14) + 1) * 8
    asked = []
    limits = Limits(max_memory=1 << 40)
    make_room = limits.make_room
    limits.make_room = lambda nbytes: (asked.append(nbytes), make_room(nbytes))
    assert run(FastChecker(), m, engine_options=engine, limits=limits).distinct_states == 957
    assert asked[:1] == [made]  # the first question, before any table was made
    refused = Limits(max_memory=resident_bytes() - (1 << 20))  # no room at all: refused before the first state
    r = run(FastChecker(), m, engine_options=engine, limits=refused)
    assert (r.stopped, r.distinct_states) == (MAX_MEMORY, 0)


def test_more_workers_than_the_machine_can_use_are_refused():
    from modelcheck.engines.settings import FastSettings, max_workers
    from modelcheck.errors import InputError
    assert FastSettings(workers=max_workers()).workers == max_workers()
    with pytest.raises(InputError, match=f"at most {max_workers()}"):
        FastSettings(workers=max_workers() + 1)


WIDE = [{"kernels": "compiled", "workers": 2, "fingerprint_bits": 128}, {"kernels": "numpy", "fingerprint_bits": 128}]


@pytest.mark.parametrize("kernels", WIDE, ids=lambda k: k["kernels"])
@pytest.mark.parametrize("name, consts, invariants", [CASES[0], CASES[6], CASES[7], CASES[12]])
def test_128_bit_fingerprints_change_nothing_found(name, consts, invariants, kernels):
    m = model(name, **consts)
    reference = reference_run(name, tuple(sorted(consts.items())), invariants)
    fast = run(FastChecker(), m, invariants, engine_options=kernels)
    assert (fast.result, fast.depth, fast.distinct_states, fast.sometimes, fast.fingerprint_bits) == \
        (reference.result, reference.depth, reference.distinct_states, reference.sometimes, 128)
    if reference.result == "violation":
        assert (fast.violation.states, fast.violation.actions) == (reference.violation.states,
                                                                  reference.violation.actions)


def test_128_bit_fingerprints_under_symmetry_and_a_view():
    wide = {"kernels": "compiled", "fingerprint_bits": 128}
    m = model("kip320", Replicas=3)
    a = run(FastChecker(), m, symmetry=True)
    b = run(FastChecker(), m, symmetry=True, engine_options=wide)
    assert (a.result, a.distinct_states, a.depth) == (b.result, b.distinct_states, b.depth)
    from support import small_model
    k = small_model("kraft-3.5")
    viewed = k.spec.instantiate(k.constants, view=True)
    a, b = run(FastChecker(), viewed), run(FastChecker(), viewed, engine_options=wide)
    assert (a.result, a.distinct_states, a.depth) == (b.result, b.distinct_states, b.depth)
