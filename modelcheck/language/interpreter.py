"""A direct, unoptimised evaluator of expression trees on one concrete state.

It is the plainest reading of the expression language and serves as the
reference the compiled backends are tested against.
"""

from __future__ import annotations

from modelcheck.language.expr import Expr

_BINARY = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "eq": lambda a, b: a == b,
    "ne": lambda a, b: a != b,
    "lt": lambda a, b: a < b,
    "le": lambda a, b: a <= b,
    "band": lambda a, b: a & b,
    "bor": lambda a, b: a | b,
    "bxor": lambda a, b: a ^ b,
}


def evaluate(e: Expr, state: tuple):
    op = e.op
    if op == "const":
        return e.args[0]
    if op == "var":
        return state[e.args[0]]
    if op in _BINARY:
        return _BINARY[op](evaluate(e.args[0], state), evaluate(e.args[1], state))
    if op == "and":
        return all(evaluate(a, state) for a in e.args)
    if op == "or":
        return any(evaluate(a, state) for a in e.args)
    if op == "not":
        return not evaluate(e.args[0], state)
    if op == "ite":
        c, a, b = e.args
        return evaluate(a, state) if evaluate(c, state) else evaluate(b, state)
    raise ValueError(f"unknown operator {op}")


def apply(updates: dict[int, Expr], state: tuple) -> tuple:
    """The next state: every assigned slot evaluated against the current state."""
    out = list(state)
    for slot, e in updates.items():
        out[slot] = evaluate(e, state)
    return tuple(out)


def successors(model, state: tuple) -> list[tuple[int, tuple]]:
    return [(inst.index, apply(inst.updates, state))
            for inst in model.instances if evaluate(inst.guard, state)]
