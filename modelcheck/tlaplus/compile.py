"""Emit: a TLA+ module and its .cfg as a ``SpecDefinition``.

``compile_module`` runs the front-end's stages (docs/architecture.md):
it reads the module and every module it uses, evaluates the .cfg's
constants, learns the shapes of the variables from the first states the
reference evaluator finds, lowers Init, Next, the invariants and the
constraints over those shapes (widening a shape and lowering again when an
assignment needs more than it has), and wraps the result as the spec
definition every engine reads:

* its fields: each variable's leaves, then two hidden fields: the overflow
  flag (which bound a state outgrew) and the evaluation error (which step
  TLC could not evaluate);
* its codec: each variable as a TLA+ value, for ITF traces and viewers;
* its actions: one ``ActionDef`` per action of Next (named as TLC names
  them), whose instances replay the lowered paths, numbered in TLC's order;
* its invariants, with a port check for the overflow flag and an
  evaluation check for the errors.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

from modelcheck.errors import InputError, SpecDefinitionError
from modelcheck.language.codec import StateCodec
from modelcheck.language.constants import (BOOL, INT, MODEL_VALUE, MODEL_VALUES, STRING, ConstantDecl, record_of,
                                           seq_of, set_of)
from modelcheck.language.expr import FALSE, TRUE, Expr, and_, const, const_value, eq, ite, is_const, lift, lt, not_, or_, var
from modelcheck.language.schema import Field
from modelcheck.language.temporal import Fairness, Specification
from modelcheck.language.values import Record
from modelcheck.model.spec import ActionDef, Domain, PredicateDef, SpecDefinition, written_here
from modelcheck.tlaplus.actions import Stepper
from modelcheck.tlaplus.config import TlaConfig, constant_value
from modelcheck.tlaplus.evaluate import Evaluator, OpValue
from modelcheck.tlaplus.explore import bfs, walks
from modelcheck.tlaplus.lower import Layout, Lowerer
from modelcheck.tlaplus.lower_actions import ActionLowerer
from modelcheck.tlaplus.modules import Constant, OpBinding, Program
from modelcheck.tlaplus.simplify import Intervals, Simplifier, impossible, narrowed
from modelcheck.tlaplus.shapes import (BOTTOM, MASK_LIMIT, BoolS, FunS, NotInShape, RecS, ScalarS, SeqS, SetS, Shape,
                                       ShapeCodec, TupS, VariantS, encode, finalize, join, of_value)
from modelcheck.tlaplus.symbolic import Store, shape_of, to_leaves
from modelcheck.tlaplus.temporal import check_fairness_subscript, lower_properties
from modelcheck.tlaplus.syntax import EvalError, Loc, Node, TlaError, Unsupported
from modelcheck.tlaplus.values import ModelValue, TlcOrder, is_set, set_elements, show, sort_values

OVERFLOW = "tla_overflow"
EVALUATION = "evaluation_error"
BOUNDS_CHECK = "WithinBounds"
EVALUATION_CHECK = "EvaluationSucceeds"


@dataclass
class Learning:
    """How much the reference evaluator explores to learn shapes: counted in
    states, never in seconds, so that the same module and .cfg always give
    the same shapes (a model rebuilt elsewhere, a checkpoint resumed, a trace
    read back all need the very same layout)."""

    states: int = 2000
    walks: int = 12
    walk_length: int = 50


@dataclass
class Instance:
    """One lowered path: the instance an ActionDef replays."""

    seq: int
    action: str
    shown: tuple
    guard: Expr
    updates: dict
    failures: list
    overflows: list = field(default_factory=list)  # (condition, what outgrew its bound)


@dataclass
class Compiled:
    """The front-end's result, with what went into it (for tests and reports)."""

    spec: SpecDefinition
    program: Program
    evaluator: Evaluator
    order: TlcOrder
    variables: list[str]
    shapes: dict[str, Shape]
    layout: Layout
    instances: list[Instance]
    init_states: list[dict]
    learned_complete: bool
    overflow_messages: list[str] = field(default_factory=list)
    raw: dict = field(default_factory=dict)  # the learned shapes, before each set's form is chosen


def compile_module(path: str, cfg: TlaConfig, search: tuple[str, ...] = (), learning: Learning | None = None,
                   on_widen=None) -> Compiled:
    """The module at ``path`` with ``cfg`` as a spec definition (see the module docstring).
    ``on_widen`` is told of each spec compiled again with wider bounds."""
    program = Program(path, search)
    order = TlcOrder(list(cfg.words) + program.words())
    constants = _constants(program, cfg, order)
    ev = Evaluator(program, constants, order)
    ev.constants = constants
    _check_assumptions(program, ev)
    variables = program.variables()
    if not variables:
        raise TlaError(f"module {program.root_module.name} declares no variables", program.root_module.loc)
    init_node, next_node, fairness = _behaviour(program, cfg)
    next_node = _body(program, next_node)
    stepper = Stepper(ev, variables)
    keep = _state_constraint(ev, cfg)
    try:
        inits = stepper.init_states(init_node)
    except EvalError as e:
        raise TlaError(f"Init cannot be evaluated: {e.message}", e.loc) from None
    inits = [s for s in inits if keep is None or keep(s)]
    if not inits:
        raise TlaError("Init has no state (within the CONSTRAINT)", init_node.loc)
    learning = learning or Learning()
    raw, complete = _learn(stepper, init_node, next_node, inits, variables, order, learning, keep)
    job = _Job(program, cfg, ev, order, variables, inits, init_node, next_node, complete, fairness, stepper, keep,
               on_widen)
    return job.compile(raw)


class _Job:
    """Everything one module's compilation needs, kept so that it can be
    compiled again with wider shapes when a search outgrows them."""

    def __init__(self, program, cfg, ev, order, variables, inits, init_node, next_node, complete, fairness,
                 stepper, keep, on_widen):
        self.program, self.cfg, self.ev, self.order = program, cfg, ev, order
        self.variables, self.inits, self.init_node, self.next_node = variables, inits, init_node, next_node
        self.complete, self.fairness, self.stepper, self.keep = complete, fairness, stepper, keep
        self.on_widen = on_widen
        self.widenings = 0
        self.grown: dict[str, int] = {}

    def compile(self, raw: dict) -> Compiled:
        order, variables = self.order, self.variables
        for attempt in range(ROUNDS):
            shapes = {v: finalize(raw[v], order) for v in variables}
            try:
                compiled = _emit(self.program, self.cfg, self.ev, order, variables, shapes, self.inits,
                                 self.init_node, self.next_node, self.complete, self.fairness, self)
            except _Misfits as m:
                for variable, wanted in m.found:
                    if os.environ.get("MODELCHECK_TLA_DEBUG"):
                        print(f"widen {variable}: {raw[variable]} + {wanted}")
                    raw[variable] = _widen(raw[variable], wanted, order)
                continue
            compiled.raw = raw
            return compiled
        raise TlaError(f"the shapes of the variables did not settle after {ROUNDS} rounds of widening")

    def widen(self, compiled: "Compiled", model, states) -> SpecDefinition | None:
        """The spec again, with shapes that hold the values of a behaviour
        whose last state outgrew them (read back with the reference evaluator)."""
        fitting = [model.codec.encode(s) for s in states[:-1]]
        if not fitting:
            return None
        try:
            following = self.stepper.next_states(self.next_node, fitting[-1])
        except EvalError:
            following = []
        if self.keep is not None:
            following = [s for s in following if self.keep(s)]
        raw = dict(compiled.raw)
        self.widenings += 1
        slack = 1 << min(self.widenings, 6)
        changed = []
        for v in self.variables:
            before = raw[v]
            after = before
            for s in fitting + following:
                after = join(after, of_value(s[v], self.order), self.order)
            if after != before:
                raw[v] = _slack(after, before, slack)
                changed.append(v)
                self.grown[v] = self.grown.get(v, 0) + 1
        if not changed:
            return None
        for v in changed:
            if self.grown[v] > UNBOUNDED_AFTER:
                raise InputError(f"{self.program.root_module.name}: {v} keeps growing past every bound given to it "
                                 f"({UNBOUNDED_AFTER} widenings): the state space looks unbounded; bound it with a "
                                 f"CONSTRAINT in the .cfg (or a smaller constant)")
        widened = self.compile(raw)
        if self.on_widen is not None:
            self.on_widen(widened)
        return widened.spec


UNBOUNDED_AFTER = 8  # widenings of one variable before the state space is called unbounded


def _slack(s: Shape, before: Shape, amount: int) -> Shape:
    """``s`` with room to spare where it grew past ``before`` (a counter that
    outgrew its range once will likely do so again)."""
    if isinstance(s, ScalarS) and isinstance(before, ScalarS) and s.ints and before.ints and s.ints != before.ints:
        lo, hi = s.ints
        if hi > before.ints[1]:
            hi += amount
        if lo < before.ints[0]:
            lo -= amount
        return ScalarS((lo, hi), s.atoms)
    if isinstance(s, SetS) and isinstance(before, SetS):
        cap = s.capacity + amount if s.capacity > before.capacity else s.capacity
        old = dict(before.kinds)
        kinds = tuple((k, n + amount if n > old.get(k, 0) else n) for k, n in s.kinds)
        return SetS(_slack(s.elem, before.elem, amount), s.universe_values, cap, kinds)
    if isinstance(s, SeqS) and isinstance(before, SeqS):
        cap = s.capacity + amount if s.capacity > before.capacity else s.capacity
        return SeqS(_slack(s.elem, before.elem, amount), cap)
    if isinstance(s, RecS) and isinstance(before, RecS):
        old = dict(before.fields)
        return RecS(tuple((n, _slack(x, old[n], amount) if n in old else x) for n, x in s.fields))
    if isinstance(s, VariantS) and isinstance(before, VariantS):
        from modelcheck.tlaplus.shapes import alt_key
        old = {alt_key(a): a for a in before.alts}
        return VariantS(tuple(_slack(a, old[alt_key(a)], amount) if alt_key(a) in old else a for a in s.alts))
    if isinstance(s, FunS) and isinstance(before, FunS):
        return FunS(s.domain, _slack(s.rng, before.rng, amount))
    if isinstance(s, TupS) and isinstance(before, TupS) and len(s.items) == len(before.items):
        return TupS(tuple(_slack(x, y, amount) for x, y in zip(s.items, before.items)))
    return s


ROUNDS = 40  # lowerings, at most, before the shapes hold every value an action assigns


class _Misfits(Exception):
    """Values some actions assign that the shapes cannot hold yet: (variable, the shape wanted)."""

    def __init__(self, found: list):
        self.found = found


def _widen(have: Shape, wanted: Shape, order: TlcOrder) -> Shape:
    """``have`` widened to hold ``wanted``'s structure (capacities stay learned)."""
    joined = join(have, wanted, order)
    return _keep_capacity(joined, have)


def _keep_capacity(s: Shape, learned: Shape) -> Shape:
    if isinstance(s, SetS) and isinstance(learned, SetS):
        cap = learned.capacity if learned.capacity else s.capacity
        kinds = dict(s.kinds)
        kinds.update({k: n for k, n in learned.kinds if n})
        return SetS(_keep_capacity(s.elem, learned.elem), None, max(cap, 1), tuple(sorted(kinds.items(), key=repr)))
    if isinstance(s, SeqS) and isinstance(learned, SeqS):
        return SeqS(_keep_capacity(s.elem, learned.elem), max(learned.capacity, 1))
    if isinstance(s, RecS) and isinstance(learned, RecS):
        lf = dict(learned.fields)
        return RecS(tuple((n, _keep_capacity(x, lf[n]) if n in lf else x) for n, x in s.fields))
    if isinstance(s, FunS) and isinstance(learned, FunS):
        return FunS(s.domain, _keep_capacity(s.rng, learned.rng))
    return s


# --- constants and the behaviour ----------------------------------------------------------------------

def _constants(program: Program, cfg: TlaConfig, order: TlcOrder) -> dict[str, Any]:
    declared = {c.name: c for c in program.constants()}
    values: dict[str, Any] = {}
    where = f"{cfg.path}: " if cfg.path else ""
    for name, text in cfg.constants.items():
        if name not in declared:
            if text == name:
                continue  # a model value declared for use in other values (r1 = r1)
            raise TlaError(f"{where}the module declares no constant {name}")
        values[name] = constant_value(text, f"{where}{name}: ")
    for key, (op, module) in cfg.substitutions.items():
        name = key.split("[", 1)[0]  # NAME[Module]: the .cfg's NAME <-[Module] Op
        if name not in declared:
            raise TlaError(f"{where}the module declares no constant {name}")
        values[name] = _substitute(program, op, module, declared[name], where)
    missing = [n for n in declared if n not in values]
    if missing:
        raise TlaError(f"{where}no value is given for the constant(s) {', '.join(missing)} (give each in the .cfg's "
                       f"CONSTANTS)")
    return values


def _substitute(program: Program, op: str, module: str | None, decl: Constant, where: str):
    """X <- Op: the constant X stands for the module's definition Op."""
    scope = program.scope
    if module is not None:
        mod = program.find(module, decl.loc)
        if mod is None:
            raise TlaError(f"{where}<-[{module}]: modelcheck builds that module in; name a definition of yours")
        scope = program.instantiate(mod, None)
    d = scope.lookup(op)
    if d is None:
        raise TlaError(f"{where}{decl.name} <- {op}: no definition {op}" + (f" in {module}" if module else ""))
    return _Deferred(d, decl.arity)


class _Deferred:
    """A constant given as a definition (X <- Op): evaluated when first read."""

    def __init__(self, definition, arity: int):
        self.definition, self.arity = definition, arity


def _resolve_deferred(ev: Evaluator) -> None:
    for name, v in list(ev.constants.items()):
        if isinstance(v, _Deferred):
            d = v.definition
            if v.arity:
                if not isinstance(d, OpBinding):
                    raise TlaError(f"{name} <- ...: an operator constant must be given an operator")
                from modelcheck.tlaplus.evaluate import Ctx
                ev.constants[name] = ev.op_value(d, Ctx(d.scope, {}))
            else:
                ev.constants[name] = ev.definition_value(d, name, Node("name", (name,), Loc("<cfg>", 0, 0)),
                                                         ev.root_ctx())


def _check_assumptions(program: Program, ev: Evaluator) -> None:
    _resolve_deferred(ev)
    from modelcheck.tlaplus.evaluate import Ctx
    for expr, scope in program.scope.assumptions:
        try:
            ok = ev.eval(expr, Ctx(scope, {}))
        except EvalError as e:
            raise TlaError(f"an ASSUME cannot be evaluated: {e.message}", e.loc or expr.loc) from None
        if ok is not True:
            raise TlaError("an ASSUME of the module is false for these constants", expr.loc)


def _behaviour(program: Program, cfg: TlaConfig):
    """Init, Next and the fairness conditions: from INIT/NEXT, or taken apart
    from the SPECIFICATION formula (Init /\\ [][Next]_v /\\ WF_v(A) ...)."""
    loc = program.root_module.loc
    if cfg.specification and not (cfg.init and cfg.next):
        d = program.scope.lookup(cfg.specification)
        if not isinstance(d, OpBinding):
            raise TlaError(f"SPECIFICATION {cfg.specification}: the module defines no such formula", loc)
        init = nxt = None
        fairness = []
        for part in _conjuncts(d.opdef.body, program, d.scope):
            if part.kind == "op" and part.args[0] == "[]" and part.args[1].kind == "boxact":
                nxt = part.args[1].args[0]
            elif part.kind == "fair":
                fairness.append(part)
            elif init is None:
                init = part
            else:
                raise Unsupported("this conjunct of the SPECIFICATION formula", part.loc)
        if init is None or nxt is None:
            raise TlaError(f"SPECIFICATION {cfg.specification} is not of the form Init /\\ [][Next]_vars /\\ ...",
                           d.opdef.loc)
        return init, nxt, fairness
    if not cfg.init or not cfg.next:
        raise TlaError("the .cfg names neither INIT and NEXT nor a SPECIFICATION")
    for name in (cfg.init, cfg.next):
        if program.scope.lookup(name) is None:
            raise TlaError(f"the module defines no {name} (named by the .cfg)", loc)
    return Node("name", (cfg.init,), loc), Node("name", (cfg.next,), loc), []


def _body(program: Program, node: Node) -> Node:
    """Next's own formula (so that the actions below it, not Next, name the instances)."""
    if node.kind == "name":
        d = program.scope.lookup(node.args[0])
        if isinstance(d, OpBinding) and not d.opdef.params and d.scope is program.scope:
            return d.opdef.body
    return node


def _conjuncts(node: Node, program: Program, scope) -> list[Node]:
    if node.kind == "and":
        out = []
        for a in node.args:
            out.extend(_conjuncts(a, program, scope))
        return out
    if node.kind == "name":
        d = scope.lookup(node.args[0])
        if isinstance(d, OpBinding) and not d.opdef.params and _temporal(d.opdef.body):
            return _conjuncts(d.opdef.body, program, d.scope)
    return [node]


def _temporal(node: Node) -> bool:
    if node.kind in ("fair",) or (node.kind == "op" and node.args[0] == "[]"):
        return True
    if node.kind == "and":
        return any(_temporal(a) for a in node.args)
    return False


def _state_constraint(ev: Evaluator, cfg: TlaConfig):
    if not cfg.constraints:
        return None
    nodes = [Node("name", (c,), Loc(cfg.path or "<cfg>", 0, 0)) for c in cfg.constraints]
    for c in cfg.constraints:
        if ev.program.scope.lookup(c) is None:
            raise TlaError(f"CONSTRAINT {c}: the module defines no {c}")

    def keep(state: dict) -> bool:
        ctx = ev.root_ctx(state=state)
        return all(ev.truth(n, ctx) for n in nodes)
    return keep


# --- learning shapes ---------------------------------------------------------------------------------

def _learn(stepper, init_node, next_node, inits, variables, order, learning: Learning, keep):
    found = bfs(stepper, init_node, next_node, max_states=learning.states, keep=keep)
    states = list(found.states)
    if not found.complete:
        states += walks(stepper, init_node, next_node, learning.walks, learning.walk_length, seed=0, keep=keep)
    raw: dict[str, Shape] = {v: BOTTOM for v in variables}
    for s in states:
        for v in variables:
            raw[v] = join(raw[v], of_value(s[v], order), order)
    return raw, found.complete


# --- lowering and emitting -------------------------------------------------------------------------------

def _emit(program, cfg, ev, order, variables, shapes, inits, init_node, next_node, complete, fairness,
          job=None) -> Compiled:
    layout = Layout({v: shapes[v] for v in variables})
    L = Lowerer(ev, layout)
    A = ActionLowerer(L, variables)
    store = L.store
    overflow_messages: list[str] = []
    here = Loc(cfg.path or "<cfg>", 0, 0)
    constraint = [Node("name", (c,), here) for c in cfg.constraints]
    action_constraint = [Node("name", (c,), here) for c in cfg.action_constraints]
    misfits: list = []
    slot_ranges = {}
    slot_names = {}
    for v in variables:
        for i, leaf in enumerate(shapes[v].leaves(v)):
            slot_ranges[layout.base[v] + i] = (leaf.lo, leaf.hi)
            slot_names[layout.base[v] + i] = leaf.path or v
    lowering = _Paths(L, A, variables, shapes, layout, slot_ranges, slot_names)
    instances = lowering.instances(next_node, constraint, action_constraint)
    # the actions the specification's fairness names, lowered as Next is (no constraint applies to them)
    for part in fairness:
        check_fairness_subscript(part.args[1], program.scope, variables)
    fair_actions = [(part, lowering.instances(part.args[2], [], [])) for part in fairness]
    init_leaves = []
    for s in inits:
        row = []
        for v in variables:
            try:
                row += encode(shapes[v], s[v], order)
            except NotInShape:
                misfits.append((v, of_value(s[v], order)))
        init_leaves.append(row)
    if misfits:
        raise _Misfits(misfits)
    invariants = {}
    invariant_failures: list[tuple[Expr, str]] = []
    for name in cfg.invariants:
        invariants[name], failing = _invariant(L, program, name)
        invariant_failures += failing
    view = _view(program, cfg, A, L)
    if view:
        read = dict(invariants)
        read.update((f"#{k}", c) for k, (c, _) in enumerate(invariant_failures))
        _untrack_unread(instances, read, view, layout)
    properties = lower_properties(L, program, cfg.properties, variables, layout.width + 2)
    for inst in instances + [i for _, group in fair_actions for i in group]:
        if inst.overflows:
            code: Expr = const(0)
            for c, what in reversed(inst.overflows):
                if what not in overflow_messages:
                    overflow_messages.append(what)
                code = ite(c, overflow_messages.index(what) + 1, code)
            inst.updates[layout.width] = code
    holder: list = []
    widen = (lambda model, states: job.widen(holder[0], model, states)) if job is not None else None
    spec = _spec_definition(program, cfg, ev, order, variables, shapes, layout, instances, invariants, init_leaves,
                            overflow_messages, view, widen, fair_actions, properties, invariant_failures)
    compiled = Compiled(spec, program, ev, order, variables, shapes, layout, instances, inits, complete,
                        overflow_messages)
    holder.append(compiled)
    return compiled


class _Paths:
    """Actions lowered path by path into instances over one layout: a
    path's guard (with the constraints), its stored values, and where its
    values outgrow their slots or TLC cannot evaluate it."""

    def __init__(self, L, A, variables, shapes, layout, slot_ranges, slot_names):
        self.L, self.A, self.variables, self.shapes, self.layout = L, A, variables, shapes, layout
        self.slot_ranges, self.slot_names = slot_ranges, slot_names

    def instances(self, node: Node, constraint: list, action_constraint: list) -> list[Instance]:
        L, A, variables, shapes, layout = self.L, self.A, self.variables, self.shapes, self.layout
        slot_ranges, slot_names, store, order = self.slot_ranges, self.slot_names, L.store, L.order
        instances: list[Instance] = []
        misfits: list = []
        pending: list = []
        guard_simplify = Simplifier(slot_ranges)
        for path in A.paths(node):
            name = path.name or "Next"
            guard = and_(*path.guard)
            if guard is FALSE and not path.failures:
                continue
            if path.failing_only:
                # an instance that never leads anywhere but where TLC stops with an error
                pending.append((name, path, None, None, None, list(path.failures)))
                continue
            missing = [v for v in variables if v not in path.assigned]
            failures = list(path.failures)
            if missing:
                failures.append((guard, f"the step leaves {', '.join(missing)} without a value (TLC: the successor "
                                        f"state is not completely specified)"))
                for v in missing:
                    path.assigned[v] = L.current[v]
            extra = and_(_constraints_on(L, constraint, path, guard, True),
                         _constraints_on(L, action_constraint, path, guard, False))
            guard = and_(guard, extra)
            if guard is FALSE:
                continue
            store.overflows = []
            misfit = False
            stored: list[tuple[str, int, Expr]] = []
            for v in variables:
                try:
                    leaves = to_leaves(path.assigned[v], shapes[v], store, v)
                except NotInShape:
                    misfits.append((v, shape_of(path.assigned[v], order)))
                    misfit = True
                    continue
                base = layout.base[v]
                for i, e in enumerate(leaves):
                    if not (e.op == "var" and e.args[0] == base + i):
                        stored.append((v, base + i, e))
            if misfit or misfits:
                continue  # this round only looks for values the shapes cannot hold
            pending.append((name, path, guard, stored, list(store.overflows) + path.overflows, failures))
        if misfits:
            raise _Misfits(misfits)
        base_bounds = Intervals(slot_ranges)
        for name, path, guard, stored, store_overflows, failures in pending:
            if guard is None:
                failures = [(guard_simplify(c), m) for c, m in failures]
                failures = [(c, m) for c, m in failures if c is not FALSE and not impossible(c, slot_ranges)]
                if failures:
                    instances.append(Instance(len(instances), name, tuple(path.params), FALSE, {}, failures))
                continue
            guard = guard_simplify(guard)
            if guard is FALSE:
                continue
            updates: dict[int, Expr] = {}
            # within the guard, the slot ranges it narrows hold (not for the guard itself)
            ranges = narrowed(guard, slot_ranges)
            bounds = None
            overflows = [(Simplifier(ranges)(c), what) for c, what in store_overflows]
            for v, slot, e in stored:
                lo, hi = slot_ranges[slot]
                iv = base_bounds(e)
                if iv is None or not (lo <= iv[0] and iv[1] <= hi):
                    bounds = bounds or Intervals(ranges)
                    iv = bounds(e)
                if iv is not None and lo <= iv[0] and iv[1] <= hi:
                    updates[slot] = e
                    continue
                # a value the ranges cannot vouch for: checked in the kernel, never stored wrapped
                outside = or_(lt(e, lo), lt(hi, e))
                overflows.append((outside, f"{slot_names[slot]} outside {lo}..{hi}"))
                updates[slot] = ite(outside, lo, e)
            overflows = [(c, what) for c, what in overflows if c is not FALSE]
            failures = [(guard_simplify(c), m) for c, m in failures]
            failures = [(c, m) for c, m in failures if c is not FALSE and not impossible(c, slot_ranges)]
            overflows = [(c, what) for c, what in overflows if not impossible(c, ranges)]
            shown = tuple((n, v) for n, v in path.params)
            instances.append(Instance(len(instances), name, shown, guard, updates, failures, overflows))
        return instances


def _untrack_unread(instances: list, invariants: dict, view: tuple, layout: Layout) -> None:
    """Under a VIEW, the slots of variables outside it that nothing reads (no
    guard, no invariant, no assignment to a slot that matters) change nothing
    the search decides: TLC fingerprints the VIEW only, and such a slot feeds
    nothing that reaches it. Their assignments (and the overflow checks that
    guard them) are dropped, so they stay as Init left them; a trace shows the
    variables they belong to as recomputed from the module (``full_states``)."""
    from modelcheck.language.expr import slots_read
    live: set[int] = set()
    for v in view:
        live.update(range(layout.base[v], layout.base[v] + layout.shapes[v].width()))
    roots = [i.guard for i in instances] + [c for i in instances for c, _ in i.failures] + list(invariants.values())
    live |= slots_read(*roots) if roots else set()
    feeds: dict[int, list] = {}
    for inst in instances:
        for slot, e in inst.updates.items():
            feeds.setdefault(slot, []).append(e)
    todo = list(live)
    while todo:
        slot = todo.pop()
        for e in feeds.get(slot, ()):
            for read in slots_read(e):
                if read not in live:
                    live.add(read)
                    todo.append(read)
    dead = set(range(layout.width)) - live
    if not dead:
        return
    for inst in instances:
        inst.updates = {slot: e for slot, e in inst.updates.items() if slot not in dead}
        inst.overflows = [(c, what) for c, what in inst.overflows if not (slots_read(c) & dead)]
    layout.untracked = dead


def _constraints_on(L: Lowerer, nodes: list[Node], path, guard: Expr, state: bool) -> Expr:
    """CONSTRAINT (``state``: read on the successor) or ACTION_CONSTRAINT (read
    on the step) as conditions of the step: TLC neither counts nor expands a
    state outside them."""
    if not nodes:
        return TRUE
    from modelcheck.tlaplus.lower import LCtx
    from modelcheck.tlaplus.symbolic import cond
    parts = []
    for n in nodes:
        d = L.program.scope.lookup(n.args[0])
        if d is None:
            raise TlaError(f"the module defines no {n.args[0]} (named by the .cfg)")
        ctx = LCtx(L.program.scope, {}, path.assigned, state)
        L.path, L.failures = [guard], path.failures
        try:
            parts.append(cond(L.eval(n, ctx), f" ({n.args[0]} must be a condition)"))
        finally:
            L.path = []
    return and_(*parts)


def _invariant(L: Lowerer, program: Program, name: str) -> tuple[Expr, list[tuple[Expr, str]]]:
    """An invariant as a condition, and where TLC cannot evaluate it (its
    failures: TLC stops there, as it stops on a step it cannot evaluate). In
    a state where it cannot be evaluated the condition holds, so that the
    evaluation check, not the invariant, reports that state."""
    here = Loc(program.root_path, 0, 0)
    if "!" in name:  # Inv!1: a part of a definition
        base, *positions = name.split("!")
        if not positions or not all(p.isdigit() for p in positions):
            raise TlaError(f"INVARIANT {name}: expected Op!1 (a part of a definition)")
        node = Node("subexpr", (base, tuple(int(p) for p in positions)), here)
    else:
        if program.scope.lookup(name) is None:
            raise TlaError(f"INVARIANT {name}: the module defines no {name}")
        node = Node("name", (name,), here)
    from modelcheck.tlaplus.symbolic import cond
    L.path, L.failures = [], []
    value = L.eval(node, L.root())
    failures = [(c, f"evaluating invariant {name} failed: {m}") for c, m in L.failures if c is not FALSE]
    L.failures = []
    e = cond(value, f" ({name} must be a state predicate)")
    return (or_(*(c for c, _ in failures), e) if failures else e), failures


def _view(program: Program, cfg: TlaConfig, A: ActionLowerer, L: Lowerer) -> tuple[str, ...]:
    if not cfg.view:
        return ()
    d = program.scope.lookup(cfg.view)
    if not isinstance(d, OpBinding):
        raise TlaError(f"VIEW {cfg.view}: the module defines no such operator")
    out: list[str] = []
    _view_variables(d.opdef.body, d.scope, A, L, out)
    return tuple(dict.fromkeys(out))


def _view_variables(node: Node, scope, A: ActionLowerer, L: Lowerer, out: list) -> None:
    from modelcheck.tlaplus.lower import LCtx
    if node.kind == "tuple":
        for a in node.args:
            _view_variables(a, scope, A, L, out)
        return
    v = A._variable(node, LCtx(scope, {}))
    if v is not None:
        out.append(v)
        return
    if node.kind == "name":
        d = scope.lookup(node.args[0])
        if isinstance(d, OpBinding) and not d.opdef.params:
            _view_variables(d.opdef.body, d.scope, A, L, out)
            return
    raise Unsupported("a VIEW other than a tuple of variables (and of definitions that are such tuples)", node.loc)


# --- the spec definition ----------------------------------------------------------------------------------

def _constant_decls(ev: Evaluator) -> tuple[ConstantDecl, ...]:
    """The module's constants as the report and traces give them: each with
    the kind of its value (the values themselves are compiled in). A value no
    constant kind describes (a function, a set of values of several kinds) is
    left out of the list."""
    out = []
    for name, v in ev.constants.items():
        if isinstance(v, OpValue):
            continue
        kind = _kind_of(v)
        if kind is not None:
            out.append(ConstantDecl(name, kind, _plain(v, ev.order)))
    return tuple(out)


def _kind_of(v: Any) -> Any:
    """The constant kind (``modelcheck.language.constants``) of a TLA+ value; None if none fits."""
    if type(v) is bool:
        return BOOL
    if type(v) is int:
        return INT
    if isinstance(v, ModelValue):
        return MODEL_VALUE
    if isinstance(v, str):
        return STRING
    if isinstance(v, (frozenset, tuple)):
        kinds = {_kind_of(x) for x in v}
        if len(kinds) != 1 or None in kinds:
            return None if v else (MODEL_VALUES if isinstance(v, frozenset) else None)
        element = kinds.pop()
        if isinstance(v, tuple):
            return seq_of(element)
        return MODEL_VALUES if element == MODEL_VALUE else set_of(element)
    if isinstance(v, Record):
        kinds = {k: _kind_of(x) for k, x in v.items()}
        return None if None in kinds.values() else record_of(**kinds)
    return None


def _plain(v: Any, order: TlcOrder) -> Any:
    """A TLA+ value as a constant's default: sets in TLC's order, model values by name."""
    if isinstance(v, ModelValue):
        return str.__str__(v)
    if isinstance(v, frozenset):
        return tuple(_plain(x, order) for x in sort_values(v, order))
    if isinstance(v, tuple):
        return tuple(_plain(x, order) for x in v)
    if isinstance(v, Record):
        return Record((k, _plain(x, order)) for k, x in v.items())
    return v


def _spec_definition(program, cfg, ev, order, variables, shapes, layout, instances, invariants, init_leaves,
                     overflow_messages, view, widen=None, fair_actions=(), properties=(),
                     invariant_failures=()) -> SpecDefinition:
    module = program.root_module.name
    width = layout.width
    fields_list = []
    for v in variables:
        for i, leaf in enumerate(shapes[v].leaves(v)):
            fields_list.append(Field(f"{leaf.path}" if leaf.path else v, (), leaf.lo, leaf.hi, leaf.kind))
    fields_list = _unique_names(fields_list)
    fields_list.append(Field(OVERFLOW, (), 0, max(1, len(overflow_messages)), "int"))
    messages = {m for inst in instances for _, m in inst.failures}
    fields_list.append(Field(EVALUATION, (), 0, max(1, len(messages)), "int"))

    by_action: dict[str, list[Instance]] = {}
    for inst in instances:
        by_action.setdefault(inst.action, []).append(inst)

    failure_texts: list[str] = []

    def make_action(name: str, group: list[Instance]) -> ActionDef:
        def fn(s, n, _i):
            inst = group[_i]
            for slot, e in _with_failures(inst, width + 1, failure_texts).items():
                n._assign(slot, e)
            n.require(_guard_with_failures(inst))
            n._shown = inst.shown
        domain = Domain(f"{name} instances", lambda c, k=len(group): range(k))
        return ActionDef(name, fn, (("_i", domain),), None, f"{name}, lowered from the TLA+ module")

    actions = tuple(make_action(name, group) for name, group in by_action.items())
    fairness = []
    for part, group in fair_actions:
        kind, _, target = part.args
        fairness.append(Fairness(kind, make_action(_action_label(target), group)))
    specifications = (Specification(cfg.specification or "Spec", tuple(fairness),
                                    "the .cfg's SPECIFICATION" if cfg.specification else "Init /\\ [][Next]_vars"),)
    rank = {}
    for name, group in by_action.items():
        for k, inst in enumerate(group):
            rank[(name, k)] = inst.seq

    def instance_order(built: list) -> list:
        return sorted(built, key=lambda inst: (rank[(inst.action, inst.params[0][1])], inst.failure))

    def fields(c):
        return list(fields_list)

    def init(s, n):  # the initial states in TLC's order (the reference evaluator's)
        for slot, value in enumerate(n.one_of(init_leaves)):
            n._assign(slot, const(value))
        n._assign(width, const(0))
        n._assign(width + 1, const(0))

    predicates = []
    for name, e in invariants.items():
        predicates.append(PredicateDef(name, lambda s, e=e: e, f"{name}, from the TLA+ module", "invariant"))
    overflow_texts = list(overflow_messages)

    def explain_overflow(probe):
        code = probe.value(var(width))
        what = overflow_texts[code - 1] if 0 < code <= len(overflow_texts) else "a bound"
        return (f"a state outgrows the room modelcheck gave it: {what}; the bounds were learned from the first "
                f"states, and a search past them needs them wider")
    predicates.append(PredicateDef(BOUNDS_CHECK, lambda s: eq(var(width), 0),
                                   "Every state fits the bounds the front-end gave its variables.", "invariant",
                                   explain_overflow))
    def explain_evaluation(probe):
        for c, message in invariant_failures:
            if probe.value(c):
                return f"TLC cannot evaluate this state: {message}"
        code = probe.value(var(width + 1))
        messages = failure_texts
        what = messages[code - 1] if 0 < code <= len(messages) else "a value it needs"
        return f"TLC cannot evaluate the next step: {what}"
    evaluable = and_(eq(var(width + 1), 0), *(not_(c) for c, _ in invariant_failures))
    predicates.append(PredicateDef(EVALUATION_CHECK, lambda s: evaluable,
                                   "TLC can evaluate every step taken and every invariant.", "invariant",
                                   explain_evaluation))

    def variables_codec(c, schema):
        codecs = {}
        for v in variables:
            base = layout.base[v]
            codecs[v] = ShapeCodec(shapes[v], list(range(base, base + shapes[v].width())), order)
        return StateCodec(schema, codecs, hidden=(width, width + 1))

    where = os.path.relpath(program.root_path) if not program.root_path.startswith("/") else program.root_path
    return SpecDefinition(
        name=module, module=module, summary=f"TLA+ module {module} ({where})",
        constants=_constant_decls(ev), fields=fields, init=init, next=actions,
        invariants=tuple(predicates), default_invariants=tuple(cfg.invariants), variables=variables_codec,
        origin=f"read from {where} by modelcheck's TLA+ front-end", view=view, view_default=bool(view),
        instance_order=instance_order, port_checks=(BOUNDS_CHECK,), evaluation_check=EVALUATION_CHECK,
        check_constants=None, widen=widen, ported=False, specifications=specifications,
        evaluation_in_state=_in_state(invariant_failures),
        properties=tuple(properties))


def _in_state(invariant_failures) -> Any:
    """Whether TLC cannot evaluate one of the invariants in a state."""
    if not invariant_failures:
        return None
    from modelcheck.language.interpreter import evaluate
    failing = or_(*(c for c, _ in invariant_failures))
    return lambda state: bool(evaluate(failing, tuple(state)))


def _action_label(node: Node) -> str:
    """How a fairness condition's action is named: its definition's name (with its arguments' text)."""
    if node.kind == "name":
        return node.args[0]
    if node.kind == "apply":
        return f"{node.args[0]}(...)"
    return f"the action at {node.loc}"


def _failing(inst: Instance) -> Expr:
    """Where the instance's step is one TLC cannot evaluate (given its guard,
    whose own conjuncts are left out)."""
    guard = inst.guard.args if inst.guard.op == "and" else (inst.guard,)
    known = {id(g) for g in guard}
    parts = []
    for c, _ in inst.failures:
        rest = [a for a in (c.args if c.op == "and" else (c,)) if id(a) not in known]
        parts.append(and_(*rest))
    return or_(*parts)


def _guard_with_failures(inst: Instance) -> Expr:
    if inst.guard is FALSE:  # an instance that only fails
        return or_(*(c for c, _ in inst.failures))
    return inst.guard


def _with_failures(inst: Instance, error_slot: int, texts: list[str]) -> dict[int, Expr]:
    """The instance's assignments, where TLC cannot evaluate its step turned
    into a state that records which evaluation failed (the evaluation check
    then stops the run there, as TLC stops): one instance, not a second one
    with the same guard, so the guard is computed once."""
    if not inst.failures:
        return dict(inst.updates)
    code: Expr = const(0)
    for c, message in reversed(inst.failures):
        if message not in texts:
            texts.append(message)
        code = ite(c, texts.index(message) + 1, code)
    if inst.guard is FALSE:
        return {error_slot: code}
    failing = _failing(inst)
    out = {slot: ite(failing, var(slot), e) for slot, e in inst.updates.items()}
    out[error_slot] = code
    return out


def _unique_names(fields_list: list[Field]) -> list[Field]:
    seen: dict[str, int] = {}
    out = []
    for f in fields_list:
        name = f.name
        if name in seen or name.startswith("_") or name in ("c", "require", "built_guard", "built_assignments"):
            seen[name] = seen.get(name, 0) + 1
            name = f"{name}~{seen[name]}"
        seen.setdefault(name, 0)
        out.append(Field(name, f.shape, f.lo, f.hi, f.kind))
    return out
