"""Initial states and successors over explicit states, in TLC's order.

This is the reference evaluator's side of actions, written after TLC's
``getInitStates``/``getNextStates``: the conjuncts of an action are taken
left to right; a disjunction, an ``\\E`` (its set in TLC's order) and
``x' \\in S`` branch, the branches in order; ``x' = e`` assigns x' when x'
has no value yet and compares otherwise; UNCHANGED assigns each variable its
current value; IF and CASE take the branch their condition picks; an
operator is expanded where it is applied; anything else is a condition of
the step. A branch that ends with a variable unassigned is TLC's error.

It is slow and simple on purpose: tests compare the compiled model with it
state by state, and the compiler learns the shapes of values from the first
states it finds.
"""

from __future__ import annotations

from typing import Any, Iterator

from modelcheck.tlaplus.evaluate import Ctx, Evaluator, Lazy, OpValue, bind_pattern, tla_equal
from modelcheck.tlaplus.modules import OpBinding, Substituted, Variable
from modelcheck.tlaplus.syntax import EvalError, Node, TlaError, Unsupported
from modelcheck.tlaplus.values import normal, set_elements, show


class Stepper:
    """Enumerates the initial states of Init and the successors of a state under
    Next, for one program and its constants."""

    def __init__(self, ev: Evaluator, variables: list[str]):
        self.ev = ev
        self.variables = list(variables)

    # --- public -------------------------------------------------------------------------
    def init_states(self, init: Node) -> list[dict]:
        ctx = self.ev.root_ctx(state={}, nxt=None)
        return [self._complete(s, init) for s in self._walk([(init, ctx)], {}, initial=True)]

    def next_states(self, action: Node, state: dict) -> list[dict]:
        ctx = self.ev.root_ctx(state=state, nxt={})
        return [self._complete(s, action) for s in self._walk([(action, ctx)], {}, initial=False)]

    def _complete(self, assigned: dict, node: Node) -> dict:
        missing = [v for v in self.variables if v not in assigned]
        if missing:
            raise EvalError(f"the step leaves {', '.join(missing)} without a value (TLC: the successor state is "
                            f"not completely specified)", node.loc)
        return {v: assigned[v] for v in self.variables}

    # --- the walk ----------------------------------------------------------------------------
    def _walk(self, items: list, assigned: dict, initial: bool) -> Iterator[dict]:
        """Every completion of ``assigned`` satisfying the pending conjuncts ``items``."""
        if not items:
            yield assigned
            return
        (node, ctx), rest = items[0], items[1:]
        ctx = self._with(ctx, assigned, initial)
        kind = node.kind
        ev = self.ev
        if kind == "and":
            yield from self._walk([(a, ctx) for a in node.args] + rest, assigned, initial)
            return
        if kind == "or":
            for d in node.args:
                yield from self._walk([(d, ctx)] + rest, dict(assigned), initial)
            return
        if kind == "quant" and node.args[0] == "E":
            _, bounds, body = node.args
            for names in ev.bindings(bounds, ctx):
                yield from self._walk([(body, ctx.bind(names))] + rest, dict(assigned), initial)
            return
        if kind == "if":
            cond, then, other = node.args
            branch = then if ev.truth(cond, ctx) else other
            yield from self._walk([(branch, ctx)] + rest, assigned, initial)
            return
        if kind == "case":
            arms, other = node.args
            for cond, value in arms:
                if ev.truth(cond, ctx):
                    yield from self._walk([(value, ctx)] + rest, assigned, initial)
                    return
            if other is None:
                raise EvalError("no arm of this CASE applies, and it has no OTHER", node.loc)
            yield from self._walk([(other, ctx)] + rest, assigned, initial)
            return
        if kind == "let":
            defs, body = node.args
            yield from self._walk([(body, ev.let_ctx(defs, ctx))] + rest, assigned, initial)
            return
        expanded = self._expand(node, ctx)
        if expanded is not None:
            yield from self._walk([expanded] + rest, assigned, initial)
            return
        if kind == "op":
            sym = node.args[0]
            if sym in ("=", "\\in"):
                target = self._assignable(node.args[1], ctx, initial)
                if target is not None and target not in assigned:
                    value = ev.eval(node.args[2], ctx)
                    if sym == "=":
                        assigned[target] = normal(value)
                        yield from self._walk(rest, assigned, initial)
                    else:
                        for x in ev.domain_elements(value, node.args[2]):
                            branch = dict(assigned)
                            branch[target] = normal(x)
                            yield from self._walk(rest, branch, initial)
                    return
            if sym == "UNCHANGED" and not initial:
                for target, current in self._unchanged(node.args[1], ctx):
                    if target in assigned:
                        if not tla_equal(assigned[target], current):
                            return
                    else:
                        assigned[target] = current
                yield from self._walk(rest, assigned, initial)
                return
        if not ev.truth(node, ctx):
            return
        yield from self._walk(rest, assigned, initial)

    def _with(self, ctx: Ctx, assigned: dict, initial: bool) -> Ctx:
        if initial:
            return Ctx(ctx.scope, ctx.env, assigned, None)
        return Ctx(ctx.scope, ctx.env, ctx.state, assigned)

    def _expand(self, node: Node, ctx: Ctx):
        """An operator application seen as an action: its body, where it is applied."""
        ev = self.ev
        if node.kind == "name":
            name = node.args[0]
            if name in ctx.env:
                v = ctx.env[name]
                if type(v) is Lazy:
                    return (v.node, Ctx(v.ctx.scope, v.ctx.env, ctx.state, ctx.nxt))
                return None
            d = ctx.scope.lookup(name)
            if type(d) is OpBinding and not d.opdef.params and d.opdef.fun_bounds is None:
                return (d.opdef.body, ctx.at(d.scope, {}))
            if type(d) is Substituted:
                return None
            return None
        if node.kind == "apply":
            name, args = node.args
            if name in ctx.env:
                v = ctx.env[name]
                if isinstance(v, OpValue) and v.opdef is not None and v.ctx is not None:
                    names = [p for p, _ in v.opdef.params]
                    return (v.opdef.body, v.ctx.bind({p: Lazy(a, ctx) for p, a in zip(names, args)}))
                return None
            d = ctx.scope.lookup(name)
            if type(d) is OpBinding and d.opdef.params:
                env = {}
                for (p, arity), a in zip(d.opdef.params, args):
                    env[p] = ev.operator_arg(a, ctx, arity) if arity else Lazy(a, ctx)
                return (d.opdef.body, ctx.at(d.scope, env))
            return None
        if node.kind == "inst":
            _, name, args = node.args
            scope, d = ev.instance_target(node, ctx)
            if type(d) is OpBinding and d.opdef.fun_bounds is None:
                env = {}
                for (p, arity), a in zip(d.opdef.params, args):
                    env[p] = ev.operator_arg(a, ctx, arity) if arity else Lazy(a, ctx)
                return (d.opdef.body, ctx.at(d.scope, env))
        return None

    def _assignable(self, node: Node, ctx: Ctx, initial: bool) -> str | None:
        """The variable ``node`` assigns (x' in a step, x in Init), if it is one."""
        if initial:
            return self._variable(node, ctx)
        if node.kind == "op" and node.args[0] == "'":
            return self._variable(node.args[1], ctx)
        return None

    def _variable(self, node: Node, ctx: Ctx) -> str | None:
        if node.kind != "name":
            return None
        name = node.args[0]
        if name in ctx.env:
            return None
        d = ctx.scope.lookup(name)
        while type(d) is Substituted:
            if d.expr.kind != "name" or d.expr.args[0] in d.env:
                return None
            d = d.scope.lookup(d.expr.args[0])
        if type(d) is Variable:
            return d.name
        return None

    def _unchanged(self, node: Node, ctx: Ctx) -> list[tuple[str, Any]]:
        """The variables UNCHANGED e names, with their current values."""
        kind = node.kind
        if kind == "tuple":
            out = []
            for a in node.args:
                out.extend(self._unchanged(a, ctx))
            return out
        var = self._variable(node, ctx)
        if var is not None:
            return [(var, ctx.state[var])]
        expanded = self._expand(node, ctx)
        if expanded is not None:
            inner, inner_ctx = expanded
            return self._unchanged(inner, inner_ctx)
        raise Unsupported(f"UNCHANGED of something other than variables and tuples of them", node.loc)
