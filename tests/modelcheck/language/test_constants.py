import pytest

from modelcheck.language.constants import parse_assignment
from modelcheck.errors import InputError
from modelcheck.specs import get_spec


def resolve(**given):
    return get_spec("kip320").resolve_constants({k: str(v) for k, v in given.items()})


def test_defaults_are_three_replicas_and_two_for_the_rest():
    c = resolve()
    assert c.Replicas == ("r1", "r2", "r3")
    assert (c.LogSize, c.MaxRecords, c.MaxLeaderEpoch) == (2, 2, 2)


def test_replicas_by_count_or_by_name():
    assert resolve(Replicas=2).Replicas == ("r1", "r2")
    assert resolve(Replicas="{a, b}").Replicas == ("a", "b")


@pytest.mark.parametrize("given, message", [
    ({"Replicas": 0}, "at least 1"),
    ({"Replicas": "{}"}, "at least 1"),
    ({"Replicas": "{a,a}"}, "distinct"),
    ({"Replicas": "{NONE}"}, "reserved"),
    ({"LogSize": 0}, "at least 1"),
    ({"MaxRecords": 0}, "at least 1"),
    ({"MaxLeaderEpoch": -1}, "at least 0"),
    ({"LogSize": "two"}, "integer"),
    ({"Nope": 1}, "no constant"),
])
def test_impossible_constants_are_rejected(given, message):
    with pytest.raises(InputError, match=message):
        resolve(**given)


def test_assignment_syntax():
    assert parse_assignment("Replicas={a,b}") == ("Replicas", "{a,b}")
    with pytest.raises(InputError):
        parse_assignment("Replicas")


def test_replica_valued_constant_must_name_a_replica():
    spec = get_spec("async-isr")
    assert spec.resolve_constants({"Leader": "r2"}).Leader == "r2"
    with pytest.raises(InputError, match="one of the model values of Replicas"):
        spec.resolve_constants({"Leader": "r9"})


# --- constants shaped like TLA+'s ------------------------------------------------------------

from modelcheck.language.constants import (INT, MODEL_VALUE, MODEL_VALUES, STRING, ConstantDecl, format_value,  # noqa: E402
                                           json_value, member_of, record_of, resolve as resolve_all, seq_of, set_of,
                                           subset_of, tla_value)
from modelcheck.language.values import ModelValue  # noqa: E402

DECLS = (
    ConstantDecl("Acceptor", MODEL_VALUES, 3),
    ConstantDecl("Quorum", set_of(subset_of("Acceptor")), [("a1", "a2"), ("a2", "a3"), ("a1", "a3")]),
    ConstantDecl("None", MODEL_VALUE, "None"),
    ConstantDecl("Ballot", set_of(INT), (0, 1)),
    ConstantDecl("Id", seq_of(INT), lambda c: tuple(range(1, len(c.Acceptor) + 1))),
    ConstantDecl("Leader", member_of("Acceptor"), "a1"),
    ConstantDecl("Name", STRING, "x"),
    ConstantDecl("Conf", record_of(size=INT, mode=STRING), {"size": 1, "mode": "safe"}),
)


def test_defaults_of_every_kind_with_model_values_named_after_the_constant():
    c = resolve_all(DECLS, {}, "t")
    assert c.Acceptor == ("a1", "a2", "a3") and all(isinstance(a, ModelValue) for a in c.Acceptor)
    # sets in TLC's order: by size, then element by element (model values in the order first written)
    assert c.Quorum == (("a1", "a2"), ("a1", "a3"), ("a2", "a3"))
    assert (c["None"], c.Ballot, c.Id, c.Leader, c.Name) == ("None", (0, 1), (1, 2, 3), "a1", "x")
    assert isinstance(c["None"], ModelValue) and not isinstance(c.Name, ModelValue)
    assert dict(c.Conf) == {"size": 1, "mode": "safe"}


def test_values_written_in_tla_notation():
    c = resolve_all(DECLS, {"Acceptor": "{p, q}", "Quorum": "{{q}, {p, q}}", "Ballot": "0..3", "Id": "<<7, 5>>",
                            "Leader": "q", "Name": '"a \\"b\\""', "Conf": '[mode |-> "fast", size |-> 2]'}, "t")
    assert (c.Acceptor, c.Quorum, c.Ballot, c.Id, c.Leader, c.Name) == \
        (("p", "q"), (("q",), ("p", "q")), (0, 1, 2, 3), (7, 5), "q", 'a "b"')
    assert c.Conf["mode"] == "fast"


def test_notation_json_and_tla_values_of_each_kind():
    c = resolve_all(DECLS, {}, "t")
    kinds = {d.name: d.kind for d in DECLS}
    assert [format_value(kinds[k], c[k]) for k in ("Acceptor", "Quorum", "None", "Ballot", "Id", "Name", "Conf")] == \
        ["{a1, a2, a3}", "{{a1, a2}, {a1, a3}, {a2, a3}}", "None", "{0, 1}", "<<1, 2, 3>>", '"x"',
         '[size |-> 1, mode |-> "safe"]']
    assert json_value(kinds["Quorum"], c.Quorum) == [["a1", "a2"], ["a1", "a3"], ["a2", "a3"]]
    assert tla_value(kinds["Quorum"], c.Quorum) == frozenset({frozenset({"a1", "a2"}), frozenset({"a1", "a3"}),
                                                              frozenset({"a2", "a3"})})
    assert tla_value(kinds["Id"], c.Id) == (1, 2, 3)


@pytest.mark.parametrize("given, message", [
    ({"Acceptor": "{a, 3}"}, "constant Acceptor: '3' is not a model value name"),
    ({"Acceptor": "x"}, r"Acceptor must be a count \(3\) or a set of model values \(\{a,b,c\}\), got 'x'"),
    ({"Quorum": "{{a1, a9}}"}, "constant Quorum: an element: a9 not among the model values of Acceptor"),
    ({"Quorum": "{a1}"}, "constant Quorum: an element must be a set of model values of Acceptor, got 'a1'"),
    ({"None": "{a}"}, "constant None must be a model value"),
    ({"Ballot": "{0, x}"}, "constant Ballot: an element must be an integer, got 'x'"),
    ({"Id": "{1, 2}"}, "constant Id must be a sequence of integers such as <<1, 2>>"),
    ({"Leader": "a7"}, "constant Leader must be one of the model values of Acceptor {a1, a2, a3}, got a7"),
    ({"Name": "x"}, 'constant Name must be a string \\(in quotes\\) such as "abc", got \'x\''),
    ({"Conf": "[size |-> 1]"}, "constant Conf must be a record with fields size, mode, got one with size"),
    ({"Ballot": "0..1 2"}, "unexpected '2' after the value"),
])
def test_errors_name_the_constant_and_its_kind_in_the_users_terms(given, message):
    with pytest.raises(InputError, match=message) as e:
        resolve_all(DECLS, given, "t")
    assert "replica" not in str(e.value)


def test_model_values_are_ordered_as_first_written_as_tlc_orders_them():
    """TLC orders model values by when it first reads them (the .cfg first)."""
    c = resolve_all(DECLS, {"Quorum": "{{a3, a1}, {a2, a1}}"}, "t", named_first=("a3", "a2", "a1"))
    assert c.Quorum == (("a3", "a1"), ("a2", "a1"))
