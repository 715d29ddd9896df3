"""Lowering expressions: TLA+ over symbolic states, to expression trees.

``Lowerer.eval`` walks the same syntax as the reference evaluator
(``evaluate.py``), but a variable reads as a symbolic value over its state
slots (``symbolic.py``), so what it returns is either a concrete value
(everything it read was a constant: folded now, as TLC computes constant
definitions once) or a symbolic one. Operators are inlined with their
arguments passed unevaluated, LET definitions bound lazily, quantifiers over
finite sets expanded, IF and CASE turned into ``ite``.

TLC's errors are kept: where an operation may fail at run time (a function
applied outside its domain, CHOOSE with nothing to choose), it calls
``fail`` with the condition, and the lowering conjoins it with the
conditions under which TLC evaluates that part (``/\\``, ``\\/``, ``=>``, IF
and the quantifiers short-circuit, as in TLC).
"""

from __future__ import annotations

from typing import Any

from modelcheck.language.expr import (FALSE, TRUE, Expr, add, and_, bit_and, const, const_value, eq, ite, is_const, le,
                                      lift, lt, ne, not_, or_, select, sub, var)
from modelcheck.language.values import Function, Record
from modelcheck.tlaplus.evaluate import Ctx, Evaluator, Lazy, OpValue, _INFIX_VALUES, _PREFIX_OPS, _STRICT_OPS, \
    bind_pattern, tla_equal
from modelcheck.tlaplus.modules import Builtin, Constant, NamedInstance, OpBinding, Scope, Substituted, Variable
from modelcheck.tlaplus.shapes import RecS, Shape
from modelcheck.tlaplus.symbolic import (SBool, SFun, SInterval, SMask, SPFun, SPowerset, SRec, SScalar, SSeq, SSet,
                                         STup,
                                         SVariant, Store, Sym, as_int, boolean, cond, describe, from_leaves, is_sym,
                                         ite_value, make_int, make_seq, make_set, member, seq_of, set_cap, set_items,
                                         set_minus, set_size, set_union, shape_of, subseteq, to_leaves, value_eq)
from modelcheck.tlaplus.syntax import EvalError, Node, TlaError, Unsupported
from modelcheck.tlaplus.values import (FunctionSet, Interval, LazySet, PowerSet, ProductSet, RecordSet, TlcOrder,
                                       domain, fcn, fcn_items, is_fcn, is_set, set_elements, show)


class LThunk:
    """An argument or LET definition, lowered once when first used."""

    __slots__ = ("node", "ctx", "value", "done")

    def __init__(self, node: Node, ctx: "LCtx"):
        self.node, self.ctx, self.value, self.done = node, ctx, None, False


class LCtx:
    """Where an expression is lowered: its scope, bound names, and the next
    state's values assigned so far (``nxt``); ``primed`` reads variables there."""

    __slots__ = ("scope", "env", "nxt", "primed")

    def __init__(self, scope: Scope, env: dict, nxt: dict | None = None, primed: bool = False):
        self.scope, self.env, self.nxt, self.primed = scope, env, nxt, primed

    def bind(self, names: dict) -> "LCtx":
        env = dict(self.env)
        env.update(names)
        return LCtx(self.scope, env, self.nxt, self.primed)

    def at(self, scope: Scope, env: dict) -> "LCtx":
        return LCtx(scope, env, self.nxt, self.primed)


_AT = "@"
_FAILS = object()  # a branch that cannot be evaluated wherever it is taken


class Layout:
    """Where each variable is stored: its shape and first slot."""

    def __init__(self, shapes: dict[str, Shape], first_slot: int = 0):
        self.shapes = dict(shapes)
        self.base: dict[str, int] = {}
        self.untracked: set[int] = set()  # slots nothing reads (see compile._untrack_unread)
        slot = first_slot
        for name, s in self.shapes.items():
            self.base[name] = slot
            slot += s.width()
        self.width = slot

    def leaves(self, name: str) -> list[Expr]:
        b = self.base[name]
        return [var(b + i) for i in range(self.shapes[name].width())]


class Lowerer:
    """Lowers expressions of one program (its constants fixed) over one layout."""

    def __init__(self, ev: Evaluator, layout: Layout):
        self.ev = ev
        self.order: TlcOrder = ev.order
        self.program = ev.program
        self.layout = layout
        self.current = {name: from_leaves(layout.shapes[name], layout.leaves(name)) for name in layout.shapes}
        self.path: list[Expr] = []
        self.failures: list[tuple[Expr, str]] = []
        self.store = Store(self.order)
        self._state_cache: dict[int, tuple[Any, list]] = {}
        self._primes: dict[int, bool] = {}
        self._loc = None  # where the expression being lowered is (for failures)

    # --- failures ---------------------------------------------------------------------
    def fail(self, c, message: str) -> None:
        c = lift(c)
        if c is FALSE:
            return
        where = f" ({self._loc})" if self._loc is not None and self._loc.line else ""
        self.failures.append((and_(*self.path, c), message + where))

    def under(self, c: Expr):
        return _Under(self, c)

    # --- entry points -----------------------------------------------------------------------
    def root(self, nxt: dict | None = None) -> LCtx:
        return LCtx(self.program.scope, {}, nxt, False)

    def predicate(self, node: Node, ctx: LCtx | None = None) -> Expr:
        return cond(self.eval(node, ctx or self.root()), " (a state predicate)")

    # --- the walk ----------------------------------------------------------------------------
    def eval(self, node: Node, ctx: LCtx):
        outer = self._loc
        self._loc = node.loc
        try:
            return getattr(self, "e_" + node.kind)(node, ctx)
        except TlaError as e:
            if e.loc is None:
                e.loc = node.loc
            raise
        finally:
            self._loc = outer

    def force(self, t: LThunk):
        if not t.done:
            t.value = self.eval(t.node, t.ctx)
            t.done = True
        return t.value

    def e_num(self, node, ctx):
        return node.args[0]

    e_str = e_num
    e_bool = e_num

    def e_unsupported(self, node, ctx):
        raise Unsupported(node.args[0], node.loc)

    def concrete_ctx(self, ctx: LCtx) -> Ctx:
        return Ctx(ctx.scope, {}, None, None)

    def e_name(self, node, ctx):
        name = node.args[0]
        env = ctx.env
        if name in env:
            v = env[name]
            if type(v) is LThunk:
                return self.force(v)
            return v
        d = ctx.scope.lookup(name)
        if d is None:
            raise TlaError(f"unknown name {name}", node.loc)
        return self.definition_value(d, name, node, ctx)

    def definition_value(self, d, name: str, node: Node, ctx: LCtx):
        t = type(d)
        if t is Variable:
            if ctx.primed:
                if ctx.nxt is None or name not in ctx.nxt:
                    raise Unsupported(f"{name}' is read before the action gives it a value", node.loc)
                return ctx.nxt[name]
            return self.current[d.name]
        if t is OpBinding:
            opdef = d.opdef
            if opdef.params:
                return self.op_value(d, ctx)
            if opdef.fun_bounds is not None:
                if self.ev.is_constant_level(d):
                    return self.ev.recursive_function(d, Ctx(d.scope, {}))
                raise Unsupported(f"the recursive function {name} over state values", node.loc)
            if self.ev.is_constant_level(d):
                return self.ev.definition_value(d, name, node, Ctx(d.scope, {}))
            if not ctx.primed and not self.reads_next_state(d):
                return self.cached_state_level(d, ctx)
            return self.eval(opdef.body, ctx.at(d.scope, {}))
        if t is Constant:
            return self.ev.definition_value(d, name, node, Ctx(ctx.scope, {}))
        if t is Substituted:
            return self.eval(d.expr, LCtx(d.scope, {k: v for k, v in d.env.items()}, ctx.nxt, ctx.primed))
        if t is Builtin:
            if d.arity == 0:
                return d.fn(self.ev)
            return self.builtin_op(d)
        if t is NamedInstance:
            raise TlaError(f"{name} is an instance; use {name}!Op", node.loc)
        raise TlaError(f"cannot lower {name}", node.loc)

    def reads_next_state(self, d: OpBinding) -> bool:
        """Whether a definition reads primed variables (an action, or an
        ACTION_CONSTRAINT), itself or through the definitions it names."""
        key = id(d)
        found = self._primes.get(key)
        if found is None:
            self._primes[key] = False  # a recursive definition is not taken to read them while it is checked
            found = self._primes[key] = self._primed_node(d.opdef.body, d.scope)
        return found

    def _primed_node(self, node, scope) -> bool:
        if not isinstance(node, Node):
            if isinstance(node, (tuple, list)):
                return any(self._primed_node(a, scope) for a in node)
            return False
        if node.kind == "op" and node.args[0] in ("'", "UNCHANGED", "ENABLED"):
            return True
        if node.kind in ("name", "apply"):
            d = scope.lookup(node.args[0])
            if type(d) is OpBinding and self.reads_next_state(d):
                return True
            return node.kind == "apply" and any(self._primed_node(a, scope) for a in node.args[1])
        if node.kind == "let":
            return any(self._primed_node(o.body, scope) for o in node.args[0]) or self._primed_node(node.args[1], scope)
        return any(self._primed_node(a, scope) for a in node.args[1:] if node.kind == "op") if node.kind == "op" \
            else any(self._primed_node(a, scope) for a in node.args)

    def cached_state_level(self, d: OpBinding, ctx: LCtx):
        """A definition without arguments that reads the current state only:
        lowered once (the current state is the same symbolic state everywhere);
        the failures it may raise are raised again wherever it is used."""
        key = id(d)
        hit = self._state_cache.get(key)
        if hit is None:
            saved_path, saved_failures = self.path, self.failures
            self.path, self.failures = [], []
            try:
                value = self.eval(d.opdef.body, LCtx(d.scope, {}, None, False))
            finally:
                local = self.failures
                self.path, self.failures = saved_path, saved_failures
            hit = self._state_cache[key] = (value, local)
        value, local = hit
        for c, message in local:
            self.fail(c, message)
        return value

    # --- operators ---------------------------------------------------------------------------
    def op_value(self, d: OpBinding, ctx: LCtx) -> OpValue:
        opdef = d.opdef
        names = [p for p, _ in opdef.params]
        return OpValue(opdef.name, len(names),
                       lambda args: self.eval(opdef.body, ctx.at(d.scope, dict(zip(names, args)))), opdef=opdef)

    def builtin_op(self, d: Builtin) -> OpValue:
        return OpValue(d.name, d.arity, lambda args, d=d: self.call_builtin(d, args, None))

    def operator_arg(self, node: Node, ctx: LCtx, arity: int) -> OpValue:
        kind = node.kind
        if kind == "lambda":
            names = node.args[0]
            return OpValue("LAMBDA", len(names), lambda args: self.eval(node.args[1], ctx.bind(dict(zip(names, args)))))
        if kind == "opref":
            return self.symbol_op(node.args[0], node)
        if kind == "name":
            name = node.args[0]
            if name in ctx.env:
                v = ctx.env[name]
                if type(v) is LThunk:
                    v = self.force(v)
                if isinstance(v, OpValue):
                    return v
            d = ctx.scope.lookup(name)
            if isinstance(d, OpBinding) and d.opdef.params:
                return self.op_value(d, ctx)
            if isinstance(d, Builtin):
                return self.builtin_op(d)
            if isinstance(d, Constant) and d.arity:
                return self.ev.constants_op(name, d)
        raise TlaError(f"expected an operator of {arity} argument(s) here", node.loc)

    def symbol_op(self, symbol: str, node: Node) -> OpValue:
        if symbol not in _INFIX_VALUES:
            raise Unsupported(f"the operator {symbol} as an argument", node.loc)
        return OpValue(symbol, 2, lambda args: self.infix(symbol, args[0], args[1], node))

    def bind_params(self, opdef, args, ctx: LCtx) -> dict:
        env = {}
        for (p, arity), a in zip(opdef.params, args):
            env[p] = self.operator_arg(a, ctx, arity) if arity else LThunk(a, ctx)
        return env

    def e_apply(self, node, ctx):
        name, args = node.args
        if name in ctx.env:
            v = ctx.env[name]
            if type(v) is LThunk:
                v = self.force(v)
            if not isinstance(v, OpValue):
                raise TlaError(f"{name} is not an operator", node.loc)
            return v.call([self.eval(a, ctx) for a in args])
        d = ctx.scope.lookup(name)
        if d is None:
            raise TlaError(f"unknown operator {name}", node.loc)
        return self.call(d, name, args, node, ctx)

    def call(self, d, name: str, args: tuple, node: Node, ctx: LCtx):
        t = type(d)
        if t is OpBinding:
            opdef = d.opdef
            if len(opdef.params) != len(args):
                raise TlaError(f"{name} takes {len(opdef.params)} argument(s), given {len(args)}", node.loc)
            return self.eval(opdef.body, ctx.at(d.scope, self.bind_params(opdef, args, ctx)))
        if t is Builtin:
            vals = []
            for a in args:
                if a.kind in ("lambda", "opref") or (a.kind == "name" and self._names_operator(a, ctx)):
                    vals.append(self.operator_arg(a, ctx, 1))
                else:
                    vals.append(self.eval(a, ctx))
            return self.call_builtin(d, vals, node)
        if t is OpValue:
            return d.call([self.eval(a, ctx) for a in args])
        if t is Constant and d.arity:
            return self.ev.constants_op(name, d).call([self.eval(a, ctx) for a in args])
        raise TlaError(f"{name} is not an operator that takes arguments", node.loc)

    def _names_operator(self, a: Node, ctx: LCtx) -> bool:
        name = a.args[0]
        if name in ctx.env:
            v = ctx.env[name]
            return isinstance(v, OpValue)
        d = ctx.scope.lookup(name)
        return (isinstance(d, OpBinding) and bool(d.opdef.params)) or (isinstance(d, Builtin) and d.arity > 0) \
            or (isinstance(d, Constant) and d.arity > 0)

    def call_builtin(self, d: Builtin, vals: list, node: Node | None):
        if not any(is_sym(v) for v in vals):
            return d.fn(self.ev, *vals)
        from modelcheck.tlaplus.lower_builtins import SYMBOLIC
        fn = SYMBOLIC.get(d.name)
        if fn is None:
            raise Unsupported(f"{d.name} over values the state decides", node.loc if node is not None else None)
        return fn(self, *vals)

    def e_opref(self, node, ctx):
        return self.symbol_op(node.args[0], node)

    def e_lambda(self, node, ctx):
        return self.operator_arg(node, ctx, len(node.args[0]))

    def e_inst(self, node, ctx):
        prefix, name, args = node.args
        scope = ctx.scope
        for comp, comp_args in prefix:
            d = scope.lookup(comp)
            if not isinstance(d, NamedInstance):
                raise TlaError(f"{comp} is not an instance (in {comp}!{name})", node.loc)
            vals = tuple(self.eval(a, ctx) for a in comp_args)
            if any(is_sym(v) for v in vals):
                raise Unsupported(f"an instance {comp}(...) with arguments the state decides", node.loc)
            scope = self.program.named_instance_scope(d, vals, {})
        d = scope.lookup(name)
        if d is None:
            raise TlaError(f"the instance has no definition {name}", node.loc)
        if not args:
            return self.definition_value(d, name, node, ctx.at(scope, {}))
        if type(d) is OpBinding:
            return self.eval(d.opdef.body, ctx.at(d.scope, self.bind_params(d.opdef, args, ctx)))
        return self.call(d, name, args, node, ctx)

    def e_subexpr(self, node, ctx):
        from modelcheck.tlaplus.modules import subexpression
        part, scope = subexpression(ctx.scope, node.args[0], node.args[1], node.loc)
        return self.eval(part, ctx.at(scope, {}))

    # --- built-in operators by symbol ------------------------------------------------------------
    def e_op(self, node, ctx):
        sym = node.args[0]
        args = node.args[1:]
        if sym == "'":
            return self.eval(args[0], LCtx(ctx.scope, ctx.env, ctx.nxt, True))
        if sym == "UNCHANGED":
            a = args[0]
            return boolean(value_eq(self.eval(a, ctx), self.eval(a, LCtx(ctx.scope, ctx.env, ctx.nxt, True)),
                                    self.order))
        if sym == "=>":
            a = cond(self.eval(args[0], ctx), " (=>)")
            if a is FALSE:
                return True
            with self.under(a):
                b = cond(self.eval(args[1], ctx), " (=>)")
            return boolean(or_(not_(a), b))
        if sym == "<=>":
            a, b = cond(self.eval(args[0], ctx)), cond(self.eval(args[1], ctx))
            return boolean(or_(and_(a, b), and_(not_(a), not_(b))))
        if sym in ("ENABLED", "[]", "<>", "~>"):
            raise Unsupported(f"{sym} inside an expression", node.loc)
        d = ctx.scope.lookup(sym)
        if isinstance(d, OpBinding):
            return self.call(d, sym, args, node, ctx)
        vals = [self.eval(a, ctx) for a in args]
        if len(vals) == 1:
            return self.prefix(sym, vals[0], node)
        if len(vals) == 2:
            return self.infix(sym, vals[0], vals[1], node)
        raise Unsupported(f"the operator {sym}", node.loc)

    def prefix(self, sym: str, a, node: Node):
        if not is_sym(a):
            fn = _PREFIX_OPS.get(sym)
            if fn is None:
                raise Unsupported(f"the operator {sym}", node.loc)
            return fn(self.ev, a)
        if sym in ("~", "\\lnot", "\\neg"):
            return boolean(not_(cond(a, " (~)")))
        if sym in ("-.", "-"):
            e, lo, hi = as_int(a, self, "-")
            return make_int(sub(0, e), -hi, -lo)
        if sym == "DOMAIN":
            if isinstance(a, SFun):
                return frozenset(a.domain)
            if isinstance(a, SPFun):
                return SMask(a.mask, a.universe)
            s = seq_of(a)
            if s is not None:
                return self.interval(1, make_int(s[0], 0, len(s[1])))
            if isinstance(a, SRec):
                return frozenset(a.fields)
            raise Unsupported(f"DOMAIN of {describe(a)} ({type(a).__name__})", node.loc)
        if sym == "SUBSET":
            return SPowerset(a)
        raise Unsupported(f"{sym} over values the state decides", node.loc)

    def interval(self, lo, hi):
        if not is_sym(lo) and not is_sym(hi):
            return Interval(lo, hi)
        return SInterval(lo, hi)

    def infix(self, sym: str, a, b, node: Node):
        if not is_sym(a) and not is_sym(b):
            fn = _STRICT_OPS.get(sym)
            if fn is None:
                raise Unsupported(f"the operator {sym}", node.loc)
            return fn(self.ev, a, b)
        order = self.order
        if sym in ("=",):
            return boolean(value_eq(a, b, order))
        if sym in ("#", "/="):
            return boolean(not_(value_eq(a, b, order)))
        if sym in ("\\in",):
            return boolean(member(a, b, order, self))
        if sym in ("\\notin",):
            return boolean(not_(member(a, b, order, self)))
        if sym in ("+", "-"):
            x, xl, xh = as_int(a, self, sym)
            y, yl, yh = as_int(b, self, sym)
            if sym == "+":
                return make_int(add(x, y), xl + yl, xh + yh)
            return make_int(sub(x, y), xl - yh, xh - yl)
        if sym in ("<", "<=", "=<", "\\leq", ">", ">=", "\\geq"):
            x, _, _ = as_int(a, self, sym)
            y, _, _ = as_int(b, self, sym)
            if sym == "<":
                return boolean(lt(x, y))
            if sym in ("<=", "=<", "\\leq"):
                return boolean(le(x, y))
            if sym == ">":
                return boolean(lt(y, x))
            return boolean(le(y, x))
        if sym in ("*", "\\div", "%", "^"):
            return self.by_cases(sym, a, b, node)
        if sym == "..":
            return self.interval(a, b)
        if sym in ("\\cup", "\\union"):
            return set_union(a, b, order)
        if sym in ("\\cap", "\\intersect"):
            return set_cap(a, b, order)
        if sym == "\\":
            return set_minus(a, b, order)
        if sym == "\\subseteq":
            return boolean(subseteq(a, b, order))
        if sym == "\\o":
            from modelcheck.tlaplus.lower_builtins import concat
            return concat(self, a, b)
        if sym in (":>",):
            if is_sym(a):
                raise Unsupported(":> with an argument the state decides", node.loc)
            return SFun((a,), [b])
        raise Unsupported(f"the operator {sym} over values the state decides", node.loc)

    def by_cases(self, sym: str, a, b, node: Node):
        """x * y, \\div, %, ^ over small ranges: one case per value of the symbolic side."""
        x, xl, xh = as_int(a, self, sym)
        y, yl, yh = as_int(b, self, sym)
        if (xh - xl + 1) * (yh - yl + 1) > 4096:
            raise Unsupported(f"{sym} over integer ranges this wide ({xl}..{xh}, {yl}..{yh})", node.loc)
        fn = _STRICT_OPS[sym]
        out: Expr | None = None
        lo, hi = None, None
        for i in range(xl, xh + 1):
            for j in range(yl, yh + 1):
                try:
                    r = fn(self.ev, i, j)
                except EvalError:
                    self.fail(and_(eq(x, i), eq(y, j)), f"{i} {sym} {j} cannot be evaluated")
                    continue
                lo = r if lo is None else min(lo, r)
                hi = r if hi is None else max(hi, r)
                here = and_(eq(x, i), eq(y, j))
                out = const(r) if out is None else ite(here, r, out)
        if out is None:
            raise EvalError(f"{sym} cannot be evaluated on any value here", node.loc)
        return make_int(out, lo, hi)

    # --- boolean connectives -------------------------------------------------------------------------
    def reached(self, node: Node, ctx: LCtx, what: str) -> Expr:
        """A condition, where TLC may fail to evaluate it: the failure is kept
        for wherever it is reached, and the condition is then FALSE."""
        try:
            return cond(self.eval(node, ctx), what)
        except EvalError as e:
            self.fail(TRUE, e.message)
            return FALSE


    def e_and(self, node, ctx):
        parts = []
        pushed = 0
        try:
            for item in node.args:
                c = self.reached(item, ctx, " (/\\)")
                if c is FALSE:
                    return False
                parts.append(c)
                if c is not TRUE:
                    self.path.append(c)
                    pushed += 1
        finally:
            if pushed:
                del self.path[-pushed:]
        return boolean(and_(*parts))

    def e_or(self, node, ctx):
        parts = []
        pushed = 0
        try:
            for item in node.args:
                c = self.reached(item, ctx, " (\\/)")
                if c is TRUE:
                    return True
                parts.append(c)
                if c is not FALSE:
                    self.path.append(not_(c))
                    pushed += 1
        finally:
            if pushed:
                del self.path[-pushed:]
        return boolean(or_(*parts))

    def e_if(self, node, ctx):
        c_node, t_node, e_node = node.args
        c = cond(self.eval(c_node, ctx), " (IF)")
        if c is TRUE:
            return self.eval(t_node, ctx)
        if c is FALSE:
            return self.eval(e_node, ctx)
        with self.under(c):
            t = self.branch(t_node, ctx)
        with self.under(not_(c)):
            e = self.branch(e_node, ctx)
        if t is _FAILS and e is _FAILS:
            raise EvalError("neither branch of this IF can be evaluated", node.loc)
        if t is _FAILS:
            return e
        if e is _FAILS:
            return t
        return ite_value(c, t, e, self.order, self.store)

    def branch(self, node: Node, ctx: LCtx):
        """A branch TLC evaluates only where its condition holds: if it
        cannot be evaluated at all, that is TLC's error there (``_FAILS``)."""
        try:
            return self.eval(node, ctx)
        except EvalError as e:
            self.fail(TRUE, e.message)
            return _FAILS

    def e_case(self, node, ctx):
        arms, other = node.args
        conds, values = [], []
        earlier: list[Expr] = []
        for c_node, v_node in arms:
            with self.under(and_(*(not_(e) for e in earlier))):
                c = cond(self.eval(c_node, ctx), " (CASE)")
            here = and_(c, *(not_(e) for e in earlier))
            if here is not FALSE:
                with self.under(here):
                    values.append((here, self.eval(v_node, ctx)))
            earlier.append(c)
            if c is TRUE:
                break
        rest = and_(*(not_(e) for e in earlier))
        if rest is not FALSE:
            if other is None:
                self.fail(rest, "no arm of this CASE applies, and it has no OTHER")
            else:
                with self.under(rest):
                    values.append((rest, self.eval(other, ctx)))
        if not values:
            raise EvalError("no arm of this CASE applies", node.loc)
        result = values[-1][1]
        for here, v in reversed(values[:-1]):
            result = ite_value(here, v, result, self.order, self.store)
        return result

    def let_ctx(self, defs, ctx: LCtx) -> LCtx:
        env = dict(ctx.env)
        inner = LCtx(ctx.scope, env, ctx.nxt, ctx.primed)
        for opdef in defs:
            if opdef.fun_bounds is not None:
                env[opdef.name] = LThunk(Node("fundef", (opdef.fun_bounds, opdef.body), opdef.loc), inner)
            elif not opdef.params:
                env[opdef.name] = LThunk(opdef.body, inner)
            else:
                names = [p for p, _ in opdef.params]
                env[opdef.name] = OpValue(opdef.name, len(names),
                                          lambda args, o=opdef, n=names: self.eval(o.body,
                                                                                    inner.bind(dict(zip(n, args)))),
                                          node=opdef.body, ctx=inner, opdef=opdef)
        return inner

    def e_let(self, node, ctx):
        defs, body = node.args
        return self.eval(body, self.let_ctx(defs, ctx))

    # --- bound names ---------------------------------------------------------------------------------
    def bindings(self, bounds, ctx: LCtx):
        """Every binding of the bounds' names with the condition it is present
        under, in TLC's order where the sets are concrete or stored."""
        if not bounds:
            yield {}, TRUE
            return
        (pattern, set_node), rest = bounds[0], bounds[1:]
        s = self.eval(set_node, ctx)
        for p, x in set_items(s, self.order) if (is_sym(s) or is_set(s)) else self._not_a_set(s, set_node):
            if p is FALSE:
                continue
            names = self.bind(pattern, x, set_node)
            inner = ctx.bind(names)
            with self.under(p):
                for more, q in self.bindings(rest, inner):
                    out = dict(names)
                    out.update(more)
                    yield out, and_(p, q)

    def _not_a_set(self, s, node):
        raise EvalError(f"expected a set, got {describe(s)}", node.loc)

    def bind(self, pattern, x, node: Node) -> dict:
        if isinstance(pattern, tuple):
            if isinstance(x, STup) and len(x.items) == len(pattern):
                return dict(zip(pattern, x.items))
            return bind_pattern(pattern, x, node)
        return {pattern: x}

    def e_quant(self, node, ctx):
        kind, bounds, body = node.args
        if kind == "E":
            pinned = self.pinned_bound(bounds, body, ctx)
            if pinned is not None:
                return pinned
        parts = []
        earlier: list[Expr] = []
        for names, p in self.bindings(bounds, ctx):
            stop = [not_(e) for e in earlier] if kind == "E" else list(earlier)
            with self.under(and_(*stop)):
                c = self.reached(body, ctx.bind(names), " (a quantifier's body)")
            if kind == "E":
                here = and_(p, c)
                if here is TRUE:
                    return True
                parts.append(here)
                earlier.append(here)
            else:
                here = or_(not_(p), c)
                if here is FALSE:
                    return False
                parts.append(here)
                earlier.append(here)
        return boolean(or_(*parts) if kind == "E" else and_(*parts))

    def pinned_bound(self, bounds, body: Node, ctx: LCtx):
        """\\E x \\in S : ... x = e ... as e \\in S /\\ body(x <- e), when the
        first bound is fixed by such a conjunct and its set is not constant
        of one element (then nothing is gained)."""
        (pattern, set_node), rest = bounds[0], bounds[1:]
        if isinstance(pattern, tuple):
            return None
        others = tuple(p for p, _ in rest if not isinstance(p, tuple))
        found = find_pin(self, body if not rest else Node("quant", ("E", rest, body), body.loc), ctx, pattern,
                         others)
        if found is None:
            return None
        e_node, e_ctx = found
        try:
            value = self.eval(e_node, e_ctx)
        except Unsupported:
            return None
        s = self.eval(set_node, ctx)
        inside = member(value, s, self.order, self)
        if inside is FALSE:
            return False
        with self.under(inside):
            inner = Node("quant", ("E", rest, body), body.loc) if rest else body
            c = cond(self.eval(inner, ctx.bind({pattern: value})), " (a quantifier's body)")
        return boolean(and_(inside, c))

    def e_choose(self, node, ctx):
        pattern, set_node, body = node.args
        if set_node is None:
            raise Unsupported("CHOOSE without a set (CHOOSE x : P)", node.loc)
        s = self.eval(set_node, ctx)
        if not is_sym(s):
            elements = set_elements(s, self.order)
            options = []
            for x in elements:
                c = cond(self.eval(body, ctx.bind(self.bind(pattern, x, node))), " (CHOOSE)")
                if c is TRUE and not options:
                    return x
                if c is not FALSE:
                    options.append((c, x))
                    if c is TRUE:
                        break
            return self._first(options, node)
        extreme = _extreme_idiom(pattern, set_node, body)
        if extreme is not None:
            from modelcheck.tlaplus.lower_builtins import Max, Min
            return (Max if extreme == "max" else Min)(self, s)
        items = set_items(s, self.order)
        ordered = isinstance(s, (SMask, SInterval)) or (isinstance(s, SSet) and s.sorted_prefix == len(items))
        options = []
        for p, x in items:
            if p is FALSE:
                continue
            with self.under(p):
                c = cond(self.eval(body, ctx.bind(self.bind(pattern, x, node))), " (CHOOSE)")
            options.append((and_(p, c), x))
        if ordered or len(options) <= 1:
            return self._first(options, node)
        return self._least(options, node)

    def _first(self, options: list, node: Node):
        """The first option whose condition holds (TLC's order is the list's)."""
        self.fail(and_(*(not_(c) for c, _ in options)), "CHOOSE has nothing to choose from")
        if not options:
            raise EvalError("CHOOSE has nothing to choose from", node.loc)
        result = options[-1][1]
        for c, x in reversed(options[:-1]):
            result = ite_value(c, x, result, self.order, self.store)
        return result

    def _least(self, options: list, node: Node):
        """The least option (in TLC's order of the values) whose condition holds."""
        from modelcheck.language.expr import lex_less
        from modelcheck.tlaplus.shapes import finalize, join, BOTTOM
        shape = BOTTOM
        for _, x in options:
            shape = join(shape, shape_of(x, self.order), self.order)
        shape = finalize(shape, self.order)
        keys = [shape.key(to_leaves(x, shape, self.store, "CHOOSE")) for _, x in options]
        chosen = []
        for i, (c, _) in enumerate(options):
            beaten = [and_(options[j][0], lex_less(keys[j], keys[i]) if j > i else
                           not_(lex_less(keys[i], keys[j]))) for j in range(len(options)) if j != i]
            chosen.append((and_(c, *(not_(b) for b in beaten)), options[i][1]))
        return self._first(chosen, node)

    # --- sets -------------------------------------------------------------------------------------------
    def e_setenum(self, node, ctx):
        vals = [self.eval(a, ctx) for a in node.args]
        if not any(is_sym(v) for v in vals):
            from modelcheck.tlaplus.values import normal
            return frozenset(normal(v) for v in vals)
        return make_set([(TRUE, v) for v in vals], self.order)

    def e_setfilter(self, node, ctx):
        pattern, set_node, pred = node.args
        s = self.eval(set_node, ctx)
        items = set_items(s, self.order)
        out = []
        for p, x in items:
            if p is FALSE:
                continue
            with self.under(p):
                c = cond(self.eval(pred, ctx.bind(self.bind(pattern, x, node))), " (a set filter)")
            out.append((and_(p, c), x))
        prefix = len(out) if isinstance(s, (SMask, SInterval)) or not is_sym(s) else \
            (s.sorted_prefix if isinstance(s, SSet) and len(out) == len(items) else 0)
        return make_set(out, self.order, prefix)

    def e_setmap(self, node, ctx):
        expr, bounds = node.args
        out = []
        for names, p in self.bindings(bounds, ctx):
            with self.under(p):
                out.append((p, self.eval(expr, ctx.bind(names))))
        return make_set(out, self.order)

    def e_fundef(self, node, ctx):
        bounds, body = node.args
        if len(bounds) != 1:
            pairs = []
            for names, p in self.bindings(bounds, ctx):
                if p is not TRUE:
                    raise Unsupported("a function over a domain the state decides", node.loc)
                arg = tuple(names[q] if not isinstance(q, tuple) else tuple(names[r] for r in q) for q, _ in bounds)
                pairs.append((arg, self.eval(body, ctx.bind(names))))
            return self.make_fun(pairs)
        (pattern, set_node), = bounds
        s = self.eval(set_node, ctx)
        if not is_sym(s):
            return self.make_fun([(x, self.eval(body, ctx.bind(self.bind(pattern, x, node))))
                                  for x in set_elements(s, self.order)])
        if isinstance(s, SMask):
            values = []
            for i, u in enumerate(s.universe):
                with self.under(ne(bit_and(s.mask, 1 << i), 0)):
                    values.append(self.eval(body, ctx.bind(self.bind(pattern, u, node))))
            return SPFun(s.universe, s.mask, values)
        if isinstance(s, SInterval) and s.lo == 1:
            hi, _, hmax = as_int(s.hi, self, "..")
            items = []
            for k in range(1, hmax + 1):
                with self.under(le(k, hi)):
                    items.append(self.eval(body, ctx.bind(self.bind(pattern, k, node))))
            return make_seq(hi, items)
        raise Unsupported("a function over a domain the state decides", node.loc)

    def make_fun(self, pairs: list):
        if not any(is_sym(v) for _, v in pairs):
            from modelcheck.tlaplus.values import normal
            return fcn((k, normal(v)) for k, v in pairs)
        keys = [k for k, _ in pairs]
        if keys and all(type(k) is int for k in keys) and sorted(keys) == list(range(1, len(keys) + 1)):
            by = dict(pairs)
            return STup([by[i] for i in range(1, len(keys) + 1)])
        if keys and all(type(k) is str for k in keys):
            return SRec(dict(pairs))
        from modelcheck.tlaplus.values import sort_values
        ordered = sort_values(keys, self.order)
        by = dict(pairs)
        return SFun(tuple(ordered), [by[k] for k in ordered])

    def e_funapp(self, node, ctx):
        f = self.eval(node.args[0], ctx)
        args = [self.eval(a, ctx) for a in node.args[1]]
        arg = args[0] if len(args) == 1 else (tuple(args) if not any(is_sym(a) for a in args) else STup(args))
        return self.apply(f, arg, node)

    def apply(self, f, arg, node: Node):
        """f[arg]."""
        if not is_sym(f) and not is_sym(arg):
            return self.ev.apply_fcn(f, arg, node)
        if isinstance(f, OpValue):
            return f.call([arg])
        order = self.order
        seq = seq_of(f)
        if seq is not None and not isinstance(f, SFun):
            length, items = seq
            if not is_sym(arg):
                if type(arg) is not int or not 1 <= arg <= len(items):
                    self.fail(TRUE, f"{show(arg)} is not in the domain of the sequence")
                    if not items:
                        raise EvalError(f"{show(arg)} applied to an empty sequence", node.loc)
                    return items[-1]
                self.fail(lt(length, arg), f"position {arg} is past the end of the sequence")
                return items[arg - 1]
            e, lo, hi = as_int(arg, self, "indexing a sequence")
            self.fail(or_(lt(e, 1), lt(length, e)), "a position outside the sequence")
            candidates = [(k, items[k - 1]) for k in range(max(1, lo), min(hi, len(items)) + 1)]
            if not candidates:
                raise EvalError("a position outside every sequence this can be", node.loc)
            result = candidates[-1][1]
            for k, x in reversed(candidates[:-1]):
                result = ite_value(eq(e, k), x, result, order, self.store)
            return result
        if isinstance(f, SRec) or isinstance(f, Record):
            fields = f.fields if isinstance(f, SRec) else dict(f.items())
            if not is_sym(arg):
                if arg not in fields:
                    raise EvalError(f"the record has no field {show(arg)}", node.loc)
                return fields[arg]
            raise Unsupported("a record indexed by a field name the state decides", node.loc)
        if isinstance(f, SVariant):
            if not is_sym(arg) and type(arg) is str:
                return self.field(f, arg, node)
        if isinstance(f, SPFun):
            hits = []
            for i, (u, v) in enumerate(zip(f.universe, f.values)):
                c = value_eq(arg, u, order) if is_sym(arg) else (TRUE if _same_key(u, arg) else FALSE)
                if c is not FALSE:
                    hits.append((and_(c, f.present(i)), v))
            self.fail(and_(*(not_(c) for c, _ in hits)), "a function applied outside its domain")
            if not hits:
                raise EvalError("a function applied outside its domain", node.loc)
            result = hits[-1][1]
            for c, v in reversed(hits[:-1]):
                result = ite_value(c, v, result, order, self.store)
            return result
        items = None
        if isinstance(f, SFun):
            items = list(zip(f.domain, f.values))
        elif isinstance(f, Function):
            items = list(f.items())
        if items is None:
            raise EvalError(f"{describe(f)} is applied as a function, but it is not one", node.loc)
        if not is_sym(arg):
            for k, v in items:
                if type(k) is type(arg) and k == arg:
                    return v
            self.fail(TRUE, f"{show(arg)} is not in the domain of the function")
            return items[-1][1]
        hits = [(value_eq(arg, k, order), v) for k, v in items]
        hits = [(c, v) for c, v in hits if c is not FALSE]
        self.fail(and_(*(not_(c) for c, _ in hits)), "a function applied outside its domain")
        if not hits:
            raise EvalError("a function applied outside its domain", node.loc)
        result = hits[-1][1]
        for c, v in reversed(hits[:-1]):
            result = ite_value(c, v, result, order, self.store)
        return result

    def e_funset(self, node, ctx):
        a, b = self.eval(node.args[0], ctx), self.eval(node.args[1], ctx)
        if is_sym(a) or is_sym(b):
            raise Unsupported("[S -> T] over sets the state decides", node.loc)
        return FunctionSet(a, b)

    def e_recset(self, node, ctx):
        fields = tuple((f, self.eval(e, ctx)) for f, e in node.args)
        if any(is_sym(v) for _, v in fields):
            raise Unsupported("[f : S] over sets the state decides", node.loc)
        return RecordSet(fields)

    def e_times(self, node, ctx):
        sets = tuple(self.eval(a, ctx) for a in node.args)
        if any(is_sym(v) for v in sets):
            raise Unsupported("S \\X T over sets the state decides", node.loc)
        return ProductSet(sets)

    def e_record(self, node, ctx):
        fields = {f: self.eval(e, ctx) for f, e in node.args}
        if not any(is_sym(v) for v in fields.values()):
            from modelcheck.tlaplus.values import normal
            return Record((f, normal(v)) for f, v in fields.items())
        return SRec(fields)

    def e_dot(self, node, ctx):
        return self.field(self.eval(node.args[0], ctx), node.args[1], node)

    def field(self, r, name: str, node: Node):
        if isinstance(r, SRec):
            if name not in r.fields:
                raise EvalError(f"the record has no field {name}", node.loc)
            return r.fields[name]
        if isinstance(r, SVariant):
            having = [(i, a) for i, a in enumerate(r.shape.alts) if isinstance(a, RecS) and name in a.names()]
            if not having:
                raise EvalError(f"no record here has a field {name}", node.loc)
            self.fail(and_(*(ne(r.tag, i) for i, _ in having)), f"the record has no field {name}")
            result = self.field(r.alts[having[-1][0]], name, node)
            for i, _ in reversed(having[:-1]):
                result = ite_value(eq(r.tag, i), self.field(r.alts[i], name, node), result, self.order, self.store)
            return result
        if isinstance(r, Record):
            if name not in r:
                raise EvalError(f"the record {show(r)} has no field {name}", node.loc)
            return r[name]
        if isinstance(r, SFun) and name in r.domain:
            return r.values[r.domain.index(name)]
        raise EvalError(f"{describe(r)}.{name}: not a record", node.loc)

    def e_tuple(self, node, ctx):
        vals = [self.eval(a, ctx) for a in node.args]
        if not any(is_sym(v) for v in vals):
            from modelcheck.tlaplus.values import normal
            return tuple(normal(v) for v in vals)
        return STup(vals)

    def e_at(self, node, ctx):
        if _AT not in ctx.env:
            raise TlaError("@ is used outside an EXCEPT", node.loc)
        return ctx.env[_AT]

    def e_except(self, node, ctx):
        base, updates = node.args
        value = self.eval(base, ctx)
        for path, new in updates:
            keys = []
            for step in path:
                if step[0] == ".":
                    keys.append((".", step[1]))
                else:
                    vals = [self.eval(a, ctx) for a in step[1]]
                    keys.append(("[]", vals[0] if len(vals) == 1 else
                                 (tuple(vals) if not any(is_sym(v) for v in vals) else STup(vals))))
            value = self.except_(value, keys, new, ctx, node)
        return value

    def except_(self, value, keys, new: Node, ctx: LCtx, node: Node):
        (kind, key), rest = keys[0], keys[1:]

        def updated(old):
            if rest:
                return self.except_(old, rest, new, ctx, node)
            return self.eval(new, ctx.bind({_AT: old}))

        if not is_sym(value) and not is_sym(key) and not self._mentions_state(new, rest):
            pass
        if kind == ".":
            if isinstance(value, (Record, SRec)):
                fields = dict(value.items()) if isinstance(value, Record) else dict(value.fields)
                if key not in fields:
                    return value
                fields[key] = updated(fields[key])
                if not any(is_sym(v) for v in fields.values()):
                    return Record(fields.items())
                return SRec(fields)
            if isinstance(value, SVariant):
                alts = list(value.alts)
                for i, a in enumerate(value.shape.alts):
                    if isinstance(a, RecS) and key in a.names():
                        with self.under(eq(value.tag, i)):
                            alts[i] = self.except_(alts[i], keys, new, ctx, node)
                return SVariant(value.tag, value.shape, alts)
            raise EvalError(f"EXCEPT !.{key} on {describe(value)}, which is not a record", node.loc)
        seq = seq_of(value)
        if seq is not None and not isinstance(value, (SFun, Function, Record)):
            length, items = seq
            out = []
            for k, old in enumerate(items, 1):
                hit = value_eq(key, k, self.order)
                if hit is FALSE:
                    out.append(old)
                    continue
                with self.under(and_(hit, le(k, length))):
                    nv = updated(old)
                out.append(ite_value(hit, nv, old, self.order, self.store) if hit is not TRUE else nv)
            if isinstance(value, tuple) and not any(is_sym(x) for x in out):
                return tuple(out)
            return make_seq(length, out) if isinstance(value, SSeq) else STup(out)
        if isinstance(value, SPFun):
            values = []
            for i, (u, old) in enumerate(zip(value.universe, value.values)):
                hit = and_(value_eq(key, u, self.order), value.present(i))
                if hit is FALSE:
                    values.append(old)
                    continue
                with self.under(hit):
                    nv = updated(old)
                values.append(ite_value(hit, nv, old, self.order, self.store) if hit is not TRUE else nv)
            return SPFun(value.universe, value.mask, values)
        if isinstance(value, (SFun, Function)) or (isinstance(value, Record) and is_sym(key)):
            items = list(zip(value.domain, value.values)) if isinstance(value, SFun) else list(value.items())
            out = []
            for k, old in items:
                hit = value_eq(key, k, self.order)
                if hit is FALSE:
                    out.append((k, old))
                    continue
                with self.under(hit):
                    nv = updated(old)
                out.append((k, ite_value(hit, nv, old, self.order, self.store) if hit is not TRUE else nv))
            return self.make_fun(out)
        if isinstance(value, (Record, SRec)):
            return self.except_(value, [(".", key)] + list(rest), new, ctx, node)
        raise EvalError(f"EXCEPT on {describe(value)}, which is not a function", node.loc)

    def _mentions_state(self, new, rest) -> bool:
        return True

    def e_fair(self, node, ctx):
        raise Unsupported("a fairness condition inside an expression", node.loc)

    def e_boxact(self, node, ctx):
        raise Unsupported("[A]_v inside an expression", node.loc)

    def e_diaact(self, node, ctx):
        raise Unsupported("<<A>>_v inside an expression", node.loc)


class _Under:
    """Evaluating under a further condition (for the failures found there)."""

    def __init__(self, lowerer: Lowerer, c: Expr):
        self.lowerer, self.c = lowerer, c

    def __enter__(self):
        if self.c is not TRUE:
            self.lowerer.path.append(self.c)

    def __exit__(self, *exc):
        if self.c is not TRUE:
            self.lowerer.path.pop()
        return False


# --- bound variables an equation determines ---------------------------------------------------------

class _Unbound:
    """Stands for a bound variable while its body is searched for an equation fixing it."""

    __slots__ = ("name",)

    def __init__(self, name: str):
        self.name = name


def find_pin(L: Lowerer, body: Node, ctx: LCtx, name: str, others: tuple = ()):
    """The expression (with the context to read it in) that a top-level
    conjunct ``name = e`` of ``body`` fixes the bound variable to, looking
    through operator applications and LET; None if there is none.

    ``\\E x \\in S : x = e /\\ P(x)`` is then ``e \\in S /\\ P(e)``: exactly the
    value TLC's enumeration of S would find, without trying the others."""
    marker = _Unbound(name)
    env = dict(ctx.env)
    env[name] = marker
    for o in others:
        env[o] = _Unbound(o)
    start = LCtx(ctx.scope, env, ctx.nxt, ctx.primed)
    stack = [(body, start, 0)]
    while stack:
        node, c, depth = stack.pop()
        if depth > 40:
            continue
        kind = node.kind
        if kind == "and":
            for a in reversed(node.args):
                stack.append((a, c, depth))
            continue
        if kind == "let":
            defs, inner = node.args
            stack.append((inner, L.let_ctx(defs, c), depth + 1))
            continue
        if kind == "op" and node.args[0] == "=":
            lhs, rhs = node.args[1], node.args[2]
            if _is_marker(lhs, c, marker) and not _mentions(rhs, c, env):
                return rhs, c
            if _is_marker(rhs, c, marker) and not _mentions(lhs, c, env):
                return lhs, c
            continue
        expanded = _expand_definition(L, node, c)
        if expanded is not None:
            inner, inner_ctx = expanded
            stack.append((inner, inner_ctx, depth + 1))
    return None


def _resolve_name(node: Node, ctx: LCtx):
    """What a name node is bound to, following arguments passed unevaluated."""
    seen = 0
    while node.kind == "name" and seen < 50:
        seen += 1
        v = ctx.env.get(node.args[0], None) if node.args[0] in ctx.env else None
        if v is None:
            return None
        if type(v) is LThunk and not v.done:
            node, ctx = v.node, v.ctx
            continue
        return v
    return None


def _is_marker(node: Node, ctx: LCtx, marker: _Unbound) -> bool:
    return node.kind == "name" and _resolve_name(node, ctx) is marker


def _mentions(node: Node, ctx: LCtx, env: dict) -> bool:
    """Whether ``node`` may read one of the bound variables being searched (or a primed variable)."""
    from modelcheck.tlaplus.evaluate import _children
    stack = [node]
    while stack:
        n = stack.pop()
        if n.kind == "name":
            if isinstance(_resolve_name(n, ctx), _Unbound):
                return True
            v = ctx.env.get(n.args[0]) if n.args[0] in ctx.env else None
            if type(v) is LThunk and not v.done and _mentions(v.node, v.ctx, env):
                return True
            continue
        if n.kind == "op" and n.args[0] in ("'", "UNCHANGED"):
            return True
        if n.kind in ("quant", "choose", "setfilter", "setmap", "fundef", "let", "lambda", "except"):
            # bound names inside shadow nothing we search for, unless reused: be safe
            pass
        stack.extend(_children(n))
    return False


def _expand_definition(L: Lowerer, node: Node, ctx: LCtx):
    """An operator application's body with its parameters bound (unevaluated)."""
    kind = node.kind
    if kind == "name":
        name = node.args[0]
        if name in ctx.env:
            v = ctx.env[name]
            if type(v) is LThunk and not v.done:
                return v.node, v.ctx
            return None
        d = ctx.scope.lookup(name)
        if type(d) is OpBinding and not d.opdef.params and d.opdef.fun_bounds is None:
            return d.opdef.body, ctx.at(d.scope, {})
        return None
    if kind == "apply":
        name, args = node.args
        if name in ctx.env:
            return None
        d = ctx.scope.lookup(name)
        if type(d) is OpBinding and d.opdef.params and len(d.opdef.params) == len(args):
            return d.opdef.body, ctx.at(d.scope, L.bind_params(d.opdef, args, ctx))
        return None
    if kind == "inst":
        prefix, name, args = node.args
        scope = ctx.scope
        for comp, comp_args in prefix:
            d = scope.lookup(comp)
            if not isinstance(d, NamedInstance) or comp_args:
                return None
            scope = L.program.named_instance_scope(d, (), {})
        d = scope.lookup(name)
        if type(d) is OpBinding and d.opdef.fun_bounds is None and len(d.opdef.params) == len(args):
            return d.opdef.body, ctx.at(d.scope, L.bind_params(d.opdef, args, ctx))
    return None


def _same_key(u, x) -> bool:
    return type(u) is type(x) and u == x


def same_node(a: Node, b: Node) -> bool:
    """Whether two syntax trees say the same thing (places aside)."""
    if a is b:
        return True
    if not isinstance(a, Node) or not isinstance(b, Node) or a.kind != b.kind or len(a.args) != len(b.args):
        return False
    return all(_same_arg(x, y) for x, y in zip(a.args, b.args))


def _same_arg(x, y) -> bool:
    if isinstance(x, Node):
        return same_node(x, y)
    if isinstance(x, tuple):
        return isinstance(y, tuple) and len(x) == len(y) and all(_same_arg(p, q) for p, q in zip(x, y))
    return type(x) is type(y) and x == y


def _extreme_idiom(pattern, set_node: Node, body: Node) -> str | None:
    """CHOOSE x \\in S : \\A y \\in S : x >= y (Max) or x =< y (Min): the
    greatest or least element, found without comparing every pair."""
    if isinstance(pattern, tuple) or body.kind != "quant" or body.args[0] != "A" or len(body.args[1]) != 1:
        return None
    (v, s2), = body.args[1]
    if isinstance(v, tuple) or not same_node(s2, set_node):
        return None
    b = body.args[2]
    if b.kind != "op" or len(b.args) != 3:
        return None
    sym, lhs, rhs = b.args
    if lhs.kind != "name" or rhs.kind != "name":
        return None
    x, y = lhs.args[0], rhs.args[0]
    if (x, y) == (v, pattern):
        sym = {">=": "<=", "<=": ">=", ">": "<", "<": ">"}.get(sym, sym)
    elif (x, y) != (pattern, v):
        return None
    if sym in (">=", "\\geq"):
        return "max"
    if sym in ("<=", "=<", "\\leq"):
        return "min"
    return None
