"""The reference evaluator: TLA+ expressions over concrete values, as TLC evaluates them.

It evaluates what the compiler needs at build time (the .cfg's constants,
the sets quantifiers range over, CHOOSE over constants, the initial states)
and, over explicit states, whatever a spec says: it is the oracle the
compiled form is tested against (``actions.py`` enumerates successors with
it). It follows TLC's semantics and errors: operator arguments are passed
unevaluated and evaluated once when first used (so an unused argument never
fails), ``/\\``, ``\\/``, ``=>`` and IF short-circuit, CHOOSE picks the first
element in TLC's order, and where TLC stops (a function applied outside its
domain, CHOOSE with nothing to choose, an integer compared with a string)
an ``EvalError`` says why, with the place in the module.
"""

from __future__ import annotations

from typing import Any, Callable

from modelcheck.language.values import Function, Record
from modelcheck.tlaplus.modules import (Builtin, Constant, NamedInstance, OpBinding, Program, Scope, Substituted,
                                        Variable)
from modelcheck.tlaplus.syntax import EvalError, Node, OpDef, TlaError, Unsupported
from modelcheck.tlaplus.values import (FunctionSet, Infinite, Interval, LazySet, ModelValue, PowerSet, ProductSet,
                                       RecordSet, SeqSet, TlcOrder, domain, fcn, fcn_items, is_fcn, is_set, normal,
                                       set_contains, set_elements, set_size, show)


class Lazy:
    """An operator argument or LET definition: evaluated once, when first used."""

    __slots__ = ("node", "ctx", "value", "done")

    def __init__(self, node: Node, ctx: "Ctx"):
        self.node, self.ctx, self.value, self.done = node, ctx, None, False


class OpValue:
    """An operator passed as an argument (a name, a LAMBDA, ``+``): ``call`` takes values."""

    __slots__ = ("name", "arity", "call", "node", "ctx", "opdef")

    def __init__(self, name: str, arity: int, call: Callable[[list], Any], node=None, ctx=None, opdef=None):
        self.name, self.arity, self.call = name, arity, call
        self.node, self.ctx, self.opdef = node, ctx, opdef


class Ctx:
    """Where an expression is evaluated: the scope its names are read in,
    its bound names, the current state and (in an action) the next one."""

    __slots__ = ("scope", "env", "state", "nxt")

    def __init__(self, scope: Scope, env: dict, state: dict | None = None, nxt: dict | None = None):
        self.scope, self.env, self.state, self.nxt = scope, env, state, nxt

    def bind(self, names: dict) -> "Ctx":
        env = dict(self.env)
        env.update(names)
        return Ctx(self.scope, env, self.state, self.nxt)

    def at(self, scope: Scope, env: dict) -> "Ctx":
        return Ctx(scope, env, self.state, self.nxt)

    def primed(self) -> "Ctx":
        if self.nxt is None:
            raise EvalError("a primed expression is evaluated where there is no next state")
        return Ctx(self.scope, self.env, self.nxt, None)


_AT = "@"  # the name EXCEPT binds to the old value


class Evaluator:
    """Evaluates expressions of one program with one set of constant values."""

    def __init__(self, program: Program, constants: dict[str, Any], order: TlcOrder):
        self.program = program
        self.constants = constants
        self.order = order
        self._constant_cache: dict[int, Any] = {}
        self._levels: dict[int, bool] = {}
        self._sorted: dict[frozenset, list] = {}

    # --- entry points ------------------------------------------------------------------
    def root_ctx(self, state: dict | None = None, nxt: dict | None = None) -> Ctx:
        return Ctx(self.program.scope, {}, state, nxt)

    def definition(self, name: str):
        d = self.program.scope.lookup(name)
        if d is None:
            raise TlaError(f"the module defines no {name}")
        return d

    def value_of(self, name: str, state: dict | None = None, nxt: dict | None = None) -> Any:
        """The value of the root module's definition ``name`` (no arguments)."""
        return self.eval(Node("name", (name,), self.program.root_module.loc), self.root_ctx(state, nxt))

    # --- evaluation -----------------------------------------------------------------------
    def eval(self, node: Node, ctx: Ctx) -> Any:
        try:
            return getattr(self, "e_" + node.kind)(node, ctx)
        except TlaError as e:
            if e.loc is None:
                e.loc = node.loc
            raise

    def truth(self, node: Node, ctx: Ctx) -> bool:
        v = self.eval(node, ctx)
        if type(v) is not bool:
            raise EvalError(f"expected TRUE or FALSE, got {show(v)}", node.loc)
        return v

    def force(self, lazy: Lazy) -> Any:
        if not lazy.done:
            lazy.value = self.eval(lazy.node, lazy.ctx)
            lazy.done = True
        return lazy.value

    def e_num(self, node, ctx):
        return node.args[0]

    e_str = e_num
    e_bool = e_num

    def e_unsupported(self, node, ctx):
        raise Unsupported(node.args[0], node.loc)

    def e_name(self, node, ctx):
        name = node.args[0]
        env = ctx.env
        if name in env:
            v = env[name]
            if type(v) is Lazy:
                return self.force(v)
            return v
        d = ctx.scope.lookup(name)
        if d is None:
            raise TlaError(f"unknown name {name}", node.loc)
        return self.definition_value(d, name, node, ctx)

    def definition_value(self, d, name: str, node: Node, ctx: Ctx) -> Any:
        t = type(d)
        if t is OpBinding:
            opdef = d.opdef
            if opdef.params:
                return self.op_value(d, ctx)
            if opdef.fun_bounds is not None:
                return self.recursive_function(d, ctx)
            key = id(d)
            if key in self._constant_cache:
                return self._constant_cache[key]
            v = self.eval(opdef.body, ctx.at(d.scope, {}))
            if self.is_constant_level(d):
                self._constant_cache[key] = v
            return v
        if t is Variable:
            if ctx.state is None:
                raise EvalError(f"variable {name} is read where there is no state", node.loc)
            try:
                return ctx.state[name]
            except KeyError:
                raise EvalError(f"{name} has no value here", node.loc) from None
        if t is Constant:
            if d.arity:
                return self.constants_op(name, d)
            try:
                return self.constants[name]
            except KeyError:
                raise TlaError(f"the constant {name} is given no value (give it in the .cfg)", node.loc) from None
        if t is Substituted:
            return self.eval(d.expr, Ctx(d.scope, d.env, ctx.state, ctx.nxt))
        if t is Builtin:
            if d.arity == 0:
                return d.fn(self)
            return OpValue(d.name, d.arity, lambda args, d=d: d.fn(self, *args))
        if t is NamedInstance:
            raise TlaError(f"{name} is an instance; use {name}!Op", node.loc)
        raise TlaError(f"cannot evaluate {name}", node.loc)

    def constants_op(self, name: str, d: Constant):
        v = self.constants.get(name)
        if isinstance(v, OpValue):
            return v
        raise TlaError(f"the constant operator {name} is given no definition (give it with <- in the .cfg)", d.loc)

    def is_constant_level(self, d: OpBinding) -> bool:
        """Whether a definition without arguments never reads a variable (so
        TLC computes it once)."""
        key = id(d)
        if key not in self._levels:
            self._levels[key] = False  # a recursive definition is taken as state-level while it is checked
            self._levels[key] = self._constant_node(d.opdef.body, d.scope, set())
        return self._levels[key]

    def _constant_node(self, node: Node, scope: Scope, bound: set) -> bool:
        kind = node.kind
        if kind in ("name", "apply"):
            name = node.args[0]
            if name in bound:
                return all(self._constant_node(a, scope, bound) for a in node.args[1]) if kind == "apply" else True
            d = scope.lookup(name)
            if isinstance(d, (Variable,)):
                return False
            if isinstance(d, Substituted):
                return self._constant_node(d.expr, d.scope, set(d.env))
            if isinstance(d, OpBinding):
                if not d.opdef.params and not self.is_constant_level(d):
                    return False
                if d.opdef.params and not self._constant_node(d.opdef.body, d.scope,
                                                              {p for p, _ in d.opdef.params}):
                    return False
            if kind == "apply":
                return all(self._constant_node(a, scope, bound) for a in node.args[1])
            return True
        if kind == "op" and node.args[0] in ("'", "UNCHANGED", "ENABLED"):
            return False
        if kind in ("inst", "subexpr"):
            return False  # instances read their substitutions, parts of definitions are not looked into: state-level
        if kind == "let":
            inner = set(bound)
            for opdef in node.args[0]:
                inner.add(opdef.name)
            return (all(self._constant_node(o.body, scope, inner | {p for p, _ in o.params})
                        for o in node.args[0]) and self._constant_node(node.args[1], scope, inner))
        inner = bound
        if kind in ("quant", "setmap", "fundef"):
            bounds = node.args[1] if kind != "setmap" else node.args[1]
            if kind == "fundef":
                bounds = node.args[0]
            inner = bound | _pattern_names([p for p, _ in bounds])
        elif kind in ("choose", "setfilter"):
            inner = bound | _pattern_names([node.args[0]])
        elif kind == "lambda":
            inner = bound | set(node.args[0])
        elif kind == "except":
            inner = bound | {_AT}
        for a in _children(node):
            if not self._constant_node(a, scope, inner):
                return False
        return True

    # --- operators ------------------------------------------------------------------
    def op_value(self, d: OpBinding, ctx: Ctx) -> OpValue:
        opdef = d.opdef
        return OpValue(opdef.name, len(opdef.params),
                       lambda args: self.eval(opdef.body, ctx.at(d.scope, dict(zip((p for p, _ in opdef.params),
                                                                                       args)))),
                       opdef=opdef)

    def operator_arg(self, node: Node, ctx: Ctx, arity: int) -> OpValue:
        """An argument given for an operator parameter (``F(_)``)."""
        kind = node.kind
        if kind == "lambda":
            names = node.args[0]
            return OpValue("LAMBDA", len(names),
                           lambda args: self.eval(node.args[1], ctx.bind(dict(zip(names, args)))))
        if kind == "opref":
            return self.builtin_operator(node.args[0], node)
        if kind == "name":
            v = self.e_name(node, ctx) if node.args[0] in ctx.env else None
            if isinstance(v, OpValue):
                return v
            d = ctx.scope.lookup(node.args[0])
            if isinstance(d, OpBinding) and d.opdef.params:
                return self.op_value(d, ctx)
            if isinstance(d, Builtin):
                return OpValue(d.name, d.arity, lambda args, d=d: d.fn(self, *args))
            if isinstance(d, Constant) and d.arity:
                return self.constants_op(node.args[0], d)
        raise TlaError(f"expected an operator of {arity} argument(s) here", node.loc)

    def builtin_operator(self, symbol: str, node: Node) -> OpValue:
        fn = _INFIX_VALUES.get(symbol)
        if fn is None:
            raise Unsupported(f"the operator {symbol} as an argument", node.loc)
        return OpValue(symbol, 2, lambda args: fn(self, *args))

    def call(self, d, name: str, args: tuple, node: Node, ctx: Ctx) -> Any:
        t = type(d)
        if t is OpBinding:
            opdef = d.opdef
            if len(opdef.params) != len(args):
                raise TlaError(f"{name} takes {len(opdef.params)} argument(s), given {len(args)}", node.loc)
            env = {}
            for (p, arity), a in zip(opdef.params, args):
                env[p] = self.operator_arg(a, ctx, arity) if arity else Lazy(a, ctx)
            return self.eval(opdef.body, ctx.at(d.scope, env))
        if t is Builtin:
            if d.lazy:
                return d.fn(self, ctx, *args)
            vals = [self.eval(a, ctx) if a.kind not in ("lambda", "opref") else self.operator_arg(a, ctx, 1)
                    for a in args]
            vals = [self._maybe_operator(v, a, ctx) for v, a in zip(vals, args)]
            return d.fn(self, *vals)
        if t is OpValue:
            return d.call([self.eval(a, ctx) for a in args])
        if t is Constant and d.arity:
            return self.constants_op(name, d).call([self.eval(a, ctx) for a in args])
        raise TlaError(f"{name} is not an operator that takes arguments", node.loc)

    def _maybe_operator(self, v, a: Node, ctx: Ctx):
        return v

    def e_apply(self, node, ctx):
        name, args = node.args
        env = ctx.env
        if name in env:
            v = env[name]
            if type(v) is Lazy:
                v = self.force(v)
            if not isinstance(v, OpValue):
                raise TlaError(f"{name} is not an operator", node.loc)
            return v.call([self.eval(a, ctx) for a in args])
        d = ctx.scope.lookup(name)
        if d is None:
            raise TlaError(f"unknown operator {name}", node.loc)
        if type(d) is Builtin and not d.lazy:
            vals = []
            for a in args:
                if a.kind in ("lambda", "opref"):
                    vals.append(self.operator_arg(a, ctx, 1))
                elif a.kind == "name" and self._names_operator(a, ctx):
                    vals.append(self.operator_arg(a, ctx, 1))
                else:
                    vals.append(self.eval(a, ctx))
            return d.fn(self, *vals)
        return self.call(d, name, args, node, ctx)

    def _names_operator(self, a: Node, ctx: Ctx) -> bool:
        name = a.args[0]
        if name in ctx.env:
            v = ctx.env[name]
            return isinstance(v, OpValue)
        d = ctx.scope.lookup(name)
        return (isinstance(d, OpBinding) and bool(d.opdef.params)) or (isinstance(d, Builtin) and d.arity > 0) \
            or (isinstance(d, Constant) and d.arity > 0)

    def e_opref(self, node, ctx):
        return self.builtin_operator(node.args[0], node)

    def e_lambda(self, node, ctx):
        return self.operator_arg(node, ctx, len(node.args[0]))

    def instance_target(self, node: Node, ctx: Ctx):
        """The scope and definition ``I!J!Op`` names."""
        prefix, name, _ = node.args
        scope = ctx.scope
        for comp, comp_args in prefix:
            d = scope.lookup(comp)
            if not isinstance(d, NamedInstance):
                if isinstance(d, OpBinding) and not d.opdef.params and not comp_args:
                    raise Unsupported(f"{comp}!{name}: positional or named subexpressions", node.loc)
                raise TlaError(f"{comp} is not an instance (in {comp}!{name})", node.loc)
            vals = tuple(self.eval(a, ctx) for a in comp_args)
            scope = self.program.named_instance_scope(d, vals, ctx.env)
        d = scope.lookup(name)
        if d is None:
            raise TlaError(f"the instance has no definition {name}", node.loc)
        return scope, d

    def e_inst(self, node, ctx):
        _, name, args = node.args
        scope, d = self.instance_target(node, ctx)
        if not args:
            return self.definition_value(d, name, node, ctx.at(scope, {}))
        # arguments are read in the caller's context; the body in the instance's
        if type(d) is OpBinding:
            opdef = d.opdef
            env = {p: (self.operator_arg(a, ctx, arity) if arity else Lazy(a, ctx))
                   for (p, arity), a in zip(opdef.params, args)}
            return self.eval(opdef.body, ctx.at(d.scope, env))
        return self.call(d, name, args, node, ctx)

    def e_subexpr(self, node, ctx):
        from modelcheck.tlaplus.modules import subexpression
        part, scope = subexpression(ctx.scope, node.args[0], node.args[1], node.loc)
        return self.eval(part, ctx.at(scope, {}))

    # --- built-in operators by symbol ---------------------------------------------------
    def e_op(self, node, ctx):
        sym = node.args[0]
        args = node.args[1:]
        fn = _LAZY_OPS.get(sym)
        if fn is not None:
            return fn(self, node, ctx)
        d = ctx.scope.lookup(sym)
        if isinstance(d, OpBinding):  # a user-defined infix operator
            return self.call(d, sym, args, node, ctx)
        fn = _STRICT_OPS.get(sym) if len(args) != 1 else _PREFIX_OPS.get(sym)
        if fn is None:
            raise Unsupported(f"the operator {sym}", node.loc)
        return fn(self, *[self.eval(a, ctx) for a in args])

    def e_and(self, node, ctx):
        for item in node.args:
            if not self.truth(item, ctx):
                return False
        return True

    def e_or(self, node, ctx):
        for item in node.args:
            if self.truth(item, ctx):
                return True
        return False

    def e_if(self, node, ctx):
        c, t, e = node.args
        return self.eval(t if self.truth(c, ctx) else e, ctx)

    def e_case(self, node, ctx):
        arms, other = node.args
        for cond, value in arms:
            if self.truth(cond, ctx):
                return self.eval(value, ctx)
        if other is None:
            raise EvalError("no arm of this CASE applies, and it has no OTHER", node.loc)
        return self.eval(other, ctx)

    def let_ctx(self, defs, ctx: Ctx) -> Ctx:
        env = dict(ctx.env)
        inner = Ctx(ctx.scope, env, ctx.state, ctx.nxt)
        for opdef in defs:
            env[opdef.name] = self.local_definition(opdef, inner)
        return inner

    def local_definition(self, opdef: OpDef, ctx: Ctx):
        if opdef.fun_bounds is not None:
            return Lazy(Node("fundef", (opdef.fun_bounds, opdef.body), opdef.loc), ctx)
        if not opdef.params:
            return Lazy(opdef.body, ctx)
        names = [p for p, _ in opdef.params]
        return OpValue(opdef.name, len(names),
                       lambda args: self.eval(opdef.body, ctx.bind(dict(zip(names, args)))),
                       node=opdef.body, ctx=ctx, opdef=opdef)

    def e_let(self, node, ctx):
        defs, body = node.args
        return self.eval(body, self.let_ctx(defs, ctx))

    # --- bound names -------------------------------------------------------------------
    def domain_elements(self, s: Any, node: Node) -> list:
        """A set's elements in TLC's order (remembered for the sets met most)."""
        if type(s) is frozenset:
            cache = self._sorted
            found = cache.get(s)
            if found is None:
                if len(cache) > 50_000:
                    cache.clear()
                found = cache[s] = set_elements(s, self.order)
            return found
        if not is_set(s):
            raise EvalError(f"expected a set, got {show(s)}", node.loc)
        return set_elements(s, self.order)

    def bindings(self, bounds, ctx: Ctx):
        """Every binding of the bounds' names, in TLC's order (the first bound outermost)."""
        if not bounds:
            yield {}
            return
        (pattern, set_node), rest = bounds[0], bounds[1:]
        for x in self.domain_elements(self.eval(set_node, ctx), set_node):
            names = bind_pattern(pattern, x, set_node)
            inner = ctx.bind(names)
            for more in self.bindings(rest, inner):
                out = dict(names)
                out.update(more)
                yield out

    def e_quant(self, node, ctx):
        kind, bounds, body = node.args
        if kind == "E":
            for names in self.bindings(bounds, ctx):
                if self.truth(body, ctx.bind(names)):
                    return True
            return False
        for names in self.bindings(bounds, ctx):
            if not self.truth(body, ctx.bind(names)):
                return False
        return True

    def e_choose(self, node, ctx):
        pattern, set_node, body = node.args
        if set_node is None:
            raise Unsupported("CHOOSE without a set (CHOOSE x : P)", node.loc)
        for x in self.domain_elements(self.eval(set_node, ctx), set_node):
            if self.truth(body, ctx.bind(bind_pattern(pattern, x, node))):
                return x
        raise EvalError("CHOOSE has nothing to choose from: no element of the set satisfies the condition",
                        node.loc)

    def e_setenum(self, node, ctx):
        return frozenset(normal(self.eval(a, ctx)) for a in node.args)

    def e_setfilter(self, node, ctx):
        pattern, set_node, pred = node.args
        s = self.eval(set_node, ctx)
        out = []
        for x in self.domain_elements(s, set_node):
            if self.truth(pred, ctx.bind(bind_pattern(pattern, x, node))):
                out.append(x)
        return frozenset(out)

    def e_setmap(self, node, ctx):
        expr, bounds = node.args
        return frozenset(normal(self.eval(expr, ctx.bind(names))) for names in self.bindings(bounds, ctx))

    def e_fundef(self, node, ctx):
        bounds, body = node.args
        if len(bounds) == 1:
            (pattern, set_node), = bounds
            return fcn((x, normal(self.eval(body, ctx.bind(bind_pattern(pattern, x, node)))))
                       for x in self.domain_elements(self.eval(set_node, ctx), set_node))
        pairs = []
        for names in self.bindings(bounds, ctx):
            arg = tuple(_pattern_value(p, names) for p, _ in bounds)
            pairs.append((arg, normal(self.eval(body, ctx.bind(names)))))
        return fcn(pairs)

    def recursive_function(self, d: OpBinding, ctx: Ctx):
        """f[x \\in S] == e, where e may apply f: each value computed once, on
        demand (so f may recur on smaller arguments); S must be finite."""
        opdef = d.opdef
        key = ("recfun", id(d))
        if key in self._constant_cache:
            return self._constant_cache[key]
        if len(opdef.fun_bounds) != 1:
            raise Unsupported("a recursive function of several arguments", opdef.loc)
        (pattern, set_node), = opdef.fun_bounds
        base = ctx.at(d.scope, {})
        domain = self.domain_elements(self.eval(set_node, base), set_node)
        lazy = _RecFun(self, opdef.name, pattern, opdef.body, base, domain)
        value = fcn((x, lazy.at(x, opdef.body)) for x in domain)
        if self.is_constant_level(d):
            self._constant_cache[key] = value
        return value

    def e_funapp(self, node, ctx):
        f = self.eval(node.args[0], ctx)
        args = [self.eval(a, ctx) for a in node.args[1]]
        arg = args[0] if len(args) == 1 else tuple(args)
        return self.apply_fcn(f, arg, node)

    def apply_fcn(self, f: Any, arg: Any, node: Node) -> Any:
        t = type(f)
        if t is tuple:
            if type(arg) is int and 1 <= arg <= len(f):
                return f[arg - 1]
        elif t is Record or t is Function:
            try:
                return f[arg]
            except (KeyError, TypeError):
                pass
        elif isinstance(f, OpValue):
            return f.call([arg])
        elif isinstance(f, _RecFun):
            return f.at(arg, node)
        else:
            raise EvalError(f"{show(f, self.order)} is applied to {show(arg, self.order)}, but it is not a "
                            f"function", node.loc)
        raise EvalError(f"{show(arg, self.order)} is not in the domain of the function "
                        f"{_brief(show(f, self.order))}", node.loc)

    def e_funset(self, node, ctx):
        return FunctionSet(self.eval(node.args[0], ctx), self.eval(node.args[1], ctx))

    def e_record(self, node, ctx):
        return Record((f, normal(self.eval(e, ctx))) for f, e in node.args)

    def e_recset(self, node, ctx):
        return RecordSet(tuple((f, self.eval(e, ctx)) for f, e in node.args))

    def e_dot(self, node, ctx):
        r = self.eval(node.args[0], ctx)
        field = node.args[1]
        if type(r) is Record:
            try:
                return r[field]
            except KeyError:
                pass
            raise EvalError(f"the record {_brief(show(r, self.order))} has no field {field}", node.loc)
        if type(r) is Function and field in r:
            return r[field]
        raise EvalError(f"{_brief(show(r, self.order))}.{field}: not a record", node.loc)

    def e_tuple(self, node, ctx):
        return tuple(normal(self.eval(a, ctx)) for a in node.args)

    def e_times(self, node, ctx):
        return ProductSet(tuple(self.eval(a, ctx) for a in node.args))

    def e_at(self, node, ctx):
        if _AT not in ctx.env:
            raise TlaError("@ is used outside an EXCEPT", node.loc)
        return ctx.env[_AT]

    def e_except(self, node, ctx):
        base, updates = node.args
        value = self.eval(base, ctx)
        for path, new in updates:
            keys = [(step, (self.eval(step[1][0], ctx) if len(step[1]) == 1
                            else tuple(self.eval(a, ctx) for a in step[1])) if step[0] == "[]" else step[1])
                    for step in path]
            value = self._except(value, keys, new, ctx, node)
        return value

    def _except(self, value, keys, new: Node, ctx: Ctx, node: Node):
        (step, key), rest = keys[0], keys[1:]
        if step[0] == ".":
            if type(value) is not Record or key not in value:
                raise EvalError(f"EXCEPT !.{key}: {_brief(show(value, self.order))} has no field {key}", node.loc)
        elif not is_fcn(value):
            raise EvalError(f"EXCEPT ![...] on {_brief(show(value, self.order))}, which is not a function", node.loc)
        items = fcn_items(value)
        found = False
        out = []
        for k, old in items:
            if k == key and type(k) is type(key):
                found = True
                if rest:
                    v = self._except(old, rest, new, ctx, node)
                else:
                    v = normal(self.eval(new, ctx.bind({_AT: old})))
                out.append((k, v))
            else:
                out.append((k, old))
        if not found:
            return value  # TLC leaves a function unchanged where the argument is outside its domain
        if type(value) is Record:
            return Record(out)
        return fcn(out)

    # --- action-level forms met as expressions --------------------------------------------
    def e_fair(self, node, ctx):
        raise Unsupported("a fairness condition inside an expression", node.loc)

    def e_boxact(self, node, ctx):
        raise Unsupported("[A]_v inside an expression", node.loc)

    def e_diaact(self, node, ctx):
        raise Unsupported("<<A>>_v inside an expression", node.loc)


class _RecFun:
    """A recursive function while it is being computed: its own name is bound
    to this, so the body's applications of it compute (and keep) the values
    they need."""

    def __init__(self, ev: "Evaluator", name: str, pattern, body: Node, ctx: Ctx, domain: list):
        self.ev, self.name, self.pattern, self.body = ev, name, pattern, body
        self.ctx, self.domain = ctx, domain
        self.values: dict = {}
        self.busy: set = set()

    def at(self, x, node: Node):
        for k, v in self.values.items():
            if type(k) is type(x) and k == x:
                return v
        if not any(type(d) is type(x) and d == x for d in self.domain):
            raise EvalError(f"{show(x)} is not in the domain of the function {self.name}", node.loc)
        if x in self.busy:
            raise EvalError(f"the function {self.name} is defined in terms of itself at {show(x)}", node.loc)
        self.busy.add(x)
        try:
            names = bind_pattern(self.pattern, x, node)
            names[self.name] = self
            v = normal(self.ev.eval(self.body, self.ctx.bind(names)))
        finally:
            self.busy.discard(x)
        self.values[x] = v
        return v


def _brief(text: str) -> str:
    return text if len(text) <= 120 else text[:117] + "..."


def _children(node: Node):
    for a in node.args:
        if isinstance(a, Node):
            yield a
        elif isinstance(a, tuple):
            for x in a:
                if isinstance(x, Node):
                    yield x
                elif isinstance(x, tuple):
                    for y in x:
                        if isinstance(y, Node):
                            yield y
                        elif isinstance(y, tuple):
                            for z in y:
                                if isinstance(z, Node):
                                    yield z
                                elif isinstance(z, tuple):
                                    for w in z:
                                        if isinstance(w, Node):
                                            yield w


def _pattern_names(patterns) -> set:
    out = set()
    for p in patterns:
        if isinstance(p, tuple):
            out.update(p)
        else:
            out.add(p)
    return out


def bind_pattern(pattern, value, node: Node) -> dict:
    if isinstance(pattern, tuple):
        if not isinstance(value, tuple) or len(value) != len(pattern):
            raise EvalError(f"{show(value)} cannot be taken apart as <<{', '.join(pattern)}>>", node.loc)
        return dict(zip(pattern, value))
    return {pattern: value}


def _pattern_value(pattern, names: dict):
    if isinstance(pattern, tuple):
        return tuple(names[p] for p in pattern)
    return names[pattern]


# --- the built-in operators met as symbols ---------------------------------------------------

def _int(v, what: str) -> int:
    if type(v) is not int:
        raise EvalError(f"{what} expects an integer, got {show(v)}")
    return v


def _arith(name: str, fn):
    def op(ev, a, b):
        return fn(_int(a, name), _int(b, name))
    return op


def _div(ev, a, b):
    a, b = _int(a, "\\div"), _int(b, "\\div")
    if b == 0:
        raise EvalError("division by zero")
    return a // b


def _mod(ev, a, b):
    a, b = _int(a, "%"), _int(b, "%")
    if b <= 0:
        raise EvalError(f"the second argument of % must be positive, got {b}")
    return a % b


def _pow(ev, a, b):
    a, b = _int(a, "^"), _int(b, "^")
    if b < 0:
        raise EvalError("a negative exponent")
    return a ** b


def tla_equal(a, b) -> bool:
    """TLA+'s = as TLC evaluates it: an error for values TLC cannot compare."""
    ta, tb = type(a), type(b)
    if ta is tb:
        return a == b
    if ta is ModelValue or tb is ModelValue:
        return False
    if ta is bool or tb is bool:
        raise EvalError(f"TLC cannot compare {show(a)} with {show(b)}")
    if is_set(a) and is_set(b):
        return _set_equal(a, b)
    if is_fcn(a) and is_fcn(b):
        return False  # normal forms differ only for different functions
    if (ta is int) != (tb is int) or (ta is str) != (tb is str) or is_set(a) != is_set(b):
        raise EvalError(f"TLC cannot compare {show(a)} with {show(b)}")
    return a == b


def _set_equal(a, b) -> bool:
    if isinstance(a, LazySet) and not a.finite or isinstance(b, LazySet) and not b.finite:
        if isinstance(a, LazySet) and isinstance(b, LazySet):
            return a.key() == b.key()
        raise EvalError(f"TLC cannot compare the infinite set {show(a)} with {show(b)}")
    return frozenset(set_elements(a, None)) == frozenset(set_elements(b, None))


def _eq(ev, a, b):
    return tla_equal(a, b)


def _ne(ev, a, b):
    return not tla_equal(a, b)


def _lt(ev, a, b):
    return _int(a, "<") < _int(b, "<")


def _le(ev, a, b):
    return _int(a, "<=") <= _int(b, "<=")


def _gt(ev, a, b):
    return _int(a, ">") > _int(b, ">")


def _ge(ev, a, b):
    return _int(a, ">=") >= _int(b, ">=")


def _range(ev, a, b):
    return Interval(_int(a, ".."), _int(b, ".."))


def _in(ev, a, s):
    if not is_set(s):
        raise EvalError(f"\\in: {show(s)} is not a set")
    return set_contains(s, a)


def _notin(ev, a, s):
    return not _in(ev, a, s)


def _elements(s, what: str) -> frozenset:
    if isinstance(s, frozenset):
        return s
    if isinstance(s, LazySet):
        return frozenset(set_elements(s, None))
    raise EvalError(f"{what}: {show(s)} is not a set")


def _subseteq(ev, a, b):
    return all(set_contains(b, x) for x in _elements(a, "\\subseteq"))


def _subset(ev, a, b):
    return _subseteq(ev, a, b) and not _set_equal(a, b)


def _cup(ev, a, b):
    return _elements(a, "\\cup") | _elements(b, "\\cup")


def _cap(ev, a, b):
    if isinstance(b, LazySet) and not b.finite:
        return frozenset(x for x in _elements(a, "\\cap") if b.contains(x))
    if isinstance(a, LazySet) and not a.finite:
        return frozenset(x for x in _elements(b, "\\cap") if a.contains(x))
    return _elements(a, "\\cap") & _elements(b, "\\cap")


def _minus(ev, a, b):
    if isinstance(b, LazySet):
        return frozenset(x for x in _elements(a, "\\") if not b.contains(x))
    return _elements(a, "\\") - _elements(b, "\\")


def _colon_gt(ev, a, b):
    return fcn([(a, b)])


def _at_at(ev, f, g):
    items = fcn_items(f)
    keys = {k for k, _ in items}
    return fcn(items + [(k, v) for k, v in fcn_items(g) if k not in keys])


def _concat(ev, s, t):
    if not isinstance(s, tuple) or not isinstance(t, tuple):
        raise EvalError(f"\\o joins sequences, got {show(s)} and {show(t)}")
    return s + t


def _implies_strict(ev, a, b):
    return (not a) or b


def _not(ev, a):
    if type(a) is not bool:
        raise EvalError(f"~ expects TRUE or FALSE, got {show(a)}")
    return not a


def _neg(ev, a):
    return -_int(a, "-")


def _domain(ev, f):
    return domain(f)


def _powerset(ev, s):
    if not is_set(s):
        raise EvalError(f"SUBSET of {show(s)}, which is not a set")
    return PowerSet(s)


def _union(ev, s):
    out = frozenset()
    for x in set_elements(s, None):
        out |= _elements(x, "UNION")
    return out


_STRICT_OPS = {
    "+": _arith("+", lambda a, b: a + b), "-": _arith("-", lambda a, b: a - b),
    "*": _arith("*", lambda a, b: a * b), "\\div": _div, "%": _mod, "^": _pow,
    "=": _eq, "#": _ne, "/=": _ne, "<": _lt, "<=": _le, "=<": _le, "\\leq": _le, ">": _gt, ">=": _ge, "\\geq": _ge,
    "..": _range, "\\in": _in, "\\notin": _notin, "\\subseteq": _subseteq, "\\subset": _subset,
    "\\supseteq": lambda ev, a, b: _subseteq(ev, b, a), "\\supset": lambda ev, a, b: _subset(ev, b, a),
    "\\cup": _cup, "\\union": _cup, "\\cap": _cap, "\\intersect": _cap, "\\": _minus, ":>": _colon_gt,
    "@@": _at_at, "\\o": _concat, "\\circ": _concat,
}
_PREFIX_OPS = {"~": _not, "\\lnot": _not, "\\neg": _not, "-.": _neg, "-": _neg, "DOMAIN": _domain,
               "SUBSET": _powerset, "UNION": _union}
_INFIX_VALUES = dict(_STRICT_OPS)


def _lazy_implies(ev, node, ctx):
    _, a, b = node.args
    return (not ev.truth(a, ctx)) or ev.truth(b, ctx)


def _lazy_equiv(ev, node, ctx):
    _, a, b = node.args
    return ev.truth(a, ctx) == ev.truth(b, ctx)


def _prime(ev, node, ctx):
    return ev.eval(node.args[1], ctx.primed())


def _unchanged(ev, node, ctx):
    a = node.args[1]
    return tla_equal(ev.eval(a, ctx), ev.eval(a, ctx.primed()))


def _refuse(what: str):
    def fn(ev, node, ctx):
        raise Unsupported(what, node.loc)
    return fn


_LAZY_OPS = {"=>": _lazy_implies, "<=>": _lazy_equiv, "'": _prime, "UNCHANGED": _unchanged,
             "ENABLED": _refuse("ENABLED"), "[]": _refuse("[] inside an expression"),
             "<>": _refuse("<> inside an expression"), "~>": _refuse("~> inside an expression"),
             "-+->": _refuse("-+->"), "\\cdot": _refuse("\\cdot (action composition)")}


def infinite(name: str) -> Infinite:
    return Infinite(name)


def seq_set(base) -> SeqSet:
    return SeqSet(base)
