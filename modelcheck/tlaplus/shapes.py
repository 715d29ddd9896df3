"""Shapes: the fixed form each TLA+ variable is stored in.

A shape stores a TLA+ value as a list of small integers (its *leaves*),
with exactly one encoding per value, so that equal values fingerprint
equally. The shapes:

=============  ====================================================================
``BoolS``      one leaf, 0/1
``ScalarS``    one leaf: integers in lo..hi as themselves, and a few other values
               (model values, strings: ``atoms``) coded just below lo, in TLC's
               order; a scalar with a single possible value needs no leaf at all
``SetS``       a bitmask over a finite ``universe`` (at most 62 values, bit i
               the i-th in TLC's order), or a count and ``capacity`` slots of the
               element's shape, sorted by TLC's order with free slots blank
``RecS``       a record: its fields' leaves, fields in TLC's order of their names
``VariantS``   records of several field sets (a message union): a tag and each
               alternative's leaves, those of the others blank
``FunS``       a function over a fixed domain: each value's leaves
``TupS``       a tuple of fixed length: each component's leaves
``SeqS``       a sequence: a length and ``capacity`` slots, those past the length blank
=============  ====================================================================

``key`` gives the expressions that order two stored values as TLC orders
the values (what keeps slot sets sorted and CHOOSE exact).

Shapes are *learned*: ``of_value`` gives the shape of one value and
``join`` the least shape holding two; ``finalize`` then picks each set's
form (a bitmask when its universe is small enough).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any, Sequence

from modelcheck.language.codec import Codec, json_int, json_set
from modelcheck.language.expr import Expr, lift, set_order_key, var
from modelcheck.language.values import Function, Record
from modelcheck.errors import TraceFormatError
from modelcheck.tlaplus.syntax import Unsupported
from modelcheck.tlaplus.values import ModelValue, TlcOrder, fcn, show, sort_values

MASK_LIMIT = 62  # the most elements a set held as a bitmask may have (one int64 leaf)


class NotInShape(Exception):
    """A value the shape cannot hold (the shape must be widened)."""


@dataclass(frozen=True)
class Leaf:
    """One integer slot of a stored value: its name (a TLA+ path), range and blank value."""

    path: str
    lo: int
    hi: int
    blank: int
    kind: str = "int"  # "int", "bool" or "set"


class Shape:
    def leaves(self, path: str) -> list[Leaf]:
        raise NotImplementedError

    def width(self) -> int:
        """How many leaves (remembered: shapes are immutable)."""
        found = self.__dict__.get("_width")
        if found is None:
            found = len(self.leaves(""))
            object.__setattr__(self, "_width", found)
        return found

    def encode(self, v: Any) -> list[int]:
        raise NotImplementedError

    def decode(self, ints: Sequence[int]) -> Any:
        raise NotImplementedError

    def blank(self) -> list[int]:
        found = self.__dict__.get("_blank")
        if found is None:
            found = [leaf.blank for leaf in self.leaves("")]
            object.__setattr__(self, "_blank", found)
        return list(found)

    def key(self, leaves: Sequence[Expr]) -> list[Expr]:
        raise NotImplementedError

    def universe(self, order: TlcOrder, limit: int = MASK_LIMIT) -> list | None:
        """Every value of the shape in TLC's order, or None if more than ``limit``."""
        return None


class BottomS(Shape):
    """The shape of nothing (the elements of a set never seen holding any)."""

    def leaves(self, path):
        return []

    def encode(self, v):
        raise NotInShape(v)

    def decode(self, ints):
        raise NotInShape("nothing")

    def key(self, leaves):
        return []

    def universe(self, order, limit=MASK_LIMIT):
        return []

    def __repr__(self):
        return "Bottom"

    def __eq__(self, other):
        return isinstance(other, BottomS)

    def __hash__(self):
        return 0


BOTTOM = BottomS()


@dataclass(frozen=True)
class BoolS(Shape):
    def leaves(self, path):
        return [Leaf(path, 0, 1, 0, "bool")]

    def encode(self, v):
        if type(v) is not bool:
            raise NotInShape(v)
        return [int(v)]

    def decode(self, ints):
        return bool(ints[0])

    def key(self, leaves):
        return [leaves[0]]

    def universe(self, order, limit=MASK_LIMIT):
        return [False, True]


@dataclass(frozen=True)
class ScalarS(Shape):
    """Integers lo..hi (``ints``, or None) and a few other values (``atoms``, in TLC's order)."""

    ints: tuple[int, int] | None
    atoms: tuple = ()

    @property
    def base(self) -> int:
        """The code of the first atom."""
        return (self.ints[0] - len(self.atoms)) if self.ints else 0

    @property
    def constant(self) -> bool:
        found = self.__dict__.get("_constant")
        if found is None:
            found = self.count() == 1
            object.__setattr__(self, "_constant", found)
        return found

    def count(self) -> int:
        n = len(self.atoms)
        if self.ints:
            n += self.ints[1] - self.ints[0] + 1
        return n

    def lo(self) -> int:
        return self.base if self.atoms else self.ints[0]

    def hi(self) -> int:
        return self.ints[1] if self.ints else len(self.atoms) - 1

    def leaves(self, path):
        if self.constant:
            return []
        return [Leaf(path, self.lo(), self.hi(), self.lo())]

    def code(self, v) -> int:
        if type(v) is int:
            if self.ints and self.ints[0] <= v <= self.ints[1]:
                return v
            raise NotInShape(v)
        if type(v) in (str, ModelValue):
            for i, a in enumerate(self.atoms):
                if type(a) is type(v) and a == v:
                    return self.base + i
        raise NotInShape(v)

    def value(self, code: int):
        if self.atoms and code < self.base + len(self.atoms) and (not self.ints or code < self.ints[0]):
            return self.atoms[code - self.base]
        return code

    def encode(self, v):
        c = self.code(v)
        return [] if self.constant else [c]

    def decode(self, ints):
        if self.constant:
            return self.atoms[0] if self.atoms else self.ints[0]
        return self.value(ints[0])

    def key(self, leaves):
        return [] if self.constant else [leaves[0]]

    def universe(self, order, limit=MASK_LIMIT):
        if self.count() > limit:
            return None
        out = list(self.atoms)
        if self.ints:
            out += list(range(self.ints[0], self.ints[1] + 1))
        return out

    def is_int(self) -> bool:
        return not self.atoms and self.ints is not None


@dataclass(frozen=True)
class SetS(Shape):
    """A set: a bitmask over ``universe`` (when given) or ``capacity`` sorted slots."""

    elem: Shape
    universe_values: tuple | None = None
    capacity: int = 0
    # learned: the most elements of each kind (variant alternative) seen at once
    kinds: tuple = ()

    @property
    def is_mask(self) -> bool:
        return self.universe_values is not None

    def leaves(self, path):
        if self.is_mask:
            n = len(self.universe_values)
            return [Leaf(path, 0, (1 << n) - 1, 0, "set")]
        out = [Leaf(f"Cardinality({path})", 0, self.capacity, 0)]
        for k in range(self.capacity):
            out += self.elem.leaves(f"{path}#{k + 1}")
        return out

    def slot_width(self) -> int:
        return self.elem.width()

    def encode(self, v):
        if not isinstance(v, frozenset):
            raise NotInShape(v)
        if self.is_mask:
            mask = 0
            index = self._index()
            for x in v:
                if x not in index:
                    raise NotInShape(v)
                mask |= 1 << index[x]
            return [mask]
        if len(v) > self.capacity:
            raise NotInShape(v)
        raise RuntimeError("encoding a slot set needs TLC's order; use encode_ordered")

    def _index(self) -> dict:
        idx = getattr(self, "_idx", None)
        if idx is None:
            idx = {}
            for i, u in enumerate(self.universe_values):
                idx[u] = i
            object.__setattr__(self, "_idx", idx)
        return idx

    def encode_ordered(self, v, order: TlcOrder):
        if self.is_mask:
            return self.encode(v)
        if not isinstance(v, frozenset) or len(v) > self.capacity:
            raise NotInShape(v)
        out = [len(v)]
        for x in sort_values(v, order):
            out += encode(self.elem, x, order)
        blank = self.elem.blank()
        for _ in range(self.capacity - len(v)):
            out += blank
        return out

    def decode(self, ints):
        if self.is_mask:
            mask = ints[0]
            return frozenset(u for i, u in enumerate(self.universe_values) if mask >> i & 1)
        n = ints[0]
        w = self.slot_width()
        return frozenset(self.elem.decode(ints[1 + k * w:1 + (k + 1) * w]) for k in range(n))

    def key(self, leaves):
        if self.is_mask:
            return list(set_order_key(leaves[0], len(self.universe_values)))
        w = self.slot_width()
        out = [leaves[0]]
        for k in range(self.capacity):
            out += self.elem.key(leaves[1 + k * w:1 + (k + 1) * w])
        return out

    def universe(self, order, limit=MASK_LIMIT):
        base = self.elem.universe(order, 16)
        if base is None or 2 ** len(base) > limit:
            return None
        out = [frozenset(c) for k in range(len(base) + 1) for c in itertools.combinations(base, k)]
        return sort_values(out, order)


@dataclass(frozen=True)
class USetS(Shape):
    """A set of values of several kinds (a message union), held as one slot
    set per kind: ``parts[i]`` holds the elements of ``variant.alts[i]``.
    TLC orders such values by kind first, so the parts one after the other,
    each sorted, are the set in TLC's order; adding an element whose kind
    is known touches only its part."""

    variant: "VariantS"
    parts: tuple  # SetS per alternative (slot sets)

    def leaves(self, path):
        out = []
        for a, part in zip(self.variant.alts, self.parts):
            out += part.leaves(f"{path}{{{_kind_name(a)}}}")
        return out

    def offsets(self) -> list[tuple[int, int]]:
        out, k = [], 0
        for part in self.parts:
            w = part.width()
            out.append((k, k + w))
            k += w
        return out

    def encode_ordered(self, v, order):
        if not isinstance(v, frozenset):
            raise NotInShape(v)
        groups: list[list] = [[] for _ in self.parts]
        for x in v:
            groups[self.variant.alt_index(x)].append(x)
        out = []
        for part, g in zip(self.parts, groups):
            out += part.encode_ordered(frozenset(g), order)
        return out

    def encode(self, v):
        raise RuntimeError("encoding a slot set needs TLC's order; use encode_ordered")

    def decode(self, ints):
        out = set()
        for part, (a, b) in zip(self.parts, self.offsets()):
            out |= part.decode(ints[a:b])
        return frozenset(out)

    def key(self, leaves):
        total = None
        rest: list = []
        from modelcheck.language.expr import add, le, ite
        for part, (a, b) in zip(self.parts, self.offsets()):
            seg = leaves[a:b]
            count = seg[0]
            total = count if total is None else add(total, count)
            w = part.slot_width()
            for k in range(part.capacity):
                rest.append(ite(le(count, k), 1, 0))
                rest += part.elem.key(seg[1 + k * w:1 + (k + 1) * w])
        return [total] + rest


def _kind_name(a: "Shape") -> str:
    if isinstance(a, RecS):
        for n, s in a.fields:
            if n == "type" and isinstance(s, ScalarS) and s.constant:
                return str(s.decode([]))
        return ",".join(a.names())
    return type(a).__name__


@dataclass(frozen=True)
class RecS(Shape):
    """A record; ``fields`` in TLC's order of the field names."""

    fields: tuple[tuple[str, Shape], ...]

    def names(self) -> tuple[str, ...]:
        return tuple(n for n, _ in self.fields)

    def offsets(self) -> dict[str, tuple[int, int]]:
        out, k = {}, 0
        for n, s in self.fields:
            w = s.width()
            out[n] = (k, k + w)
            k += w
        return out

    def leaves(self, path):
        out = []
        for n, s in self.fields:
            out += s.leaves(f"{path}.{n}")
        return out

    def encode(self, v):
        if not isinstance(v, Record) or set(v.keys()) != set(self.names()):
            raise NotInShape(v)
        out = []
        for n, s in self.fields:
            out += s.encode(v[n])
        return out

    def decode(self, ints):
        out, k = [], 0
        for n, s in self.fields:
            w = s.width()
            out.append((n, s.decode(ints[k:k + w])))
            k += w
        return Record(out)

    def key(self, leaves):
        out, k = [], 0
        for n, s in self.fields:
            w = s.width()
            out += s.key(leaves[k:k + w])
            k += w
        return out

    def universe(self, order, limit=MASK_LIMIT):
        parts = []
        total = 1
        for n, s in self.fields:
            u = s.universe(order, limit)
            if u is None:
                return None
            total *= len(u)
            if total > limit:
                return None
            parts.append(u)
        out = [Record(zip(self.names(), combo)) for combo in itertools.product(*parts)]
        return sort_values(out, order)


def alt_key(s: "Shape") -> tuple:
    """What tells the alternatives of a variant apart: a record's field names,
    or the kind of value."""
    if isinstance(s, RecS):
        return ("record", frozenset(s.names()))
    if isinstance(s, (FunS, PFunS, SeqS, TupS)):
        return ("function", None)  # a sequence is a function too: they meet in one shape
    return ({ScalarS: "scalar", BoolS: "boolean", SetS: "set", USetS: "set"}
            .get(type(s), type(s).__name__),)


def value_alt_key(v) -> tuple:
    if isinstance(v, Record):
        return ("record", frozenset(v.keys()))
    if type(v) is bool:
        return ("boolean",)
    if type(v) in (int, str, ModelValue):
        return ("scalar",)
    if isinstance(v, frozenset):
        return ("set",)
    if isinstance(v, (tuple, Function)):
        return ("function", None)
    return ("?",)


@dataclass(frozen=True)
class VariantS(Shape):
    """Values of several kinds in one variable: records of different field
    sets (a message union), or a record or a scalar (a log slot holding a
    record or Nil). ``alts`` in TLC's order (a scalar first: a model value
    comes before any other value)."""

    alts: tuple[Shape, ...]

    def leaves(self, path):
        out = [Leaf(f"{path}#alt", 0, len(self.alts) - 1, 0)]
        for a in self.alts:
            out += a.leaves(path)
        return out

    def alt_index(self, v) -> int:
        key = value_alt_key(v)
        for i, a in enumerate(self.alts):
            k = alt_key(a)
            if k == key:
                return i
        raise NotInShape(v)

    def encode(self, v):
        i = self.alt_index(v)
        out = [i]
        for j, a in enumerate(self.alts):
            out += a.encode(v) if j == i else a.blank()
        return out

    def decode(self, ints):
        i = ints[0]
        k = 1
        for j, a in enumerate(self.alts):
            w = a.width()
            if j == i:
                return a.decode(ints[k:k + w])
            k += w
        raise NotInShape(ints)

    def key(self, leaves):
        out = [leaves[0]]
        k = 1
        for a in self.alts:
            w = a.width()
            out += a.key(leaves[k:k + w])
            k += w
        return out

    def universe(self, order, limit=MASK_LIMIT):
        out = []
        for a in self.alts:
            u = a.universe(order, limit)
            if u is None:
                return None
            out += u
            if len(out) > limit:
                return None
        return sort_values(out, order)


@dataclass(frozen=True)
class FunS(Shape):
    """A function over a fixed domain (in TLC's order) into one shape."""

    domain: tuple
    rng: Shape

    def leaves(self, path):
        out = []
        for d in self.domain:
            out += self.rng.leaves(f"{path}[{show(d)}]")
        return out

    def encode(self, v):
        if not isinstance(v, (Function, Record, tuple)):
            raise NotInShape(v)
        items = dict(v.items()) if not isinstance(v, tuple) else dict(enumerate(v, 1))
        if len(items) != len(self.domain):
            raise NotInShape(v)
        out = []
        for d in self.domain:
            if d not in items:
                raise NotInShape(v)
            out += self.rng.encode(items[d])
        return out

    def decode(self, ints):
        w = self.rng.width()
        return fcn((d, self.rng.decode(ints[k * w:(k + 1) * w])) for k, d in enumerate(self.domain))

    def key(self, leaves):
        w = self.rng.width()
        out = []
        for k in range(len(self.domain)):
            out += self.rng.key(leaves[k * w:(k + 1) * w])
        return out

    def universe(self, order, limit=MASK_LIMIT):
        u = self.rng.universe(order, limit)
        if u is None or len(u) ** len(self.domain) > limit:
            return None
        out = [fcn(zip(self.domain, combo)) for combo in itertools.product(u, repeat=len(self.domain))]
        return sort_values(out, order)


@dataclass(frozen=True)
class PFunS(Shape):
    """A function whose domain is some subset of a fixed ``universe`` (in TLC's
    order): a bitmask of the domain, then each element's value (blank where
    the element is outside the domain)."""

    universe_values: tuple
    rng: Shape

    def leaves(self, path):
        n = len(self.universe_values)
        out = [Leaf(f"DOMAIN {path}", 0, (1 << n) - 1, 0, "set")]
        for d in self.universe_values:
            out += self.rng.leaves(f"{path}[{show(d)}]")
        return out

    def _items(self, v) -> dict:
        if isinstance(v, (Function, Record)):
            return dict(v.items())
        if isinstance(v, tuple):
            return dict(enumerate(v, 1))
        raise NotInShape(v)

    def encode(self, v):
        items = self._items(v)
        mask = 0
        out = []
        for i, d in enumerate(self.universe_values):
            if d in items and type(d) is type(next(k for k in items if k == d)):
                mask |= 1 << i
                out += self.rng.encode(items[d])
            else:
                out += self.rng.blank()
        if bin(mask).count("1") != len(items):
            raise NotInShape(v)
        return [mask] + out

    def decode(self, ints):
        mask = ints[0]
        w = self.rng.width()
        return fcn((d, self.rng.decode(ints[1 + k * w:1 + (k + 1) * w]))
                   for k, d in enumerate(self.universe_values) if mask >> k & 1)

    def key(self, leaves):
        w = self.rng.width()
        out = list(set_order_key(leaves[0], len(self.universe_values)))
        for k in range(len(self.universe_values)):
            out += self.rng.key(leaves[1 + k * w:1 + (k + 1) * w])
        return out


@dataclass(frozen=True)
class TupS(Shape):
    items: tuple[Shape, ...]

    def leaves(self, path):
        out = []
        for i, s in enumerate(self.items, 1):
            out += s.leaves(f"{path}[{i}]")
        return out

    def encode(self, v):
        if not isinstance(v, tuple) or len(v) != len(self.items):
            raise NotInShape(v)
        out = []
        for s, x in zip(self.items, v):
            out += s.encode(x)
        return out

    def decode(self, ints):
        out, k = [], 0
        for s in self.items:
            w = s.width()
            out.append(s.decode(ints[k:k + w]))
            k += w
        return tuple(out)

    def key(self, leaves):
        out, k = [], 0
        for s in self.items:
            w = s.width()
            out += s.key(leaves[k:k + w])
            k += w
        return out

    def universe(self, order, limit=MASK_LIMIT):
        parts, total = [], 1
        for s in self.items:
            u = s.universe(order, limit)
            if u is None:
                return None
            total *= len(u)
            if total > limit:
                return None
            parts.append(u)
        return sort_values([tuple(c) for c in itertools.product(*parts)], order)


@dataclass(frozen=True)
class SeqS(Shape):
    elem: Shape
    capacity: int

    def leaves(self, path):
        out = [Leaf(f"Len({path})", 0, self.capacity, 0)]
        for k in range(self.capacity):
            out += self.elem.leaves(f"{path}[{k + 1}]")
        return out

    def encode(self, v):
        if not isinstance(v, tuple) or len(v) > self.capacity:
            raise NotInShape(v)
        out = [len(v)]
        for x in v:
            out += self.elem.encode(x)
        blank = self.elem.blank()
        for _ in range(self.capacity - len(v)):
            out += blank
        return out

    def decode(self, ints):
        n = ints[0]
        w = self.elem.width()
        return tuple(self.elem.decode(ints[1 + k * w:1 + (k + 1) * w]) for k in range(n))

    def key(self, leaves):
        w = self.elem.width()
        out = [leaves[0]]
        for k in range(self.capacity):
            out += self.elem.key(leaves[1 + k * w:1 + (k + 1) * w])
        return out

    def universe(self, order, limit=MASK_LIMIT):
        u = self.elem.universe(order, limit)
        if u is None:
            return None
        total = sum(len(u) ** k for k in range(self.capacity + 1))
        if total > limit:
            return None
        out = [tuple(c) for k in range(self.capacity + 1) for c in itertools.product(u, repeat=k)]
        return sort_values(out, order)


# --- encoding with TLC's order (slot sets inside anything) ---------------------------------------

def encode(shape: Shape, v: Any, order: TlcOrder) -> list[int]:
    """The leaves of ``v`` in ``shape`` (slot sets sorted by TLC's order)."""
    if isinstance(shape, (SetS, USetS)):
        return shape.encode_ordered(v, order)
    if isinstance(shape, RecS):
        if not isinstance(v, Record) or set(v.keys()) != set(shape.names()):
            raise NotInShape(v)
        out = []
        for n, s in shape.fields:
            out += encode(s, v[n], order)
        return out
    if isinstance(shape, VariantS):
        i = shape.alt_index(v)
        out = [i]
        for j, a in enumerate(shape.alts):
            out += encode(a, v, order) if j == i else a.blank()
        return out
    if isinstance(shape, FunS):
        items = dict(v.items()) if isinstance(v, (Function, Record)) else (dict(enumerate(v, 1))
                                                                             if isinstance(v, tuple) else None)
        if items is None or len(items) != len(shape.domain):
            raise NotInShape(v)
        out = []
        for d in shape.domain:
            if d not in items:
                raise NotInShape(v)
            out += encode(shape.rng, items[d], order)
        return out
    if isinstance(shape, TupS):
        if not isinstance(v, tuple) or len(v) != len(shape.items):
            raise NotInShape(v)
        out = []
        for s, x in zip(shape.items, v):
            out += encode(s, x, order)
        return out
    if isinstance(shape, PFunS):
        items = shape._items(v)
        mask, out = 0, []
        index = {}
        for i, d in enumerate(shape.universe_values):
            index[d] = i
        for k in items:
            if k not in index:
                raise NotInShape(v)
        for i, d in enumerate(shape.universe_values):
            if d in items:
                mask |= 1 << i
                out += encode(shape.rng, items[d], order)
            else:
                out += shape.rng.blank()
        return [mask] + out
    if isinstance(shape, SeqS):
        if not isinstance(v, tuple) or len(v) > shape.capacity:
            raise NotInShape(v)
        out = [len(v)]
        for x in v:
            out += encode(shape.elem, x, order)
        blank = shape.elem.blank()
        for _ in range(shape.capacity - len(v)):
            out += blank
        return out
    return shape.encode(v)


# --- learning shapes from values ------------------------------------------------------------------

def of_value(v: Any, order: TlcOrder) -> Shape:
    """The least shape holding ``v`` (sets as slot sets of their size)."""
    t = type(v)
    if t is bool:
        return BoolS()
    if t is int:
        return ScalarS((v, v))
    if t in (str, ModelValue):
        return ScalarS(None, (v,))
    if t is frozenset:
        elem: Shape = BOTTOM
        counts: dict = {}
        for x in v:
            elem = join(elem, of_value(x, order), order)
            k = value_alt_key(x)
            counts[k] = counts.get(k, 0) + 1
        return SetS(elem, None, len(v), tuple(sorted(counts.items(), key=repr)))
    if t is Record:
        names = sorted(v.keys(), key=order.word)
        return RecS(tuple((n, of_value(v[n], order)) for n in names))
    if t is tuple:
        return TupS(tuple(of_value(x, order) for x in v))
    if t is Function:
        keys = sort_values(v.keys(), order)
        rng: Shape = BOTTOM
        for k in keys:
            rng = join(rng, of_value(v[k], order), order)
        return FunS(tuple(keys), rng)
    raise Unsupported(f"a state holding {show(v)}, which modelcheck cannot store")


def join(a: Shape, b: Shape, order: TlcOrder) -> Shape:
    """The least shape holding every value of ``a`` and of ``b``."""
    if a == b:
        return a
    if isinstance(a, BottomS):
        return b
    if isinstance(b, BottomS):
        return a
    if isinstance(a, ScalarS) and isinstance(b, ScalarS):
        if a.ints and b.ints:
            ints = (min(a.ints[0], b.ints[0]), max(a.ints[1], b.ints[1]))
        else:
            ints = a.ints or b.ints
        atoms = tuple(sort_values(set(a.atoms) | set(b.atoms), order))
        return ScalarS(ints, atoms)
    if isinstance(a, SetS) and isinstance(b, SetS):
        kinds = dict(a.kinds)
        for k, n in b.kinds:
            kinds[k] = max(kinds.get(k, 0), n)
        return SetS(join(a.elem, b.elem, order), None, max(a.capacity, b.capacity),
                    tuple(sorted(kinds.items(), key=repr)))
    if isinstance(a, RecS) and isinstance(b, RecS) and set(a.names()) == set(b.names()):
        return _join_rec(a, b, order)
    if isinstance(a, (RecS, VariantS)) and isinstance(b, (RecS, VariantS)):
        return _variant(_alts(a) + _alts(b), order)
    if isinstance(a, FunS) and isinstance(b, FunS) and a.domain == b.domain:
        return FunS(a.domain, join(a.rng, b.rng, order))
    if isinstance(a, (FunS, PFunS)) and isinstance(b, (FunS, PFunS, TupS, SeqS)) or \
            isinstance(b, (FunS, PFunS)) and isinstance(a, (TupS, SeqS)):
        return _partial(a, b, order)
    if isinstance(a, (TupS, SeqS)) and isinstance(b, (TupS, SeqS)):
        if isinstance(a, TupS) and isinstance(b, TupS) and len(a.items) == len(b.items):
            return TupS(tuple(join(x, y, order) for x, y in zip(a.items, b.items)))
        elem: Shape = BOTTOM
        cap = 0
        for s in (a, b):
            if isinstance(s, TupS):
                for x in s.items:
                    elem = join(elem, x, order)
                cap = max(cap, len(s.items))
            else:
                elem = join(elem, s.elem, order)
                cap = max(cap, s.capacity)
        return SeqS(elem, cap)
    if isinstance(a, (TupS, SeqS)) and isinstance(b, FunS) or isinstance(b, (TupS, SeqS)) and isinstance(a, FunS):
        t, f = (a, b) if isinstance(b, FunS) else (b, a)
        if isinstance(t, TupS) and not t.items:  # <<>> is also the empty function
            return f
    if alt_key(a) != alt_key(b) or isinstance(a, VariantS) or isinstance(b, VariantS):
        return _variant(_alts(a) + _alts(b), order)
    raise Unsupported(f"a variable holding values of different kinds ({describe(a)} and {describe(b)})")


def _fun_parts(s: Shape) -> tuple[list, Shape]:
    if isinstance(s, FunS):
        return list(s.domain), s.rng
    if isinstance(s, PFunS):
        return list(s.universe_values), s.rng
    rng: Shape = BOTTOM
    for x in s.items:
        rng = _plain_join(rng, x)
    return list(range(1, len(s.items) + 1)), rng


def _plain_join(a, b):
    return b if isinstance(a, BottomS) else a if isinstance(b, BottomS) else None


def _partial(a: Shape, b: Shape, order: TlcOrder) -> Shape:
    """Functions over different domains: one shape over the union of the domains."""
    def domain_of(s):
        if isinstance(s, TupS):
            return list(range(1, len(s.items) + 1))
        if isinstance(s, SeqS):
            return list(range(1, s.capacity + 1))
        return _fun_parts(s)[0]
    da, db = domain_of(a), domain_of(b)
    rng: Shape = BOTTOM
    for s in (a, b):
        if isinstance(s, TupS):
            for x in s.items:
                rng = join(rng, x, order)
        elif isinstance(s, SeqS):
            rng = join(rng, s.elem, order)
        else:
            rng = join(rng, s.rng, order)
    universe = tuple(sort_values(set(da) | set(db), order))
    if len(universe) > MASK_LIMIT:
        raise Unsupported("a variable holding functions over more than 62 different arguments")
    return PFunS(universe, rng)


def _alts(s: Shape) -> list[Shape]:
    return list(s.alts) if isinstance(s, VariantS) else [s]


def _variant(shapes: list, order: TlcOrder) -> Shape:
    """One shape for values of these shapes: alternatives of the same kind joined."""
    alts: dict[tuple, Shape] = {}
    for r in shapes:
        k = alt_key(r)
        alts[k] = join(alts[k], r, order) if k in alts else r
    if len(alts) == 1:
        return next(iter(alts.values()))
    kinds = ["scalar", "boolean", "set", "sequence", "function", "record"]

    def rank(r: Shape):
        k = alt_key(r)
        if isinstance(r, RecS):
            return (kinds.index("record"), len(r.fields), tuple(sorted(order.word(n) for n in r.names())))
        return (kinds.index(k[0]) if k[0] in kinds else len(kinds), 0, ())
    return VariantS(tuple(sorted(alts.values(), key=rank)))


def _join_rec(a: RecS, b: RecS, order: TlcOrder) -> RecS:
    fb = dict(b.fields)
    return RecS(tuple((n, join(s, fb[n], order)) for n, s in a.fields))


def describe(s: Shape) -> str:
    return {BoolS: "booleans", ScalarS: "scalars", SetS: "sets", USetS: "sets", RecS: "records", VariantS: "records",
            FunS: "functions", PFunS: "functions", TupS: "tuples", SeqS: "sequences", BottomS: "nothing"}.get(type(s), type(s).__name__)


def finalize(s: Shape, order: TlcOrder, spare: int = 0) -> Shape:
    """The shape with each set's form chosen: a bitmask over its universe when
    that is small enough, else slots (``spare`` more than the largest seen)."""
    if isinstance(s, SetS):
        elem = finalize(s.elem, order, spare)
        universe = elem.universe(order, MASK_LIMIT)
        if universe is not None:
            return SetS(elem, tuple(universe), 0)
        if isinstance(elem, VariantS):
            kinds = dict(s.kinds)
            parts = []
            for a in elem.alts:
                k = alt_key(a)
                n = kinds.get(k, 0) if k[0] != "function" else max((c for kk, c in kinds.items()
                                                                     if kk[0] == "function"), default=0)
                parts.append(SetS(a, None, max(1, n + spare)))
            return USetS(elem, tuple(parts))
        return SetS(elem, None, max(1, s.capacity + spare))
    if isinstance(s, RecS):
        return RecS(tuple((n, finalize(x, order, spare)) for n, x in s.fields))
    if isinstance(s, VariantS):
        return VariantS(tuple(finalize(a, order, spare) for a in s.alts))
    if isinstance(s, FunS):
        return FunS(s.domain, finalize(s.rng, order, spare))
    if isinstance(s, PFunS):
        return PFunS(s.universe_values, finalize(s.rng, order, spare))
    if isinstance(s, TupS):
        return TupS(tuple(finalize(x, order, spare) for x in s.items))
    if isinstance(s, SeqS):
        return SeqS(finalize(s.elem, order, spare), max(1, s.capacity + spare))
    return s


# --- the codec: stored leaves <-> TLA+ values (ITF) ----------------------------------------------------

class ShapeCodec(Codec):
    """A variable stored in ``shape`` at ``slots``, read and written as a TLA+ value."""

    def __init__(self, shape: Shape, slots: list[int], order: TlcOrder):
        self.shape, self._slots, self.order = shape, list(slots), order

    def encode(self, state):
        return self.shape.decode([state[s] for s in self._slots])

    def decode(self, value, out, path):
        v = from_json(self.shape, value, path)
        try:
            ints = encode(self.shape, v, self.order)
        except NotInShape:
            raise TraceFormatError(f"{path}: {show(v)} does not fit this model's bounds") from None
        for s, x in zip(self._slots, ints):
            out[s] = x

    def slots(self):
        return list(self._slots)


def from_json(shape: Shape, x: Any, path: str) -> Any:
    """A TLA+ value of ``shape`` read from ITF JSON (or TLC's plain JSON)."""
    if isinstance(shape, BoolS):
        if not isinstance(x, bool):
            raise TraceFormatError(f"{path}: expected TRUE or FALSE, got {x!r}")
        return x
    if isinstance(shape, ScalarS):
        if isinstance(x, str):
            for a in shape.atoms:
                if str.__str__(a) == str.__str__(x):
                    return a
            raise TraceFormatError(f"{path}: {x!r} is none of {', '.join(show(a) for a in shape.atoms) or 'nothing'}")
        return json_int(x, path)
    if isinstance(shape, SetS):
        return frozenset(from_json(shape.elem, e, f"{path}{{}}") for e in json_set(x, path))
    if isinstance(shape, USetS):
        return frozenset(from_json(shape.variant, e, f"{path}{{}}") for e in json_set(x, path))
    if isinstance(shape, VariantS):
        problems = []
        for a in shape.alts:
            try:
                return from_json(a, x, path)
            except TraceFormatError as e:
                problems.append(str(e))
        raise TraceFormatError(f"{path}: {x!r} is none of the kinds of value this variable holds")
    if isinstance(shape, RecS):
        if not isinstance(x, dict) or any(str(k).startswith("#") for k in x):
            raise TraceFormatError(f"{path}: expected a record, got {x!r}")
        if set(shape.names()) != set(x.keys()):
            raise TraceFormatError(f"{path}: a record with fields {', '.join(x)} is not one this spec holds")
        return Record((n, from_json(s, x[n], f"{path}.{n}")) for n, s in shape.fields)
    if isinstance(shape, PFunS):
        from modelcheck.language.codec import _json_key
        if isinstance(x, dict) and set(x) == {"#map"}:
            pairs = [(_json_key(k, path), v) for k, v in x["#map"]]
        elif isinstance(x, dict):
            pairs = list(x.items())
        elif isinstance(x, list):
            pairs = [(str(i), v) for i, v in enumerate(x, 1)]
        else:
            raise TraceFormatError(f"{path}: expected a function, got {x!r}")
        by_text = {str.__str__(d) if isinstance(d, str) else str(d): d for d in shape.universe_values}
        out = []
        for k, v in pairs:
            if str(k) not in by_text:
                raise TraceFormatError(f"{path}: {k} is not an argument this function can have")
            d = by_text[str(k)]
            out.append((d, from_json(shape.rng, v, f"{path}[{show(d)}]")))
        return fcn(out)
    if isinstance(shape, FunS):
        from modelcheck.language.codec import json_function
        values = json_function(x, [str.__str__(d) if isinstance(d, ModelValue) else d for d in shape.domain], path)
        return fcn((d, from_json(shape.rng, v, f"{path}[{show(d)}]")) for d, v in zip(shape.domain, values))
    if isinstance(shape, (TupS, SeqS)):
        if isinstance(x, dict) and set(x) == {"#tup"}:
            x = x["#tup"]
        if not isinstance(x, list):
            raise TraceFormatError(f"{path}: expected a sequence, got {x!r}")
        if isinstance(shape, TupS):
            if len(x) != len(shape.items):
                raise TraceFormatError(f"{path}: expected {len(shape.items)} components, got {len(x)}")
            return tuple(from_json(s, e, f"{path}[{i + 1}]") for i, (s, e) in enumerate(zip(shape.items, x)))
        return tuple(from_json(shape.elem, e, f"{path}[{i + 1}]") for i, e in enumerate(x))
    raise TraceFormatError(f"{path}: cannot read {x!r}")


def leaf_vars(base: int, shape: Shape) -> list[Expr]:
    return [var(base + i) for i in range(shape.width())]


def lifted(values: Sequence[int]) -> list[Expr]:
    return [lift(v) for v in values]
