"""Records and the order TLC gives record values (modelcheck/language/records.py)."""

import itertools
import random

import pytest

from modelcheck.language.interpreter import evaluate
from modelcheck.errors import SpecDefinitionError
from modelcheck.language.expr import const, set_order_key, var
from modelcheck.language.records import RecordType, choice, flag, members, number, record_ite
from modelcheck.language.values import Record


def tlc_subset_order(n):
    """SUBSET 1..n as TLC enumerates it (and orders sets): by size, then lexicographically."""
    return [frozenset(c) for k in range(n + 1) for c in itertools.combinations(range(n), k)]


def test_set_order_key_orders_sets_as_tlc_does():
    n = 4
    order = tlc_subset_order(n)
    masks = [sum(1 << i for i in s) for s in order]
    keys = [tuple(evaluate(e, (m,)) for e in set_order_key(var(0), n)) for m in masks]
    assert keys == sorted(keys) and len(set(keys)) == len(keys)


def test_set_order_key_differs_from_plain_bitmask_order():
    """{1,4} comes before {2,3} in TLC's order, although its bitmask is larger."""
    def key(m):
        return tuple(evaluate(e, (m,)) for e in set_order_key(var(0), 4))
    assert key(0b1001) < key(0b0110)


MESSAGE = RecordType("Message", [number("source", 0, 2, shift=1), choice("error", ("Fenced", "Nil"), blank=1),
                                 members("isr", (1, 2, 3)), flag("ok"), number("leo", 0, 3, nil="Nil")],
                     order=["ok", "source", "isr", "error", "leo"])


def reference_key(v):
    """TLC's comparison of these records, by hand: ok, source, the isr set
    (size, then sorted elements), error (model values by their order), leo (Nil first)."""
    members_ = sorted(i for i in range(3) if v["isr"] >> i & 1)
    return (v["ok"], v["source"], len(members_), members_, v["error"], v["leo"])


def test_record_keys_follow_the_declared_order_and_each_part_s_tlc_order():
    rng = random.Random(7)
    values = [{"source": rng.randrange(3), "error": rng.randrange(2), "isr": rng.randrange(8),
               "ok": rng.randrange(2), "leo": rng.randrange(4)} for _ in range(300)]
    by_port = sorted(values, key=MESSAGE.python_key)
    by_hand = sorted(values, key=reference_key)
    assert [reference_key(v) for v in by_port] == [reference_key(v) for v in by_hand]


def test_record_values_read_and_write_as_tla_values():
    v = {"source": 1, "error": 0, "isr": 0b101, "ok": 1, "leo": 0}
    tla = MESSAGE.to_tla(v)
    assert tla == Record((("source", 2), ("error", "Fenced"), ("isr", frozenset({1, 3})), ("ok", True),
                          ("leo", "Nil")))
    assert MESSAGE.from_tla({"source": 2, "error": "Fenced", "isr": {"#set": [1, 3]}, "ok": True, "leo": "Nil"},
                            "m") == v


def test_new_records_fill_blanks_and_check_ranges():
    r = MESSAGE.new(source=2)
    assert evaluate(r.raw("error"), ()) == 1 and evaluate(r.raw("leo"), ()) == 0
    with pytest.raises(SpecDefinitionError, match="outside 0..2"):
        MESSAGE.new(source=5)
    with pytest.raises(SpecDefinitionError, match="no part"):
        MESSAGE.new(dest=1)


def test_record_equality_and_choice_between_records():
    a, b = MESSAGE.new(source=1, ok=True), MESSAGE.new(source=2)
    assert evaluate(a.equals(a), ()) and not evaluate(a.equals(b), ())
    picked = record_ite(var(0) == 1, a, b)
    assert evaluate(picked.raw("source"), (1,)) == 1 and evaluate(picked.raw("source"), (0,)) == 2
    assert evaluate(MESSAGE.less(b, a), ())  # ok comes first in the order, so a (ok) is the larger
    assert evaluate(MESSAGE.less(MESSAGE.new(source=1), MESSAGE.new(source=2)), ())
    assert evaluate(const(1) == 1, ())
