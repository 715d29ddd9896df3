"""Bounded sets, bags and sequences of records (modelcheck/language/bounded.py),
evaluated on concrete states against plain Python sets and lists."""

import random

import pytest

from modelcheck.language.interpreter import evaluate
from modelcheck.language.bounded import RecordSeq, RecordSet, within_capacity
from modelcheck.errors import SpecDefinitionError
from modelcheck.language.expr import var
from modelcheck.language.records import RecordType, number
from modelcheck.language.schema import NextState, Schema, StateView, integer

PAIR = RecordType("Pair", [number("a", 0, 3), number("b", 0, 2)], order=["b", "a"])
CAP = 4


def setup(**extra):
    schema = Schema([RecordSet("net", PAIR, CAP), RecordSet("bag", PAIR, CAP, bag=3),
                     RecordSeq("log", PAIR, 3), integer("x", 0, 3)])
    return schema, StateView(schema, None)


def blank_state(schema):
    state = [0] * schema.width
    for name in ("net", "bag", "log"):
        c = schema.compounds[name]
        for p in PAIR.parts:
            for k in range(c.capacity):
                state[schema.slot(c.part_field(p.name), k)] = p.blank
    return tuple(state)


def step(schema, view, state, write):
    """Apply the changes ``write(n)`` makes to ``state``; None if its guard is false."""
    n = NextState(schema, view)
    write(n)
    if not evaluate(n.built_guard(), state):
        return None
    out = list(state)
    for slot, e in n.built_assignments().items():
        out[slot] = evaluate(e, state)
    return tuple(out)


def contents(schema, state, name):
    c = schema.compounds[name]
    size = state[schema.slot(c.size_field)]
    items = [tuple(state[schema.slot(c.part_field(p), k)] for p in ("a", "b")) for k in range(size)]
    if getattr(c, "bag", None):
        return [(item, state[schema.slot(c.copies_field, k)]) for k, item in enumerate(items)]
    return items


def overflowed(schema, state, name):
    return bool(state[schema.slot(schema.compounds[name].overflow_field)])


def key(pair):
    return (pair[1], pair[0])  # the declared order: b, then a


def test_adds_and_removes_keep_a_set_sorted_canonical_and_equal_to_the_python_set():
    schema, view = setup()
    rng = random.Random(3)
    for _ in range(40):
        state, reference = blank_state(schema), set()
        for _ in range(8):
            pair = (rng.randrange(4), rng.randrange(3))
            if rng.random() < 0.6:
                if len(reference | {pair}) > CAP:
                    continue
                state = step(schema, view, state, lambda n: n.net.add(PAIR.new(a=pair[0], b=pair[1])))
                reference.add(pair)
            elif reference:
                k = rng.randrange(len(reference))
                state = step(schema, view, state, lambda n: n.net.remove_at(k))
                reference.remove(sorted(reference, key=key)[k])
            assert contents(schema, state, "net") == sorted(reference, key=key)
            assert not overflowed(schema, state, "net")
        # every free slot holds the blank record, so equal sets are equal states
        fresh = blank_state(schema)
        for pair in sorted(reference, key=lambda _: rng.random()):
            fresh = step(schema, view, fresh, lambda n: n.net.add(PAIR.new(a=pair[0], b=pair[1])))
        assert fresh == state


def test_membership_exists_and_remove_where():
    schema, view = setup()
    state = blank_state(schema)
    for pair in [(1, 0), (2, 1), (3, 1)]:
        state = step(schema, view, state, lambda n: n.net.add(PAIR.new(a=pair[0], b=pair[1])))
    s = view
    assert evaluate(s.net.contains(PAIR.new(a=2, b=1)), state)
    assert not evaluate(s.net.contains(PAIR.new(a=2, b=0)), state)
    assert evaluate(s.net.exists(lambda m: m.a == 3), state)
    assert not evaluate(s.net.exists(lambda m: m.a == 0), state)
    assert evaluate(s.net.forall(lambda m: m.a >= 1), state)
    state = step(schema, view, state, lambda n: n.net.remove_where(lambda m: m.b == 1))
    assert contents(schema, state, "net") == [(1, 0)]
    state = step(schema, view, state, lambda n: n.net.remove(PAIR.new(a=1, b=0)))
    assert contents(schema, state, "net") == [] and state == blank_state(schema)


def test_taking_from_an_empty_slot_is_not_enabled_and_a_full_set_overflows():
    schema, view = setup()
    state = blank_state(schema)
    assert step(schema, view, state, lambda n: n.net.remove_at(0)) is None
    for a in range(CAP):
        state = step(schema, view, state, lambda n: n.net.add(PAIR.new(a=a, b=0)))
    assert not overflowed(schema, state, "net")
    assert evaluate(within_capacity(view), state)
    again = step(schema, view, state, lambda n: n.net.add(PAIR.new(a=0, b=0)))  # already there: no change
    assert again == state
    state = step(schema, view, state, lambda n: n.net.add(PAIR.new(a=0, b=2)))
    assert overflowed(schema, state, "net") and not evaluate(within_capacity(view), state)


def test_a_bag_counts_copies():
    schema, view = setup()
    state = blank_state(schema)
    for pair in [(1, 1), (1, 1), (0, 2), (1, 1)]:
        state = step(schema, view, state, lambda n: n.bag.add(PAIR.new(a=pair[0], b=pair[1])))
    assert contents(schema, state, "bag") == [((1, 1), 3), ((0, 2), 1)]
    state = step(schema, view, state, lambda n: n.bag.add(PAIR.new(a=1, b=1)))
    assert overflowed(schema, state, "bag")  # a fourth copy: more than bag=3
    state = blank_state(schema)
    for pair in [(1, 1), (1, 1), (0, 2)]:
        state = step(schema, view, state, lambda n: n.bag.add(PAIR.new(a=pair[0], b=pair[1])))
    state = step(schema, view, state, lambda n: n.bag.remove_at(0))
    assert contents(schema, state, "bag") == [((1, 1), 1), ((0, 2), 1)]
    state = step(schema, view, state, lambda n: n.bag.remove_at(0))
    assert contents(schema, state, "bag") == [((0, 2), 1)]


def test_several_changes_to_one_set_compose_in_order():
    schema, view = setup()
    state = step(schema, view, blank_state(schema), lambda n: n.net.add(PAIR.new(a=1, b=1)))

    def reply(n):
        n.net.remove_at(0)
        n.net.add(PAIR.new(a=2, b=0))
    state = step(schema, view, state, reply)
    assert contents(schema, state, "net") == [(2, 0)]


def test_sequences_append_truncate_and_extend_like_tla_sequences():
    schema, view = setup()
    state = blank_state(schema)
    for pair in [(1, 0), (2, 1)]:
        state = step(schema, view, state, lambda n: n.log.append(PAIR.new(a=pair[0], b=pair[1])))
    assert contents(schema, state, "log") == [(1, 0), (2, 1)]
    assert evaluate(view.log.len, state) == 2
    assert evaluate(view.log.last().a, state) == 2
    assert evaluate(view.log.at(var(schema.slot("x")) + 1).a, state) == 1  # x = 0: position 1
    truncated = step(schema, view, state, lambda n: n.log.truncate(1))
    assert contents(schema, truncated, "log") == [(1, 0)]
    cleared = step(schema, view, state, lambda n: n.log.clear())
    assert cleared == blank_state(schema)
    copied = step(schema, view, cleared, lambda n: n.log.extend(view.log, 1, 0))  # SubSeq(s, 1, 0) is empty
    assert contents(schema, copied, "log") == []
    grown = step(schema, view, truncated, lambda n: n.log.extend(view.log, 1, 1))  # s \o SubSeq(s, 1, 1)
    assert contents(schema, grown, "log") == [(1, 0), (1, 0)]
    conditional = step(schema, view, state, lambda n: n.log.append_if(var(schema.slot("x")) == 1,
                                                                      PAIR.new(a=3, b=2)))
    assert conditional == state


def test_a_full_sequence_overflows_rather_than_dropping_an_entry():
    schema, view = setup()
    state = blank_state(schema)
    for a in range(4):
        state = step(schema, view, state, lambda n: n.log.append(PAIR.new(a=a, b=0)))
    assert overflowed(schema, state, "log")
    assert contents(schema, state, "log") == [(0, 0), (1, 0), (2, 0)]


def test_cases_take_the_first_arm_that_holds():
    schema, view = setup()
    x = var(schema.slot("x"))

    def write(n):
        n.cases((x == 0, lambda n2: setattr(n2, "x", 1)),
                (x <= 1, lambda n2: setattr(n2, "x", 2)),
                otherwise=lambda n2: n2.require(x == 3))
    base = list(blank_state(schema))
    results = []
    for value in range(4):
        base[schema.slot("x")] = value
        after = step(schema, view, tuple(base), write)
        results.append(None if after is None else after[schema.slot("x")])
    assert results == [1, 2, None, 3]


def test_misuse_fails_when_the_spec_loads():
    schema, view = setup()
    n = NextState(schema, view)
    with pytest.raises(SpecDefinitionError, match="by its number"):
        n.net.remove_at(var(0))
    with pytest.raises(SpecDefinitionError, match="holds Pair records"):
        other = RecordType("Other", [number("c", 0, 1)])
        n.net.add(other.new(c=1))
