"""TLA+ values as the front-end holds them, and TLC's order of values.

Integers, booleans and strings are Python's; a model value is a
``ModelValue`` (a string that equals only itself); a finite set is a
``frozenset``; a sequence (any function on 1..n) a ``tuple``; a function on
strings a ``Record``; any other function a ``Function`` (the last two are
modelcheck.language.values' mappings, so traces and viewers read them as they
read a hand port's). ``fcn`` builds a function from pairs in that normal
form, as TLC converts between its function, record and tuple values.

Infinite or large sets (``Nat``, ``SUBSET S``, ``[S -> T]``, ``Seq(S)``,
``a..b``) are ``LazySet``s: they answer membership and, when finite,
enumerate their elements in TLC's order.

**TLC's order.** TLC normalises every set by sorting it with its own
comparison, and that order is what CHOOSE picks from and what ``\\E``
enumerates. A model value comes before any other value, and two model values
(or two strings, or two record field names) compare by when TLC first read
the name: the words of the .cfg, then the root module's text, then the
modules it uses (``TlcOrder.words``). Integers compare by value, FALSE before
TRUE, sets by size then element by element, sequences by length then
element by element, records by their number of fields, then their field
names, then their values in the order of their names. Comparing values of
different kinds (an integer with a string) is an error in TLC, and here too.
"""

from __future__ import annotations

import itertools
from typing import Any, Iterable, Iterator

from modelcheck.language.values import Function, ModelValue as LanguageModelValue, Record
from modelcheck.tlaplus.syntax import EvalError


class ModelValue(LanguageModelValue):
    """A TLC model value: equal only to itself (never to a string of the same name);
    written bare, as the spec language's model values are."""

    __slots__ = ()

    def __eq__(self, other):
        return isinstance(other, ModelValue) and str.__eq__(self, other)

    def __ne__(self, other):
        return not self.__eq__(other)

    def __hash__(self):
        return hash(("ModelValue", str.__str__(self)))

    def __repr__(self):
        return str.__str__(self)


# --- building values in normal form ---------------------------------------------------

def fcn(pairs: Iterable[tuple[Any, Any]]) -> Any:
    """The function with these (argument, value) pairs, in TLC's normal form:
    a tuple when the domain is 1..n (or empty), a record when every argument
    is a string, else a Function."""
    items = list(pairs)
    if not items:
        return ()
    keys = [k for k, _ in items]
    if all(type(k) is int for k in keys) and sorted(keys) == list(range(1, len(keys) + 1)):
        by_key = dict(items)
        return tuple(by_key[i] for i in range(1, len(keys) + 1))
    if all(type(k) is str for k in keys):
        return Record(items)
    return Function(items)


def fcn_items(f: Any) -> list[tuple[Any, Any]]:
    """The (argument, value) pairs of a function, record or sequence."""
    if isinstance(f, tuple):
        return list(enumerate(f, 1))
    if isinstance(f, (Record, Function)):
        return list(f.items())
    raise EvalError(f"{show(f)} is not a function")


def is_fcn(v: Any) -> bool:
    return isinstance(v, (tuple, Record, Function))


def domain(f: Any) -> Any:
    if isinstance(f, tuple):
        return Interval(1, len(f))
    if isinstance(f, (Record, Function)):
        return frozenset(f.keys())
    raise EvalError(f"DOMAIN of {show(f)}, which is not a function")


# --- lazily held sets ----------------------------------------------------------------

class LazySet:
    """A set TLC holds without listing it (until it must)."""

    finite = True

    def contains(self, v: Any) -> bool:
        raise NotImplementedError

    def elements(self, order: "TlcOrder") -> list:
        """The elements in TLC's order."""
        raise EvalError(f"TLC cannot enumerate {self}")

    def size(self) -> int:
        raise EvalError(f"{self} is not a finite set")

    def __eq__(self, other):
        if isinstance(other, LazySet) and type(other) is type(self) and self.key() == other.key():
            return True
        if not self.finite:
            return False
        return frozenset(self.elements(None)) == as_frozenset(other) if is_set(other) else False

    def __hash__(self):
        return hash(frozenset(self.elements(None))) if self.finite else hash(self.key())

    def key(self):
        return (type(self).__name__,)


class Interval(LazySet):
    def __init__(self, lo: int, hi: int):
        self.lo, self.hi = lo, hi

    def contains(self, v):
        return type(v) is int and self.lo <= v <= self.hi

    def elements(self, order=None):
        return list(range(self.lo, self.hi + 1))

    def size(self):
        return max(0, self.hi - self.lo + 1)

    def key(self):
        return ("Interval", self.lo, self.hi) if self.hi >= self.lo else ("Interval",)

    def __repr__(self):
        return f"{self.lo}..{self.hi}"


class Infinite(LazySet):
    """Nat, Int or STRING."""

    finite = False

    def __init__(self, name: str):
        self.name = name

    def contains(self, v):
        if self.name == "Nat":
            return type(v) is int and v >= 0
        if self.name == "Int":
            return type(v) is int
        return type(v) is str and not isinstance(v, ModelValue)

    def key(self):
        return ("Infinite", self.name)

    def __repr__(self):
        return self.name


class PowerSet(LazySet):
    """SUBSET base, enumerated as TLC does: by size, then in the order of the
    normalised subsets."""

    def __init__(self, base):
        self.base = base

    def contains(self, v):
        return is_set(v) and all(set_contains(self.base, x) for x in set_elements(v, None))

    def elements(self, order):
        base = set_elements(self.base, order)
        out = []
        for k in range(len(base) + 1):
            out.extend(frozenset(c) for c in itertools.combinations(base, k))
        return out

    def size(self):
        return 2 ** set_size(self.base)

    def key(self):
        return ("PowerSet", self.base)

    def __repr__(self):
        return f"SUBSET {show(self.base)}"


class FunctionSet(LazySet):
    """[dom -> rng]."""

    def __init__(self, dom, rng):
        self.dom, self.rng = dom, rng

    def contains(self, v):
        if not is_fcn(v):
            return False
        items = fcn_items(v)
        dom = set_elements(self.dom, None)
        return len(items) == len(dom) and all(set_contains(self.dom, k) and set_contains(self.rng, x)
                                              for k, x in items)

    def elements(self, order):
        dom = set_elements(self.dom, order)
        rng = set_elements(self.rng, order)
        out = [fcn(zip(dom, values)) for values in itertools.product(rng, repeat=len(dom))]
        return sort_values(out, order) if order is not None else out

    def size(self):
        return set_size(self.rng) ** set_size(self.dom)

    def key(self):
        return ("FunctionSet", self.dom, self.rng)

    def __repr__(self):
        return f"[{show(self.dom)} -> {show(self.rng)}]"


class RecordSet(LazySet):
    """[f1 : S1, f2 : S2]."""

    def __init__(self, fields: tuple):
        self.fields = fields

    def contains(self, v):
        return (isinstance(v, Record) and set(v.keys()) == {f for f, _ in self.fields}
                and all(set_contains(s, v[f]) for f, s in self.fields))

    def elements(self, order):
        names = [f for f, _ in self.fields]
        sets = [set_elements(s, order) for _, s in self.fields]
        out = [Record(zip(names, combo)) for combo in itertools.product(*sets)]
        return sort_values(out, order) if order is not None else out

    def size(self):
        n = 1
        for _, s in self.fields:
            n *= set_size(s)
        return n

    def key(self):
        return ("RecordSet", self.fields)

    def __repr__(self):
        return "[" + ", ".join(f"{f} : {show(s)}" for f, s in self.fields) + "]"


class ProductSet(LazySet):
    """S1 \\X S2 \\X ..."""

    def __init__(self, sets: tuple):
        self.sets = sets

    def contains(self, v):
        return (isinstance(v, tuple) and len(v) == len(self.sets)
                and all(set_contains(s, x) for s, x in zip(self.sets, v)))

    def elements(self, order):
        out = [tuple(c) for c in itertools.product(*(set_elements(s, order) for s in self.sets))]
        return sort_values(out, order) if order is not None else out

    def size(self):
        n = 1
        for s in self.sets:
            n *= set_size(s)
        return n

    def key(self):
        return ("ProductSet", self.sets)

    def __repr__(self):
        return " \\X ".join(show(s) for s in self.sets)


class SeqSet(LazySet):
    """Seq(S): every finite sequence of elements of S."""

    finite = False

    def __init__(self, base):
        self.base = base

    def contains(self, v):
        return isinstance(v, tuple) and all(set_contains(self.base, x) for x in v)

    def key(self):
        return ("SeqSet", self.base)

    def __repr__(self):
        return f"Seq({show(self.base)})"


def is_set(v: Any) -> bool:
    return isinstance(v, (frozenset, LazySet))


def set_contains(s: Any, v: Any) -> bool:
    if isinstance(s, frozenset):
        return v in s
    if isinstance(s, LazySet):
        return s.contains(v)
    raise EvalError(f"\\in applied to {show(s)}, which is not a set")


def set_elements(s: Any, order: "TlcOrder | None") -> list:
    """A finite set's elements, in TLC's order when ``order`` is given."""
    if isinstance(s, frozenset):
        return sort_values(s, order) if order is not None else list(s)
    if isinstance(s, LazySet):
        if not s.finite:
            raise EvalError(f"TLC cannot enumerate the infinite set {s}")
        return s.elements(order)
    raise EvalError(f"{show(s)} is not a set")


def set_size(s: Any) -> int:
    if isinstance(s, frozenset):
        return len(s)
    if isinstance(s, LazySet):
        return s.size()
    raise EvalError(f"Cardinality of {show(s)}, which is not a set")


def as_frozenset(s: Any) -> frozenset:
    if isinstance(s, frozenset):
        return s
    return frozenset(set_elements(s, None))


def normal(v: Any) -> Any:
    """A value fit to be an element of a set or a state: finite lazy sets listed."""
    if isinstance(v, LazySet):
        return as_frozenset(v) if v.finite else v
    return v


# --- TLC's order ---------------------------------------------------------------------

_MODEL, _BOOL, _INT, _STR, _SET, _SEQ, _REC, _FCN = range(8)
_KIND_NAMES = {_BOOL: "boolean", _INT: "integer", _STR: "string", _SET: "set", _SEQ: "sequence",
               _REC: "record", _FCN: "function"}


class TlcOrder:
    """The order TLC gives values: ``key(v)`` sorts as TLC's comparison does.

    ``words`` are the names TLC read, in the order it first read them; a
    name never read (a string built at run time) ranks after all of them, in
    the order it is met."""

    def __init__(self, words: Iterable[str] = ()):
        self.rank: dict[str, int] = {}
        for w in words:
            self.rank.setdefault(w, len(self.rank))

    def word(self, w: str) -> int:
        r = self.rank.get(w)
        if r is None:
            r = self.rank[w] = len(self.rank)
        return r

    def key(self, v: Any) -> tuple:
        t = type(v)
        if t is int:
            return (1, _INT, v)
        if t is bool:
            return (1, _BOOL, int(v))
        if t is ModelValue:
            return (0, self.word(str.__str__(v)))
        if t is str:
            return (1, _STR, self.word(v))
        if t is frozenset or isinstance(v, LazySet):
            elems = sorted_keys(v, self)
            return (1, _SET, len(elems), tuple(elems))
        if t is tuple:
            return (1, _SEQ, len(v), tuple(self.key(x) for x in v))
        if t is Record:
            names = sorted(v.keys(), key=self.word)
            return (1, _REC, len(names), tuple(self.word(n) for n in names), tuple(self.key(v[n]) for n in names))
        if t is Function:
            items = sorted(((self.key(k), x) for k, x in v.items()), key=lambda p: p[0])
            return (1, _FCN, len(items), tuple(k for k, _ in items), tuple(self.key(x) for _, x in items))
        raise EvalError(f"cannot order the value {show(v)}")


def _kind(key: tuple) -> int | None:
    return None if key[0] == 0 else key[1]


def sorted_keys(s: Any, order: TlcOrder) -> list:
    keys = sorted(order.key(x) for x in (s if isinstance(s, frozenset) else set_elements(s, None)))
    _check_comparable(keys, s)
    return keys


def _check_comparable(keys: list, s: Any) -> None:
    kinds = {_kind(k) for k in keys} - {None}
    if len(kinds) > 1:
        a, b = sorted(kinds)[:2]
        raise EvalError(f"TLC cannot compare a {_KIND_NAMES[a]} with a {_KIND_NAMES[b]} (in the set {show(s)})")


def sort_values(values: Iterable[Any], order: TlcOrder) -> list:
    """Values in TLC's order (an error where TLC could not compare them)."""
    pairs = sorted(((order.key(x), x) for x in values), key=lambda p: p[0])
    _check_comparable([k for k, _ in pairs], values)
    return [x for _, x in pairs]


# --- showing values as TLC prints them ---------------------------------------------------

def show(v: Any, order: TlcOrder | None = None) -> str:
    """TLA+ notation for a value (sets and records in TLC's order when ``order`` is given)."""
    t = type(v)
    if t is bool:
        return "TRUE" if v else "FALSE"
    if t is int:
        return str(v)
    if t is ModelValue:
        return str.__str__(v)
    if t is str:
        return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if t is frozenset:
        elems = sort_values(v, order) if order is not None else sorted(v, key=lambda x: show(x))
        return "{" + ", ".join(show(x, order) for x in elems) + "}"
    if t is tuple:
        return "<<" + ", ".join(show(x, order) for x in v) + ">>"
    if t is Record:
        names = sorted(v.keys(), key=order.word) if order is not None else list(v.keys())
        return "[" + ", ".join(f"{n} |-> {show(v[n], order)}" for n in names) + "]"
    if t is Function:
        return "(" + " @@ ".join(f"{show(k, order)} :> {show(x, order)}" for k, x in v.items()) + ")"
    if isinstance(v, LazySet):
        return repr(v)
    return repr(v)
