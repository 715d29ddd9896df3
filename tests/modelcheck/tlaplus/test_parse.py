import pytest

from modelcheck.tlaplus.parse import parse_module
from modelcheck.tlaplus.syntax import ConstantDecl, InstanceDef, OpDef, TlaError, VariableDecl

TEXT = r"""
---- MODULE M ----
EXTENDS Naturals, Sequences
CONSTANTS N, F(_)
VARIABLES x, y
LOCAL Helper(a) == a + 1
f[n \in 0..N] == IF n = 0 THEN 1 ELSE n * f[n - 1]
I == INSTANCE Other WITH a <- x, b <- 1
Next == /\ \E i \in 1..N, j \in {"s"} : x' = [x EXCEPT ![i].a = @ + 1]
        /\ UNCHANGED <<y>>
        /\ y.type = "t"
====
"""


def test_a_module_reads_into_units_with_places():
    m = parse_module(TEXT, "M.tla")
    assert m.name == "M" and [e for e, _ in m.extends] == ["Naturals", "Sequences"]
    kinds = [type(u).__name__ for u in m.units]
    assert kinds == ["ConstantDecl", "ConstantDecl", "VariableDecl", "VariableDecl", "OpDef", "OpDef", "InstanceDef",
                     "OpDef"]
    consts = [u for u in m.units if isinstance(u, ConstantDecl)]
    assert [(c.name, c.arity) for c in consts] == [("N", 0), ("F", 1)]
    helper = m.units[4]
    assert isinstance(helper, OpDef) and helper.local and helper.params == (("a", 0),)
    assert str(helper.loc) == "M.tla:6:7"
    f = m.units[5]
    assert f.fun_bounds is not None and f.name == "f"
    inst = m.units[6]
    assert isinstance(inst, InstanceDef) and inst.name == "I" and [t for t, _ in inst.substitutions] == ["a", "b"]


def test_expressions_take_their_kinds():
    m = parse_module(TEXT, "M.tla")
    nxt = m.units[-1].body
    assert nxt.kind == "and" and len(nxt.args) == 3
    quant = nxt.args[0]
    assert quant.kind == "quant" and quant.args[0] == "E" and [p for p, _ in quant.args[1]] == ["i", "j"]
    assign = quant.args[2]
    assert assign.kind == "op" and assign.args[0] == "=" and assign.args[1].args[0] == "'"
    except_ = assign.args[2]
    assert except_.kind == "except"
    (path, new), = except_.args[1]
    assert [step[0] for step in path] == ["[]", "."] and new.args[1].kind == "at"
    assert nxt.args[1].args[0] == "UNCHANGED" and nxt.args[1].args[1].kind == "tuple"
    assert nxt.args[2].args[1].kind == "dot" and nxt.args[2].args[2].args == ("t",)


def test_words_follow_the_text():
    m = parse_module(TEXT, "M.tla")
    assert m.words[:6] == ("M", "Naturals", "Sequences", "N", "F", "x")
    assert m.words.index("t") > m.words.index("type")


def test_text_the_grammar_rejects_is_placed():
    with pytest.raises(TlaError) as e:
        parse_module("---- MODULE Bad ----\nA == /\\ 1 +\n====\n", "Bad.tla")
    assert str(e.value).startswith("Bad.tla:") and "not TLA+" in str(e.value)


def test_a_construct_outside_the_subset_is_refused_where_it_is_used():
    m = parse_module("---- MODULE U ----\nA == \\E x : x = 1\nB == 1\n====\n", "U.tla")
    a = m.units[0].body
    assert a.kind == "unsupported" and "quantifier without a set" in a.args[0] and str(a.loc) == "U.tla:2:6"
