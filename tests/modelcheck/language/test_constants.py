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
