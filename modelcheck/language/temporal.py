"""Fairness, named specifications and temporal properties, declared once per spec.

A TLA+ ``Spec`` is ``Init /\\ [][Next]_vars`` plus fairness conditions. A spec
module here declares that second half next to its invariants:

* ``WF(action)`` / ``SF(action)``: weak or strong fairness on a whole action,
  that is on the disjunction over all of its parameters. The action need not
  be part of Next (Kip320FirstTry's Spec names KafkaReplication's
  LeaderExpandIsr, which its Next does not use); what counts is whether a
  step of the behaviour *satisfies* the action, as in TLA+.
* ``Specification(name, fairness, doc)``: a named specification. Every spec
  has ``Spec``; some offer more (``NoFairSpec``, ``FairFetchSpec``).
* temporal properties (``@temporal``), built from the same expression
  vocabulary as invariants, in the forms

  ``eventually(P)`` (<>P), ``always_eventually(P)`` ([]<>P),
  ``eventually_always(P)`` (<>[]P), ``leads_to(P, Q)`` (P ~> Q),
  ``eventually_always_step(A)`` (<>[][A]_vars, A over a step),
  ``infinitely_often_implies_eventually(P, Q)`` (([]<>P) => <>Q),
  ``initially_implies_eventually(P, Q)`` (P => <>Q, P of the initial state), and
  ``forall(s, DOMAIN, lambda x: ...)`` over a finite domain of any of these.

A property function takes the current state ``s`` and, when it speaks of a
step, the next state ``t`` as a second argument.

Each form is carried over as the small automaton of its *negation*
(``Negation``), which is what the liveness checker searches for: a fair
behaviour that stays in some set of states from some point on and meets
some conditions infinitely often.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Sequence

from modelcheck.errors import SpecDefinitionError
from modelcheck.language.expr import BOOL, TRUE, Expr, and_, lift, not_

# --- fairness and specifications --------------------------------------------------


# fairness in words, for reports: the TLA+ form (``label``) stays in --json and the docs
FAIRNESS_WORDS = {"WF": ("weak fairness", "if it stays possible, it eventually happens"),
                  "SF": ("strong fairness", "if it is possible again and again, it eventually happens")}


@dataclass(frozen=True)
class Fairness:
    kind: str  # "WF" or "SF"
    action: Any  # an ActionDef, in Next or not
    # One of a family of conditions, ``\A p : WF_vars(A(p))`` (``each_value``):
    # the action A of Next (``family``) with its parameter p fixed to one value
    # (``fixed``: the parameter and the value, as A's domain numbers it).
    family: str | None = None
    fixed: tuple[str, int] | None = None

    def label(self) -> str:
        """The TLA+ form, WF_vars(A) or SF_vars(A)."""
        return f"{self.kind}_vars({self.action.name})"

    def words(self) -> str:
        """"strong fairness on A"."""
        return f"{FAIRNESS_WORDS[self.kind][0]} on {self.action.name}"

    def meaning(self) -> str:
        """"strong fairness on A: if it is possible again and again, it eventually happens"."""
        return f"{self.words()}: {FAIRNESS_WORDS[self.kind][1]}"

    def family_name(self) -> str:
        """A family's member named for the whole family: "BrokerStart(b)"."""
        return f"{self.family}({self.fixed[0]})"

    def exists(self, constants) -> bool:
        """Whether the value a family's member fixes is among its parameter's
        values under ``constants`` (a fourth broker's condition does not
        exist in a model of two brokers: it has no instance, and holds trivially)."""
        if self.fixed is None:
            return True
        parameter, value = self.fixed
        return value in dict(self.action.params)[parameter].values(constants)

    def outside_next(self, spec_name: str, name: str | None = None) -> str:
        """Why a fairness condition may name an action its spec never takes."""
        a = name or self.action.name
        return (f"{a} is not among {spec_name}'s actions: the TLA+ module's specification names it, although "
                f"its Next never takes it, so a step counts as taking {a} when it changes the state as {a} "
                f"would, whichever of {spec_name}'s actions makes it")


def WF(action) -> Fairness:
    """Weak fairness: if the action is eventually always enabled, it is taken infinitely often."""
    return Fairness("WF", action)


def SF(action) -> Fairness:
    """Strong fairness: if the action is enabled infinitely often, it is taken infinitely often."""
    return Fairness("SF", action)


def each_value(kind: str, action, parameter: str, values: Sequence[int]) -> tuple[Fairness, ...]:
    """``\\A p : WF_vars(A(p))`` (``kind`` "WF") or SF: fairness on the action
    ``A`` for each value of its parameter ``p`` separately, not on A as a whole
    (which would be fair to a behaviour that takes A for one value only). One
    condition per value in ``values``, the most any model has: those a model
    lacks hold trivially, and reports leave them out (``Specification.for_model``)."""
    domain = dict(action.params)[parameter]
    where = action.where

    def member(value: int) -> Fairness:
        def only(**params):
            return params[parameter] == value and (where is None or where(**params))
        shown = domain.show(None, value)
        restricted = replace(action, name=f"{action.name}({shown})", where=only, of=action.of or action.name)
        return Fairness(kind, restricted, action.name, (parameter, value))
    return tuple(member(v) for v in values)


@dataclass(frozen=True)
class Specification:
    name: str
    fairness: tuple[Fairness, ...]
    doc: str = ""

    def for_model(self, constants) -> "Specification":
        """The conditions that exist under ``constants``: a family's members
        for values its parameter does not have are left out (they hold
        trivially), so reports speak only of what the model has."""
        kept = tuple(f for f in self.fairness if f.exists(constants))
        return self if len(kept) == len(self.fairness) else replace(self, fairness=kept)

    def fairness_label(self) -> str:
        """The TLA+ form: "SF_vars(A), WF_vars(B)", or "no fairness"."""
        return ", ".join(self.labels()) or "no fairness"

    def labels(self) -> list[str]:
        """Each condition in TLA+ form, a family once: ``\\A b : WF_vars(BrokerStart(b))``."""
        out = []
        for f in self.fairness:
            if f.family is None:
                out.append(f.label())
            else:
                out.append(f"\\A {f.fixed[0]} : {f.kind}_vars({f.family_name()})")
        return list(dict.fromkeys(out))

    def fairness_words(self, constants=None) -> str:
        """In words, strong then weak: "strong fairness on A, B; weak fairness on C", or "no fairness".
        A family is named once, for its parameter ("BrokerStart(b), ... for each broker b"),
        with the parameter's values under ``constants`` when given."""
        groups = []
        for kind in ("SF", "WF"):
            plain = [f.action.name for f in self.fairness if f.kind == kind and f.family is None]
            families = [f for f in self.fairness if f.kind == kind and f.family is not None]
            for parameter in dict.fromkeys(f.fixed[0] for f in families):
                members = [f for f in families if f.fixed[0] == parameter]
                names = ", ".join(dict.fromkeys(f.family_name() for f in members))
                plain.append(f"{names} {for_each(members, constants)}")
            if plain:
                groups.append(f"{FAIRNESS_WORDS[kind][0]} on {', '.join(plain)}")
        return "; ".join(groups) or "no fairness"

    def fairness_meanings(self) -> list[str]:
        """What each kind of fairness it uses means, one line each."""
        kinds = [k for k in ("SF", "WF") if any(f.kind == k for f in self.fairness)]
        return [f"{FAIRNESS_WORDS[k][0]} on an action: {FAIRNESS_WORDS[k][1]}" for k in kinds]

    def outside_next(self, spec_name: str, actions) -> list[str]:
        """A sentence for each action, not among ``actions`` (the spec's
        Next), that a fairness condition names (or restricts, ``fixing``)."""
        names = {a.name for a in actions}
        out: dict[str, str] = {}
        for f in self.fairness:
            base = getattr(f.action, "of", "") or f.action.name
            if base not in names and f.action.name not in names and base not in out:
                out[base] = f.outside_next(spec_name, base)
        return list(out.values())


def for_each(members: Sequence[Fairness], constants=None) -> str:
    """"for each broker b", or with the constants "for each broker b in {1, 2}"."""
    parameter = members[0].fixed[0]
    domain = dict(members[0].action.params)[parameter]
    said = f"for each {domain.name} {parameter}" if domain.name != parameter else f"for each {parameter}"
    if constants is None:
        return said
    values = sorted({f.fixed[1] for f in members if f.exists(constants)})
    return f"{said} in {{{', '.join(str(domain.show(constants, v)) for v in values)}}}"


def no_fairness(doc: str = "Init /\\ [][Next]_vars with no fairness at all.") -> Specification:
    return Specification("NoFairSpec", (), doc)


# --- property formulas -------------------------------------------------------------
# A formula holds Exprs already built against the model's views, so the same
# tree serves every engine. Step predicates read slots width..2*width-1 for
# the next state.


@dataclass(frozen=True)
class Formula:
    form: str  # the name of its form, a key of FORMS
    args: tuple[Expr, ...]


def _condition(value, where: str) -> Expr:
    e = lift(value)
    if e.sort != BOOL:
        raise SpecDefinitionError(f"{where} needs a condition")
    return e


def eventually(p) -> Formula:
    return Formula("eventually", (_condition(p, "eventually"),))


def always_eventually(p) -> Formula:
    return Formula("always_eventually", (_condition(p, "always_eventually"),))


def eventually_always(p) -> Formula:
    return Formula("eventually_always", (_condition(p, "eventually_always"),))


def leads_to(p, q) -> Formula:
    return Formula("leads_to", (_condition(p, "leads_to"), _condition(q, "leads_to")))


def eventually_always_step(a) -> Formula:
    """<>[][A]_vars: from some point on, every step that changes the state satisfies A."""
    return Formula("eventually_always_step", (_condition(a, "eventually_always_step"),))


def infinitely_often_implies_eventually(p, q) -> Formula:
    return Formula("infinitely_often_implies_eventually",
                   (_condition(p, "infinitely_often_implies_eventually"),
                    _condition(q, "infinitely_often_implies_eventually")))


def initially_implies_eventually(p, q) -> Formula:
    """P => <>Q, P a condition on the initial state: if it holds at the
    start, Q holds at some point (ChangRoberts' Liveness)."""
    return Formula("initially_implies_eventually", (_condition(p, "initially_implies_eventually"),
                                                    _condition(q, "initially_implies_eventually")))


def infinitely_often_implies_infinitely_often(p, q) -> Formula:
    """([]<>P) => []<>Q: if P holds infinitely often, so does Q (what
    []<>(P ~> Q) amounts to, a leads-to being an always-formula)."""
    return Formula("infinitely_often_implies_infinitely_often",
                   (_condition(p, "infinitely_often_implies_infinitely_often"),
                    _condition(q, "infinitely_often_implies_infinitely_often")))


@dataclass(frozen=True)
class ForAll:
    """\\A x \\in DOMAIN : body(x), one formula per value."""

    variable: str
    cases: tuple[tuple[Any, Formula], ...]  # (shown value, formula)
    domain: str = ""  # the name of the domain it ranges over (a constant such as Replicas)
    values: tuple[int, ...] = ()  # the internal value of each case


def forall(s, domain, body: Callable[[int], Formula]) -> ForAll:
    names = body.__code__.co_varnames
    variable = names[0] if names else "x"
    cases, values = [], []
    for v in domain.values(s.c):
        f = body(v)
        if not isinstance(f, Formula):
            raise SpecDefinitionError("forall's body must build a temporal formula (eventually, leads_to, ...)")
        cases.append((domain.show(s.c, v), f))
        values.append(int(v))
    return ForAll(variable, tuple(cases), domain.name, tuple(values))


@dataclass(frozen=True)
class PropertyDef:
    name: str
    fn: Callable[..., Any]
    doc: str
    steps: bool  # whether it reads the next state

    def build(self, current, following) -> list[tuple[str, Formula, tuple[str, int] | None]]:
        """The property's cases: ("", formula, None), or ("r=r1", formula,
        (domain name, value)) per value of a forall."""
        built = self.fn(current, following) if self.steps else self.fn(current)
        if isinstance(built, Formula):
            return [("", built, None)]
        if isinstance(built, ForAll):
            return [(f"{built.variable}={value}", f, (built.domain, v))
                    for (value, f), v in zip(built.cases, built.values)]
        raise SpecDefinitionError(f"{self.name} must return a temporal formula, not {type(built).__name__}")


def temporal(fn) -> PropertyDef:
    """Declare a temporal property named after its function."""
    arity = len(inspect.signature(fn).parameters)
    if arity not in (1, 2):
        raise SpecDefinitionError(f"{fn.__name__}: a temporal property takes (s) or (s, t)")
    return PropertyDef(fn.__name__, fn, (fn.__doc__ or "").strip(), arity == 2)


# --- negations -----------------------------------------------------------------------


@dataclass(frozen=True)
class Negation:
    """The shape of a counterexample to one property case.

    A behaviour violates the property iff, from an *entry* state, it stays
    forever in the states satisfying ``stay``, and meets each of
    ``infinitely_states`` at infinitely many states and each of
    ``infinitely_steps`` at infinitely many state-changing steps.

    ``entry`` is "initial" (the entry must be an initial state: the whole
    behaviour stays in ``stay``) or "anywhere" (any reachable state that
    satisfies ``trigger`` and ``stay``).
    """

    entry: str
    trigger: Expr
    stay: Expr
    infinitely_states: tuple[Expr, ...] = ()
    infinitely_steps: tuple[Expr, ...] = ()


class Form:
    """A temporal form, everything about it in one place: its name and TLA+
    notation, the automaton of its negation (what the cycle search looks
    for), when the infinite behaviour a lasso stands for violates it, and
    how to say so. ``value[i]`` holds argument i's truth at each state of
    the lasso, or, for a form over steps, at each state-changing step of its
    cycle (``lasso.cycle_steps()``)."""

    name = ""
    notation = ""  # the TLA+ form, for --json and the docs
    words = ""  # the form in a few words, for reports and listings
    meaning = ""  # what it asks of a behaviour, in a sentence
    over_steps = False  # its condition reads a step (a state and the next), not a state

    def notation_for(self, variable: str = "") -> str:
        """The TLA+ form, under ``\\A variable`` for a property with a case per value."""
        if not variable:
            return self.notation
        body = self.notation.replace("P", f"P({variable})").replace("Q", f"Q({variable})")
        return f"\\A {variable} : {body}"

    def words_for(self, variable: str = "") -> str:
        return f"for each {variable}, {self.words}" if variable else self.words

    def negation(self, args: tuple[Expr, ...]) -> Negation:
        raise NotImplementedError

    def violated(self, value: list[list[bool]], lasso) -> bool:
        raise NotImplementedError

    def what_fails(self, value: list[list[bool]], lasso, span: str) -> str:
        """Why the lasso violates it (the lasso is known to)."""
        raise NotImplementedError


class Eventually(Form):
    name, notation = "eventually", "<>P"
    words, meaning = "eventually", "its condition holds at some point"

    def negation(self, args):  # ~<>P = []~P, from the start
        return Negation("initial", TRUE, not_(args[0]))

    def violated(self, value, lasso):
        return not any(value[0])

    def what_fails(self, value, lasso, span):
        return "the condition holds in no state of the behaviour"


class AlwaysEventually(Form):
    name, notation = "always_eventually", "[]<>P"
    words, meaning = "again and again", "its condition holds again and again, forever"

    def negation(self, args):  # ~[]<>P = <>[]~P
        return Negation("anywhere", TRUE, not_(args[0]))

    def violated(self, value, lasso):
        return not any(value[0][k] for k in lasso.cycle_states())

    def what_fails(self, value, lasso, span):
        return (f"the condition holds in no state of the cycle ({span}), so from state {lasso.loop + 1} on it "
                f"never holds again")


class EventuallyAlways(Form):
    name, notation = "eventually_always", "<>[]P"
    words, meaning = "eventually for good", "from some point on, its condition holds forever"

    def negation(self, args):  # ~<>[]P = []<>~P
        return Negation("anywhere", TRUE, TRUE, infinitely_states=(not_(args[0]),))

    def violated(self, value, lasso):
        return not all(value[0][k] for k in lasso.cycle_states())

    def what_fails(self, value, lasso, span):
        k = next(k for k in lasso.cycle_states() if not value[0][k])
        return f"the condition fails in state {k + 1}, which is on the cycle ({span}) and so recurs forever"


class LeadsTo(Form):
    name, notation = "leads_to", "P ~> Q"
    words, meaning = "leads to", "whenever its first condition holds, its second holds then or later"

    def negation(self, args):  # ~(P ~> Q) = <>(P /\ []~Q)
        return Negation("anywhere", and_(args[0], not_(args[1])), not_(args[1]))

    def _unanswered(self, value, lasso):
        p, q = value
        return (i for i in range(len(lasso.states)) if p[i] and not any(q[min(i, lasso.loop):]))

    def violated(self, value, lasso):
        return any(True for _ in self._unanswered(value, lasso))

    def what_fails(self, value, lasso, span):
        i = next(self._unanswered(value, lasso))
        return f"the first condition holds in state {i + 1}, and the second holds in no state from there on"


class EventuallyAlwaysStep(Form):
    name, notation, over_steps = "eventually_always_step", "<>[][A]_vars", True
    words = "eventually every step"
    meaning = "from some point on, every step that changes the state is of the kind it allows"

    def negation(self, args):  # ~<>[][A]_v = []<><<~A>>_v
        return Negation("anywhere", TRUE, TRUE, infinitely_steps=(not_(args[0]),))

    def violated(self, value, lasso):
        return not all(value[0])

    def what_fails(self, value, lasso, span):
        a, b = next(step for step, holds in zip(lasso.cycle_steps(), value[0]) if not holds)
        return (f"the step from state {a + 1} to state {b + 1} is of a kind the property rules out, and the "
                f"cycle ({span}) repeats it forever")


class InfinitelyOftenImpliesEventually(Form):
    name, notation = "infinitely_often_implies_eventually", "([]<>P) => <>Q"
    words = "if again and again, then eventually"
    meaning = "if its first condition holds again and again, its second holds at some point"

    def negation(self, args):  # ~(([]<>P) => <>Q) = []<>P /\ []~Q
        return Negation("initial", TRUE, not_(args[1]), infinitely_states=(args[0],))

    def violated(self, value, lasso):
        return any(value[0][k] for k in lasso.cycle_states()) and not any(value[1])

    def what_fails(self, value, lasso, span):
        k = next(k for k in lasso.cycle_states() if value[0][k])
        return (f"the first condition holds in state {k + 1} on the cycle ({span}), so infinitely often, "
                f"but the second holds in no state")


class InfinitelyOftenImpliesInfinitelyOften(Form):
    name, notation = "infinitely_often_implies_infinitely_often", "([]<>P) => []<>Q"
    words = "if again and again, then again and again"
    meaning = "if its first condition holds again and again, so does its second"

    def negation(self, args):  # ~(([]<>P) => []<>Q) = []<>P /\ <>[]~Q
        return Negation("anywhere", TRUE, not_(args[1]), infinitely_states=(args[0],))

    def violated(self, value, lasso):
        cycle = list(lasso.cycle_states())
        return any(value[0][k] for k in cycle) and not any(value[1][k] for k in cycle)

    def what_fails(self, value, lasso, span):
        k = next(k for k in lasso.cycle_states() if value[0][k])
        return (f"the first condition holds in state {k + 1} on the cycle ({span}), so infinitely often, "
                f"but the second holds in no state of the cycle, so from state {lasso.loop + 1} on it never "
                f"holds again")


class InitiallyImpliesEventually(Form):
    name, notation = "initially_implies_eventually", "P => <>Q"
    words = "if at the start, then eventually"
    meaning = "if its first condition holds in the initial state, its second holds at some point"

    def negation(self, args):  # ~(P => <>Q) = P /\ []~Q, P of the initial state
        return Negation("initial", args[0], not_(args[1]))

    def violated(self, value, lasso):
        return value[0][0] and not any(value[1])

    def what_fails(self, value, lasso, span):
        return "the first condition holds in the initial state, and the second holds in no state of the behaviour"


# every form, by name: a new one is a Form here, added to FORMS, and a function above that builds its Formula
FORMS: dict[str, Form] = {f.name: f for f in (Eventually(), AlwaysEventually(), EventuallyAlways(), LeadsTo(),
                                              EventuallyAlwaysStep(), InfinitelyOftenImpliesEventually(),
                                              InfinitelyOftenImpliesInfinitelyOften(),
                                              InitiallyImpliesEventually())}


def negation(f: Formula) -> Negation:
    """The automaton of a formula's negation."""
    form = FORMS.get(f.form)
    if form is None:
        raise SpecDefinitionError(f"unknown temporal form {f.form}")
    return form.negation(f.args)


@dataclass
class PropertyCase:
    """One case of a property on a model: its formula and its negation."""

    property: str
    case: str  # "" or "r=r1"
    formula: Formula
    bound: tuple[str, int] | None = None  # a forall's case: the domain's name and the value it binds
    negation: Negation = field(init=False)

    def __post_init__(self):
        self.negation = negation(self.formula)

    @property
    def label(self) -> str:
        return f"{self.property} ({self.case})" if self.case else self.property
