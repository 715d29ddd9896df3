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

import itertools
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from modelcheck.constants import ConstantDecl, Constants, resolve
from modelcheck.errors import InputError, SpecDefinitionError
from modelcheck.expr import BOOL, FALSE, TRUE, Expr, const_value, is_const, lift
from modelcheck.schema import Field, NextState, Schema, StateView


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
    # flags one that can never hold (see modelcheck/coverage.py).
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
    # modelcheck.explain.Probe on the first violating state, returns a
    # sentence or None (then a generic account of the failing conjuncts is used).
    explain: Callable[[Any], str | None] | None = None


def invariant(fn=None, *, explain: Callable[[Any], str | None] | None = None):
    """Declare an invariant; ``@invariant(explain=f)`` also names the function
    that explains a violation of it (see modelcheck/explain.py)."""
    def wrap(f) -> PredicateDef:
        return PredicateDef(f.__name__, f, (f.__doc__ or "").strip(), "invariant", explain)
    return wrap(fn) if fn is not None else wrap


def sometimes(fn) -> PredicateDef:
    """A state predicate that some reachable state must satisfy, so that a
    spec that cannot move (and therefore breaks nothing) does not pass unnoticed."""
    return PredicateDef(fn.__name__, fn, (fn.__doc__ or "").strip(), "sometimes")


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
    # Temporal properties (modelcheck.temporal) and the named specifications
    # they are checked under; the first is the default and is called "Spec".
    properties: tuple[Any, ...] = ()
    specifications: tuple[Any, ...] = ()
    origin: str = UPSTREAM  # where the TLA+ module comes from: upstream, or written_here(path)

    def source(self) -> str:
        """The TLA+ module this spec ports and where that module comes from."""
        return f"port of TLA+ module {self.module}, {self.origin}"

    def invariant_summary(self, name: str) -> str:
        """What an invariant means, in one sentence: the first of its docstring."""
        doc = " ".join(next(p.doc for p in self.invariants if p.name == name).split())
        end = doc.find(". ")
        return doc if end < 0 else doc[:end + 1]

    def constant_decl(self, name: str) -> ConstantDecl:
        for d in self.constants:
            if d.name == name:
                return d
        raise KeyError(name)

    def resolve_constants(self, given: dict[str, str] | None = None,
                          parsed: dict[str, Any] | None = None) -> Constants:
        constants = resolve(self.constants, given or {}, self.name, parsed)
        if self.check_constants:
            self.check_constants(constants)
        return constants

    def invariant_names(self) -> list[str]:
        return [p.name for p in self.invariants]

    def check_invariant_names(self, names: Sequence[str]) -> None:
        known = self.invariant_names()
        for n in names:
            if n not in known:
                raise InputError(f"{self.name} has no invariant {n!r} (its invariants: {', '.join(known)})")

    def property_names(self) -> list[str]:
        return [p.name for p in self.properties]

    def specification_names(self) -> list[str]:
        return [sp.name for sp in self.all_specifications()]

    def all_specifications(self) -> tuple[Any, ...]:
        """The named specifications; a spec that declares none has Spec with no fairness."""
        if self.specifications:
            return tuple(self.specifications)
        from modelcheck.temporal import Specification
        return (Specification("Spec", (), "Init /\\ [][Next]_vars (the module declares no fairness)."),)

    def specification(self, name: str | None):
        specs = self.all_specifications()
        if name is None:
            return specs[0]
        for sp in specs:
            if sp.name == name:
                return sp
        raise InputError(f"{self.name} has no specification {name!r} "
                         f"(its specifications: {', '.join(sp.name for sp in specs)})")

    def check_property_names(self, names: Sequence[str]) -> None:
        known = self.property_names()
        for n in names:
            if n not in known:
                listed = ", ".join(known) if known else "none"
                raise InputError(f"{self.name} has no temporal property {n!r} (its properties: {listed})")

    def instantiate(self, constants: Constants) -> "Model":
        return Model(self, constants)


@dataclass
class ActionInstance:
    """One action with every parameter fixed: a guard and its assignments."""

    index: int
    action: str
    params: tuple[tuple[str, int], ...]
    shown_params: tuple[tuple[str, Any], ...]
    guard: Expr
    updates: dict[int, Expr]

    def label(self) -> str:
        if not self.shown_params:
            return self.action
        inner = ", ".join(f"{k}={_show(v)}" for k, v in self.shown_params)
        return f"{self.action}({inner})"


def _show(v: Any) -> str:
    if isinstance(v, bool):
        return "TRUE" if v else "FALSE"
    return str(v)


@dataclass
class Model:
    """A spec instantiated with constants: the input of every engine."""

    spec: SpecDefinition
    constants: Constants
    schema: Schema = field(init=False)
    init_states: list[tuple] = field(init=False)
    instances: list[ActionInstance] = field(init=False)
    invariants: dict[str, Expr] = field(init=False)
    sometimes: dict[str, Expr] = field(init=False)
    codec: Any = field(init=False)

    def __post_init__(self):
        spec, c = self.spec, self.constants
        self.schema = Schema(spec.fields(c))
        view = StateView(self.schema, c)
        self.init_states = [self._build_init(view)]
        self.instances = self._build_instances(view)
        self.invariants = {p.name: self._predicate(p, view) for p in spec.invariants}
        self.sometimes = {p.name: self._predicate(p, view) for p in spec.sometimes}
        self.codec = spec.variables(c, self.schema)
        self._compiled = None

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
                out.append(ActionInstance(len(out), act.name, tuple(params.items()), shown, guard, n.built_assignments()))
        return out

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
        from modelcheck.temporal import PropertyCase
        prop = next(p for p in self.spec.properties if p.name == name)
        current = StateView(self.schema, self.constants)
        following = StateView(_Shifted(self.schema), self.constants)
        return [PropertyCase(name, case, f) for case, f in prop.build(current, following)]

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
        """A small picklable name for this model: ``load_model(key)`` rebuilds
        it in another process (worker processes, Spark executors)."""
        return (self.spec.name, tuple(self.constants.items()))

    def describe_constants(self) -> str:
        from modelcheck.constants import format_value
        kinds = {d.name: d.kind for d in self.spec.constants}
        return " ".join(f"{k}={format_value(kinds[k], v)}" for k, v in self.constants.items())

    def json_constants(self) -> dict[str, Any]:
        from modelcheck.constants import json_value
        kinds = {d.name: d.kind for d in self.spec.constants}
        return {k: json_value(kinds[k], v) for k, v in self.constants.items()}


class _Shifted:
    """A schema's field layout moved past the current state: what a step
    predicate reads as the next state (TLA+'s primed variables)."""

    def __init__(self, schema: Schema):
        self.by_name = schema.by_name
        self.base = {name: base + schema.width for name, base in schema.base.items()}


_LOADED: dict[tuple, Model] = {}


def load_model(key: tuple) -> Model:
    """The model named by ``Model.key()``, built once per process."""
    model = _LOADED.get(key)
    if model is None:
        from specs import get_spec
        name, items = key
        spec = get_spec(name)
        model = spec.instantiate(spec.resolve_constants(parsed=dict(items)))
        _LOADED[key] = model
    return model
