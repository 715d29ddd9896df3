"""TLA+ values as Python objects, and their JSON forms.

Integers, strings and booleans are themselves; a model value is a
``ModelValue`` (a ``str`` that TLA+ notation writes bare, where a string is
written in quotes: ``r1`` against ``"r1"``); a set is a ``frozenset``; a
sequence is a ``tuple`` (ITF writes it as a JSON array); a record is a
``Record`` and a function a ``Function`` (both immutable, hashable mappings,
kept apart because ITF writes them differently: a record is a JSON object, a
function a ``{"#map": ...}``).

``tlc_key`` orders values as TLC does (booleans FALSE first, integers by
value, model values and strings in the order given, sets by size and then
element by element, sequences element by element, records by their number
of fields and then field by field).
"""

from __future__ import annotations

from typing import Any, Callable, Iterable, Mapping


class ModelValue(str):
    """A TLA+ model value (``r1``, ``None``, ``a1``): equal to the string of
    its name, but written bare, where a TLA+ string is written in quotes."""

    __slots__ = ()

    def __repr__(self) -> str:
        return str.__str__(self)


def model_values(names: Iterable[str]) -> tuple[ModelValue, ...]:
    """Names as model values, in the order given."""
    return tuple(ModelValue(n) for n in names)


class _FrozenMapping(Mapping):
    __slots__ = ("_items", "_dict")

    def __init__(self, items: Iterable[tuple[Any, Any]] | Mapping):
        pairs = tuple(items.items() if isinstance(items, Mapping) else items)
        self._items = pairs
        self._dict = dict(pairs)

    def __getitem__(self, key):
        return self._dict[key]

    def __iter__(self):
        return iter(k for k, _ in self._items)

    def __len__(self) -> int:
        return len(self._items)

    def __hash__(self) -> int:
        return hash((type(self).__name__, frozenset(self._dict.items())))

    def __eq__(self, other) -> bool:
        return type(self) is type(other) and self._dict == other._dict


class Record(_FrozenMapping):
    """A TLA+ record [field |-> value, ...]."""

    def __repr__(self) -> str:
        return "[" + ", ".join(f"{k} |-> {show(v)}" for k, v in self._items) + "]"


class Function(_FrozenMapping):
    """A TLA+ function over a finite domain, kept in domain order."""

    def __repr__(self) -> str:
        return "(" + " @@ ".join(f"{show(k)} :> {show(v)}" for k, v in self._items) + ")"


def _sort_key(v: Any):
    if isinstance(v, bool):
        return (0, v)
    if isinstance(v, int):
        return (1, v)
    if isinstance(v, str):
        return (2, v)
    return (3, show(v))


def tlc_key(v: Any, rank: Callable[[str], Any] = lambda name: name) -> tuple:
    """A sort key that orders values as TLC's normalised sets do. Model
    values and strings are ordered by ``rank`` (TLC orders them by when it
    first read their names: give that order; by default, alphabetical);
    model values come before any other value."""
    if isinstance(v, bool):
        return (1, int(v))
    if isinstance(v, ModelValue):
        return (0, rank(v))
    if isinstance(v, int):
        return (1, v)
    if isinstance(v, str):
        return (2, rank(v))
    if isinstance(v, frozenset):
        return (3, len(v), tuple(sorted(tlc_key(x, rank) for x in v)))
    if isinstance(v, tuple):
        return (4, len(v), tuple(tlc_key(x, rank) for x in v))
    if isinstance(v, (Record, Function)):
        items = sorted(((rank(str(k)), tlc_key(x, rank)) for k, x in v.items()), key=lambda kv: kv[0])
        return (5, len(items), tuple(items))
    return (6, show(v))


def tlc_sorted(values: Iterable[Any], rank: Callable[[str], Any] = lambda name: name) -> list:
    """``values`` in TLC's order (see ``tlc_key``)."""
    return sorted(values, key=lambda v: tlc_key(v, rank))


def show(v: Any) -> str:
    """TLA+ notation for a value: strings in quotes, model values bare."""
    if isinstance(v, bool):
        return "TRUE" if v else "FALSE"
    if isinstance(v, ModelValue):
        return str.__str__(v)
    if isinstance(v, str):
        return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(v, frozenset):
        return "{" + ", ".join(show(x) for x in sorted(v, key=_sort_key)) + "}"
    if isinstance(v, tuple):
        return "<<" + ", ".join(show(x) for x in v) + ">>"
    return repr(v)


def to_itf(v: Any) -> Any:
    """The ITF JSON form of a value."""
    if isinstance(v, bool) or isinstance(v, str):
        return v
    if isinstance(v, int):
        return {"#bigint": str(v)}
    if isinstance(v, frozenset):
        return {"#set": [to_itf(x) for x in sorted(v, key=_sort_key)]}
    if isinstance(v, tuple):
        return [to_itf(x) for x in v]
    if isinstance(v, Record):
        return {k: to_itf(x) for k, x in v.items()}
    if isinstance(v, Function):
        return {"#map": [[to_itf(k), to_itf(x)] for k, x in v.items()]}
    raise TypeError(f"no ITF form for {v!r}")


def to_plain_json(v: Any) -> Any:
    """A compact JSON form (TLC's style) for places where ITF tags only add noise."""
    if isinstance(v, (bool, str, int)):
        return v
    if isinstance(v, frozenset):
        return [to_plain_json(x) for x in sorted(v, key=_sort_key)]
    if isinstance(v, tuple):
        return [to_plain_json(x) for x in v]
    if isinstance(v, (Record, Function)):
        return {str(k): to_plain_json(x) for k, x in v.items()}
    raise TypeError(f"no JSON form for {v!r}")


def flatten(v: Any, path: str = "") -> dict[str, Any]:
    """Leaf values by access path, e.g. ``replicaState[r1].hw``; sets and
    scalars are leaves. Used to show what changed between two states."""
    if isinstance(v, Record):
        out: dict[str, Any] = {}
        for k, x in v.items():
            out.update(flatten(x, f"{path}.{k}"))
        return out
    if isinstance(v, Function):
        out = {}
        for k, x in v.items():
            out.update(flatten(x, f"{path}[{show(k)}]"))
        return out
    if isinstance(v, tuple):
        out = {f"Len({path})": len(v)}
        for i, x in enumerate(v):
            out.update(flatten(x, f"{path}[{i + 1}]"))
        return out
    return {path: v}
