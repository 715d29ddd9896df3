"""Folding what a slot's range already decides, in a lowered action instance.

Every state slot has a range (its shape's), and the instance's guard narrows
it further (``nextId <= 2``). ``simplify`` rewrites an instance's guard and
assignments with those ranges: a comparison the ranges decide becomes TRUE
or FALSE, and with it the overflow checks and clamps that can never fire
(``nextId + 1`` stays inside 0..3 when the guard says ``nextId <= 2``).
"""

from __future__ import annotations

from modelcheck.language.expr import (FALSE, TRUE, Expr, add, and_, bit_and, bit_or, bit_xor, const, const_value, eq,
                                      is_const, ite, le, lt, ne, not_, or_, sub)

Ranges = dict  # slot -> (lo, hi)


def narrowed(guard: Expr, ranges: Ranges) -> Ranges:
    """The slot ranges the guard's conjuncts of the form ``slot op constant`` narrow."""
    out = dict(ranges)
    atoms = guard.args if guard.op == "and" else (guard,)
    for a in atoms:
        _narrow(a, out, True)
    return out


def _narrow(a: Expr, out: Ranges, holds: bool) -> None:
    if a.op == "not":
        _narrow(a.args[0], out, not holds)
        return
    if a.op not in ("eq", "ne", "lt", "le"):
        return
    x, y = a.args
    op = a.op
    if not holds:
        op = {"eq": "ne", "ne": "eq", "lt": "ge", "le": "gt"}[op]
    if x.op == "var" and is_const(y):
        _apply(out, x.args[0], op, const_value(y))
    elif y.op == "var" and is_const(x):
        flipped = {"eq": "eq", "ne": "ne", "lt": "gt", "le": "ge", "ge": "le", "gt": "lt"}[op]
        _apply(out, y.args[0], flipped, const_value(x))


def _apply(out: Ranges, slot: int, op: str, c: int) -> None:
    if slot not in out:
        return
    lo, hi = out[slot]
    if op == "eq":
        lo, hi = max(lo, c), min(hi, c)
    elif op == "lt":
        hi = min(hi, c - 1)
    elif op == "le":
        hi = min(hi, c)
    elif op == "gt":
        lo = max(lo, c + 1)
    elif op == "ge":
        lo = max(lo, c)
    elif op == "ne":
        if lo == c:
            lo += 1
        if hi == c:
            hi -= 1
    out[slot] = (lo, hi)


class Simplifier:
    """Rewrites expressions under fixed slot ranges (each node once)."""

    def __init__(self, ranges: Ranges):
        self.ranges = ranges
        self.memo: dict[int, Expr] = {}
        self.bounds: dict[int, tuple[int, int] | None] = {}

    def interval(self, e: Expr):
        """The range of an expression's values (None when unknown); every
        node's children are rewritten (and so bounded) before it."""
        return self.bounds.get(id(e))

    def _bound(self, e: Expr):
        op = e.op
        out = None
        if op == "const":
            v = e.args[0]
            out = (int(v), int(v))
        elif op == "var":
            out = self.ranges.get(e.args[0])
        elif op in ("add", "sub"):
            a, b = self.bounds.get(id(e.args[0])), self.bounds.get(id(e.args[1]))
            if a is not None and b is not None:
                out = (a[0] + b[0], a[1] + b[1]) if op == "add" else (a[0] - b[1], a[1] - b[0])
        elif op == "ite":
            a, b = self.bounds.get(id(e.args[1])), self.bounds.get(id(e.args[2]))
            if a is not None and b is not None:
                out = (min(a[0], b[0]), max(a[1], b[1]))
        elif op == "band":
            a, b = self.bounds.get(id(e.args[0])), self.bounds.get(id(e.args[1]))
            if a is not None and b is not None and a[0] >= 0 and b[0] >= 0:
                out = (0, min(a[1], b[1]))
        self.bounds[id(e)] = out

    def __call__(self, root: Expr) -> Expr:
        memo = self.memo
        if id(root) in memo:
            return memo[id(root)]
        stack = [(root, False)]
        while stack:
            e, ready = stack.pop()
            if id(e) in memo:
                continue
            if e.op in ("const", "var"):
                memo[id(e)] = e
                self._bound(e)
                continue
            if not ready:
                stack.append((e, True))
                for a in e.args:
                    if id(a) not in memo:
                        stack.append((a, False))
                continue
            out = self._rewrite(e, [memo[id(a)] for a in e.args])
            memo[id(e)] = out
            if id(out) not in self.bounds:
                self._bound(out)
        return memo[id(root)]

    def _rewrite(self, e: Expr, args: list) -> Expr:
        op = e.op
        if op in ("lt", "le", "eq", "ne"):
            a, b = args
            ia, ib = self.bounds.get(id(a)), self.bounds.get(id(b))
            if ia is not None and ib is not None:
                decided = _decide(op, ia, ib)
                if decided is not None:
                    return TRUE if decided else FALSE
            return {"lt": lt, "le": le, "eq": eq, "ne": ne}[op](a, b)
        if op == "and":
            return and_(*args)
        if op == "or":
            return or_(*args)
        if op == "not":
            return not_(args[0])
        if op == "ite":
            return ite(*args)
        if op == "add":
            return add(*args)
        if op == "sub":
            return sub(*args)
        if op == "band":
            return bit_and(*args)
        if op == "bor":
            return bit_or(*args)
        if op == "bxor":
            return bit_xor(*args)
        if all(x is y for x, y in zip(args, e.args)):
            return e
        return Expr(op, tuple(args), e.sort)


def _decide(op: str, a: tuple, b: tuple):
    if op == "lt":
        if a[1] < b[0]:
            return True
        if a[0] >= b[1]:
            return False
    elif op == "le":
        if a[1] <= b[0]:
            return True
        if a[0] > b[1]:
            return False
    elif op == "eq":
        if a[1] < b[0] or b[1] < a[0]:
            return False
        if a[0] == a[1] == b[0] == b[1]:
            return True
    elif op == "ne":
        if a[1] < b[0] or b[1] < a[0]:
            return True
        if a[0] == a[1] == b[0] == b[1]:
            return False
    return None
