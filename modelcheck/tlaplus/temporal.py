"""A module's temporal properties (the .cfg's PROPERTY) lowered onto modelcheck's temporal forms.

The liveness checker reads a property as one of a few forms
(``modelcheck.language.temporal``), each over conditions on a state (or a
step). A PROPERTY's formula is taken apart into such a form, its state
predicates lowered as invariants are, over the current state's slots (and,
for a step, the next state's, shifted by the state's width):

=============================  ==========================================
``<>P``                        ``eventually``
``[]<>P``                      ``always_eventually``
``<>[]P``                      ``eventually_always``
``P ~> Q``                     ``leads_to``
``<>[][A]_vars``               ``eventually_always_step``
``([]<>P) => <>Q``             ``infinitely_often_implies_eventually``
``([]<>P) => []<>Q``           ``infinitely_often_implies_infinitely_often``
``P => <>Q`` (P of Init)       ``initially_implies_eventually``
``\\A x \\in S : F``             one case of ``F`` per value of the constant set ``S``
=============================  ==========================================

Any other temporal formula is refused with its place in the module (never
checked as something else). ``[]P`` for a state predicate P is an
invariant: the refusal says to check it with INVARIANT.
"""

from __future__ import annotations

from typing import Any

from modelcheck.language.expr import FALSE, TRUE, var
from modelcheck.language.temporal import (ForAll, Formula, PropertyDef, always_eventually, eventually,
                                          eventually_always, eventually_always_step, infinitely_often_implies_eventually,
                                          infinitely_often_implies_infinitely_often, initially_implies_eventually,
                                          leads_to)
from modelcheck.tlaplus.lower import LCtx, Lowerer
from modelcheck.tlaplus.modules import OpBinding, Program, Variable
from modelcheck.tlaplus.symbolic import cond, from_leaves
from modelcheck.tlaplus.syntax import Loc, Node, TlaError, Unsupported
from modelcheck.tlaplus.values import show


def lower_properties(L: Lowerer, program: Program, names, variables, width: int) -> list[PropertyDef]:
    """The PROPERTY formulas ``names`` as property definitions; ``width`` is
    the state's width (where the next state's slots start)."""
    out = []
    for name in names:
        d = program.scope.lookup(name)
        if not isinstance(d, OpBinding) or d.opdef.params:
            raise TlaError(f"PROPERTY {name}: the module defines no such formula (without arguments)",
                           program.root_module.loc)
        cases = _Forms(L, variables, width).cases(d.opdef.body, LCtx(d.scope, {}))
        out.append(_definition(name, cases))
    return out


def _definition(name: str, cases: list[tuple[tuple, Formula]]) -> PropertyDef:
    if len(cases) == 1 and not cases[0][0]:
        formula = cases[0][1]
        built: Any = formula
    else:
        names = [n for n, _ in cases[0][0]]
        variable = ", ".join(names)
        built = ForAll(variable, tuple((", ".join(v for _, v in label), f) for label, f in cases), "",
                       tuple(range(len(cases))))
    steps = any(c[1].form == "eventually_always_step" for c in cases)
    if steps:
        return PropertyDef(name, lambda s, t: built, f"{name}, from the TLA+ module", True)
    return PropertyDef(name, lambda s: built, f"{name}, from the TLA+ module", False)


class _Forms:
    def __init__(self, L: Lowerer, variables, width: int):
        self.L, self.variables, self.width = L, list(variables), width

    # --- taking the formula apart ------------------------------------------------------------
    def cases(self, node: Node, ctx: LCtx, label: tuple = ()) -> list[tuple[tuple, Formula]]:
        node, ctx = self.unfold(node, ctx)
        if node.kind == "quant" and node.args[0] == "A":
            _, bounds, body = node.args
            out = []
            for names, present in self.L.bindings(bounds, ctx):
                if present is not TRUE:
                    raise Unsupported("a property quantified over a set the state decides", node.loc)
                shown = tuple((n, show(v, self.L.order)) for n, v in names.items())
                out += self.cases(body, ctx.bind(names), label + shown)
            return out
        return [(label, self.form(node, ctx))]

    def form(self, node: Node, ctx: LCtx) -> Formula:
        op = _op(node)
        if op == "~>":
            return leads_to(self.predicate(node.args[1], ctx), self.predicate(node.args[2], ctx))
        if op == "<>":
            inner, ictx = self.unfold(node.args[1], ctx)
            if _op(inner) == "[]":
                body, bctx = self.unfold(inner.args[1], ictx)
                if body.kind == "boxact":
                    self.check_subscript(body.args[1], bctx)
                    return eventually_always_step(self.step(body.args[0], bctx))
                return eventually_always(self.predicate(body, bctx))
            return eventually(self.predicate(inner, ictx))
        if op == "[]":
            inner, ictx = self.unfold(node.args[1], ctx)
            if _op(inner) == "<>":
                return always_eventually(self.predicate(inner.args[1], ictx))
            if not self.temporal(inner, ictx):
                raise Unsupported("[]P as a PROPERTY (P is a state predicate: check it as an INVARIANT)", node.loc)
        if op == "=>":
            left, lctx = self.unfold(node.args[1], ctx)
            right, rctx = self.unfold(node.args[2], ctx)
            infinitely = self.infinitely_often(left, lctx)
            r_op = _op(right)
            if infinitely is not None and r_op == "<>":
                q = self.predicate(right.args[1], rctx)
                return infinitely_often_implies_eventually(infinitely, q)
            if infinitely is not None:
                again = self.infinitely_often(right, rctx)
                if again is not None:
                    return infinitely_often_implies_infinitely_often(infinitely, again)
            if not self.temporal(left, lctx) and r_op == "<>":
                return initially_implies_eventually(self.predicate(left, lctx), self.predicate(right.args[1], rctx))
        raise Unsupported("this temporal formula as a PROPERTY (modelcheck checks <>P, []<>P, <>[]P, P ~> Q, "
                          "<>[][A]_vars, ([]<>P) => <>Q, ([]<>P) => []<>Q and P => <>Q, each under \\A)", node.loc)

    def infinitely_often(self, node: Node, ctx: LCtx):
        """P of []<>P, or None."""
        if _op(node) != "[]":
            return None
        inner, ictx = self.unfold(node.args[1], ctx)
        if _op(inner) != "<>":
            return None
        return self.predicate(inner.args[1], ictx)

    def unfold(self, node: Node, ctx: LCtx) -> tuple[Node, LCtx]:
        """A definition without arguments whose body is temporal, read as its body."""
        for _ in range(100):
            if node.kind != "name" or node.args[0] in ctx.env:
                break
            d = ctx.scope.lookup(node.args[0])
            if not isinstance(d, OpBinding) or d.opdef.params or not self.temporal(d.opdef.body, ctx.at(d.scope, {})):
                break
            node, ctx = d.opdef.body, ctx.at(d.scope, {})
        return node, ctx

    def temporal(self, node: Node, ctx: LCtx, depth: int = 0) -> bool:
        """Whether a formula uses a temporal operator (through definitions)."""
        if depth > 50:
            return False
        if node.kind in ("fair", "boxact", "diaact") or _op(node) in ("[]", "<>", "~>"):
            return True
        if node.kind == "name" and node.args[0] not in ctx.env:
            d = ctx.scope.lookup(node.args[0])
            if isinstance(d, OpBinding) and not d.opdef.params:
                return self.temporal(d.opdef.body, ctx.at(d.scope, {}), depth + 1)
            return False
        return any(self.temporal(a, ctx, depth + 1) for a in _children(node))

    # --- the conditions ------------------------------------------------------------------------
    def predicate(self, node: Node, ctx: LCtx):
        node, ctx = self.unfold(node, ctx)
        if self.temporal(node, ctx):
            raise Unsupported("a temporal formula where modelcheck needs a state predicate", node.loc)
        L = self.L
        L.path, L.failures = [], []
        value = cond(L.eval(node, ctx), " (a property's condition must be TRUE or FALSE)")
        self.evaluable(node)
        return value

    def step(self, node: Node, ctx: LCtx):
        """A step predicate: primed variables read from the next state's slots."""
        L = self.L
        nxt = {}
        for v in self.variables:
            shape = L.layout.shapes[v]
            base = L.layout.base[v]
            nxt[v] = from_leaves(shape, [var(self.width + base + i) for i in range(shape.width())])
        L.path, L.failures = [], []
        value = cond(L.eval(node, LCtx(ctx.scope, ctx.env, nxt, False)), " (a step's condition must be TRUE or FALSE)")
        self.evaluable(node)
        return value

    def evaluable(self, node: Node) -> None:
        """A condition TLC may fail to evaluate is refused (never read as FALSE)."""
        failures = [m for c, m in self.L.failures if c is not FALSE]
        self.L.failures = []
        if failures:
            raise Unsupported(f"a property's condition that TLC cannot evaluate in some states ({failures[0]})",
                              node.loc)

    def check_subscript(self, node: Node, ctx: LCtx) -> None:
        """[A]_v is read as a step of every variable: v must be all of them."""
        found: list[str] = []
        _subscript(node, ctx.scope, found)
        if set(found) != set(self.variables):
            raise Unsupported("[A]_v with v other than the tuple of all the variables", node.loc)


def check_fairness_subscript(node: Node, scope, variables) -> None:
    """WF_v(A) / SF_v(A) is read over steps that change some variable: v must be all of them."""
    found: list[str] = []
    _subscript(node, scope, found)
    if set(found) != set(variables):
        raise Unsupported("fairness WF_v / SF_v with v other than the tuple of all the variables", node.loc)


def _subscript(node: Node, scope, out: list) -> None:
    if node.kind == "tuple":
        for a in node.args:
            _subscript(a, scope, out)
        return
    if node.kind == "name":
        d = scope.lookup(node.args[0])
        if isinstance(d, Variable):
            out.append(d.name)
            return
        if isinstance(d, OpBinding) and not d.opdef.params:
            _subscript(d.opdef.body, d.scope, out)
            return
    out.append(f"?{node.kind}")  # anything else: not the tuple of the variables


def _op(node: Node) -> str | None:
    return node.args[0] if node.kind == "op" else None


def _children(node: Node) -> list[Node]:
    out = []
    for a in node.args:
        if isinstance(a, Node):
            out.append(a)
        elif isinstance(a, (tuple, list)):
            out.extend(_children(Node("tuple", tuple(a), Loc("", 0, 0))))
    return out
