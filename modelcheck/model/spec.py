"""How a spec is declared, and what it becomes once its constants are known.

A spec module declares, once:

* its constants (``ConstantDecl``) and the fields of its state;
* ``Init``, written against a ``NextState`` builder;
* its actions, each a function decorated with ``@action(param=DOMAIN, ...)``
  that reads ``s`` (the current state) and writes ``n`` (the next state and the
  guard);
* its invariants (``@invariant``) and reachability checks (``@sometimes``).

``SpecDefinition.instantiate(constants)`` runs every action once per
combination of parameter values. Parameters are concrete Python values, so
each run yields one *action instance*: a guard expression and an expression
per assigned slot. Instances whose guard folds to FALSE are dropped. The
resulting ``Model`` is what every engine consumes; no engine sees the action
functions themselves.
"""

from __future__ import annotations

import gc
import itertools
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from modelcheck.language.constants import ConstantDecl, Constants, resolve
from modelcheck.errors import InputError, SpecDefinitionError, no_such
from modelcheck.language.expr import BOOL, FALSE, TRUE, Expr, and_, const_value, is_const, ite, lift, not_, or_
from modelcheck.language.schema import Field, NextState, Schema, StateView


@dataclass(frozen=True)
class Domain:
    """A finite parameter domain that depends on the constants.

    ``values`` gives the internal values (small ints); ``show`` turns one into
    the TLA+ value users see (a replica name, an epoch...).
    """

    name: str
    values: Callable[[Constants], Sequence[int]]
    show: Callable[[Constants, int], Any] = lambda c, v: v


@dataclass(frozen=True)
class ActionDef:
    name: str
    fn: Callable[..., None]
    params: tuple[tuple[str, Domain], ...]
    where: Callable[..., bool] | None
    doc: str
    # The branches of the TLA+ action's disjunction, by name: each a function
    # (s, **params) -> condition. Coverage reports how often each held, and
    # flags one that can never hold (see modelcheck/capabilities/coverage.py).
    cases: tuple[tuple[str, Callable[..., Any]], ...] = ()

    def __call__(self, s, n, **params):
        return self.fn(s, n, **params)


def action(where: Callable[..., bool] | None = None, cases: dict[str, Callable[..., Any]] | None = None,
           **params: Domain):
    """Declare an action named after its function, quantified over ``params``.

    ``where`` drops parameter combinations whose guard is false by
    construction (for example a replica fetching from itself); the docstring of
    each such use says why the combination can never fire. ``cases`` names the
    branches of the TLA+ action (see ``ActionDef.cases``).
    """
    def wrap(fn):
        return ActionDef(fn.__name__, fn, tuple(params.items()), where, (fn.__doc__ or "").strip(),
                         tuple((cases or {}).items()))
    return wrap


@dataclass(frozen=True)
class PredicateDef:
    name: str
    fn: Callable[[StateView], Any]
    doc: str
    kind: str  # "invariant" or "sometimes"
    # Phrases a broken invariant in the protocol's terms: takes a
    # modelcheck.model.explain.Probe on the first violating state, returns a
    # sentence or None (then a generic account of the failing conjuncts is used).
    explain: Callable[[Any], str | None] | None = None
    # For a reachability check: given the constants, why no state can satisfy
    # it (a sentence), or None when one may. A check never reached for a
    # reason the constants give says so, rather than that the model may be vacuous.
    unreachable: Callable[[Any], str | None] | None = None


def invariant(fn=None, *, explain: Callable[[Any], str | None] | None = None):
    """Declare an invariant; ``@invariant(explain=f)`` also names the function
    that explains a violation of it (see modelcheck/model/explain.py)."""
    def wrap(f) -> PredicateDef:
        return PredicateDef(f.__name__, f, (f.__doc__ or "").strip(), "invariant", explain)
    return wrap(fn) if fn is not None else wrap


def sometimes(fn=None, *, unreachable: Callable[[Any], str | None] | None = None):
    """A state predicate that some reachable state must satisfy, so that a
    spec that cannot move (and therefore breaks nothing) does not pass unnoticed.
    ``@sometimes(unreachable=f)``: ``f(constants)`` says why no state can
    satisfy it under those constants (e.g. no fault the limits allow can
    leave a partition leaderless), or returns None."""
    def wrap(f) -> PredicateDef:
        return PredicateDef(f.__name__, f, (f.__doc__ or "").strip(), "sometimes", unreachable=unreachable)
    return wrap(fn) if fn is not None else wrap


UPSTREAM = "from github.com/hachikuji/kafka-specification"


def written_here(path: str, relation: str = "") -> str:
    """The origin of a TLA+ module written in this repository: where its text
    is, and what it builds on (e.g. "it extends Kip320")."""
    return f"written in this repository ({path})" + (f"; {relation}" if relation else "")


@dataclass(frozen=True)
class SpecDefinition:
    name: str  # the CLI name
    module: str  # the TLA+ module it carries over
    summary: str
    constants: tuple[ConstantDecl, ...]
    fields: Callable[[Constants], list[Field]]
    init: Callable[[StateView, NextState], None]
    next: tuple[ActionDef, ...]
    invariants: tuple[PredicateDef, ...]
    default_invariants: tuple[str, ...]
    variables: Callable[[Constants, Schema], Any]  # -> codec.StateCodec
    sometimes: tuple[PredicateDef, ...] = ()
    notes: str = ""
    check_constants: Callable[[Constants], None] | None = None
    # Constants whose model values are interchangeable (TLC's SYMMETRY): renaming
    # them maps Init, every action and every predicate onto itself. Engines may
    # use it to prune; tests check the claim on small models.
    symmetry: tuple[str, ...] = ()
    # Invariants offered as lemmas for proofs by induction (`prove --lemmas`).
    lemmas: tuple[str, ...] = ()
    # Temporal properties (modelcheck.language.temporal) and the named specifications
    # they are checked under; the first is the default and is called "Spec".
    properties: tuple[Any, ...] = ()
    specifications: tuple[Any, ...] = ()
    origin: str = UPSTREAM  # where the TLA+ module comes from: upstream, or written_here(path)
    # TLC's VIEW, when the module defines one as a tuple of its variables: the
    # names of the variables it keeps (see Model.view). ``view_default``: whether
    # a run applies it when not told (the module's own .cfg does).
    view: tuple[str, ...] = ()
    view_default: bool = False
    # The order of Next's action instances, when it is not action by action:
    # a function from the instances (in declaration order) to the same
    # instances in the order TLC tries them (see spec.by_first_parameter).
    instance_order: Callable[[list["ActionInstance"]], list["ActionInstance"]] | None = None
    # Invariants of the port itself rather than of the protocol (no bounded
    # set or sequence overflows): checked in every run, and a violation is
    # reported as constants the port does not support (exit 2), with the
    # invariant's explanation, not as a protocol counterexample.
    port_checks: tuple[str, ...] = ()
    # The invariant that fails in the state a step TLC cannot evaluate leads
    # to (NextState.fails_if): checked in every run and reported as TLC
    # reports such a step, an evaluation error (exit 75), not a violation.
    evaluation_check: str | None = None
    # How the trace viewers draw a state of this spec: a function returning
    # its layouts (modelcheck.model.display.Layout), called only when a trace is
    # shown. None: the viewer picks a layout by the spec's variables.
    layout: Callable[[], Sequence[Any]] | None = None

    def source(self) -> str:
        """The TLA+ module this spec ports and where that module comes from."""
        return f"port of TLA+ module {self.module}, {self.origin}"

    def invariant_summary(self, name: str) -> str:
        """What an invariant means, in one sentence: the first of its docstring."""
        doc = " ".join(next(p.doc for p in self.invariants if p.name == name).split())
        end = doc.find(". ")
        return doc if end < 0 else doc[:end + 1]

    def resolve_constants(self, given: dict[str, str] | None = None,
                          parsed: dict[str, Any] | None = None) -> Constants:
        constants = resolve(self.constants, given or {}, self.name, parsed)
        if self.check_constants:
            self.check_constants(constants)
        return constants

    def unreachable_reason(self, name: str, constants) -> str | None:
        """Why the reachability check ``name`` cannot hold under ``constants``, if the spec says."""
        check = next((p for p in self.sometimes if p.name == name), None)
        return check.unreachable(constants) if check is not None and check.unreachable is not None else None

    def invariant_names(self) -> list[str]:
        return [p.name for p in self.invariants]

    def check_invariant_names(self, names: Sequence[str]) -> None:
        known = self.invariant_names()
        for n in names:
            if n not in known:
                raise InputError(no_such(f"{self.name} has no invariant", n, known, "its invariants"))

    def property_names(self) -> list[str]:
        return [p.name for p in self.properties]

    def specification_names(self) -> list[str]:
        return [sp.name for sp in self.all_specifications()]

    def all_specifications(self) -> tuple[Any, ...]:
        """The named specifications; a spec that declares none has Spec with no fairness."""
        if self.specifications:
            return tuple(self.specifications)
        from modelcheck.language.temporal import Specification
        return (Specification("Spec", (), "Init /\\ [][Next]_vars (the module declares no fairness)."),)

    def specification(self, name: str | None):
        specs = self.all_specifications()
        if name is None:
            return specs[0]
        for sp in specs:
            if sp.name == name:
                return sp
        raise InputError(no_such(f"{self.name} has no specification", name, [sp.name for sp in specs],
                                 "its specifications"))

    def property_forms(self) -> dict[str, tuple[Any, str]]:
        """Each temporal property's form (a ``modelcheck.language.temporal.Form``) and
        the variable of its cases ("" for one case), read by building it
        against the default constants' fields: no actions are instantiated."""
        from modelcheck.language.temporal import FORMS
        if not self.properties:
            return {}
        c = self.resolve_constants()
        schema = Schema(self.fields(c))
        current, following = StateView(schema, c), StateView(_Shifted(schema), c)
        out = {}
        for p in self.properties:
            cases = p.build(current, following)
            out[p.name] = (FORMS[cases[0][1].form], cases[0][0].split("=", 1)[0])
        return out

    def check_property_names(self, names: Sequence[str]) -> None:
        known = self.property_names()
        for n in names:
            if n not in known:
                raise InputError(no_such(f"{self.name} has no temporal property", n, known, "its properties"))

    def instantiate(self, constants: Constants, view: bool | None = None) -> "Model":
        """The model for these constants; ``view`` applies the module's VIEW
        (None: its default)."""
        with _collector_paused():
            return Model(self, constants, self.view_default if view is None else view)


@contextmanager
def _collector_paused():
    """Building a model makes hundreds of thousands of expression nodes, all
    kept, and none in a reference cycle; the cyclic garbage collector would
    walk every one of them again and again as they pile up (more than half
    of a KRaft model's build time). It is paused while a model is built and
    resumed as it was."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


@dataclass
class ActionInstance:
    """One action with every parameter fixed: a guard and its assignments."""

    index: int
    action: str
    params: tuple[tuple[str, int], ...]
    shown_params: tuple[tuple[str, Any], ...]
    guard: Expr
    updates: dict[int, Expr]
    failure: bool = False  # the twin of an instance TLC cannot evaluate (see Model._failure_instance)

    def label(self) -> str:
        failed = " (evaluation fails)" if self.failure else ""
        if not self.shown_params:
            return self.action + failed
        inner = ", ".join(f"{k}={_show(v)}" for k, v in self.shown_params)
        return f"{self.action}({inner}){failed}"


def _show(v: Any) -> str:
    if isinstance(v, bool):
        return "TRUE" if v else "FALSE"
    return str(v)


@dataclass
class Model:
    """A spec instantiated with constants: the input of every engine."""

    spec: SpecDefinition
    constants: Constants
    # Whether states are told apart by the spec's VIEW only: two states with
    # the same view count once, and the first found is kept (its full state
    # goes on being explored), as in TLC.
    view: bool = False
    schema: Schema = field(init=False)
    init_states: list[tuple] = field(init=False)
    instances: list[ActionInstance] = field(init=False)
    invariants: dict[str, Expr] = field(init=False)
    sometimes: dict[str, Expr] = field(init=False)
    codec: Any = field(init=False)
    # Why TLC could not evaluate a step: message k - 1 for evaluation_error = k.
    failure_messages: list[str] = field(init=False, default_factory=list)

    def __post_init__(self):
        spec, c = self.spec, self.constants
        self.schema = Schema(spec.fields(c))
        view = StateView(self.schema, c)
        self.init_states = [self._build_init(view)]
        self.instances = self._build_instances(view)
        self.invariants = {p.name: self._predicate(p, view) for p in spec.invariants}
        self.sometimes = {p.name: self._predicate(p, view) for p in spec.sometimes}
        self.codec = spec.variables(c, self.schema)
        if self.view:
            self.schema.view_slots = self._view_slots()
        self._compiled = None

    def _view_slots(self) -> tuple[int, ...]:
        if not self.spec.view:
            raise InputError(f"{self.spec.name} defines no VIEW")
        variables = self.codec.variables
        unknown = [v for v in self.spec.view if v not in variables]
        if unknown:
            raise SpecDefinitionError(f"{self.spec.name}: its VIEW names unknown variables {', '.join(unknown)}")
        kept = {slot for v in self.spec.view for slot in variables[v].slots()}
        return tuple(sorted(kept | set(getattr(self.codec, "hidden", ()))))

    # --- building -------------------------------------------------------
    def _build_init(self, view: StateView) -> tuple:
        n = NextState(self.schema, view)
        self.spec.init(view, n)
        if n.built_guard() is not TRUE:
            raise SpecDefinitionError(f"{self.spec.name}: Init must only assign values")
        state = []
        for slot in range(self.schema.width):
            e = n.built_assignments().get(slot)
            if e is None:
                raise SpecDefinitionError(f"{self.spec.name}: Init leaves {self.schema.slot_names[slot]} unassigned")
            if not is_const(e):
                raise SpecDefinitionError(f"{self.spec.name}: Init must assign constants, "
                                          f"not {e!r} to {self.schema.slot_names[slot]}")
            state.append(int(const_value(e)))
        state = tuple(state)
        self.check_ranges(state, "Init")
        return state

    def _build_instances(self, view: StateView, actions=None) -> list[ActionInstance]:
        out: list[ActionInstance] = []
        c = self.constants
        for act in (self.spec.next if actions is None else actions):
            names = [p for p, _ in act.params]
            domains = [list(d.values(c)) for _, d in act.params]
            for combo in itertools.product(*domains):
                params = dict(zip(names, combo))
                if act.where is not None and not act.where(**params):
                    continue
                n = NextState(self.schema, view)
                act.fn(view, n, **params)
                guard = n.built_guard()
                if guard is FALSE:
                    continue
                shown = tuple((p, d.show(c, v)) for (p, d), v in zip(act.params, combo))
                failing = or_(*(cond for cond, _ in n._failures))
                out.append(ActionInstance(len(out), act.name, tuple(params.items()), shown,
                                          and_(guard, not_(failing)), n.built_assignments()))
                if failing is not FALSE:
                    out.append(self._failure_instance(len(out), out[-1], guard, n._failures))
        if actions is None and self.spec.instance_order is not None:
            ordered = self.spec.instance_order(out)
            if sorted(id(i) for i in ordered) != sorted(id(i) for i in out):
                raise SpecDefinitionError(f"{self.spec.name}: instance_order must return every instance once")
            for k, inst in enumerate(ordered):
                inst.index = k
            out = list(ordered)
        return out

    def _failure_instance(self, index: int, inst: "ActionInstance", guard: Expr, failures) -> "ActionInstance":
        """Where TLC cannot evaluate an action instance (``NextState.fails_if``),
        a twin instance leads to a state that records which evaluation failed
        (the ``evaluation_error`` field, 1 + the message's number), which the
        spec's evaluation check then reports. It sits right after the instance,
        so it is met where TLC meets the error."""
        if "evaluation_error" not in self.schema.by_name:
            raise SpecDefinitionError(f"{self.spec.name}: fails_if needs a field named evaluation_error")
        code: Expr = lift(0)
        for cond, message in reversed(failures):
            if message not in self.failure_messages:
                self.failure_messages.append(message)
            code = ite(cond, self.failure_messages.index(message) + 1, code)
        slot = self.schema.slot("evaluation_error")
        return ActionInstance(index, inst.action, inst.params, inst.shown_params,
                              and_(guard, or_(*(c for c, _ in failures))), {slot: code}, failure=True)

    def _predicate(self, p: PredicateDef, view: StateView) -> Expr:
        e = lift(p.fn(view))
        if e.sort != BOOL:
            raise SpecDefinitionError(f"{self.spec.name}: {p.name} must be a condition")
        return e

    def instances_of(self, act: ActionDef) -> list[ActionInstance]:
        """Every instance of one action, whether or not it is part of Next
        (fairness may name an action Next does not use). Indices are local."""
        return self._build_instances(StateView(self.schema, self.constants), (act,))

    def property_cases(self, name: str) -> list:
        """The cases of a temporal property (one per value of a forall), built
        against the current state's view and the next state's (slots shifted
        by the state's width)."""
        from modelcheck.language.temporal import PropertyCase
        prop = next(p for p in self.spec.properties if p.name == name)
        current = StateView(self.schema, self.constants)
        following = StateView(_Shifted(self.schema), self.constants)
        return [PropertyCase(name, case, f, bound) for case, f, bound in prop.build(current, following)]

    # --- using ----------------------------------------------------------
    def check_ranges(self, state: tuple, where: str) -> None:
        schema = self.schema
        for slot, (v, lo, hi) in enumerate(zip(state, schema.lo, schema.hi)):
            if not lo <= v <= hi:
                raise SpecDefinitionError(
                    f"{self.spec.name}: {where} puts {v} in {schema.slot_names[slot]}, outside {lo}..{hi}")

    @property
    def compiled(self):
        """The spec compiled to Python functions (built on first use)."""
        if self._compiled is None:
            from modelcheck.backends.python_codegen import compile_model
            self._compiled = compile_model(self)
        return self._compiled

    def successors(self, state: tuple) -> list[tuple[int, tuple]]:
        """(instance index, next state) for every enabled action instance."""
        return self.compiled.successors(state)

    def instance_labels(self) -> list[str]:
        return [i.label() for i in self.instances]

    def key(self) -> tuple:
        """A small picklable name for this model: ``modelcheck.specs.load_model(key)``
        rebuilds it in another process (worker processes, Spark executors)."""
        if self.view:
            return (self.spec.name, tuple(self.constants.items()), "view")
        return (self.spec.name, tuple(self.constants.items()))

    def describe_constants(self) -> str:
        from modelcheck.language.constants import format_value
        kinds = {d.name: d.kind for d in self.spec.constants}
        return " ".join(f"{k}={format_value(kinds[k], v)}" for k, v in self.constants.items())

    def json_constants(self) -> dict[str, Any]:
        from modelcheck.language.constants import json_value
        kinds = {d.name: d.kind for d in self.spec.constants}
        return {k: json_value(kinds[k], v) for k, v in self.constants.items()}


class _Shifted:
    """A schema's field layout moved past the current state: what a step
    predicate reads as the next state (TLA+'s primed variables)."""

    def __init__(self, schema: Schema):
        self.by_name = schema.by_name
        self.base = {name: base + schema.width for name, base in schema.base.items()}
        self.compounds = schema.compounds  # records, sets and sequences find their slots through slot()
        self._schema = schema

    def slot(self, name: str, *index: int) -> int:
        return self._schema.slot(name, *index) + self._schema.width


def by_first_parameter(actions: Sequence[ActionDef], after: Sequence[ActionDef] = ()):
    """An ``instance_order`` for a Next of the form
    ``(\\E b \\in S : A1(b) \\/ A2(b) \\/ ...) \\/ B1 \\/ ...``, which TLC
    splits into the actions A1(b1), A2(b1), ..., A1(b2), ..., then B1, ...: the
    instances of ``actions`` ordered by the value of their first parameter,
    then by the action's place in ``actions``; then those of ``after``.
    Within one action, instances keep their order (parameters nested as declared)."""
    rank = {a.name: k for k, a in enumerate(actions)}
    tail = {a.name: k for k, a in enumerate(after)}

    def order(instances: list[ActionInstance]) -> list[ActionInstance]:
        def key(pair):
            position, inst = pair
            if inst.action in rank:
                return (0, inst.params[0][1], rank[inst.action], position)
            return (1, tail.get(inst.action, len(tail)), 0, position)
        return [inst for _, inst in sorted(enumerate(instances), key=key)]
    return order
