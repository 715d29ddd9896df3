from modelcheck.errors import InputError
from modelcheck.language.notation import Interval, SetLiteral, literal_model_values, read_literal
from modelcheck.language.values import ModelValue, Record

import pytest


def test_every_form_nests():
    lit = read_literal('{<<1, "a">>, [x |-> TRUE, y |-> {m1}], 0..2, -3}', "v")
    assert isinstance(lit, SetLiteral)
    assert lit[0] == (1, "a") and lit[1] == Record([("x", True), ("y", SetLiteral([ModelValue("m1")]))])
    assert lit[2] == Interval((0, 2)) and lit[3] == -3
    assert isinstance(lit[1]["y"][0], ModelValue) and not isinstance(lit[0][1], ModelValue)
    assert literal_model_values(read_literal("{b, <<a, b>>, c}", "v")) == ["b", "a", "b", "c"]


@pytest.mark.parametrize("text, message", [
    ("{1, 2", "the value ends too soon"), ("<<1 2>>", "expected , or >>"), ("[x 1]", "expected '|->'"),
    ("[]", "a record needs at least one field"), ("[x |-> 1, x |-> 2]", "names a field twice"),
    ("1 2", "unexpected '2' after the value"), ("@", "cannot read '@'"), ("", "a value is missing"),
])
def test_mistakes_are_one_line(text, message):
    with pytest.raises(InputError, match=message):
        read_literal(text, "constant X")
