"""Lowering actions: Next to action instances, in TLC's order.

An action is walked as TLC's ``getNextStates`` walks it (``actions.py`` is
the reference), but over the symbolic state, so instead of successors it
yields *paths*: a guard (the conditions met on the way), the values
assigned to primed variables, and the parameters chosen. Where TLC
branches, the walk branches, in TLC's order:

- each disjunct of a disjunction that assigns primed variables;
- each element of ``\\E x \\in S`` whose body assigns them: over a constant
  set, its elements in TLC's order; over a set held in the state, each
  element of its universe (a bitmask) or each slot (sorted), the guard
  requiring it to be present;
- each element of S in ``x' \\in S``;
- both ways of an IF (or each arm of a CASE) between assignments, with
  exclusive guards.

``x' = e`` assigns when x' has no value yet and adds a condition
otherwise; UNCHANGED assigns current values; anything else is a condition
of the guard. An operator whose body assigns primed variables is expanded
where it is used; the outermost one below Next names the action.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterator

from modelcheck.language.expr import FALSE, TRUE, Expr, and_, ite, not_, or_
from modelcheck.tlaplus.evaluate import OpValue
from modelcheck.tlaplus.lower import LCtx, LThunk, Lowerer, find_pin
from modelcheck.tlaplus.modules import OpBinding, Scope, Substituted, Variable
from modelcheck.tlaplus.shapes import NotInShape
from modelcheck.tlaplus.symbolic import Store, cond, from_leaves, is_sym, ite_value, member, set_items, to_leaves, value_eq
from modelcheck.tlaplus.syntax import EvalError, Node, TlaError, Unsupported
from modelcheck.tlaplus.values import is_set


@dataclass
class Path:
    """One way through an action: its guard, assignments and parameters."""

    guard: list = field(default_factory=list)
    assigned: dict = field(default_factory=dict)
    params: list = field(default_factory=list)
    failures: list = field(default_factory=list)
    name: str | None = None
    failing_only: bool = False  # the walk stopped where TLC fails: only the failures count
    overflows: list = field(default_factory=list)  # found storing merged branches' values

    def copy(self) -> "Path":
        return Path(list(self.guard), dict(self.assigned), list(self.params), list(self.failures), self.name,
                    self.failing_only, list(self.overflows))


class ActionLowerer:
    """Walks actions of one program over one layout (see the module docstring)."""

    def __init__(self, lowerer: Lowerer, variables: list[str]):
        self.L = lowerer
        self.variables = list(variables)
        self._levels: dict = {}

    # --- entry ----------------------------------------------------------------------------------
    def paths(self, node: Node, ctx: LCtx | None = None, name: str | None = None) -> Iterator[Path]:
        start = Path(name=name)
        ctx = ctx or self.L.root(start.assigned)
        yield from self._walk([(node, ctx)], start)

    # --- whether a formula assigns primed variables --------------------------------------------------
    def is_action(self, node: Node, scope: Scope, env: dict | None = None) -> bool:
        key = (id(node), id(scope))
        found = self._levels.get(key)
        if found is None:
            self._levels[key] = False  # a recursive definition is not an action while it is checked
            found = self._levels[key] = self._is_action(node, scope, env or {})
        return found

    def _is_action(self, node: Node, scope: Scope, env: dict) -> bool:
        kind = node.kind
        if kind == "op" and node.args[0] in ("'", "UNCHANGED"):
            return True
        if kind in ("name", "apply"):
            name = node.args[0]
            if kind == "apply" and any(self.is_action(a, scope, env) for a in node.args[1]):
                return True
            if name in env:
                v = env[name]
                if type(v) is LThunk:
                    return self.is_action(v.node, v.ctx.scope, v.ctx.env)
                if isinstance(v, OpValue) and v.opdef is not None and v.ctx is not None:
                    return self.is_action(v.opdef.body, v.ctx.scope, v.ctx.env)
                return False
            d = scope.lookup(name)
            if type(d) is OpBinding:
                return self.is_action(d.opdef.body, d.scope)
            return False
        if kind == "inst":
            try:
                _, d = self._instance_target(node, scope)
            except TlaError:
                return False
            if type(d) is OpBinding:
                return self.is_action(d.opdef.body, d.scope) or any(self.is_action(a, scope, env)
                                                                    for a in node.args[2])
            return False
        if kind == "let":
            defs, body = node.args
            inner = dict(env)
            for o in defs:
                inner[o.name] = None
            return self.is_action(body, scope, inner) or any(self.is_action(o.body, scope, inner) for o in defs)
        if kind in ("fair", "boxact", "diaact"):
            return False
        for a in _children(node):
            if self.is_action(a, scope, env):
                return True
        return False

    def _instance_target(self, node: Node, scope: Scope):
        prefix, name, _ = node.args
        from modelcheck.tlaplus.modules import NamedInstance
        for comp, comp_args in prefix:
            d = scope.lookup(comp)
            if not isinstance(d, NamedInstance) or comp_args:
                raise TlaError("not a plain instance")
            scope = self.L.program.named_instance_scope(d, (), {})
        return scope, scope.lookup(name)

    # --- the walk -----------------------------------------------------------------------------------
    def _with(self, ctx: LCtx, path: Path) -> LCtx:
        return LCtx(ctx.scope, ctx.env, path.assigned, ctx.primed)

    def _cond(self, node: Node, ctx: LCtx, path: Path) -> Expr:
        """A condition of the path, lowered under the path's guard so far."""
        L = self.L
        L.path, L.failures = list(path.guard), path.failures
        try:
            return cond(L.eval(node, ctx), " (a condition of the action)")
        except EvalError as e:
            # TLC fails wherever the action gets this far; nothing follows
            path.failures.append((and_(*path.guard), _placed(e)))
            return FALSE
        finally:
            L.path = []

    def _value(self, node: Node, ctx: LCtx, path: Path):
        """A value the action computes (raises _Unreachable where TLC fails
        whenever the action gets this far: the failure is kept on the path)."""
        L = self.L
        L.path, L.failures = list(path.guard), path.failures
        try:
            return L.eval(node, ctx)
        except EvalError as e:
            path.failures.append((and_(*path.guard), _placed(e)))
            raise _Unreachable() from None
        finally:
            L.path = []

    def _walk(self, items: list, path: Path) -> Iterator[Path]:
        try:
            yield from self._step(items, path)
        except _Unreachable:
            # TLC stops wherever the path gets this far: the path's failure says so
            if path.failures:
                yield _failing(path)

    def _step(self, items: list, path: Path) -> Iterator[Path]:
        if not items:
            yield path
            return
        (node, ctx), rest = items[0], items[1:]
        ctx = self._with(ctx, path)
        kind = node.kind
        if kind == "and":
            yield from self._walk([(a, ctx) for a in node.args] + rest, path)
            return
        if kind == "or" and self.is_action(node, ctx.scope, ctx.env):
            for d in node.args:
                yield from self._walk([(d, ctx)] + rest, path.copy())
            return
        if kind == "quant" and node.args[0] == "E" and self.is_action(node.args[2], ctx.scope, ctx.env):
            yield from self._exists(node, ctx, rest, path)
            return
        if kind == "if" and self.is_action(node, ctx.scope, ctx.env):
            c_node, then, other = node.args
            c = self._cond(c_node, ctx, path)
            if c is not TRUE and c is not FALSE:
                merged = self._merge([(c, then), (not_(c), other)], ctx, path)
                if merged is not None:
                    yield from self._walk(rest, merged)
                    return
            if c is not FALSE:
                taken = path.copy() if c is not TRUE else path
                if c is not TRUE:
                    taken.guard.append(c)
                yield from self._walk([(then, ctx)] + rest, taken)
            if c is not TRUE:
                path.guard.append(not_(c))
                yield from self._walk([(other, ctx)] + rest, path)
            return
        if kind == "case" and self.is_action(node, ctx.scope, ctx.env):
            yield from self._case(node, ctx, rest, path)
            return
        if kind == "let":
            defs, body = node.args
            yield from self._walk([(body, self.L.let_ctx(defs, ctx))] + rest, path)
            return
        expanded = self._expand(node, ctx, path)
        if expanded is not None:
            yield from self._walk([expanded] + rest, path)
            return
        if kind == "op":
            sym = node.args[0]
            if sym in ("=", "\\in"):
                target = self._primed_variable(node.args[1], ctx)
                if target is not None and target not in path.assigned:
                    if sym == "=":
                        path.assigned[target] = self._value(node.args[2], ctx, path)
                        yield from self._walk(rest, path)
                    else:
                        s = self._value(node.args[2], ctx, path)
                        for i, (p, x) in enumerate(self._items(s, node)):
                            if p is FALSE:
                                continue
                            branch = path.copy()
                            if p is not TRUE:
                                branch.guard.append(p)
                            branch.assigned[target] = x
                            branch.params.append((f"{target}'", x if not is_sym(x) else f"#{i + 1}"))
                            yield from self._walk(rest, branch)
                    return
            if sym == "UNCHANGED":
                for target in self._unchanged(node.args[1], ctx):
                    current = self.L.current[target]
                    if target in path.assigned:
                        c = value_eq(path.assigned[target], current, self.L.order)
                        if c is FALSE:
                            return
                        if c is not TRUE:
                            path.guard.append(c)
                    else:
                        path.assigned[target] = current
                yield from self._walk(rest, path)
                return
        c = self._cond(node, ctx, path)
        if c is FALSE:
            return
        if c is not TRUE:
            path.guard.append(c)
        yield from self._walk(rest, path)

    def _items(self, s, node: Node) -> list:
        if not is_sym(s) and not is_set(s):
            raise EvalError("expected a set", node.loc)
        return set_items(s, self.L.order)

    def _exists(self, node: Node, ctx: LCtx, rest: list, path: Path) -> Iterator[Path]:
        _, bounds, body = node.args
        yield from self._bind(list(bounds), body, ctx, rest, path)

    def _bind(self, bounds: list, body: Node, ctx: LCtx, rest: list, path: Path) -> Iterator[Path]:
        if not bounds:
            yield from self._walk([(body, ctx)] + rest, path)
            return
        (pattern, set_node), more = bounds[0], bounds[1:]
        s = self._value(set_node, ctx, path)
        if not isinstance(pattern, tuple):
            inner = Node("quant", ("E", tuple(more), body), body.loc) if more else body
            found = find_pin(self.L, inner, ctx, pattern, tuple(p for p, _ in more if not isinstance(p, tuple)))
            if found is not None:
                try:
                    value = self._value(found[0], found[1], path)
                except Unsupported:
                    value = None
                if value is not None:
                    inside = member(value, s, self.L.order, self.L)
                    if inside is FALSE:
                        return
                    if inside is not TRUE:
                        path.guard.append(inside)
                    if not is_sym(value):
                        path.params.append((pattern, value))
                    yield from self._bind(more, body, LCtx(ctx.scope, _extend(ctx.env, {pattern: value}),
                                                           path.assigned, ctx.primed), rest, path)
                    return
        for i, (p, x) in enumerate(self._items(s, set_node)):
            if p is FALSE:
                continue
            branch = path.copy()
            if p is not TRUE:
                branch.guard.append(p)
            names = self.L.bind(pattern, x, set_node)
            for n, v in names.items():
                branch.params.append((n, v if not is_sym(v) else f"#{i + 1}"))
            yield from self._bind(more, body, LCtx(ctx.scope, _extend(ctx.env, names), branch.assigned, ctx.primed),
                                  rest, branch)

    def _merge(self, arms: list, ctx: LCtx, path: Path) -> Path | None:
        """Exclusive branches (an IF's, a CASE's arms), each taking one way
        through, as one path: the guard holds where some arm's condition and
        its own conditions do, and each variable the arms assign gets the
        value of the arm that applies. None where they cannot be merged
        (an arm that branches, binds parameters or assigns other variables
        than the rest), and the walk then takes each arm as its own path."""
        if path.name is None:
            return None  # arms that are different actions keep their own names
        start = len(path.guard)
        outcomes = []
        for c, node in arms:
            if c is FALSE:
                continue
            trial = path.copy()
            trial.guard.append(c)
            found = list(self._walk([(node, ctx)], trial))
            if len(found) != 1:
                if not found:
                    continue  # the arm never fires
                return None
            p = found[0]
            if p.failing_only or len(p.params) != len(path.params) or p.name != path.name:
                return None
            outcomes.append((c, p))
        if not outcomes:
            return None
        assigned_before = set(path.assigned)
        new_vars = set(outcomes[0][1].assigned) - assigned_before
        if any(set(p.assigned) - assigned_before != new_vars for _, p in outcomes):
            return None
        order, store = self.L.order, self.L.store
        merged = path.copy()
        merged.guard.append(or_(*(and_(*p.guard[start:]) for _, p in outcomes)))
        for v in new_vars:
            merged.assigned[v] = self._merged_value(v, outcomes, merged)
        seen = {id(f) for f in merged.failures}
        known = {id(o) for o in path.overflows}
        for c, p in outcomes:
            # an arm's own checks (found merging IFs inside it) hold only where the arm is taken: they carry
            # the inner arm's condition, not this one's, and a check that fires on the way not taken stops
            # the search on a bound no behaviour outgrows
            merged.overflows.extend((and_(c, oc), what) for oc, what in (o for o in p.overflows if id(o) not in known))
            merged.failures.extend(f for f in p.failures if id(f) not in seen)
            seen.update(id(f) for f in p.failures)
        return merged

    def _case(self, node: Node, ctx: LCtx, rest: list, path: Path) -> Iterator[Path]:
        arms, other = node.args
        merged = self._merge_case(node, ctx, path)
        if merged is not None:
            yield from self._walk(rest, merged)
            return
        earlier: list[Expr] = []
        for c_node, value in arms:
            probe = path.copy()
            probe.guard.extend(not_(e) for e in earlier)
            c = self._cond(c_node, ctx, probe)
            if c is not FALSE:
                taken = probe
                if c is not TRUE:
                    taken.guard.append(c)
                yield from self._walk([(value, ctx)] + rest, taken)
            earlier.append(c)
            if c is TRUE:
                return
        final = path.copy()
        final.guard.extend(not_(e) for e in earlier)
        if and_(*final.guard) is FALSE:
            return
        if other is None:
            final.failures.append((and_(*final.guard), "no arm of this CASE applies, and it has no OTHER"))
            return
        yield from self._walk([(other, ctx)] + rest, final)

    def _merged_value(self, v: str, outcomes: list, merged: Path):
        """The value the arms give ``v``, chosen by their conditions: stored
        arm by arm and chosen leaf by leaf (so that each arm's changes to a set
        cost what they cost alone), or through ``ite_value`` where a value does
        not fit the variable's shape yet."""
        shape = self.L.layout.shapes[v]
        store = Store(self.L.order)
        try:
            stored = []
            for c, p in outcomes:
                with store.under(c):
                    stored.append((c, to_leaves(p.assigned[v], shape, store, v)))
        except NotInShape:
            value = outcomes[-1][1].assigned[v]
            for c, p in reversed(outcomes[:-1]):
                value = ite_value(c, p.assigned[v], value, self.L.order, self.L.store)
            return value
        merged.overflows.extend(store.overflows)
        leaves = list(stored[-1][1])
        for c, arm in reversed(stored[:-1]):
            leaves = [x if x is y else ite(c, x, y) for x, y in zip(arm, leaves)]
        return from_leaves(shape, leaves)

    def _merge_case(self, node: Node, ctx: LCtx, path: Path) -> Path | None:
        """A CASE whose arms can be merged (see ``_merge``): arm k applies where
        its condition holds and no earlier one's does; with no OTHER, where no
        condition holds TLC fails."""
        arms, other = node.args
        branches = []
        earlier: list[Expr] = []
        probe = path.copy()
        for c_node, value in arms:
            c = self._cond(c_node, ctx, probe)
            here = and_(c, *(not_(e) for e in earlier))
            branches.append((here, value))
            earlier.append(c)
            if c is TRUE:
                break
        rest = and_(*(not_(e) for e in earlier))
        if other is not None:
            branches.append((rest, other))
        elif rest is not FALSE:
            return None  # where no arm applies TLC fails: taken arm by arm
        if sum(1 for c, _ in branches if c is not FALSE) < 2:
            return None
        merged = self._merge(branches, ctx, path)
        if merged is not None:
            known = {id(f) for f in merged.failures}
            merged.failures.extend(f for f in probe.failures if id(f) not in known)
        return merged

    def _expand(self, node: Node, ctx: LCtx, path: Path):
        """An action operator's body where it is applied (its name names the path)."""
        if node.kind == "name":
            name = node.args[0]
            if name in ctx.env:
                v = ctx.env[name]
                if type(v) is LThunk and self.is_action(v.node, v.ctx.scope, v.ctx.env):
                    return (v.node, LCtx(v.ctx.scope, v.ctx.env, path.assigned, v.ctx.primed))
                return None
            d = ctx.scope.lookup(name)
            if type(d) is OpBinding and not d.opdef.params and d.opdef.fun_bounds is None \
                    and self.is_action(d.opdef.body, d.scope):
                self._name(path, name)
                return (d.opdef.body, ctx.at(d.scope, {}))
            return None
        if node.kind == "apply":
            name, args = node.args
            if name in ctx.env:
                v = ctx.env[name]
                if isinstance(v, OpValue) and v.opdef is not None and v.ctx is not None \
                        and self.is_action(v.opdef.body, v.ctx.scope, v.ctx.env):
                    names = [p for p, _ in v.opdef.params]
                    return (v.opdef.body, v.ctx.bind({p: LThunk(a, ctx) for p, a in zip(names, args)}))
                return None
            d = ctx.scope.lookup(name)
            if type(d) is OpBinding and d.opdef.params and (self.is_action(d.opdef.body, d.scope)
                                                            or any(self.is_action(a, ctx.scope, ctx.env)
                                                                   for a in args)):
                self._name(path, name)
                return (d.opdef.body, ctx.at(d.scope, self.L.bind_params(d.opdef, args, ctx)))
            return None
        if node.kind == "inst":
            _, name, args = node.args
            try:
                scope, d = self._instance_target(node, ctx.scope)
            except TlaError:
                return None
            if type(d) is OpBinding and d.opdef.fun_bounds is None and self.is_action(d.opdef.body, d.scope):
                self._name(path, name)
                return (d.opdef.body, ctx.at(d.scope, self.L.bind_params(d.opdef, args, ctx)))
        return None

    def _name(self, path: Path, name: str) -> None:
        if path.name is None:
            path.name = name

    def _primed_variable(self, node: Node, ctx: LCtx) -> str | None:
        if node.kind == "op" and node.args[0] == "'":
            return self._variable(node.args[1], ctx)
        return None

    def _variable(self, node: Node, ctx: LCtx) -> str | None:
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

    def _unchanged(self, node: Node, ctx: LCtx) -> list[str]:
        if node.kind == "tuple":
            out = []
            for a in node.args:
                out.extend(self._unchanged(a, ctx))
            return out
        v = self._variable(node, ctx)
        if v is not None:
            return [v]
        if node.kind == "name":
            d = ctx.scope.lookup(node.args[0]) if node.args[0] not in ctx.env else None
            if type(d) is OpBinding and not d.opdef.params:
                return self._unchanged(d.opdef.body, ctx.at(d.scope, {}))
            if type(d) is Substituted:
                return self._unchanged(d.expr, LCtx(d.scope, dict(d.env), ctx.nxt, ctx.primed))
        if node.kind == "apply":
            d = ctx.scope.lookup(node.args[0])
            if type(d) is OpBinding:
                return self._unchanged(d.opdef.body, ctx.at(d.scope, self.L.bind_params(d.opdef, node.args[1],
                                                                                         ctx)))
        if node.kind == "inst":
            scope, d = self._instance_target(node, ctx.scope)
            if type(d) is OpBinding and not d.opdef.params:
                return self._unchanged(d.opdef.body, ctx.at(d.scope, {}))
        raise Unsupported("UNCHANGED of something other than variables and tuples of them", node.loc)


def _placed(e: EvalError) -> str:
    return f"{e.message} ({e.loc})" if e.loc is not None and e.loc.line else e.message


class _Unreachable(Exception):
    """A value the action needs cannot be evaluated on this path."""


def _failing(path: Path) -> Path:
    """A path that only fails: its guard is its failures' conditions and it assigns nothing."""
    out = path.copy()
    out.failing_only = True
    return out


def _extend(env: dict, names: dict) -> dict:
    out = dict(env)
    out.update(names)
    return out


def _children(node: Node):
    from modelcheck.tlaplus.evaluate import _children as children
    return children(node)
