"""The compiled successor function and the interpreter read the same
definitions; on every reachable state of small models they must agree."""

import pytest

from support import every_spec, small_model
from modelcheck.language import interpreter
from modelcheck.language.fingerprint import fingerprinter

@pytest.mark.parametrize("name", every_spec())
def test_compiled_successors_match_the_interpreter(name):
    m = small_model(name)
    fp = fingerprinter(m.schema)
    seen, frontier, checked = set(), list(m.init_states), 0
    while frontier:
        nxt = []
        for s in frontier:
            if fp(s) in seen:
                continue
            seen.add(fp(s))
            compiled = sorted(m.successors(s))
            assert compiled == sorted(interpreter.successors(m, s))
            for inv, expr in {**m.invariants, **m.sometimes}.items():
                assert m.compiled.predicates[inv](s) == interpreter.evaluate(expr, s), inv
            checked += 1
            nxt.extend(t for _, t in compiled)
        frontier = nxt
    assert checked == len(seen) > 40
