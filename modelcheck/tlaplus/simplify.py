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


def impossible(c: Expr, ranges: Ranges) -> bool:
    """Whether the conjuncts of ``c`` of the form ``slot op constant`` leave
    some slot no value (so ``c`` never holds)."""
    if c.op != "and":
        return False
    narrow = narrowed(c, ranges)
    return any(lo > hi for lo, hi in (narrow[s] for s in narrow if narrow[s] != ranges.get(s)))


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
        hit = self.bounds.get(id(e))
        return hit[1] if hit is not None and hit[0] is e else None

    def _bound(self, e: Expr):
        op = e.op
        out = None
        if op == "const":
            v = e.args[0]
            out = (int(v), int(v))
        elif op == "var":
            out = self.ranges.get(e.args[0])
        elif op in ("add", "sub"):
            a, b = self.interval(e.args[0]), self.interval(e.args[1])
            if a is not None and b is not None:
                out = (a[0] + b[0], a[1] + b[1]) if op == "add" else (a[0] - b[1], a[1] - b[0])
        elif op == "ite":
            a, b = self.interval(e.args[1]), self.interval(e.args[2])
            if a is not None and b is not None:
                out = (min(a[0], b[0]), max(a[1], b[1]))
        elif op == "band":
            a, b = self.interval(e.args[0]), self.interval(e.args[1])
            if a is not None and b is not None and a[0] >= 0 and b[0] >= 0:
                out = (0, min(a[1], b[1]))
        self.bounds[id(e)] = (e, out)

    def __call__(self, root: Expr) -> Expr:
        memo = self.memo  # id -> (the node, its rewriting): the node is kept so its id stays its own
        hit = memo.get(id(root))
        if hit is not None and hit[0] is root:
            return hit[1]
        stack = [(root, False)]
        while stack:
            e, ready = stack.pop()
            hit = memo.get(id(e))
            if hit is not None and hit[0] is e:
                continue
            if e.op in ("const", "var"):
                memo[id(e)] = (e, e)
                self._bound(e)
                continue
            if not ready:
                stack.append((e, True))
                for a in e.args:
                    h = memo.get(id(a))
                    if h is None or h[0] is not a:
                        stack.append((a, False))
                continue
            out = self._rewrite(e, [memo[id(a)][1] for a in e.args])
            memo[id(e)] = (e, out)
            if id(out) not in self.bounds or self.bounds[id(out)][0] is not out:
                self._bound(out)
        return memo[id(root)][1]

    def _rewrite(self, e: Expr, args: list) -> Expr:
        op = e.op
        if op in ("lt", "le", "eq", "ne"):
            a, b = args
            ia, ib = self.interval(a), self.interval(b)
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


class Intervals:
    """The range of each expression's values under fixed slot ranges (None:
    unknown), computed once per node, without rewriting anything. Meant for
    one instance's expressions, which stay alive while it is used."""

    def __init__(self, ranges: Ranges):
        self.ranges = ranges
        self.memo: dict[int, tuple] = {}  # id -> (the node, its range)

    def _get(self, e: Expr):
        hit = self.memo.get(id(e))
        return hit if hit is not None and hit[0] is e else None

    def __call__(self, root: Expr):
        memo = self.memo
        hit = self._get(root)
        if hit is not None:
            return hit[1]
        stack = [(root, False)]
        while stack:
            e, ready = stack.pop()
            if self._get(e) is not None:
                continue
            op = e.op
            k = id(e)
            if op == "const":
                v = e.args[0]
                memo[k] = (e, (int(v), int(v)))
                continue
            if op == "var":
                memo[k] = (e, self.ranges.get(e.args[0]))
                continue
            if op not in ("add", "sub", "ite", "band"):
                memo[k] = (e, None)
                continue
            kids = e.args[1:] if op == "ite" else e.args
            if not ready:
                stack.append((e, True))
                for a in kids:
                    if self._get(a) is None:
                        stack.append((a, False))
                continue
            a, b = self._get(kids[0])[1], self._get(kids[1])[1]
            out = None
            if a is not None and b is not None:
                if op == "add":
                    out = (a[0] + b[0], a[1] + b[1])
                elif op == "sub":
                    out = (a[0] - b[1], a[1] - b[0])
                elif op == "ite":
                    out = (min(a[0], b[0]), max(a[1], b[1]))
                elif a[0] >= 0 and b[0] >= 0:
                    out = (0, min(a[1], b[1]))
            memo[k] = (e, out)
        return memo[id(root)][1]
