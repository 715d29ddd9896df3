"""What a spec declares its parts with: parameter domains, actions,
invariants and reachability checks, and the order TLC tries Next's action
instances in. ``modelcheck.model.spec`` gathers them into a spec definition
(and offers them under its own name, where specs import them from).

May import: the language, the errors.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Sequence

from modelcheck.language.constants import Constants
from modelcheck.language.schema import StateView


@dataclass(frozen=True)
class Domain:
    """A finite parameter domain that depends on the constants.

    ``values`` gives the internal values (small ints); ``show`` turns one into
    the TLA+ value users see (a replica name, an epoch...).
    """

    name: str
    values: Callable[[Constants], Sequence[int]]
    show: Callable[[Constants, int], Any] = lambda c, v: v


def members_of(constant: str) -> Domain:
    """A parameter over the members of a set constant (``\\E rm \\in RM``):
    its positions 0, 1, ... in the constant's (TLC's) order, shown as the members."""
    return Domain(constant, lambda c: range(len(c[constant])), lambda c, i: c[constant][i])


def interval(lo: int | Callable[[Constants], int], hi: int | Callable[[Constants], int], name: str = "") -> Domain:
    """A parameter over the integers lo..hi (each bound a number or a
    function of the constants)."""
    low = lo if callable(lo) else (lambda c: lo)
    high = hi if callable(hi) else (lambda c: hi)
    return Domain(name or "integers", lambda c: range(low(c), high(c) + 1))


def values_of(constant: str) -> Domain:
    """A parameter over the values of a set constant themselves (a set of
    integers such as ``Ballot``, or of sets such as ``Quorum``), in TLC's order."""
    return Domain(constant, lambda c: list(c[constant]))


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
    # for an action restricted to some parameters (``fixing``): the action it restricts
    of: str = ""

    def __call__(this, s, n, /, **params):  # noqa: N805 (a parameter may be called self)
        return this.fn(s, n, **params)


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


def fixing(act: ActionDef, name: str | None = None, **fixed: int) -> ActionDef:
    """``act`` with some parameters fixed (their positions, as the action
    receives them): one conjunct of ``\\A p \\in S : WF_vars(A(p))``, fairness
    on each process's instance of an action rather than on the whole action."""
    where = act.where

    def only(**params):
        return all(params[k] == v for k, v in fixed.items()) and (where is None or where(**params))
    label = name or f"{act.name}({', '.join(f'{k}={v}' for k, v in fixed.items())})"
    return ActionDef(label, act.fn, act.params, only, act.doc, act.cases, act.of or act.name)


def sometimes(fn=None, *, unreachable: Callable[[Any], str | None] | None = None):
    """A state predicate that some reachable state must satisfy, so that a
    spec that cannot move (and therefore breaks nothing) does not pass unnoticed.
    ``@sometimes(unreachable=f)``: ``f(constants)`` says why no state can
    satisfy it under those constants (e.g. no fault the limits allow can
    leave a partition leaderless), or returns None."""
    def wrap(f) -> PredicateDef:
        return PredicateDef(f.__name__, f, (f.__doc__ or "").strip(), "sometimes", unreachable=unreachable)
    return wrap(fn) if fn is not None else wrap


def next_disjuncts(*groups: ActionDef | Sequence[ActionDef]):
    """An ``instance_order`` for a Next written as a disjunction, each
    disjunct an action or a tuple of actions sharing their first parameter
    (``\\E b \\in S : A1(b) \\/ A2(b, ...)``), in the order Next writes them:
    TLC tries the disjuncts in turn, and within a tuple, for each value of
    the first parameter, each action in turn. Within one action, instances
    keep their order (parameters nested as declared)."""
    rank: dict[str, tuple[int, int, bool]] = {}
    for g, group in enumerate(groups):
        members = (group,) if isinstance(group, ActionDef) else tuple(group)
        for k, act in enumerate(members):
            rank[act.name] = (g, k, len(members) > 1)

    def order(instances: list[ActionInstance]) -> list[ActionInstance]:
        def key(pair):
            position, inst = pair
            g, k, shared = rank.get(inst.action, (len(groups), 0, False))
            first = inst.params[0][1] if shared and inst.params else 0
            return (g, first, k, position)
        return [inst for _, inst in sorted(enumerate(instances), key=key)]
    return order


def by_first_parameter(actions: Sequence[ActionDef], after: Sequence[ActionDef] = (),
                       before: Sequence[ActionDef] = ()):
    """An ``instance_order`` for a Next of the form
    ``(\\E b \\in S : A1(b) \\/ A2(b) \\/ ...) \\/ B1 \\/ ...``, which TLC
    splits into the actions A1(b1), A2(b1), ..., A1(b2), ..., then B1, ...: the
    instances of ``before`` (action by action), then those of ``actions``
    ordered by the value of their first parameter, then by the action's place
    in ``actions``; then those of ``after``. Within one action, instances
    keep their order (parameters nested as declared)."""
    rank = {a.name: k for k, a in enumerate(actions)}
    tail = {a.name: k for k, a in enumerate(after)}
    head = {a.name: k for k, a in enumerate(before)}

    def order(instances: list[ActionInstance]) -> list[ActionInstance]:
        def key(pair):
            position, inst = pair
            if inst.action in head:
                return (-1, head[inst.action], 0, position)
            if inst.action in rank:
                return (0, inst.params[0][1], rank[inst.action], position)
            return (1, tail.get(inst.action, len(tail)), 0, position)
        return [inst for _, inst in sorted(enumerate(instances), key=key)]
    return order
