"""Why an invariant is broken, said in the protocol's own terms.

A spec can give each invariant an explanation function, declared next to the
invariant (``@invariant(explain=...)``). It receives a ``Probe`` on the first
state that breaks the invariant. The probe evaluates conditions written in
the spec's own expression language on that concrete state, so an explanation
finds its witnesses (which leader, which follower, which offset) by asking
the same operators the invariant is built from, and only the phrasing is its
own. An invariant without an explanation function, or whose function finds no
witness, gets a generic account: the conjuncts of its definition that are
false, with the TLA+ variables they read and their values.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Sequence

from modelcheck.backends.interpreter import evaluate
from modelcheck.codec import BoolSlot, Const, Fn, IntSlot, KeyedSet, NilOr, Rec, ReplicaSetSlot, ReplicaSlot
from modelcheck.expr import Expr, lift, to_text
from modelcheck.schema import StateView
from modelcheck.values import show


@dataclass
class Probe:
    """One concrete state of a model, open to questions in the spec's vocabulary.

    ``s`` is the same symbolic view actions and invariants are written
    against, so ``probe.holds(replica_presumes_leadership(probe.s, r))`` asks
    the spec's own operator. ``values`` is the state as TLA+ values.
    """

    model: Any
    state: tuple
    s: StateView = field(init=False)
    values: dict[str, Any] = field(init=False)

    def __post_init__(self):
        self.s = StateView(self.model.schema, self.model.constants)
        self.values = self.model.codec.encode(self.state)

    @property
    def c(self):
        return self.model.constants

    def value(self, expr) -> Any:
        """The value of an expression (a condition or an integer) in this state."""
        return evaluate(lift(expr), self.state)

    def holds(self, condition) -> bool:
        return bool(self.value(condition))

    def replica(self, index: int) -> str:
        """A replica's name; a negative index is the spec's "no replica" (NONE)."""
        return "NONE" if index < 0 else self.c.Replicas[index]

    def replica_set(self, mask: int) -> str:
        """A set of replicas held as a bitmask, written as TLA+ writes it."""
        return "{" + ", ".join(n for i, n in enumerate(self.c.Replicas) if mask >> i & 1) + "}"

    def where(self, condition: Callable[..., Any], **domains: Iterable) -> list[dict[str, Any]]:
        """Every binding of ``domains`` (name -> values) under which
        ``condition(s, **binding)`` holds, in the domains' order."""
        names = list(domains)
        found = []
        for combo in itertools.product(*(list(d) for d in domains.values())):
            binding = dict(zip(names, combo))
            if self.holds(condition(self.s, **binding)):
                found.append(binding)
        return found


def first_violation(model, states: Sequence[tuple], invariant: str) -> int | None:
    """The index of the first state that breaks ``invariant``, or None."""
    expr = model.invariants[invariant]
    for i, state in enumerate(states):
        if not evaluate(expr, state):
            return i
    return None


def explain(model, state: tuple, invariant: str) -> str:
    """One paragraph saying why ``state`` breaks ``invariant``."""
    predicate = next(p for p in model.spec.invariants if p.name == invariant)
    probe = Probe(model, state)
    if probe.holds(model.invariants[invariant]):
        return f"{invariant} holds in this state."
    text = predicate.explain(probe) if predicate.explain is not None else None
    if not text:
        text = failing_conjuncts_text(model, state, model.invariants[invariant])
    return f"{invariant} broken: {text}"


# --- the generic account ---------------------------------------------------------

def failing_conjuncts(expr: Expr, state: tuple) -> list[Expr]:
    """The smallest parts of a false condition that are themselves false:
    conjunctions are opened up and a conditional is followed into the branch
    the state takes; anything else is kept whole."""
    if evaluate(expr, state):
        return []
    if expr.op == "and":
        out: list[Expr] = []
        for part in expr.args:
            out.extend(failing_conjuncts(part, state))
        return out
    if expr.op == "ite":
        cond, then, otherwise = expr.args
        return failing_conjuncts(then if evaluate(cond, state) else otherwise, state)
    return [expr]


def failing_conjuncts_text(model, state: tuple, expr: Expr, limit: int = 3, width: int = 200) -> str:
    """The false conjuncts, written with TLA+ variable paths and their values."""
    paths = slot_paths(model)

    def name(slot: int) -> str:
        return f"{paths.get(slot, model.schema.slot_names[slot])}={state[slot]}"

    parts = failing_conjuncts(expr, state)
    shown = []
    for part in parts[:limit]:
        text = to_text(part, name)
        shown.append(text if len(text) <= width else text[:width - 3] + "...")
    more = f" (and {len(parts) - limit} more)" if len(parts) > limit else ""
    lead = "this conjunct of its definition is false" if len(parts) == 1 else \
        "these conjuncts of its definition are false"
    return f"{lead}: {'; '.join(shown)}{more}"


def slot_paths(model) -> dict[int, str]:
    """Each state slot's TLA+ access path (``replicaState[r1].hw``), read off
    the spec's codecs. Slots behind a codec this walk does not know keep their
    schema names."""
    out: dict[int, str] = {}
    for var, codec in model.codec.variables.items():
        _walk(codec, var, out)
    return out


def _walk(codec, path: str, out: dict[int, str]) -> None:
    if isinstance(codec, (IntSlot, BoolSlot, ReplicaSlot, ReplicaSetSlot)):
        out[codec.slot] = path
    elif isinstance(codec, Rec):
        for k, c in codec.fields.items():
            _walk(c, f"{path}.{k}", out)
    elif isinstance(codec, Fn):
        for k, c in zip(codec.keys, codec.values):
            _walk(c, f"{path}[{show(k)}]", out)
    elif isinstance(codec, NilOr):
        _walk(codec.inner, path, out)
    elif isinstance(codec, KeyedSet):
        for k, (present, inner) in codec.entries.items():
            out[present] = f"({path} has {codec.key}={k})"
            _walk(inner, f"{path}[{codec.key}={k}]", out)
    elif isinstance(codec, Const):
        pass
