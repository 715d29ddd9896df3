import pytest

from modelcheck.language.values import Function, Record
from modelcheck.tlaplus.syntax import EvalError
from modelcheck.tlaplus.values import Interval, ModelValue, PowerSet, TlcOrder, fcn, show, sort_values


def test_a_model_value_equals_only_itself():
    a = ModelValue("a")
    assert a == ModelValue("a") and a != "a" and "a" != a
    assert len({a, "a"}) == 2


def test_functions_take_tlcs_normal_forms():
    assert fcn([(1, "x"), (2, "y")]) == ("x", "y")
    assert fcn([]) == ()
    assert isinstance(fcn([("a", 1), ("b", 2)]), Record)
    assert isinstance(fcn([(2, "x")]), Function)


def test_names_compare_by_when_tlc_read_them():
    order = TlcOrder(["zeta", "alpha"])
    assert sort_values(["alpha", "zeta"], order) == ["zeta", "alpha"]
    assert sort_values([ModelValue("alpha"), ModelValue("zeta")], order) == [ModelValue("zeta"), ModelValue("alpha")]


def test_model_values_come_before_every_other_value():
    order = TlcOrder(["m"])
    assert sort_values([3, ModelValue("m"), -1], order) == [ModelValue("m"), -1, 3]
    assert sort_values(["s", ModelValue("m")], order) == [ModelValue("m"), "s"]


def test_sets_by_size_then_elements_and_records_by_fields_then_values():
    order = TlcOrder(["b", "a"])
    sets = [frozenset({2}), frozenset({1, 3}), frozenset(), frozenset({1})]
    assert sort_values(sets, order) == [frozenset(), frozenset({1}), frozenset({2}), frozenset({1, 3})]
    recs = [Record([("a", 1), ("b", 2)]), Record([("a", 2), ("b", 1)]), Record([("a", 0)])]
    # one field comes first; then field b (read first) decides
    assert sort_values(recs, order) == [Record([("a", 0)]), Record([("a", 2), ("b", 1)]),
                                        Record([("a", 1), ("b", 2)])]


def test_tlc_cannot_compare_an_integer_with_a_string():
    with pytest.raises(EvalError):
        sort_values([1, "a"], TlcOrder())


def test_subset_enumerates_by_size():
    order = TlcOrder()
    assert PowerSet(frozenset({1, 2})).elements(order) == [frozenset(), frozenset({1}), frozenset({2}),
                                                           frozenset({1, 2})]
    assert Interval(1, 3).elements(order) == [1, 2, 3] and Interval(3, 1).size() == 0


def test_values_show_as_tlc_prints_them():
    order = TlcOrder(["a", "b"])
    v = Record([("b", frozenset({2, 1})), ("a", ("x", ModelValue("m")))])
    assert show(v, order) == '[a |-> <<"x", m>>, b |-> {1, 2}]'
