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


# --- any part name, values as TLA+ values, variant records -------------------------------------------

from modelcheck.language.records import record_equals, record_replace, record_type  # noqa: E402
from modelcheck.language.values import ModelValue  # noqa: E402

ACC = (ModelValue("a1"), ModelValue("a2"))
PAXOS = RecordType("Message", [choice("type", ("1a", "1b", "2a", "2b")), number("bal", 0, 1), choice("acc", ACC),
                               number("mbal", -1, 1), choice("mval", (ModelValue("v1"), ModelValue("None"))),
                               choice("val", (ModelValue("v1"),))],
                   variants=("type", {"1a": ("bal",), "1b": ("acc", "bal", "mbal", "mval"), "2a": ("bal", "val"),
                                      "2b": ("acc", "bal", "val")}))


def test_a_part_may_have_any_name_type_and_equals_included():
    rtype = RecordType("Odd", [choice("type", ("x", "y")), number("equals", 0, 3), number("rtype", 0, 1)])
    r = rtype.new(type="y", equals=2, rtype=1)
    assert evaluate(r.type == "y", ()) and not evaluate(r.type == "x", ())
    assert evaluate(r.equals, ()) == 2 and evaluate(r["rtype"], ()) == 1 and evaluate(r.rtype, ()) == 1
    assert record_type(r) is rtype and evaluate(record_equals(r, record_replace(r, type="y")), ())
    with pytest.raises(SpecDefinitionError, match=r'"z" is not a value type can hold \(it holds "x", "y"\)'):
        rtype.new(type="z")


def tlc_key(record):
    """TLC's comparison of record values, by hand: the number of fields, the
    field names by their rank (type, bal, acc, mbal, mval, val), then the
    values in that order (strings and model values by their rank)."""
    rank = ["type", "bal", "acc", "mbal", "mval", "val"]
    strings = ["1a", "1b", "2a", "2b", "a1", "a2", "v1", "None"]
    names = sorted(record, key=rank.index)
    value = lambda v: strings.index(v) if isinstance(v, str) else v  # noqa: E731
    return (len(names), [rank.index(n) for n in names], [value(record[n]) for n in names])


def test_variant_records_order_as_tlc_orders_record_values():
    records = [{"type": "1a", "bal": b} for b in (0, 1)]
    records += [{"type": "1b", "acc": a, "bal": b, "mbal": m, "mval": v} for a in ACC for b in (0, 1)
                for m in (-1, 0) for v in (ModelValue("v1"), ModelValue("None"))]
    records += [{"type": "2a", "bal": b, "val": ModelValue("v1")} for b in (0, 1)]
    records += [{"type": "2b", "acc": a, "bal": b, "val": ModelValue("v1")} for a in ACC for b in (0, 1)]
    random.Random(3).shuffle(records)
    as_parts = [PAXOS.from_tla(r, "m") for r in records]
    ours = [PAXOS.to_tla(v) for v in sorted(as_parts, key=PAXOS.python_key)]
    assert [dict(r) for r in ours] == sorted(records, key=tlc_key)


def test_a_variant_record_has_only_its_variants_fields_both_ways():
    values = PAXOS.from_tla({"type": "2a", "bal": {"#bigint": "1"}, "val": "v1"}, "m")
    assert dict(PAXOS.to_tla(values)) == {"type": "2a", "bal": 1, "val": "v1"}
    assert values["acc"] == values["mbal"] + 1 == 0  # the parts a 2a message lacks stay blank
    with pytest.raises(Exception, match="expected fields type, bal, val, got type, bal"):
        PAXOS.from_tla({"type": "2a", "bal": 1}, "m")
    with pytest.raises(SpecDefinitionError, match=r'a Message record of type "2a" has no field acc '
                                                   r'\(its fields: type, bal, val\)'):
        PAXOS.new(type="2a", bal=0, acc=ModelValue("a1"))
    with pytest.raises(SpecDefinitionError, match="no fields given for the tag value"):
        RecordType("M", [choice("type", ("a", "b"))], variants=("type", {"a": ()}))
