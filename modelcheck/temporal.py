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
  ``infinitely_often_implies_eventually(P, Q)`` (([]<>P) => <>Q), and
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
from dataclasses import dataclass, field
from typing import Any, Callable

from modelcheck.errors import SpecDefinitionError
from modelcheck.expr import BOOL, TRUE, Expr, and_, lift, not_

# --- fairness and specifications --------------------------------------------------


@dataclass(frozen=True)
class Fairness:
    kind: str  # "WF" or "SF"
    action: Any  # an ActionDef, in Next or not

    def label(self) -> str:
        return f"{self.kind}_vars({self.action.name})"


def WF(action) -> Fairness:
    """Weak fairness: if the action is eventually always enabled, it is taken infinitely often."""
    return Fairness("WF", action)


def SF(action) -> Fairness:
    """Strong fairness: if the action is enabled infinitely often, it is taken infinitely often."""
    return Fairness("SF", action)


@dataclass(frozen=True)
class Specification:
    name: str
    fairness: tuple[Fairness, ...]
    doc: str = ""


def no_fairness(doc: str = "Init /\\ [][Next]_vars with no fairness at all.") -> Specification:
    return Specification("NoFairSpec", (), doc)


# --- property formulas -------------------------------------------------------------
# A formula holds Exprs already built against the model's views, so the same
# tree serves every engine. Step predicates read slots width..2*width-1 for
# the next state.


@dataclass(frozen=True)
class Formula:
    form: str  # one of FORMS
    args: tuple[Expr, ...]


FORMS = {
    "eventually": "<>P",
    "always_eventually": "[]<>P",
    "eventually_always": "<>[]P",
    "leads_to": "P ~> Q",
    "eventually_always_step": "<>[][A]_vars",
    "infinitely_often_implies_eventually": "([]<>P) => <>Q",
    "infinitely_often_implies_infinitely_often": "([]<>P) => []<>Q",
}


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


def forall(s, domain, body: Callable[[int], Formula]) -> ForAll:
    names = body.__code__.co_varnames
    variable = names[0] if names else "x"
    cases = []
    for v in domain.values(s.c):
        f = body(v)
        if not isinstance(f, Formula):
            raise SpecDefinitionError("forall's body must build a temporal formula (eventually, leads_to, ...)")
        cases.append((domain.show(s.c, v), f))
    return ForAll(variable, tuple(cases))


@dataclass(frozen=True)
class PropertyDef:
    name: str
    fn: Callable[..., Any]
    doc: str
    steps: bool  # whether it reads the next state

    def build(self, current, following) -> list[tuple[str, Formula]]:
        """The property's cases: ("", formula), or ("r=r1", formula) per value of a forall."""
        built = self.fn(current, following) if self.steps else self.fn(current)
        if isinstance(built, Formula):
            return [("", built)]
        if isinstance(built, ForAll):
            return [(f"{built.variable}={value}", f) for value, f in built.cases]
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


def negation(f: Formula) -> Negation:
    """~<>P = []~P; ~[]<>P = <>[]~P; ~<>[]P = []<>~P; ~(P ~> Q) = <>(P /\\ []~Q);
    ~<>[][A]_v = []<><<~A>>_v; ~(([]<>P) => <>Q) = []<>P /\\ []~Q;
    ~(([]<>P) => []<>Q) = []<>P /\\ <>[]~Q."""
    a = f.args
    if f.form == "eventually":
        return Negation("initial", TRUE, not_(a[0]))
    if f.form == "always_eventually":
        return Negation("anywhere", TRUE, not_(a[0]))
    if f.form == "eventually_always":
        return Negation("anywhere", TRUE, TRUE, infinitely_states=(not_(a[0]),))
    if f.form == "leads_to":
        return Negation("anywhere", and_(a[0], not_(a[1])), not_(a[1]))
    if f.form == "eventually_always_step":
        return Negation("anywhere", TRUE, TRUE, infinitely_steps=(not_(a[0]),))
    if f.form == "infinitely_often_implies_eventually":
        return Negation("initial", TRUE, not_(a[1]), infinitely_states=(a[0],))
    if f.form == "infinitely_often_implies_infinitely_often":
        return Negation("anywhere", TRUE, not_(a[1]), infinitely_states=(a[0],))
    raise SpecDefinitionError(f"unknown temporal form {f.form}")


@dataclass
class PropertyCase:
    """One case of a property on a model: its formula and its negation."""

    property: str
    case: str  # "" or "r=r1"
    formula: Formula
    negation: Negation = field(init=False)

    def __post_init__(self):
        self.negation = negation(self.formula)

    @property
    def label(self) -> str:
        return f"{self.property} ({self.case})" if self.case else self.property
