"""How a spec is declared, and what it becomes once its constants are known.

A spec module declares, once:

* its constants (``ConstantDecl``) and the fields of its state;
* ``Init``, written against a ``NextState`` builder; ``n.one_of(values)``
  makes it a set of initial states (TLA+'s ``x \\in S``), enumerated in
  TLC's order;
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
import hashlib
import itertools
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

from modelcheck.language.constants import ConstantDecl, Constants, resolve
from modelcheck.errors import InputError, SpecDefinitionError, TraceFormatError, no_such
from modelcheck.language.digest import TreeDigests
from modelcheck.language.expr import BOOL, FALSE, TRUE, Expr, and_, const_value, is_const, ite, lift, not_, or_
from modelcheck.language.schema import Field, NextState, Schema, StateView
from modelcheck.model.declarations import (ActionDef, Domain, PredicateDef, action, by_first_parameter,  # noqa: F401
                                           fixing, interval, invariant, members_of, next_disjuncts, sometimes,
                                           values_of)
from modelcheck.model.placing import defining, spec_location  # noqa: F401


UPSTREAM = "from github.com/hachikuji/kafka-specification"


def written_here(path: str, relation: str = "") -> str:
    """The origin of a TLA+ module written in this repository: where its text
    is, and what it builds on (e.g. "it extends Kip320")."""
    return f"written in this repository ({path})" + (f"; {relation}" if relation else "")


@dataclass(frozen=True)
class SpecDefinition:
    """A spec, declared once; every engine reads it through ``instantiate``.

    Required: ``name`` (what the command line calls it), ``fields`` (a
    function of the constants giving the state's fields), ``init`` and
    ``next`` (its actions). ``variables`` (how the fields read as TLA+
    variables) may be left out when every field says what TLA+ values it
    holds (``enumerated``, ``subset`` of values, ``keys``, records and sets
    of records): it is then derived from them."""

    name: str  # the CLI name
    module: str = ""  # the TLA+ module it carries over (default: its name)
    summary: str = ""
    constants: tuple[ConstantDecl, ...] = ()
    fields: Callable[[Constants], list[Field]] = None  # type: ignore[assignment]
    init: Callable[[StateView, NextState], None] = None  # type: ignore[assignment]
    next: tuple[ActionDef, ...] = ()
    invariants: tuple[PredicateDef, ...] = ()
    # the invariants a run checks when not told (default: all of them)
    default_invariants: tuple[str, ...] = None  # type: ignore[assignment]
    variables: Callable[[Constants, Schema], Any] | None = None  # -> codec.StateCodec; None: derived from the fields
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
    origin: str = ""  # where the TLA+ module comes from: UPSTREAM, or written_here(path)
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
    # Where a port check fails because a state outgrew bounds the spec only
    # estimated (a TLA+ module's learned shapes): given the model and the
    # states of the behaviour that got there, the spec with wider bounds, to
    # search again with; None when it cannot widen them (the failure then
    # stands). None: the port checks are final.
    widen: Callable[[Any, Sequence[tuple]], "SpecDefinition | None"] | None = None
    # ``source()`` says "port of" unless the module is read directly
    ported: bool = True
    # Whether TLC cannot evaluate a state itself (an invariant it fails on, as
    # opposed to a step into the state): the evaluation check then reports the
    # state as found, not as the recording of a failed step. None: never.
    evaluation_in_state: Callable[[tuple], bool] | None = None
    # Values a .cfg's substitutions may name (``Acceptor <- MCAcceptor``):
    # definition name -> its value, in TLA+ notation ("{a1, a2, a3}") or as
    # a Python value of the constant's kind.
    definitions: Mapping[str, Any] = field(default_factory=dict, hash=False, compare=False)
    # Small models of this spec, as constants (name -> value in TLA+ notation):
    # the tests that run over every spec explore the first whole (a few
    # thousand states at most); none: the defaults.
    small_models: tuple[Mapping[str, str], ...] = field(default=(), hash=False, compare=False)
    # Where the spec was found (a modelcheck.loading.registry.SpecSource), set
    # when it is loaded: what a trace records so that it can be found again.
    loaded_from: Any = field(default=None, hash=False, compare=False)

    def __post_init__(self):
        missing = [n for n in ("fields", "init") if getattr(self, n) is None]
        if not self.name or missing:
            raise SpecDefinitionError(f"SpecDefinition {self.name or '(no name)'}: give "
                                      f"{', '.join(missing or ['a name'])}")
        if not self.module:
            object.__setattr__(self, "module", self.name)
        if self.default_invariants is None:
            object.__setattr__(self, "default_invariants", tuple(p.name for p in self.invariants))
        for group in ("next", "invariants", "sometimes", "default_invariants", "properties", "specifications"):
            value = getattr(self, group)
            if not isinstance(value, tuple):
                object.__setattr__(self, group, tuple(value))

    def ref(self) -> str:
        """How another process finds this spec again (``Model.key``): where
        it was loaded from, else its name."""
        return self.loaded_from.ref() if self.loaded_from is not None else self.name

    def source(self) -> str:
        """The TLA+ module this spec ports and where that module comes from
        (and, for a spec from a file, that file)."""
        where = self.loaded_from.describe() if self.loaded_from is not None else ""
        if self.origin and not self.ported:
            return f"TLA+ module {self.module}, {self.origin}"
        if self.origin:
            return f"port of TLA+ module {self.module}, {self.origin}" + (f" ({where})" if where else "")
        return f"TLA+ module {self.module}" + (f", {where}" if where else "")

    def invariant_summary(self, name: str) -> str:
        """What an invariant means, in one sentence: the first of its docstring."""
        doc = " ".join(next(p.doc for p in self.invariants if p.name == name).split())
        end = doc.find(". ")
        return doc if end < 0 else doc[:end + 1]

    def resolve_constants(self, given: dict[str, str] | None = None,
                          parsed: dict[str, Any] | None = None, named_first: Sequence[str] = ()) -> Constants:
        """The constants: defaults, then ``given`` (TLA+ notation) and
        ``parsed`` values; ``named_first``: model values a .cfg declares
        (TLC orders model values by when they are first named)."""
        constants = resolve(self.constants, given or {}, self.name, parsed, named_first)
        if self.check_constants:
            with defining(self, "the constants' check (check_constants)", InputError):
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
        with defining(self, "fields"):
            schema = Schema(self.fields(c))
        current, following = StateView(schema, c), StateView(_Shifted(schema), c)
        out = {}
        for p in self.properties:
            with defining(self, f"temporal property {p.name}"):
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
        with defining(spec, "fields", fn=spec.fields):
            self.schema = Schema(spec.fields(c))
        view = StateView(self.schema, c)
        self.init_states = self._build_init_states(view)
        self.instances = self._build_instances(view)
        self.invariants = {p.name: self._predicate(p, view) for p in spec.invariants}
        self.sometimes = {p.name: self._predicate(p, view) for p in spec.sometimes}
        with defining(spec, "variables (the TLA+ variables of its fields)", fn=spec.variables):
            if spec.variables is not None:
                self.codec = spec.variables(c, self.schema)
            else:
                from modelcheck.language.codec import derived_codec
                self.codec = derived_codec(self.schema)
        self._check_codec()
        if self.view:
            self.schema.view_slots = self._view_slots()
        self._compiled = None
        self._digest: str | None = None

    def _check_codec(self, most: int = 100) -> None:
        """Every initial state (the first ``most``) written as TLA+ values,
        as a trace writes it, must read back as the same state: a codec that
        does not is a mistake in the spec, reported before any search."""
        from modelcheck.language.values import to_itf
        for k, state in enumerate(self.init_states[:most]):
            where = f"initial state {k + 1}" if len(self.init_states) > 1 else "the initial state"
            try:
                with defining(self.spec, f"its TLA+ variables cannot write {where}"):
                    values = self.codec.encode(state)
                    written = {name: to_itf(v) for name, v in values.items()}
                with defining(self.spec, f"its TLA+ variables cannot read back {where}"):
                    back = self.codec.decode(written, where)
            except TraceFormatError as e:  # what it wrote, it cannot read
                raise SpecDefinitionError(f"{self.spec.name}: its TLA+ variables cannot read back {where} as "
                                          f"they write it: {e}") from None
            except (SpecDefinitionError, InputError):
                raise
            except Exception as e:  # raised in a codec of modelcheck's, on what the spec declared
                raise SpecDefinitionError(f"{self.spec.name}: its TLA+ variables cannot write and read back "
                                          f"{where}: {type(e).__name__}: {e}") from None
            if back != state:
                wrong = [self.schema.slot_names[i] for i, (a, b) in enumerate(zip(state, back)) if a != b]
                raise SpecDefinitionError(f"{self.spec.name}: its TLA+ variables read {where} back differently "
                                          f"than they write it (in {', '.join(wrong[:5])}): check variables= "
                                          f"or the to_tla/from_tla of its record types")

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
    def _build_init_states(self, view: StateView, most: int = 1_000_000) -> list[tuple]:
        """Init's states, in TLC's order: Init runs once per combination of
        the values its ``one_of`` calls return (the first call varying
        slowest, as TLC enumerates ``x \\in S`` conjunct by conjunct), and
        the states are kept in the order found, each once."""
        states: list[tuple] = []
        seen: set[tuple] = set()
        path: list[int] | None = []
        runs = 0
        while path is not None:
            chooser = _Chooser(path)
            n = NextState(self.schema, view)
            n._chooser = chooser
            with defining(self.spec, "Init", fn=self.spec.init):
                try:
                    self.spec.init(view, n)
                    state = self._init_state(n)
                except _NoValue:
                    state = None
            if state is not None and state not in seen:
                seen.add(state)
                states.append(state)
            runs += 1
            if runs > most:
                raise SpecDefinitionError(f"{self.spec.name}: Init chooses among more than {most:,} combinations")
            path = chooser.next_path()
        if not states:
            raise SpecDefinitionError(f"{self.spec.name}: Init has no state (every choice fails its require)")
        return states

    def _init_state(self, n: NextState) -> tuple | None:
        guard = n.built_guard()
        if guard is FALSE:
            return None
        if guard is not TRUE:
            raise SpecDefinitionError("Init's conditions (require) must be decided by the constants and the values "
                                      "one_of chose, not by the state: write them in Python on those values")
        state = []
        for slot in range(self.schema.width):
            e = n.built_assignments().get(slot)
            if e is None:
                raise SpecDefinitionError(f"Init leaves {self.schema.slot_names[slot]} unassigned")
            if not is_const(e):
                raise SpecDefinitionError(f"Init must assign values, not {e!r} to {self.schema.slot_names[slot]}")
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
                shown = ", ".join(f"{p}={_show(d.show(c, v))}" for (p, d), v in zip(act.params, combo))
                with defining(self.spec, f"action {act.name}" + (f"({shown})" if shown else ""), fn=act.fn):
                    act.fn(view, n, **params)
                    guard = n.built_guard()
                if guard is FALSE:
                    continue
                # an action may name its instance's parameters itself (a TLA+ module's
                # bound variables, which are not the parameters it is built over)
                shown = n.__dict__.get("_shown")
                if shown is None:
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
        what = "invariant" if p.kind == "invariant" else "reachability check"
        with defining(self.spec, f"{what} {p.name}", fn=p.fn):
            e = lift(p.fn(view))
            if e.sort != BOOL:
                raise SpecDefinitionError("it must give a condition, not a number")
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
        with defining(self.spec, f"temporal property {name}"):
            built = prop.build(current, following)
        return [PropertyCase(name, case, f, bound) for case, f, bound in built]

    # --- using ----------------------------------------------------------
    def definition_digest(self) -> str:
        """A SHA-256 of what the engines read of this model, whatever the
        spec was written in: the state layout (and the VIEW's slots), the
        initial states, each action instance in order (its action,
        parameters, guard and assignments) and each invariant and
        reachability check, as expression trees (``modelcheck.language.digest``).
        A checkpoint carries it: a search saved under other code is never
        continued under this. Computed once."""
        if self._digest is None:
            trees, h = TreeDigests(), hashlib.sha256()

            def put(*parts) -> None:
                for part in parts:
                    h.update(part if isinstance(part, bytes) else repr(part).encode())
                    h.update(b"\0")

            schema = self.schema
            put("schema", schema.slot_names, schema.lo, schema.hi, schema.view_slots)
            put("init", self.init_states)
            for inst in self.instances:
                put("instance", inst.action, inst.params, inst.failure, trees.of(inst.guard))
                for slot in sorted(inst.updates):
                    put(slot, trees.of(inst.updates[slot]))
            for kind, predicates in (("invariant", self.invariants), ("sometimes", self.sometimes)):
                for name, e in predicates.items():
                    put(kind, name, trees.of(e))
            put("failures", self.failure_messages)
            self._digest = h.hexdigest()
        return self._digest

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
        """A small picklable name for this model:
        ``modelcheck.loading.registry.load_model(key)`` rebuilds it in another
        process (Spark executors), finding the spec where it was loaded from."""
        if self.view:
            return (self.spec.ref(), tuple(self.constants.items()), "view")
        return (self.spec.ref(), tuple(self.constants.items()))

    def describe_constants(self) -> str:
        from modelcheck.language.constants import format_value
        kinds = {d.name: d.kind for d in self.spec.constants}
        return " ".join(f"{k}={format_value(kinds[k], v)}" for k, v in self.constants.items())

    def tla_constants(self) -> dict[str, Any]:
        """The constants as TLA+ values (``modelcheck.language.values``)."""
        from modelcheck.language.constants import tla_value
        kinds = {d.name: d.kind for d in self.spec.constants}
        return {k: tla_value(kinds[k], v) for k, v in self.constants.items()}

    def json_constants(self) -> dict[str, Any]:
        from modelcheck.language.constants import json_value
        kinds = {d.name: d.kind for d in self.spec.constants}
        return {k: json_value(kinds[k], v) for k, v in self.constants.items()}


class _NoValue(Exception):
    """Init's one_of was given no values: no initial state on this branch."""


class _Chooser:
    """The values Init's ``one_of`` calls return on one run: the positions
    ``path`` gives, then the first of each; records what each call offered,
    so that ``next_path`` gives the next combination in TLC's order."""

    def __init__(self, path: list[int]):
        self.path = path
        self.taken: list[int] = []
        self.sizes: list[int] = []

    def one_of(self, values):
        values = list(values)
        k = len(self.taken)
        if k < len(self.path) and self.path[k] >= len(values):
            raise SpecDefinitionError("Init's choices changed between runs; one_of must be offered the same values "
                                      "for the same earlier choices")
        if not values:
            raise _NoValue
        position = self.path[k] if k < len(self.path) else 0
        self.taken.append(position)
        self.sizes.append(len(values))
        return values[position]

    def next_path(self) -> list[int] | None:
        """The choices of the next run: the last call that has another value
        takes it, and the calls after it start again from their first."""
        for k in range(len(self.taken) - 1, -1, -1):
            if self.taken[k] + 1 < self.sizes[k]:
                return self.taken[:k] + [self.taken[k] + 1]
        return None


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
