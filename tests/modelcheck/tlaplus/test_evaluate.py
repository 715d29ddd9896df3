"""The reference evaluator: TLA+ over explicit values, with TLC's semantics and errors."""

import os

import pytest

from modelcheck.tlaplus.evaluate import Evaluator
from modelcheck.tlaplus.modules import Program
from modelcheck.tlaplus.syntax import EvalError, TlaError
from modelcheck.tlaplus.values import ModelValue, TlcOrder

MODULE = r"""
---- MODULE E ----
EXTENDS Naturals, Sequences, FiniteSets, TLC
CONSTANTS S
RECURSIVE Sum(_)
Sum(T) == IF T = {} THEN 0 ELSE LET e == CHOOSE e \in T : TRUE IN e + Sum(T \ {e})
Fact[n \in 0..5] == IF n = 0 THEN 1 ELSE n * Fact[n - 1]
Apply(F(_), x) == F(x)
Least == CHOOSE x \in {3, 1, 2} : TRUE
Squares == {k * k : k \in 1..3}
Evens == {k \in 0..6 : k % 2 = 0}
Rec == [a |-> 1, b |-> <<2, 3>>]
Upd == [Rec EXCEPT !.a = @ + 10, !.b[2] = 0]
Fn == [x \in S |-> Cardinality(S)]
Cases(n) == CASE n = 1 -> "one" [] n = 2 -> "two" [] OTHER -> "many"
Outside == <<1, 2>>[3]
NoChoice == CHOOSE x \in {1, 2} : x > 5
Mixed == 1 = "a"
Short == FALSE /\ <<1>>[5] = 1
Seqs == <<Len(<<1, 2>>), Head(<<4, 5>>), Tail(<<4, 5>>), Append(<<1>>, 2), SubSeq(<<1, 2, 3>>, 2, 3), <<1>> \o <<2>>>>
Funs == (1 :> "a" @@ 2 :> "b")[2]
Inst == I!Double(4)
I == INSTANCE Helper WITH K <- 2
====
"""

HELPER = """
---- MODULE Helper ----
EXTENDS Naturals
CONSTANT K
Double(x) == x * K
====
"""


@pytest.fixture
def ev(tmp_path):
    (tmp_path / "E.tla").write_text(MODULE)
    (tmp_path / "Helper.tla").write_text(HELPER)
    program = Program(str(tmp_path / "E.tla"))
    s = frozenset({ModelValue("a"), ModelValue("b")})
    return Evaluator(program, {"S": s}, TlcOrder(["a", "b"] + program.words()))


@pytest.mark.parametrize("name, value", [
    ("Least", 1), ("Squares", frozenset({1, 4, 9})), ("Evens", frozenset({0, 2, 4, 6})),
    ("Inst", 8), ("Funs", "b"), ("Short", False),
])
def test_definitions_evaluate(ev, name, value):
    assert ev.value_of(name) == value


def test_recursive_operators_and_functions(ev):
    from modelcheck.tlaplus.syntax import Loc, Node
    loc = Loc("t", 0, 0)
    total = ev.eval(Node("apply", ("Sum", (Node("setenum", tuple(Node("num", (k,), loc) for k in (1, 2, 3)), loc),)),
                         loc), ev.root_ctx())
    assert total == 6
    fact = ev.value_of("Fact")
    assert dict(fact.items())[5] == 120 and dict(fact.items())[0] == 1


def test_records_sequences_and_except(ev):
    upd = ev.value_of("Upd")
    assert upd["a"] == 11 and upd["b"] == (2, 0)
    assert ev.value_of("Seqs") == (2, 4, (5,), (1, 2), (2, 3), (1, 2))
    fn = ev.value_of("Fn")
    assert fn[ModelValue("a")] == 2


@pytest.mark.parametrize("name, fragment", [
    ("Outside", "not in the domain"), ("NoChoice", "CHOOSE has nothing"), ("Mixed", "cannot compare"),
])
def test_tlc_errors_are_errors_with_their_place(ev, name, fragment):
    with pytest.raises(EvalError) as e:
        ev.value_of(name)
    assert fragment in e.value.message and e.value.loc is not None and e.value.loc.path.endswith("E.tla")


def test_an_unknown_module_is_named(tmp_path):
    (tmp_path / "X.tla").write_text("---- MODULE X ----\nEXTENDS Nowhere\n====\n")
    with pytest.raises(TlaError) as e:
        Program(str(tmp_path / "X.tla"))
    assert "cannot find module Nowhere" in str(e.value) and "X.tla:2:9" in str(e.value)
