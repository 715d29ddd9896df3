import pytest

from modelcheck.language.interpreter import evaluate
from modelcheck.errors import SpecDefinitionError
from modelcheck.language.expr import (FALSE, TRUE, and_, ite, member, min_, not_, or_, select, set_with, set_without, var)


def test_constants_fold_at_build_time():
    assert and_(True, 1 < 2) is TRUE
    assert or_(False, 3 == 4) is FALSE
    v = var(0)
    assert (v + 0) is v
    assert ite(True, var(1), var(2)).args == (1,)
    assert min_(3, 5).args == (3,)


def test_and_or_flatten_and_short_circuit_constants():
    x, y = var(0) == 1, var(1) == 2
    assert and_(x, and_(y, True)).op == "and"
    assert len(and_(x, and_(y, True)).args) == 2
    assert and_(x, False) is FALSE
    assert or_(x, True) is TRUE
    assert not_(not_(x)) is x


def test_python_condition_on_state_fails_with_advice():
    with pytest.raises(SpecDefinitionError, match="and_, or_, not_ or ite"):
        if var(0) == 1:
            pass


def test_sorts_are_checked():
    with pytest.raises(SpecDefinitionError):
        and_(var(0))
    with pytest.raises(SpecDefinitionError):
        ite(var(0) == 1, var(1), var(0) == 2)


def test_select_reads_a_runtime_index():
    e = select([10, 20, 30], var(0))
    assert [evaluate(e, (i,)) for i in range(3)] == [10, 20, 30]


def test_set_operations_on_bitmasks():
    state = (0b101, 1, -1)
    assert evaluate(member(var(0), 0), state) is True
    assert evaluate(member(var(0), 1), state) is False
    assert evaluate(member(var(0), var(1), 3), state) is False
    # an index outside the universe (NONE) is never a member, and never shifts by -1
    assert evaluate(member(var(0), var(2), 3), state) is False
    assert evaluate(set_with(var(0), var(1), 3), state) == 0b111
    assert evaluate(set_without(var(0), 2, 3), state) == 0b001


def test_runtime_index_sets_need_the_universe():
    with pytest.raises(SpecDefinitionError, match="universe"):
        member(var(0), var(1))


def test_nodes_of_several_trees_walks_a_shared_subtree_once():
    from modelcheck.language.expr import nodes, slots_read
    shared = var(0) + var(1)
    a, b = shared + 1, ite(shared == 2, var(2), 0)
    walked = nodes(a, b)
    assert len(walked) == len({id(e) for e in walked})
    assert {id(e) for e in walked} == {id(e) for e in nodes(a)} | {id(e) for e in nodes(b)}
    position = {id(e): k for k, e in enumerate(walked)}  # children before parents
    assert position[id(shared)] < position[id(a)] and position[id(shared)] < position[id(b)]
    assert slots_read(a, b) == {0, 1, 2} and slots_read(a) == {0, 1}
