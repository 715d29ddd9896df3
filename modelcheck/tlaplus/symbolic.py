"""Symbolic TLA+ values: values whose parts are expressions over state slots.

The lowering (``lower.py``) evaluates a module over values that are either
concrete (plain TLA+ values, folded at build time) or symbolic: these
classes, each shaped like a TLA+ value and holding expression trees
(``modelcheck.language.expr``) where the state decides:

==============  ================================================================
``SBool``       a condition
``SScalar``     an integer, or one of a few other values, by its code in a
                ``ScalarS`` (an integer with a known range when it has no atoms)
``SRec``        a record: field -> value (concrete or symbolic)
``SVariant``    a record of one of several field sets (a tag and each alternative)
``SFun``        a function over a fixed domain
``STup``        a tuple of fixed length
``SSeq``        a sequence: a length and its possible elements
``SMask``       a set as a bitmask over a universe of concrete values
``SSet``        a set as candidates: (present, element) pairs, possibly repeated
``SInterval``   lo..hi with a bound the state decides
==============  ================================================================

The operations here (equality, membership, set algebra, indexing, ``ite``)
take either kind and fold what is known. ``to_leaves`` stores a value in a
shape (``shapes.py``): where it may not fit (an integer out of range, a set
past its capacity) it reports an overflow condition; where it can never fit
(a value of a structure the shape lacks) it raises ``NotInShape`` and the
compiler widens the shape. ``from_leaves`` reads a stored value back.

Where TLC stops with an error (a function applied outside its domain),
the operation reports the condition to the lowering context (``L.fail``),
which conjoins it with the conditions under which the expression is
evaluated.
"""

from __future__ import annotations

from typing import Any, Sequence

from modelcheck.language.expr import (BOOL, FALSE, INT, TRUE, Expr, add, and_, bit_and, bit_or, cardinality, const,
                                      const_value, eq, ite, is_const, le, lex_less, lift, lt, ne, not_, or_, sub)
from modelcheck.language.values import Function, Record
from modelcheck.tlaplus.shapes import (BOTTOM, MASK_LIMIT, BoolS, FunS, NotInShape, PFunS, RecS, USetS, ScalarS, SeqS, SetS, Shape,
                                       TupS, VariantS, alt_key, encode, join, of_value, value_alt_key)
from modelcheck.tlaplus.syntax import EvalError, Unsupported
from modelcheck.tlaplus.values import (Infinite, Interval, LazySet, ModelValue, PowerSet, ProductSet, RecordSet, SeqSet,
                                       FunctionSet, TlcOrder, fcn, fcn_items, is_fcn, is_set, set_contains, set_elements,
                                       show, sort_values)


class Sym:
    """A symbolic TLA+ value. ``origin`` is set on a value read straight from
    the state: (its shape, its leaves), so storing it back unchanged costs nothing."""

    __slots__ = ("origin",)


class SBool(Sym):
    __slots__ = ("e",)

    def __init__(self, e: Expr):
        self.e = e


class SScalar(Sym):
    __slots__ = ("e", "shape")

    def __init__(self, e: Expr, shape: ScalarS):
        self.e, self.shape = e, shape

    def __repr__(self):
        return f"SScalar({self.e!r}, {self.shape})"


class SRec(Sym):
    __slots__ = ("fields",)

    def __init__(self, fields: dict):
        self.fields = fields


class SVariant(Sym):
    """One record of ``shape``'s alternatives: ``tag`` says which; ``alts[i]`` is
    the record as alternative i (meaningful only where the tag is i)."""

    __slots__ = ("tag", "shape", "alts")

    def __init__(self, tag: Expr, shape: VariantS, alts: list):
        self.tag, self.shape, self.alts = tag, shape, alts


class SFun(Sym):
    __slots__ = ("domain", "values")

    def __init__(self, domain: tuple, values: list):
        self.domain, self.values = domain, values


class SPFun(Sym):
    """A function whose domain is the part of ``universe`` the bitmask ``mask`` holds."""

    __slots__ = ("universe", "mask", "values")

    def __init__(self, universe: tuple, mask: Expr, values: list):
        self.universe, self.mask, self.values = universe, mask, values

    def present(self, i: int) -> Expr:
        return ne(bit_and(self.mask, 1 << i), 0)


class STup(Sym):
    __slots__ = ("items",)

    def __init__(self, items: list):
        self.items = items


class SSeq(Sym):
    __slots__ = ("length", "items")

    def __init__(self, length: Expr, items: list):
        self.length, self.items = length, items


class SMask(Sym):
    __slots__ = ("mask", "universe")

    def __init__(self, mask: Expr, universe: tuple):
        self.mask, self.universe = mask, universe


class SSet(Sym):
    """Candidates (present, element); the first ``sorted_prefix`` are in TLC's
    order with no repeats (they come from a stored set). ``base``: when those
    first candidates are a stored set's slots, present as stored, its
    (shape, leaves), so that adding to it starts from them."""

    __slots__ = ("items", "sorted_prefix", "base")

    def __init__(self, items: list, sorted_prefix: int = 0, base=None):
        self.items, self.sorted_prefix, self.base = items, sorted_prefix, base


class SInterval(Sym):
    __slots__ = ("lo", "hi")

    def __init__(self, lo, hi):
        self.lo, self.hi = lo, hi


class SPowerset(Sym):
    __slots__ = ("base",)

    def __init__(self, base):
        self.base = base


def is_sym(v) -> bool:
    return isinstance(v, Sym)


# --- conditions and integers ------------------------------------------------------------------

def cond(v, where: str = "") -> Expr:
    """A value used as TRUE/FALSE, as an expression."""
    if v is True or v is False:
        return lift(v)
    if isinstance(v, SBool):
        return v.e
    raise EvalError(f"expected TRUE or FALSE{where}, got {describe(v)}")


def boolean(e: Expr):
    """An expression as a value: a constant folds to TRUE/FALSE."""
    if is_const(e):
        return bool(const_value(e))
    return SBool(e)


def int_shape(lo: int, hi: int) -> ScalarS:
    return ScalarS((lo, hi))


def as_int(v, L, what: str = "") -> tuple[Expr, int, int]:
    """An integer value: its expression and the range it lies in."""
    if type(v) is int:
        return const(v), v, v
    if isinstance(v, SScalar):
        s = v.shape
        if s.ints is None:
            raise EvalError(f"{what} expects an integer, got one of {', '.join(show(a) for a in s.atoms)}")
        if s.atoms:
            L.fail(lt(v.e, s.ints[0]), f"{what} applied to a value that is not an integer")
        if s.constant:
            return const(s.ints[0]), s.ints[0], s.ints[0]
        return v.e, s.ints[0], s.ints[1]
    raise EvalError(f"{what} expects an integer, got {describe(v)}")


def make_int(e: Expr, lo: int, hi: int):
    if is_const(e):
        return const_value(e)
    if lo > hi:
        lo, hi = hi, lo
    return SScalar(e, ScalarS((lo, hi)))


def describe(v) -> str:
    if not is_sym(v):
        return show(v)
    return {SBool: "a condition", SScalar: "a scalar", SRec: "a record", SVariant: "a record", SFun: "a function",
            STup: "a tuple", SSeq: "a sequence", SMask: "a set", SSet: "a set", SInterval: "an interval",
            SPowerset: "a set of sets"}.get(type(v), "a value")


# --- shapes of values ----------------------------------------------------------------------------

def shape_of(v, order: TlcOrder) -> Shape:
    """The shape a value needs (for a concrete one, the least that holds it)."""
    if not is_sym(v):
        if isinstance(v, LazySet):
            if not v.finite:
                raise Unsupported(f"the infinite set {show(v)} as a value")
            v = frozenset(set_elements(v, None))
        return of_value(v, order)
    t = type(v)
    if t is SBool:
        return BoolS()
    if t is SScalar:
        return v.shape
    if t is SRec:
        names = sorted(v.fields, key=order.word)
        return RecS(tuple((n, shape_of(v.fields[n], order)) for n in names))
    if t is SVariant:
        return v.shape
    if t is SFun:
        rng: Shape = BOTTOM
        for x in v.values:
            rng = join(rng, shape_of(x, order), order)
        return FunS(v.domain, rng)
    if t is SPFun:
        rng = BOTTOM
        for x in v.values:
            rng = join(rng, shape_of(x, order), order)
        return PFunS(v.universe, rng)
    if t is STup:
        return TupS(tuple(shape_of(x, order) for x in v.items))
    if t is SSeq:
        elem: Shape = BOTTOM
        for x in v.items:
            elem = join(elem, shape_of(x, order), order)
        return SeqS(elem, len(v.items))
    if t is SMask:
        elem = BOTTOM
        for u in v.universe:
            elem = join(elem, of_value(u, order), order)
        return SetS(elem, None, len(v.universe))
    if t is SSet:
        elem = BOTTOM
        kinds: dict = {}
        for _, x in v.items:
            elem = join(elem, shape_of(x, order), order)
            if isinstance(x, SVariant):
                for a in x.shape.alts:
                    kinds[alt_key(a)] = kinds.get(alt_key(a), 0) + 1
            else:
                k = sym_alt_key(x)
                kinds[k] = kinds.get(k, 0) + 1
        return SetS(elem, None, len(v.items), tuple(sorted(kinds.items(), key=repr)))
    raise Unsupported(f"{describe(v)} held in a variable")


# --- reading stored values -------------------------------------------------------------------------

def from_leaves(shape: Shape, leaves: Sequence[Expr]):
    """The value stored in ``leaves`` (expressions) as ``shape`` holds it."""
    v = _from_leaves(shape, leaves)
    if isinstance(v, Sym):
        v.origin = (shape, list(leaves))
    return v


def _from_leaves(shape: Shape, leaves: Sequence[Expr]):
    t = type(shape)
    if t is BoolS:
        e = leaves[0]
        return boolean(e == 1) if not is_const(e) else bool(const_value(e))
    if t is ScalarS:
        if shape.constant:
            return shape.decode([])
        e = leaves[0]
        if is_const(e):
            return shape.value(const_value(e))
        return SScalar(e, shape)
    if t is RecS:
        out, k = {}, 0
        for n, s in shape.fields:
            w = s.width()
            out[n] = from_leaves(s, leaves[k:k + w])
            k += w
        return _fold_rec(out)
    if t is VariantS:
        tag = leaves[0]
        alts, k = [], 1
        for a in shape.alts:
            w = a.width()
            alts.append(from_leaves(a, leaves[k:k + w]))
            k += w
        if is_const(tag):
            return alts[const_value(tag)]
        return SVariant(tag, shape, alts)
    if t is FunS:
        w = shape.rng.width()
        values = [from_leaves(shape.rng, leaves[i * w:(i + 1) * w]) for i in range(len(shape.domain))]
        if not any(is_sym(x) for x in values):
            return fcn(zip(shape.domain, values))
        return SFun(shape.domain, values)
    if t is PFunS:
        w = shape.rng.width()
        values = [from_leaves(shape.rng, leaves[1 + i * w:1 + (i + 1) * w]) for i in range(len(shape.universe_values))]
        m = leaves[0]
        if is_const(m) and not any(is_sym(x) for x in values):
            mask = const_value(m)
            return fcn((u, x) for i, (u, x) in enumerate(zip(shape.universe_values, values)) if mask >> i & 1)
        return SPFun(shape.universe_values, m, values)
    if t is TupS:
        out, k = [], 0
        for s in shape.items:
            w = s.width()
            out.append(from_leaves(s, leaves[k:k + w]))
            k += w
        if not any(is_sym(x) for x in out):
            return tuple(out)
        return STup(out)
    if t is SeqS:
        w = shape.elem.width()
        items = [from_leaves(shape.elem, leaves[1 + k * w:1 + (k + 1) * w]) for k in range(shape.capacity)]
        length = leaves[0]
        if is_const(length):
            return _seq_value(const_value(length), items)
        return SSeq(length, items)
    if t is USetS:
        items = []
        for part, (a, b) in zip(shape.parts, shape.offsets()):
            seg = leaves[a:b]
            w = part.elem.width()
            count = seg[0]
            items += [(lt(k, count), from_leaves(part.elem, seg[1 + k * w:1 + (k + 1) * w]))
                      for k in range(part.capacity)]
        return SSet(items, len(items))
    if t is SetS:
        if shape.is_mask:
            m = leaves[0]
            if is_const(m):
                mask = const_value(m)
                return frozenset(u for i, u in enumerate(shape.universe_values) if mask >> i & 1)
            return SMask(m, shape.universe_values)
        w = shape.elem.width()
        count = leaves[0]
        items = [(lt(k, count), from_leaves(shape.elem, leaves[1 + k * w:1 + (k + 1) * w]))
                 for k in range(shape.capacity)]
        return SSet(items, shape.capacity)
    raise Unsupported(f"reading a stored {type(shape).__name__}")


def _fold_rec(fields: dict):
    if not any(is_sym(x) for x in fields.values()):
        return Record(fields.items())
    return SRec(fields)


def _seq_value(n: int, items: list):
    head = items[:n]
    if not any(is_sym(x) for x in head):
        return tuple(head)
    return STup(head)


# --- storing values -------------------------------------------------------------------------------

class Store:
    """What storing values into shapes found: overflow conditions (a value
    that does not fit the bounds at run time), each with what overflowed."""

    def __init__(self, order: TlcOrder):
        self.order = order
        self.overflows: list[tuple[Expr, str]] = []
        self.conditions: list[Expr] = []  # where the value being stored matters at all

    def overflow(self, c: Expr, what: str) -> None:
        c = and_(*self.conditions, c)
        if c is not FALSE:
            self.overflows.append((c, what))

    def under(self, c: Expr):
        """Storing a part that matters only where ``c`` holds (a variant's
        other alternatives, a sequence's slots past its end)."""
        return _StoreUnder(self, c)


class _StoreUnder:
    def __init__(self, st: Store, c: Expr):
        self.st, self.c = st, c

    def __enter__(self):
        self.st.conditions.append(self.c)

    def __exit__(self, *exc):
        self.st.conditions.pop()
        return False


def to_leaves(v, shape: Shape, st: Store, path: str) -> list[Expr]:
    """The leaves storing ``v`` in ``shape``; ``NotInShape`` where it never fits."""
    origin = getattr(v, "origin", None)
    if origin is not None and (origin[0] is shape or origin[0] == shape):
        return list(origin[1])
    t = type(shape)
    if not is_sym(v):
        if isinstance(v, LazySet):
            if not v.finite:
                raise Unsupported(f"the infinite set {show(v)} stored in {path}")
            v = frozenset(set_elements(v, None))
        if t is ScalarS and type(v) is int and shape.ints is not None and not shape.atoms:
            lo, hi = shape.ints
            if not lo <= v <= hi:
                st.overflow(TRUE, f"{path} = {v}, outside {lo}..{hi}")
                return [const(lo)] if not shape.constant else []
        return [const(x) for x in encode(shape, v, st.order)]
    if t is BoolS:
        if not isinstance(v, SBool):
            raise NotInShape(v)
        e = v.e
        if e.op == "eq" and e.args[0].op == "var" and is_const(e.args[1]) and const_value(e.args[1]) == 1:
            return [e.args[0]]
        return [ite(e, 1, 0)]
    if t is ScalarS:
        if not isinstance(v, SScalar):
            raise NotInShape(v)
        return [_recode(v, shape, st, path)] if not shape.constant else _check_constant(v, shape, st, path)
    if isinstance(v, SVariant) and t is not VariantS:
        return _variant_as(v, shape, st, path)
    if t is RecS:
        if not isinstance(v, SRec) or set(v.fields) != set(shape.names()):
            raise NotInShape(v)
        out = []
        for n, s in shape.fields:
            out += to_leaves(v.fields[n], s, st, f"{path}.{n}")
        return out
    if t is VariantS:
        if isinstance(v, SVariant):
            return _variant_to_variant(v, shape, st, path)
        i = variant_index(shape, sym_alt_key(v))
        if i is None:
            raise NotInShape(v)
        out = [const(i)]
        for j, b in enumerate(shape.alts):
            out += to_leaves(v, b, st, path) if j == i else [const(x) for x in b.blank()]
        return out
    if t is FunS:
        if not isinstance(v, SFun) or tuple(v.domain) != tuple(shape.domain):
            if isinstance(v, SFun) and set(v.domain) == set(shape.domain):
                by = dict(zip(v.domain, v.values))
                v = SFun(shape.domain, [by[d] for d in shape.domain])
            else:
                raise NotInShape(v)
        out = []
        for d, x in zip(shape.domain, v.values):
            out += to_leaves(x, shape.rng, st, f"{path}[{show(d)}]")
        return out
    if t is PFunS:
        return _pfun_to_leaves(v, shape, st, path)
    if t is USetS:
        return _uset_to_leaves(v, shape, st, path)
    if t is TupS:
        if not isinstance(v, STup) or len(v.items) != len(shape.items):
            raise NotInShape(v)
        out = []
        for i, (s, x) in enumerate(zip(shape.items, v.items)):
            out += to_leaves(x, s, st, f"{path}[{i + 1}]")
        return out
    if t is SeqS:
        if isinstance(v, STup):
            v = SSeq(const(len(v.items)), list(v.items))
        if not isinstance(v, SSeq):
            raise NotInShape(v)
        return _seq_to_leaves(v, shape, st, path)
    if t is SetS:
        return _set_to_leaves(v, shape, st, path)
    raise NotInShape(v)


def _check_constant(v: SScalar, shape: ScalarS, st: Store, path: str) -> list[Expr]:
    only = shape.decode([])
    st.overflow(not_(scalar_is(v, only, st.order)), f"{path} takes a value other than {show(only)}")
    return []


def scalar_is(v: SScalar, x, order: TlcOrder) -> Expr:
    """v = x for a concrete scalar x."""
    try:
        code = v.shape.code(x)
    except NotInShape:
        return FALSE
    if v.shape.constant:
        return TRUE
    return eq(v.e, code)


def _recode(v: SScalar, target: ScalarS, st: Store, path: str) -> Expr:
    src = v.shape
    e = v.e if not src.constant else const(src.code(src.decode([])))
    if src == target:
        return e
    out_of_range: list[Expr] = []
    # atoms: remap each atom's code; one the target lacks is a shape misfit
    mapping = {}
    for i, a in enumerate(src.atoms):
        mapping[src.base + i] = target.code(a)  # raises NotInShape when the target lacks the atom
    if src.ints:
        lo, hi = src.ints
        tl, th = target.ints if target.ints else (None, None)
        if target.ints is None:
            raise NotInShape(v)
        if (lo < tl or hi > th) and target.atoms:
            # an integer out of range would read as one of the atoms coded just below it:
            # checked here (a pure integer slot is range-checked when the step is emitted)
            is_int = le(src.ints[0], e) if src.atoms else TRUE
            out_of_range.append(and_(is_int, or_(lt(e, tl), lt(th, e))))
    if out_of_range:
        c = or_(*out_of_range)
        st.overflow(c, f"{path} outside {target.ints[0]}..{target.ints[1]}")
        e = ite(c, target.lo(), e)
    if all(k == x for k, x in mapping.items()):
        return e
    out = e
    for k, x in mapping.items():
        out = ite(eq(e, k), x, out)
    return out


def sym_alt_key(v) -> tuple:
    """The kind of a value, as a variant's alternatives are told apart."""
    if not is_sym(v):
        return value_alt_key(v)
    t = type(v)
    if t is SRec:
        return ("record", frozenset(v.fields))
    if t is SScalar:
        return ("scalar",)
    if t is SBool:
        return ("boolean",)
    if t in (SMask, SSet, SInterval, SPowerset):
        return ("set",)
    if t in (SSeq, STup, SFun, SPFun):
        return ("function", None)
    return ("?",)


def variant_index(shape: VariantS, key: tuple) -> int | None:
    for i, a in enumerate(shape.alts):
        k = alt_key(a)
        if k == key:
            return i
    return None


def _variant_as(v: SVariant, shape: Shape, st: Store, path: str) -> list[Expr]:
    """A variant's value stored where only one of its kinds fits."""
    want = alt_key(shape)
    for i, a in enumerate(v.shape.alts):
        if alt_key(a) == want:
            st.overflow(ne(v.tag, i), f"{path} holds a value of another kind")
            return to_leaves(v.alts[i], shape, st, path)
    raise NotInShape(v)


def _variant_to_variant(v: SVariant, shape: VariantS, st: Store, path: str) -> list[Expr]:
    index = {}
    for i, a in enumerate(v.shape.alts):
        j = variant_index(shape, alt_key(a))
        if j is None:
            raise NotInShape(v)
        index[i] = j
    if all(i == j for i, j in index.items()):
        tag = v.tag
    else:
        tag = const(0)
        for i, j in index.items():
            tag = ite(eq(v.tag, i), j, tag)
    out = [tag]
    inverse = {j: i for i, j in index.items()}
    for j, b in enumerate(shape.alts):
        if j in inverse:
            i = inverse[j]
            here = eq(v.tag, i)
            with st.under(here):
                leaves = to_leaves(v.alts[i], b, st, path)
            blank = b.blank()
            out += [ite(here, x, k) for x, k in zip(leaves, blank)]
        else:
            out += [const(x) for x in b.blank()]
    return out


def fun_pairs(v):
    """(present, argument, value) for every argument a function value may have."""
    if isinstance(v, SPFun):
        return [(v.present(i), u, x) for i, (u, x) in enumerate(zip(v.universe, v.values))]
    if isinstance(v, SFun):
        return [(TRUE, d, x) for d, x in zip(v.domain, v.values)]
    if isinstance(v, STup):
        return [(TRUE, i + 1, x) for i, x in enumerate(v.items)]
    if isinstance(v, SSeq):
        return [(lt(i, v.length), i + 1, x) for i, x in enumerate(v.items)]
    return None


def _pfun_to_leaves(v, shape: PFunS, st: Store, path: str) -> list[Expr]:
    pairs = fun_pairs(v)
    if pairs is None:
        raise NotInShape(v)
    index = {u: i for i, u in enumerate(shape.universe_values)}
    n = len(shape.universe_values)
    mask: Expr = const(0)
    values: list = [None] * n
    for p, u, x in pairs:
        if u not in index:
            if p is FALSE:
                continue
            raise NotInShape(u)
        i = index[u]
        mask = bit_or(mask, ite(p, 1 << i, 0))
        values[i] = (p, x)
    out = [mask]
    blank = shape.rng.blank()
    for i in range(n):
        if values[i] is None:
            out += [const(b) for b in blank]
            continue
        p, x = values[i]
        with st.under(p):
            leaves = to_leaves(x, shape.rng, st, f"{path}[{show(shape.universe_values[i])}]")
        out += [x if p is TRUE else ite(p, x, b) for x, b in zip(leaves, blank)]
    return out


def _seq_to_leaves(v: SSeq, shape: SeqS, st: Store, path: str) -> list[Expr]:
    cap = shape.capacity
    n = len(v.items)
    if n > cap:
        st.overflow(lt(cap, v.length), f"Len({path}) past its capacity {cap}")
    length = v.length if n <= cap else ite(lt(cap, v.length), cap, v.length)
    out = [length]
    blank = shape.elem.blank()
    for k in range(cap):
        if k < n:
            here = lt(k, v.length)
            with st.under(here):
                leaves = to_leaves(v.items[k], shape.elem, st, f"{path}[{k + 1}]")
            out += [ite(here, x, b) if not (is_const(x) and const_value(x) == b) else x
                    for x, b in zip(leaves, blank)]
        else:
            out += [const(b) for b in blank]
    return out


# --- sets ---------------------------------------------------------------------------------------

def set_items(v, order: TlcOrder) -> list[tuple[Expr, Any]]:
    """A finite set's (present, element) candidates, in TLC's order where known."""
    if isinstance(v, SSet):
        return v.items
    if isinstance(v, SMask):
        return [(ne(bit_and(v.mask, 1 << i), 0), u) for i, u in enumerate(v.universe)]
    if isinstance(v, SInterval):
        lo, lo_min, _ = _bound(v.lo)
        hi, _, hi_max = _bound(v.hi)
        return [(and_(le(lo, k), le(k, hi)), k) for k in range(lo_min, hi_max + 1)]
    if isinstance(v, SPowerset):
        base = set_items(v.base, order)
        universe = [x for _, x in base]
        if any(is_sym(x) for x in universe) or len(universe) > 16:
            raise Unsupported("SUBSET of a set held in the state, over more than a few values")
        out = []
        for k in range(len(universe) + 1):
            import itertools
            for combo in itertools.combinations(range(len(universe)), k):
                present = and_(*(base[i][0] for i in combo))
                out.append((present, frozenset(universe[i] for i in combo)))
        return out
    if is_set(v):
        return [(TRUE, x) for x in set_elements(v, order)]
    raise EvalError(f"expected a set, got {describe(v)}")


def _bound(v) -> tuple[Expr, int, int]:
    if type(v) is int:
        return const(v), v, v
    if isinstance(v, SScalar) and v.shape.is_int():
        return v.e, v.shape.ints[0], v.shape.ints[1]
    raise EvalError(f"an interval bound must be an integer, got {describe(v)}")


def make_set(items: list, order: TlcOrder, sorted_prefix: int = 0, base=None):
    """A set from (present, element) candidates, simplified: absent ones
    dropped, and when every element is concrete, a concrete set (all present)
    or a bitmask over the elements (``sorted_prefix``: how many leading
    candidates are known to be in TLC's order with no repeats)."""
    kept = [(p, x) for p, x in items if p is not FALSE]
    prefix = sorted_prefix if len(kept) == len(items) else 0
    if any(is_sym(x) for _, x in kept):
        return SSet(kept, min(prefix, len(kept)), base if len(kept) == len(items) else None)
    groups: dict = {}
    for p, x in kept:
        groups.setdefault(x, []).append(p)
    if all(any(p is TRUE for p in ps) for ps in groups.values()):
        return frozenset(groups)
    if len(groups) > MASK_LIMIT:
        return SSet(kept, 0)
    values = sort_values(list(groups), order)
    mask: Expr = const(0)
    for i, x in enumerate(values):
        mask = bit_or(mask, ite(or_(*groups[x]), 1 << i, 0))
    if is_const(mask):
        return frozenset(x for i, x in enumerate(values) if const_value(mask) >> i & 1)
    return SMask(mask, tuple(values))


def _uset_to_leaves(v, shape: USetS, st: Store, path: str) -> list[Expr]:
    """A set stored as one sorted slot set per kind of element."""
    order = st.order
    variant = shape.variant
    if isinstance(v, SSet):
        items, prefix = v.items, v.sorted_prefix
        base = v.base
    elif isinstance(v, (SMask, SInterval, SPowerset)) or is_set(v):
        items = set_items(v, order)
        prefix, base = (len(items) if isinstance(v, SMask) else 0), None
    else:
        raise NotInShape(v)
    parts = []  # (count, slots) per part
    extras: list = []
    if base is not None and (base[0] is shape or base[0] == shape) and prefix == len(items[:prefix]) and \
            prefix == sum(p.capacity for p in shape.parts):
        for part, (a, b) in zip(shape.parts, shape.offsets()):
            seg = base[1][a:b]
            w = part.elem.width()
            parts.append((seg[0], [list(seg[1 + k * w:1 + (k + 1) * w]) for k in range(part.capacity)]))
        extras = list(items[prefix:])
    else:
        groups: list[list] = [[] for _ in shape.parts]
        for p, x in items[:prefix]:
            i = variant_index(variant, sym_alt_key(x)) if not isinstance(x, SVariant) else None
            if i is None:
                extras.append((p, x))
            else:
                groups[i].append((p, x))
        for part, g in zip(shape.parts, groups):
            encoded = []
            for p, x in g:
                with st.under(p):
                    encoded.append((p, to_leaves(x, part.elem, st, f"{path}{{}}")))
            parts.append(_compact(encoded, part.capacity, [const(b) for b in part.elem.blank()], st, path))
        extras += list(items[prefix:])
    for p, x in extras:
        if p is FALSE:
            continue
        if isinstance(x, SVariant):
            routes = []
            for j, a in enumerate(x.shape.alts):
                i = variant_index(variant, alt_key(a))
                if i is None:
                    raise NotInShape(x)
                routes.append((i, and_(p, eq(x.tag, j)), x.alts[j]))
        else:
            i = variant_index(variant, sym_alt_key(x))
            if i is None:
                raise NotInShape(x)
            routes = [(i, p, x)]
        for i, q, y in routes:
            part = shape.parts[i]
            with st.under(q):
                leaves = to_leaves(y, part.elem, st, f"{path}{{}}")
            count, slots = parts[i]
            parts[i] = _insert(count, slots, q, leaves, part.elem, part.capacity, st, path)
    out = []
    for count, slots in parts:
        out.append(count)
        for slot in slots:
            out += slot
    return out


def _set_to_leaves(v, shape: SetS, st: Store, path: str) -> list[Expr]:
    order = st.order
    if shape.is_mask:
        universe = shape.universe_values
        index = {u: i for i, u in enumerate(universe)}
        if isinstance(v, SMask):
            if tuple(v.universe) == tuple(universe):
                return [v.mask]
            mask: Expr = const(0)
            outside: list[Expr] = []
            for i, u in enumerate(v.universe):
                here = ne(bit_and(v.mask, 1 << i), 0)
                if u in index:
                    mask = bit_or(mask, ite(here, 1 << index[u], 0))
                else:
                    if is_const(here) and const_value(here) is False:
                        continue
                    raise NotInShape(u)
            return [mask]
        if isinstance(v, (SSet, SInterval, SPowerset)):
            mask = const(0)
            for p, x in set_items(v, order):
                if not is_sym(x):
                    if x not in index:
                        if p is FALSE:
                            continue
                        if type(x) is int:
                            st.overflow(p, f"{path} holds {x}, outside what it was given room for")
                            continue
                        raise NotInShape(x)
                    mask = bit_or(mask, ite(p, 1 << index[x], 0))
                    continue
                hit: list[Expr] = []
                for u, i in index.items():
                    here = value_eq(x, u, order)
                    if here is not FALSE:
                        mask = bit_or(mask, ite(and_(p, here), 1 << i, 0))
                        hit.append(here)
                st.overflow(and_(p, not_(or_(*hit))), f"{path} holds an element outside what it was given room for")
            return [mask]
        raise NotInShape(v)
    # slots, sorted by TLC's order
    elem, cap = shape.elem, shape.capacity
    w = elem.width()
    if isinstance(v, SMask):
        items = set_items(v, order)
        prefix = len(items)
    elif isinstance(v, SSet):
        items, prefix = v.items, v.sorted_prefix
    elif isinstance(v, (SInterval, SPowerset)):
        items, prefix = set_items(v, order), 0
    else:
        raise NotInShape(v)
    base = getattr(v, "base", None) if isinstance(v, SSet) else None
    blank = [const(b) for b in elem.blank()]
    if base is not None and (base[0] is shape or base[0] == shape) and prefix == cap:
        # a stored set with elements added: start from its slots as they are
        leaves0 = base[1]
        count, slots = leaves0[0], [list(leaves0[1 + k * w:1 + (k + 1) * w]) for k in range(cap)]
        encoded = []
        for p, x in items[prefix:]:
            with st.under(p):
                encoded.append((p, to_leaves(x, elem, st, f"{path}{{}}")))
        for p, leaves in encoded:
            count, slots = _insert(count, slots, p, leaves, elem, cap, st, path)
        out = [count]
        for slot in slots:
            out += slot
        return out
    encoded = []
    for p, x in items:
        with st.under(p):
            encoded.append((p, to_leaves(x, elem, st, f"{path}{{}}")))
    # the sorted prefix is compacted, then the others inserted one by one
    head = encoded[:prefix]
    count, slots = _compact(head, cap, blank, st, path)
    for p, leaves in encoded[prefix:]:
        count, slots = _insert(count, slots, p, leaves, elem, cap, st, path)
    out = [count]
    for s in slots:
        out += s
    return out


def _stored_count(items: list, cap: int):
    """When ``items`` are a stored slot set's slots, each present exactly as
    stored (slot i where i < count) but for at most one taken out (FALSE):
    (count, the index taken out or None); else None."""
    if len(items) != cap or not items:
        return None
    count = None
    taken = None
    for i, (p, _) in enumerate(items):
        if p is FALSE:
            if taken is not None:
                return None
            taken = i
            continue
        if p.op != "lt" or not is_const(p.args[0]) or const_value(p.args[0]) != i:
            return None
        if count is None:
            count = p.args[1]
        elif p.args[1] is not count:
            return None
    if count is None:
        return None
    return count, taken


def _compact(items: list, cap: int, blank: list, st: Store, path: str):
    """Present items (already in order, distinct) moved to the front of ``cap`` slots."""
    stored = _stored_count(items, cap)
    if stored is not None:
        count, taken = stored
        if taken is None:  # the set as stored
            return count, [list(leaves) for _, leaves in items]
        # one element taken out: those after it move down one slot
        slots = [list(items[j][1]) if j < taken else (list(items[j + 1][1]) if j + 1 < cap else list(blank))
                 for j in range(cap)]
        return sub(count, 1), slots
    rank: list[Expr] = []
    total: Expr = const(0)
    for p, _ in items:
        rank.append(total)
        total = add(total, ite(p, 1, 0))
    if len(items) > cap:
        st.overflow(lt(cap, total), f"{path} holds more than {cap} elements")
    slots = []
    for j in range(cap):
        chosen = list(blank)
        for i in range(len(items) - 1, j - 1, -1):
            p, leaves = items[i]
            here = and_(p, eq(rank[i], j)) if i != j or any(q is not TRUE for q, _ in items[:i + 1]) else TRUE
            if here is TRUE:
                chosen = list(leaves)
                continue
            if here is FALSE:
                continue
            chosen = [ite(here, x, c) for x, c in zip(leaves, chosen)]
        slots.append(chosen)
    count = total if len(items) <= cap else ite(lt(cap, total), cap, total)
    return count, slots


def _insert(count: Expr, slots: list, present: Expr, leaves: list, elem: Shape, cap: int, st: Store, path: str):
    """count/slots with one more element (if present and not there yet), kept sorted."""
    if present is FALSE:
        return count, slots
    keys = elem.key(leaves)
    occupied = [lt(k, count) for k in range(cap)]
    same = [and_(occupied[k], *(eq(a, b) for a, b in zip(slots[k], leaves))) for k in range(cap)]
    dup = or_(*same)
    before = [and_(occupied[k], lex_less(elem.key(slots[k]), keys)) for k in range(cap)]
    full = le(cap, count)
    add_it = and_(present, not_(dup))
    st.overflow(and_(add_it, full), f"{path} holds more than {cap} elements")
    new_slots = []
    for k in range(cap):
        keep = or_(not_(add_it), before[k])
        if k == 0:
            new_slots.append([ite(keep, a, b) for a, b in zip(slots[0], leaves)])
        else:
            new_slots.append([ite(keep, a, ite(before[k - 1], b, c))
                              for a, b, c in zip(slots[k], leaves, slots[k - 1])])
    new_count = ite(and_(add_it, not_(full)), add(count, 1), count)
    return new_count, new_slots


# --- equality ----------------------------------------------------------------------------------------

def value_eq(a, b, order: TlcOrder) -> Expr:
    """a = b as an expression (both may be concrete)."""
    if not is_sym(a) and not is_sym(b):
        from modelcheck.tlaplus.evaluate import tla_equal
        return lift(tla_equal(_concrete(a), _concrete(b)))
    if not is_sym(a):
        a, b = b, a
    oa, ob = getattr(a, "origin", None), getattr(b, "origin", None)
    if oa is not None and ob is not None and (oa[0] is ob[0] or oa[0] == ob[0]):
        # two stored values of one shape: each has one encoding, so leaf by leaf
        return and_(*(eq(x, y) for x, y in zip(oa[1], ob[1])))
    t = type(a)
    if t is SBool:
        if b is True or b is False:
            return a.e if b else not_(a.e)
        if isinstance(b, SBool):
            return or_(and_(a.e, b.e), and_(not_(a.e), not_(b.e)))
        return FALSE
    if t is SScalar:
        if not is_sym(b):
            if type(b) not in (int, str, ModelValue):
                return FALSE
            return scalar_is(a, b, order)
        if isinstance(b, SScalar):
            return _scalar_eq(a, b, order)
        return FALSE
    if isinstance(b, SVariant) and t is not SVariant:
        return value_eq(b, a, order)
    if t is SRec:
        fields_b = _record_fields(b)
        if fields_b is None or set(fields_b) != set(a.fields):
            return FALSE
        return and_(*(value_eq(a.fields[n], fields_b[n], order) for n in a.fields))
    if t is SVariant:
        if isinstance(b, SVariant):
            parts = []
            for i, x in enumerate(a.shape.alts):
                for j, y in enumerate(b.shape.alts):
                    if alt_key(x) == alt_key(y):
                        parts.append(and_(eq(a.tag, i), eq(b.tag, j), value_eq(a.alts[i], b.alts[j], order)))
            return or_(*parts)
        i = variant_index(a.shape, sym_alt_key(b))
        if i is None:
            return FALSE
        return and_(eq(a.tag, i), value_eq(a.alts[i], b, order))
    if t is SPFun or isinstance(b, SPFun):
        pa, pb = fun_pairs(a), fun_pairs(b) if is_sym(b) else None
        if pb is None:
            items = _fun_items(b)
            if items is None:
                return FALSE
            pb = [(TRUE, k, x) for k, x in items.items()]
        if pa is None:
            return FALSE
        parts = []
        for p, u, x in pa:
            match = [(q, y) for q, w, y in pb if _same(u, w)]
            if not match:
                parts.append(not_(p))
                continue
            q, y = match[0]
            parts.append(and_(or_(and_(p, q), and_(not_(p), not_(q))), or_(not_(p), value_eq(x, y, order))))
        for q, w, _ in pb:
            if not any(_same(u, w) for _, u, _ in pa):
                parts.append(not_(q))
        return and_(*parts)
    if t is SFun:
        items = _fun_items(b)
        if items is None:
            return FALSE
        if set(items) != set(a.domain):
            return FALSE
        return and_(*(value_eq(x, items[d], order) for d, x in zip(a.domain, a.values)))
    if t in (STup, SSeq):
        return _seq_eq(a, b, order)
    if t in (SMask, SSet, SInterval, SPowerset):
        if is_sym(b) or is_set(b):
            if isinstance(b, SMask) and t is SMask and tuple(a.universe) == tuple(b.universe):
                return eq(a.mask, b.mask)
            return and_(subseteq(a, b, order), subseteq(b, a, order))
        return FALSE
    raise Unsupported(f"comparing {describe(a)} with {describe(b)}")


def _concrete(v):
    if isinstance(v, LazySet) and v.finite:
        return frozenset(set_elements(v, None))
    return v


def _scalar_eq(a: SScalar, b: SScalar, order) -> Expr:
    sa, sb = a.shape, b.shape
    if sa == sb and not sa.constant:
        return eq(a.e, b.e)
    if sa.constant:
        return scalar_is(b, sa.decode([]), order)
    if sb.constant:
        return scalar_is(a, sb.decode([]), order)
    parts = []
    for x in sa.atoms:
        if x in sb.atoms:
            parts.append(and_(scalar_is(a, x, order), scalar_is(b, x, order)))
    if sa.ints and sb.ints:
        lo, hi = max(sa.ints[0], sb.ints[0]), min(sa.ints[1], sb.ints[1])
        if lo <= hi:
            ia = le(sa.ints[0], a.e) if sa.atoms else TRUE
            ib = le(sb.ints[0], b.e) if sb.atoms else TRUE
            parts.append(and_(ia, ib, eq(a.e, b.e)))
    return or_(*parts)


def _record_fields(v) -> dict | None:
    if isinstance(v, SRec):
        return v.fields
    if isinstance(v, Record):
        return dict(v.items())
    return None


def _fun_items(v) -> dict | None:
    if isinstance(v, SFun):
        return dict(zip(v.domain, v.values))
    if isinstance(v, (Function, Record)):
        return dict(v.items())
    if isinstance(v, tuple):
        return dict(enumerate(v, 1))
    if isinstance(v, STup):
        return dict(enumerate(v.items, 1))
    return None


def _seq_eq(a, b, order) -> Expr:
    la, ia = _seq_parts(a)
    lb, ib = _seq_parts(b)
    if la is None or lb is None:
        items = _fun_items(b)
        if items is not None and isinstance(a, STup) and isinstance(b, SFun):
            return FALSE
        return FALSE
    parts = [eq(la, lb)]
    for k in range(max(len(ia), len(ib))):
        x = ia[k] if k < len(ia) else None
        y = ib[k] if k < len(ib) else None
        inside = lt(k, la)
        if x is None or y is None:
            parts.append(not_(inside))
        else:
            parts.append(or_(not_(inside), value_eq(x, y, order)))
    return and_(*parts)


def _seq_parts(v):
    if isinstance(v, SSeq):
        return v.length, v.items
    if isinstance(v, STup):
        return const(len(v.items)), v.items
    if isinstance(v, tuple):
        return const(len(v)), list(v)
    return None, None


# --- membership and the set algebra ---------------------------------------------------------------

def member(x, s, order: TlcOrder, L=None) -> Expr:
    """x \\in s."""
    if not is_sym(s):
        if isinstance(s, LazySet):
            return _lazy_member(x, s, order, L)
        if not is_sym(x):
            return lift(set_contains(s, x))
        return or_(*(value_eq(x, e, order) for e in set_elements(s, order)))
    if isinstance(s, SMask):
        if not is_sym(x):
            for i, u in enumerate(s.universe):
                if _same(u, x):
                    return ne(bit_and(s.mask, 1 << i), 0)
            return FALSE
        return or_(*(and_(ne(bit_and(s.mask, 1 << i), 0), value_eq(x, u, order)) for i, u in enumerate(s.universe)))
    if isinstance(s, SSet):
        return or_(*(and_(p, value_eq(x, e, order)) for p, e in s.items))
    if isinstance(s, SInterval):
        e, lo, hi = _int_of(x)
        if e is None:
            return FALSE
        a, _, _ = _bound(s.lo)
        b, _, _ = _bound(s.hi)
        return and_(le(a, e), le(e, b))
    if isinstance(s, SPowerset):
        return subseteq(x, s.base, order)
    raise EvalError(f"\\in: {describe(s)} is not a set")


def _same(u, x) -> bool:
    return type(u) is type(x) and u == x


def _int_of(x):
    if type(x) is int:
        return const(x), x, x
    if isinstance(x, SScalar) and x.shape.ints is not None:
        lo, hi = x.shape.ints
        if x.shape.atoms:
            return None, 0, 0
        if x.shape.constant:
            return const(lo), lo, lo
        return x.e, lo, hi
    return None, 0, 0


def _lazy_member(x, s: LazySet, order, L) -> Expr:
    if not is_sym(x):
        return lift(s.contains(x))
    if isinstance(s, Infinite):
        if s.name in ("Nat", "Int"):
            e, lo, hi = _int_of(x)
            if e is None:
                if isinstance(x, SScalar) and x.shape.ints is not None:
                    low = 0 if s.name == "Nat" else x.shape.ints[0]
                    return and_(le(x.shape.ints[0], x.e), le(low, x.e))
                return FALSE
            return le(0, e) if s.name == "Nat" else TRUE
        if isinstance(x, SScalar):
            strs = [a for a in x.shape.atoms if type(a) is str]
            return or_(*(scalar_is(x, a, order) for a in strs))
        return FALSE
    if isinstance(s, Interval):
        e, lo, hi = _int_of(x)
        if e is None:
            if isinstance(x, SScalar) and x.shape.ints is not None:
                return and_(le(x.shape.ints[0], x.e), le(s.lo, x.e), le(x.e, s.hi))
            return FALSE
        return and_(le(s.lo, e), le(e, s.hi))
    if isinstance(s, PowerSet):
        return subseteq(x, s.base, order)
    if isinstance(s, RecordSet):
        fields = _record_fields(x)
        if isinstance(x, SVariant):
            parts = []
            names = {f for f, _ in s.fields}
            for i, a in enumerate(x.shape.alts):
                if isinstance(a, RecS) and set(a.names()) == names:
                    parts.append(and_(eq(x.tag, i), _lazy_member(x.alts[i], s, order, L)))
            return or_(*parts)
        if fields is None or set(fields) != {f for f, _ in s.fields}:
            return FALSE
        return and_(*(member(fields[f], fs, order, L) for f, fs in s.fields))
    if isinstance(s, FunctionSet):
        items = _fun_items(x)
        if items is None:
            return FALSE
        dom = set_elements(s.dom, order)
        if set(items) != set(dom):
            return FALSE
        return and_(*(member(items[d], s.rng, order, L) for d in dom))
    if isinstance(s, ProductSet):
        la, items = _seq_parts(x)
        if la is None or len(items) < len(s.sets):
            return FALSE
        return and_(eq(la, len(s.sets)), *(member(v, t, order, L) for v, t in zip(items, s.sets)))
    if isinstance(s, SeqSet):
        la, items = _seq_parts(x)
        if la is None:
            return FALSE
        return and_(*(or_(le(la, k), member(v, s.base, order, L)) for k, v in enumerate(items)))
    if hasattr(s, "contains") and hasattr(s, "n") and hasattr(s, "base"):  # SeqOf(S, n)
        la, items = _seq_parts(x)
        if la is None:
            return FALSE
        return and_(le(la, s.n), *(or_(le(la, k), member(v, s.base, order, L)) for k, v in enumerate(items)))
    raise Unsupported(f"membership of a state value in {show(s)}")


def subseteq(a, b, order) -> Expr:
    """a \\subseteq b."""
    if isinstance(a, SMask) and isinstance(b, SMask) and tuple(a.universe) == tuple(b.universe):
        return eq(bit_and(a.mask, b.mask), a.mask)
    if not is_sym(a) and isinstance(a, LazySet) and not a.finite:
        raise Unsupported(f"the infinite set {show(a)} as a subset")
    return and_(*(or_(not_(p), member(x, b, order)) for p, x in set_items(a, order)))


def set_union(a, b, order):
    if isinstance(a, SMask) and isinstance(b, SMask) and tuple(a.universe) == tuple(b.universe):
        return SMask(bit_or(a.mask, b.mask), a.universe)
    if not is_sym(a) and not is_sym(b):
        return frozenset(set_elements(a, None)) | frozenset(set_elements(b, None))
    ia, ib = set_items(a, order), set_items(b, order)
    prefix = a.sorted_prefix if isinstance(a, SSet) else (len(ia) if isinstance(a, SMask) else 0)
    base = None
    if isinstance(a, SSet):
        base = a.origin if getattr(a, "origin", None) is not None else a.base
    return make_set(list(ia) + list(ib), order, prefix, base)


def set_minus(a, b, order):
    if isinstance(a, SMask) and isinstance(b, SMask) and tuple(a.universe) == tuple(b.universe):
        full = (1 << len(a.universe)) - 1
        from modelcheck.language.expr import bit_xor
        return SMask(bit_and(a.mask, bit_xor(full, b.mask)), a.universe)
    if not is_sym(a) and not is_sym(b):
        from modelcheck.tlaplus.evaluate import _minus
        return _minus(None, a, b)
    ia = set_items(a, order)
    prefix = a.sorted_prefix if isinstance(a, SSet) else (len(ia) if isinstance(a, SMask) else 0)
    taken = _taken_element(a, b)
    if taken is not None:
        # a \ {a's own k-th element}: the stored elements are distinct, so only that one goes
        return make_set([(FALSE if i == taken else p, x) for i, (p, x) in enumerate(ia)], order, prefix)
    return make_set([(and_(p, not_(member(x, b, order))), x) for p, x in ia], order, prefix)


def _taken_element(a, b) -> int | None:
    """The index, among a stored set's sorted elements, of the one element of
    ``b`` when ``b`` is {that very element}; else None."""
    if not isinstance(a, SSet) or not a.sorted_prefix:
        return None
    items = set_items(b, None) if isinstance(b, SSet) else None
    if items is None or len(items) != 1 or items[0][0] is not TRUE:
        return None
    x = items[0][1]
    for i, (_, y) in enumerate(a.items[:a.sorted_prefix]):
        if y is x:
            return i
    return None


def set_cap(a, b, order):
    if isinstance(a, SMask) and isinstance(b, SMask) and tuple(a.universe) == tuple(b.universe):
        return SMask(bit_and(a.mask, b.mask), a.universe)
    if not is_sym(a) and not is_sym(b):
        from modelcheck.tlaplus.evaluate import _cap
        return _cap(None, a, b)
    if not is_sym(a) and isinstance(a, LazySet) and not a.finite:
        a, b = b, a
    ia = set_items(a, order)
    prefix = a.sorted_prefix if isinstance(a, SSet) else (len(ia) if isinstance(a, SMask) else 0)
    return make_set([(and_(p, member(x, b, order)), x) for p, x in ia], order, prefix)


def set_size(v, order) -> tuple[Expr, int, int]:
    """Cardinality(v): its expression and range."""
    if isinstance(v, SMask):
        return cardinality(v.mask, len(v.universe)), 0, len(v.universe)
    items = set_items(v, order)
    if isinstance(v, SSet) and v.sorted_prefix == len(items) or isinstance(v, SInterval):
        total: Expr = const(0)
        for p, _ in items:
            total = add(total, ite(p, 1, 0))
        return total, 0, len(items)
    # repeated candidates count once: an item counts if no earlier present one equals it
    total = const(0)
    for i, (p, x) in enumerate(items):
        fresh = and_(p, *(not_(and_(q, value_eq(y, x, order))) for q, y in items[:i]))
        total = add(total, ite(fresh, 1, 0))
    return total, 0, len(items)


# --- choosing ----------------------------------------------------------------------------------------

def key_of(v, shape: Shape, st: Store) -> list[Expr]:
    return shape.key(to_leaves(v, shape, st, "CHOOSE"))


def ite_value(c: Expr, a, b, order: TlcOrder, st: Store | None = None):
    """IF c THEN a ELSE b for two values of any shapes."""
    if c is TRUE:
        return a
    if c is FALSE:
        return b
    if not is_sym(a) and not is_sym(b) and _same_value(a, b):
        return a
    if (a is True or a is False or isinstance(a, SBool)) and (b is True or b is False or isinstance(b, SBool)):
        return boolean(ite(c, cond(a), cond(b)))
    if _is_set_value(a) and _is_set_value(b):
        if isinstance(a, SMask) and isinstance(b, SMask) and tuple(a.universe) == tuple(b.universe):
            return SMask(ite(c, a.mask, b.mask), a.universe)
        ia, ib = set_items(a, order), set_items(b, order)
        return make_set([(and_(c, p), x) for p, x in ia] + [(and_(not_(c), p), x) for p, x in ib], order)
    if isinstance(a, (SRec, Record)) and isinstance(b, (SRec, Record)):
        fa, fb = _record_fields(a), _record_fields(b)
        if set(fa) == set(fb):
            return _fold_rec({n: ite_value(c, fa[n], fb[n], order, st) for n in fa})
    if isinstance(a, SPFun) and isinstance(b, SPFun) and a.universe == b.universe:
        return SPFun(a.universe, ite(c, a.mask, b.mask),
                     [ite_value(c, x, y, order, st) for x, y in zip(a.values, b.values)])
    if _fun_items(a) is not None and _fun_items(b) is not None and not isinstance(a, (Record, SRec)) \
            and not _is_seqlike(a) and not _is_seqlike(b):
        ia, ib = _fun_items(a), _fun_items(b)
        if set(ia) == set(ib):
            dom = sort_values(ia.keys(), order)
            return _fun_value(tuple(dom), [ite_value(c, ia[d], ib[d], order, st) for d in dom])
    if _is_seqlike(a) and _is_seqlike(b):
        la, xa = _seq_parts(a)
        lb, xb = _seq_parts(b)
        if is_const(la) and is_const(lb) and const_value(la) == const_value(lb):
            # two tuples of one length: a tuple, component by component
            return _seq_value(const_value(la), [ite_value(c, x, y, order, st) for x, y in zip(xa, xb)])
        n = max(len(xa), len(xb))
        items = []
        for k in range(n):
            if k < len(xa) and k < len(xb):
                items.append(ite_value(c, xa[k], xb[k], order, st))
            else:
                items.append(xa[k] if k < len(xa) else xb[k])
        return make_seq(ite(c, la, lb), items)
    # scalars and everything else: through a common shape
    shape = join(shape_of(a, order), shape_of(b, order), order)
    from modelcheck.tlaplus.shapes import finalize
    shape = finalize(shape, order)
    store = st or Store(order)
    la = to_leaves(a, shape, store, "IF")
    lb = to_leaves(b, shape, store, "IF")
    return from_leaves(shape, [ite(c, x, y) for x, y in zip(la, lb)])


def _same_value(a, b) -> bool:
    try:
        from modelcheck.tlaplus.evaluate import tla_equal
        return type(a) is type(b) and tla_equal(_concrete(a), _concrete(b))
    except EvalError:
        return False


def _is_set_value(v) -> bool:
    return isinstance(v, (SMask, SSet, SInterval, SPowerset)) or is_set(v)


def _is_seqlike(v) -> bool:
    return isinstance(v, (SSeq, STup, tuple))


def _fun_value(domain: tuple, values: list):
    if not any(is_sym(x) for x in values):
        return fcn(zip(domain, values))
    return SFun(domain, values)


def seq_of(v):
    """A sequence value as (length expression, elements); None if not one."""
    la, items = _seq_parts(v)
    return (la, items) if la is not None else None


def make_seq(length: Expr, items: list):
    if is_const(length):
        return _seq_value(const_value(length), items)
    return SSeq(length, items)
