import pytest

from modelcheck.language.interpreter import apply, evaluate
from modelcheck.errors import SpecDefinitionError
from modelcheck.language.schema import NextState, Schema, StateView, boolean, integer, subset


def make():
    schema = Schema([integer("end", 0, 3, (2,)), integer("slot", -1, 5, (2, 3)), boolean("flag"), subset("isr", 2)])
    return schema, StateView(schema, None)


def test_slots_are_laid_out_in_order():
    schema, _ = make()
    assert schema.width == 2 + 6 + 1 + 1
    assert schema.slot("slot", 1, 2) == 2 + 5
    assert schema.slot_names[schema.slot("slot", 1, 2)] == "slot[1][2]"


def test_pack_is_canonical_and_reversible():
    schema, _ = make()
    state = (1, 0, 5, -1, -1, 0, 1, 2, 1, 3)
    assert schema.unpack(schema.pack(state)) == state


def test_write_at_runtime_index_touches_only_that_slot():
    schema, s = make()
    n = NextState(schema, s)
    n.slot[0][s.end[0]] = 4
    n.end[0] = s.end[0] + 1
    state = (1, 0, 5, -1, -1, 0, 1, 2, 0, 0)
    after = apply(n.built_assignments(), state)
    assert after[:5] == (2, 0, 5, 4, -1)


def test_assigning_twice_is_a_definition_error():
    schema, s = make()
    n = NextState(schema, s)
    n.flag = True
    with pytest.raises(SpecDefinitionError, match="assigned twice"):
        n.flag = False


def test_booleans_read_as_conditions_and_store_as_bits():
    schema, s = make()
    n = NextState(schema, s)
    n.flag = s.end[0] == 2
    state = (2, 0, 0, 0, 0, 0, 0, 0, 0, 0)
    assert apply(n.built_assignments(), state)[schema.slot("flag")] == 1
    assert evaluate(s.flag, (0,) * 8 + (1, 0)) is True


def test_unknown_fields_and_reserved_names_fail_at_load():
    schema, s = make()
    with pytest.raises(SpecDefinitionError, match="no field"):
        s.nope
    with pytest.raises(SpecDefinitionError, match="reserved"):
        Schema([integer("require", 0, 1)])
