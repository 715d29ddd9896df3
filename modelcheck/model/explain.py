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

from modelcheck.language.interpreter import evaluate
from modelcheck.language.bounded import UnionCodec
from modelcheck.language.codec import BoolSlot, ChoiceSlot, Fn, IntSlot, KeyedSet, NilOr, Rec, ReplicaSetSlot, ReplicaSlot
from modelcheck.language.expr import Expr, lift, not_, to_text
from modelcheck.language.schema import StateView
from modelcheck.language.values import show


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


@dataclass(frozen=True)
class Account:
    """What an explanation function may return instead of plain text: the
    text, and the log slots the story is about, as (row, log, offset) in the
    viewers' terms (``("r3", "log", 0)``: offset 0 of r3's log), so that a
    viewer can single out the record that was lost or diverged."""

    text: str
    focus: tuple[tuple[str, str, int], ...] = ()


def explain(model, state: tuple, invariant: str) -> str:
    """One paragraph saying why ``state`` breaks ``invariant``."""
    return explain_account(model, state, invariant).text


def explain_account(model, state: tuple, invariant: str) -> Account:
    """Why ``state`` breaks ``invariant``, with the slots it names."""
    predicate = next(p for p in model.spec.invariants if p.name == invariant)
    probe = Probe(model, state)
    if probe.holds(model.invariants[invariant]):
        return Account(f"{invariant} holds in this state.")
    given = predicate.explain(probe) if predicate.explain is not None else None
    account = given if isinstance(given, Account) else Account(given or "")
    if not account.text:
        account = Account(failing_conjuncts_text(model, state, model.invariants[invariant]))
    return Account(f"{invariant} broken: {account.text}", account.focus)


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
    if expr.op == "not" and expr.args[0].op == "or":  # ~(A \/ B) is ~A /\ ~B: the disjuncts that hold
        return [failing for part in expr.args[0].args for failing in failing_conjuncts(not_(part), state)]
    return [expr]


def failing_conjuncts_text(model, state: tuple, expr: Expr, limit: int = 3, width: int = 200) -> str:
    """The false conjuncts, written with TLA+ variable paths and their values."""
    leaves = slot_leaves(model)
    parts = failing_conjuncts(expr, state)
    shown = []
    for part in parts[:limit]:
        text = render_condition(part, state, leaves)
        shown.append(text if len(text) <= width else text[:width - 3] + "...")
    more = f" (and {len(parts) - limit} more)" if len(parts) > limit else ""
    lead = "this conjunct of its definition is false" if len(parts) == 1 else \
        "these conjuncts of its definition are false"
    return f"{lead}: {'; '.join(shown)}{more}"


@dataclass(frozen=True)
class Leaf:
    """What one state slot is in TLA+ terms: its path, and how to show a value of it."""

    path: str
    show: Callable[[int], str]


def slot_leaves(model) -> dict[int, Leaf]:
    """Every slot's TLA+ path and value display, read off the spec's codecs
    (slots behind a codec the walk does not know keep their schema names)."""
    found: dict[int, tuple[str, Any]] = {}
    for var, codec in model.codec.variables.items():
        _walk(codec, var, found)
    leaves = {}
    for slot in range(model.schema.width):
        path, codec = found.get(slot, (model.schema.slot_names[slot], None))
        leaves[slot] = Leaf(path, _shower(codec))
    return leaves


def _shower(codec) -> Callable[[int], str]:
    if isinstance(codec, _PartSlot):
        part = codec.part
        return lambda v: show(part.to_tla(v)) if part.lo <= v <= part.hi else str(v)
    if isinstance(codec, ChoiceSlot):
        return lambda v: show(codec.labels[v]) if 0 <= v < len(codec.labels) else str(v)
    if isinstance(codec, ReplicaSlot):
        return lambda v: codec.names[v] if 0 <= v < len(codec.names) else (codec.none or "NONE")
    if isinstance(codec, ReplicaSetSlot):
        return lambda v: "{" + ", ".join(show(n) for i, n in enumerate(codec.names) if v >> i & 1) + "}"
    if isinstance(codec, BoolSlot):
        return lambda v: "TRUE" if v else "FALSE"
    return str


def render_condition(e: Expr, state: tuple, leaves: dict[int, Leaf]) -> str:
    """A condition in TLA+-like notation. A state slot is written as its path
    with its current value in parentheses, and a constant compared with a slot
    is shown the way the slot shows values (a replica name, not its index)."""
    def slot_of(x: Expr):
        return leaves[x.args[0]] if x.op == "var" else None

    def go(x: Expr, like: Leaf | None = None, evident: bool = False) -> str:
        if x.op == "const":
            v = x.args[0]
            if isinstance(v, bool):
                return "TRUE" if v else "FALSE"
            return like.show(v) if like is not None else str(v)
        if x.op == "var":
            leaf = leaves[x.args[0]]
            if evident:  # a comparison of a slot with a constant that holds says its value already
                return leaf.path
            return f"{leaf.path} ({leaf.show(state[x.args[0]])})"
        if x.op in ("eq", "ne", "lt", "le") :
            a, b = x.args
            symbol = {"eq": "=", "ne": "#", "lt": "<", "le": "<="}[x.op]
            evident = bool(evaluate(x, state)) and (a.op == "const" or b.op == "const")
            return f"{go(a, slot_of(b), evident)} {symbol} {go(b, slot_of(a), evident)}"
        if x.op == "not" and x.args[0].op == "eq":
            a, b = x.args[0].args
            return f"{go(a, slot_of(b))} # {go(b, slot_of(a))}"
        if x.op in ("and", "or"):
            joiner = " /\\ " if x.op == "and" else " \\/ "
            return "(" + joiner.join(go(a) for a in x.args) + ")"
        if x.op == "not":
            return "~" + go(x.args[0])
        return to_text(x, lambda slot: f"{leaves[slot].path} ({state[slot]})")

    return go(e)


def slot_paths(model) -> dict[int, str]:
    """Each state slot's TLA+ access path (``replicaState[r1].hw``)."""
    return {slot: leaf.path for slot, leaf in slot_leaves(model).items()}


@dataclass(frozen=True)
class _PartSlot:
    """A slot holding one part of a record (in a record variable, a set or a sequence)."""

    part: Any


def _walk_records(codec, path: str, out: dict[int, tuple[str, Any]]) -> bool:
    """Record variables, sets and sequences of records: each part's slots
    named by their TLA+ paths (``msgs[3].type``: the third message in TLC's
    order; ``Cardinality(msgs)``, ``Len(log)``). False for another codec."""
    from modelcheck.language.bounded import RecordSet, _ContainerCodec
    from modelcheck.language.records import _RecordCodec
    if isinstance(codec, _RecordCodec):
        for name, slot in codec._slots.items():
            out[slot] = (f"{path}.{name}", _PartSlot(codec.rtype.by_name[name]))
        return True
    if isinstance(codec, _ContainerCodec):
        slots, rtype = codec._slots, codec.container.rtype
        is_set = isinstance(codec.container, RecordSet)
        out[slots["size"]] = (f"Cardinality({path})" if is_set else f"Len({path})", None)
        out[slots["overflow"]] = (f"({path} overflowed its capacity)", BoolSlot(slots["overflow"]))
        for name, column in slots["parts"].items():
            for k, slot in enumerate(column):
                out[slot] = (f"{path}[{k + 1}].{name}", _PartSlot(rtype.by_name[name]))
        for k, slot in enumerate(slots.get("copies", ())):
            out[slot] = (f"(copies of {path}[{k + 1}])", None)
        return True
    return False


def _walk(codec, path: str, out: dict[int, tuple[str, Any]]) -> None:
    if _walk_records(codec, path, out):
        return
    if isinstance(codec, (IntSlot, BoolSlot, ReplicaSlot, ReplicaSetSlot, ChoiceSlot)):
        out[codec.slot] = (path, codec)
    elif isinstance(codec, UnionCodec):
        for inner in codec.codecs:
            _walk(inner, path, out)
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
            out[present] = (f"({path} has {codec.key}={k})", BoolSlot(present))
            _walk(inner, f"{path}[{codec.key}={k}]", out)
