"""The standard and community modules, built into Python as TLC builds them into Java.

``MODULES`` maps a module's name to the operators it defines. An operator
is a ``Builtin`` whose function takes the evaluator and the values of its
arguments (an operator argument arrives as an ``OpValue``); its docstring
says which TLA+ operator it carries over. The standard modules are
Naturals, Integers, Sequences, FiniteSets, TLC and Bags; the community
modules are FiniteSetsExt, SequencesExt, Folds and Functions (what the Kafka
specs use, and the operators around them). A module of one of these names
found beside a spec is still read for definitions it has that are not built
in here.
"""

from __future__ import annotations

import itertools
from typing import Any

from modelcheck.language.values import Function, Record
from modelcheck.tlaplus.syntax import Builtin, EvalError, Unsupported
from modelcheck.tlaplus.values import (Infinite, Interval, LazySet, ModelValue, SeqSet, fcn, fcn_items, is_fcn, is_set,
                                       normal, set_contains, set_elements, set_size, show)


def _int(v, what: str) -> int:
    if type(v) is not int:
        raise EvalError(f"{what} expects an integer, got {show(v)}")
    return v


def _seq(v, what: str) -> tuple:
    if type(v) is not tuple:
        raise EvalError(f"{what} expects a sequence, got {show(v)}")
    return v


def _set(v, what: str):
    if not is_set(v):
        raise EvalError(f"{what} expects a set, got {show(v)}")
    return v


def _bool(v, what: str) -> bool:
    if type(v) is not bool:
        raise EvalError(f"{what} expects TRUE or FALSE, got {show(v)}")
    return v


def _ops(module: str, **fns) -> dict[str, Builtin]:
    out = {}
    for name, fn in fns.items():
        arity = fn.__code__.co_argcount - 1
        out[name] = Builtin(name, module, arity, fn)
    return out


def _renamed(table: dict[str, Builtin], names: dict[str, str]) -> dict[str, Builtin]:
    """Operators whose TLA+ names are not Python names (``\\o``, ``:>``)."""
    for tla, py in names.items():
        b = table.pop(py)
        table[tla] = Builtin(tla, b.module, b.arity, b.fn)
    return table


# --- what TLA+ itself defines -----------------------------------------------------------------

def core() -> dict[str, Builtin]:
    def BOOLEAN(ev):
        """BOOLEAN, {FALSE, TRUE}."""
        return frozenset((False, True))

    def STRING(ev):
        """STRING, the strings (membership only)."""
        return Infinite("STRING")
    return _ops("TLA+", BOOLEAN=BOOLEAN, STRING=STRING)


# --- Naturals, Integers ------------------------------------------------------------------

def naturals() -> dict[str, Builtin]:
    def Nat(ev):
        """Nat, the natural numbers (membership only)."""
        return Infinite("Nat")
    return _ops("Naturals", Nat=Nat)


def integers() -> dict[str, Builtin]:
    def Int(ev):
        """Int, the integers (membership only)."""
        return Infinite("Int")
    table = naturals()
    table.update(_ops("Integers", Int=Int))
    return table


# --- Sequences ---------------------------------------------------------------------------

def sequences() -> dict[str, Builtin]:
    def Seq(ev, s):
        """Seq(S): the finite sequences over S (membership only)."""
        return SeqSet(_set(s, "Seq"))

    def Len(ev, s):
        """Len(s)."""
        return len(_seq(s, "Len"))

    def Append(ev, s, e):
        """Append(s, e)."""
        return _seq(s, "Append") + (normal(e),)

    def Head(ev, s):
        """Head(s); TLC fails on <<>>."""
        if not _seq(s, "Head"):
            raise EvalError("Head of the empty sequence")
        return s[0]

    def Tail(ev, s):
        """Tail(s); TLC fails on <<>>."""
        if not _seq(s, "Tail"):
            raise EvalError("Tail of the empty sequence")
        return s[1:]

    def SubSeq(ev, s, m, n):
        """SubSeq(s, m, n): <<s[m], ..., s[n]>>; TLC fails when m..n leaves 1..Len(s)."""
        s, m, n = _seq(s, "SubSeq"), _int(m, "SubSeq"), _int(n, "SubSeq")
        if m > n:
            return ()
        if m < 1 or n > len(s):
            raise EvalError(f"SubSeq({show(s)}, {m}, {n}): the range {m}..{n} is outside 1..{len(s)}")
        return s[m - 1:n]

    def SelectSeq(ev, s, test):
        """SelectSeq(s, Test): the elements of s that pass Test, in order."""
        return tuple(x for x in _seq(s, "SelectSeq") if _bool(test.call([x]), "SelectSeq"))

    def concat(ev, s, t):
        """s \\o t."""
        return _seq(s, "\\o") + _seq(t, "\\o")
    return _renamed(_ops("Sequences", Seq=Seq, Len=Len, Append=Append, Head=Head, Tail=Tail, SubSeq=SubSeq,
                         SelectSeq=SelectSeq, concat=concat), {"\\o": "concat"})


# --- FiniteSets -----------------------------------------------------------------------------

def finite_sets() -> dict[str, Builtin]:
    def IsFiniteSet(ev, s):
        """IsFiniteSet(S)."""
        return not (isinstance(s, LazySet) and not s.finite)

    def Cardinality(ev, s):
        """Cardinality(S); TLC fails on an infinite set."""
        return set_size(_set(s, "Cardinality"))
    return _ops("FiniteSets", IsFiniteSet=IsFiniteSet, Cardinality=Cardinality)


# --- TLC --------------------------------------------------------------------------------------

def tlc() -> dict[str, Builtin]:
    def Print(ev, out, val):
        """Print(out, val): val (modelcheck prints nothing)."""
        return val

    def PrintT(ev, out):
        """PrintT(out): TRUE."""
        return True

    def Assert(ev, val, out):
        """Assert(val, out): TRUE, or TLC's error with out as the message."""
        if not _bool(val, "Assert"):
            raise EvalError(f"Assert failed: {out if isinstance(out, str) else show(out)}")
        return True

    def JavaTime(ev):
        """JavaTime: refused, its value changes from run to run."""
        raise Unsupported("JavaTime (its value changes from run to run)")

    def colon(ev, a, b):
        """a :> b, the function {a} -> {b}."""
        return fcn([(normal(a), normal(b))])

    def atat(ev, f, g):
        """f @@ g: f, extended by g where f is not defined."""
        items = fcn_items(f)
        keys = {k for k, _ in items}
        return fcn(items + [(k, v) for k, v in fcn_items(g) if k not in keys])

    def Permutations(ev, s):
        """Permutations(S): every bijection of S onto itself."""
        elems = set_elements(_set(s, "Permutations"), ev.order)
        return frozenset(fcn(zip(elems, p)) for p in itertools.permutations(elems))

    def SortSeq(ev, s, less):
        """SortSeq(s, <): s sorted by the given order."""
        import functools
        def cmp(a, b):
            if _bool(less.call([a, b]), "SortSeq"):
                return -1
            if _bool(less.call([b, a]), "SortSeq"):
                return 1
            return 0
        return tuple(sorted(_seq(s, "SortSeq"), key=functools.cmp_to_key(cmp)))

    def ToString(ev, v):
        """ToString(v): v as TLC prints it."""
        return show(v, ev.order)

    def TLCEval(ev, v):
        return v

    def Any(ev):
        raise Unsupported("Any (TLC's set of every value)")

    def TLCGet(ev, i):
        raise Unsupported("TLCGet (TLC's registers and statistics)")

    def TLCSet(ev, i, v):
        raise Unsupported("TLCSet (TLC's registers)")

    def RandomElement(ev, s):
        raise Unsupported("RandomElement (a random choice is not a behaviour of the spec)")
    return _renamed(_ops("TLC", Print=Print, PrintT=PrintT, Assert=Assert, JavaTime=JavaTime, colon=colon,
                         atat=atat, Permutations=Permutations, SortSeq=SortSeq, ToString=ToString, TLCEval=TLCEval,
                         Any=Any, TLCGet=TLCGet, TLCSet=TLCSet, RandomElement=RandomElement),
                    {":>": "colon", "@@": "atat"})


# --- Bags ---------------------------------------------------------------------------------------

def bags() -> dict[str, Builtin]:
    def EmptyBag(ev):
        """EmptyBag, the empty function."""
        return ()

    def IsABag(ev, b):
        return is_fcn(b) and all(type(c) is int and c > 0 for _, c in fcn_items(b))

    def BagToSet(ev, b):
        return frozenset(k for k, _ in fcn_items(b))

    def SetToBag(ev, s):
        return fcn((x, 1) for x in set_elements(_set(s, "SetToBag"), ev.order))

    def BagIn(ev, e, b):
        return any(k == e for k, _ in fcn_items(b))

    def CopiesIn(ev, e, b):
        for k, c in fcn_items(b):
            if k == e:
                return c
        return 0

    def bag_plus(ev, a, b):
        counts: dict = {}
        for k, c in fcn_items(a) + fcn_items(b):
            counts[k] = counts.get(k, 0) + c
        return fcn(sorted(counts.items(), key=lambda p: ev.order.key(p[0])))

    def bag_minus(ev, a, b):
        counts = dict(fcn_items(a))
        for k, c in fcn_items(b):
            if k in counts:
                counts[k] -= c
        return fcn(sorted(((k, c) for k, c in counts.items() if c > 0), key=lambda p: ev.order.key(p[0])))

    def BagCardinality(ev, b):
        return sum(c for _, c in fcn_items(b))

    def sub_bag(ev, a, b):
        counts = dict(fcn_items(b))
        return all(counts.get(k, 0) >= c for k, c in fcn_items(a))
    return _bags_named(locals())


def _bags_named(fns: dict) -> dict[str, Builtin]:
    table = _ops("Bags", **{k: fns[k] for k in ("EmptyBag", "IsABag", "BagToSet", "SetToBag", "BagIn", "CopiesIn",
                                                "BagCardinality")})
    for tla, py in (("(+)", "bag_plus"), ("\\oplus", "bag_plus"), ("(-)", "bag_minus"), ("\\ominus", "bag_minus"),
                    ("\\sqsubseteq", "sub_bag")):
        table[tla] = Builtin(tla, "Bags", 2, fns[py])
    return table


# --- the community modules --------------------------------------------------------------------

def folds() -> dict[str, Builtin]:
    def MapThenFoldSet(ev, op, base, f, choose, s):
        """MapThenFoldSet(op, base, f, choose, S): op(f(x1), op(f(x2), ... base)), taking
        the elements in the order ``choose`` picks them."""
        remaining = set(set_elements(_set(s, "MapThenFoldSet"), ev.order))
        acc = base
        while remaining:
            x = choose.call([frozenset(remaining)])
            remaining.discard(x)
            acc = op.call([f.call([x]), acc])
        return acc
    return _ops("Folds", MapThenFoldSet=MapThenFoldSet)


def functions() -> dict[str, Builtin]:
    def Restrict(ev, f, s):
        """Restrict(f, S): f on S only."""
        return fcn((k, v) for k, v in fcn_items(f) if set_contains(s, k))

    def RestrictDomain(ev, f, test):
        return fcn((k, v) for k, v in fcn_items(f) if _bool(test.call([k]), "RestrictDomain"))

    def RestrictValues(ev, f, test):
        return fcn((k, v) for k, v in fcn_items(f) if _bool(test.call([v]), "RestrictValues"))

    def IsRestriction(ev, narrow, wide):
        wide_items = dict(fcn_items(wide))
        return all(k in wide_items and wide_items[k] == v for k, v in fcn_items(narrow))

    def Range(ev, f):
        """Range(f): the set of f's values."""
        return frozenset(v for _, v in fcn_items(f))

    def Inverse(ev, f, s, t):
        values = {v for _, v in fcn_items(f)}
        items = dict(fcn_items(f))
        out = []
        for y in set_elements(t, ev.order):
            for x in set_elements(s, ev.order):
                if y not in values or items.get(x) == y:
                    out.append((y, x))
                    break
            else:
                raise EvalError("Inverse: CHOOSE has nothing to choose from")
        return fcn(out)

    def AntiFunction(ev, f):
        items = fcn_items(f)
        return Inverse(ev, f, frozenset(k for k, _ in items), frozenset(v for _, v in items))

    def IsInjective(ev, f):
        values = [v for _, v in fcn_items(f)]
        return len(values) == len(set(values))

    def Pointwise(ev, f, g, op):
        gi = dict(fcn_items(g))
        return fcn((k, op.call([v, gi[k]])) for k, v in fcn_items(f))

    def FoldFunction(ev, op, base, f):
        acc = base
        for _, v in sorted(fcn_items(f), key=lambda p: ev.order.key(p[0])):
            acc = op.call([v, acc])
        return acc

    def FoldFunctionOnSet(ev, op, base, f, indices):
        items = dict(fcn_items(f))
        acc = base
        for k in set_elements(indices, ev.order):
            acc = op.call([items[k], acc])
        return acc

    def SumFunction(ev, f):
        return sum(_int(v, "SumFunction") for _, v in fcn_items(f))
    return _ops("Functions", Restrict=Restrict, RestrictDomain=RestrictDomain, RestrictValues=RestrictValues,
                IsRestriction=IsRestriction, Range=Range, Inverse=Inverse, AntiFunction=AntiFunction,
                IsInjective=IsInjective, Pointwise=Pointwise, FoldFunction=FoldFunction,
                FoldFunctionOnSet=FoldFunctionOnSet, SumFunction=SumFunction)


def finite_sets_ext() -> dict[str, Builtin]:
    def FoldSet(ev, op, base, s):
        """FoldSet(op, base, S): op folded over S's elements in TLC's order."""
        acc = base
        for x in set_elements(_set(s, "FoldSet"), ev.order):
            acc = op.call([x, acc])
        return acc

    def ReduceSet(ev, op, s, acc):
        for x in set_elements(_set(s, "ReduceSet"), ev.order):
            acc = op.call([x, acc])
        return acc

    def SumSet(ev, s):
        return sum(_int(x, "SumSet") for x in set_elements(_set(s, "SumSet"), None))

    def ProductSet(ev, s):
        out = 1
        for x in set_elements(_set(s, "ProductSet"), None):
            out *= _int(x, "ProductSet")
        return out

    def MapThenSumSet(ev, op, s):
        return sum(_int(op.call([x]), "MapThenSumSet") for x in set_elements(_set(s, "MapThenSumSet"), ev.order))

    def FlattenSet(ev, s):
        out = frozenset()
        for x in set_elements(_set(s, "FlattenSet"), None):
            out |= frozenset(set_elements(x, None))
        return out

    def SymDiff(ev, a, b):
        a, b = frozenset(set_elements(a, None)), frozenset(set_elements(b, None))
        return (a - b) | (b - a)

    def Quantify(ev, s, p):
        """Quantify(S, P): how many elements of S satisfy P."""
        return sum(1 for x in set_elements(_set(s, "Quantify"), ev.order) if _bool(p.call([x]), "Quantify"))

    def kSubset(ev, k, s):
        elems = set_elements(_set(s, "kSubset"), ev.order)
        return frozenset(frozenset(c) for c in itertools.combinations(elems, _int(k, "kSubset")))

    def Max(ev, s):
        """Max(S): the greatest element (TLC fails on an empty set)."""
        elems = [_int(x, "Max") for x in set_elements(_set(s, "Max"), None)]
        if not elems:
            raise EvalError("Max of the empty set: CHOOSE has nothing to choose from")
        return max(elems)

    def Min(ev, s):
        """Min(S): the least element (TLC fails on an empty set)."""
        elems = [_int(x, "Min") for x in set_elements(_set(s, "Min"), None)]
        if not elems:
            raise EvalError("Min of the empty set: CHOOSE has nothing to choose from")
        return min(elems)

    def ChooseUnique(ev, s, p):
        found = [x for x in set_elements(_set(s, "ChooseUnique"), ev.order) if _bool(p.call([x]), "ChooseUnique")]
        if len(found) != 1:
            raise EvalError("ChooseUnique: not exactly one element satisfies the condition")
        return found[0]
    table = _ops("FiniteSetsExt", FoldSet=FoldSet, ReduceSet=ReduceSet, SumSet=SumSet, ProductSet=ProductSet,
                 MapThenSumSet=MapThenSumSet, FlattenSet=FlattenSet, SymDiff=SymDiff, Quantify=Quantify,
                 kSubset=kSubset, Max=Max, Min=Min, ChooseUnique=ChooseUnique)
    for name, b in itertools.chain(integers().items(), finite_sets().items(), folds().items(), functions().items()):
        table.setdefault(name, b)
    return table


def sequences_ext() -> dict[str, Builtin]:
    def ToSet(ev, s):
        """ToSet(s): the set of s's elements."""
        return frozenset(_seq(s, "ToSet"))

    def SetToSeq(ev, s):
        return tuple(set_elements(_set(s, "SetToSeq"), ev.order))

    def SetToSortSeq(ev, s, less):
        import functools
        def cmp(a, b):
            return -1 if _bool(less.call([a, b]), "SetToSortSeq") else (1 if less.call([b, a]) else 0)
        return tuple(sorted(set_elements(_set(s, "SetToSortSeq"), ev.order), key=functools.cmp_to_key(cmp)))

    def SeqOf(ev, s, n):
        """SeqOf(S, n): the sequences over S of length at most n (membership only)."""
        return _BoundedSeqs(_set(s, "SeqOf"), _int(n, "SeqOf"))

    def BoundedSeq(ev, s, n):
        return _BoundedSeqs(_set(s, "BoundedSeq"), _int(n, "BoundedSeq"))

    def TupleOf(ev, s, n):
        from modelcheck.tlaplus.values import ProductSet
        return ProductSet(tuple([s] * _int(n, "TupleOf")))

    def Contains(ev, s, e):
        """Contains(s, e): e is an element of s."""
        return any(x == e for x in _seq(s, "Contains"))

    def Reverse(ev, s):
        return tuple(reversed(_seq(s, "Reverse")))

    def Remove(ev, s, e):
        """Remove(s, e): s without any element equal to e."""
        return tuple(x for x in _seq(s, "Remove") if not x == e)

    def ReplaceAll(ev, s, old, new):
        return tuple(new if x == old else x for x in _seq(s, "ReplaceAll"))

    def InsertAt(ev, s, i, e):
        s, i = _seq(s, "InsertAt"), _int(i, "InsertAt")
        return s[:i - 1] + (e,) + s[i - 1:]

    def ReplaceAt(ev, s, i, e):
        s, i = _seq(s, "ReplaceAt"), _int(i, "ReplaceAt")
        return s[:i - 1] + (e,) + s[i:]

    def RemoveAt(ev, s, i):
        s, i = _seq(s, "RemoveAt"), _int(i, "RemoveAt")
        return s[:i - 1] + s[i:]

    def Cons(ev, e, s):
        return (e,) + _seq(s, "Cons")

    def Snoc(ev, s, e):
        return _seq(s, "Snoc") + (e,)

    def Front(ev, s):
        """Front(s): s without its last element."""
        return _seq(s, "Front")[:-1]

    def Last(ev, s):
        """Last(s): the last element; TLC fails on <<>>."""
        if not _seq(s, "Last"):
            raise EvalError("Last of the empty sequence")
        return s[-1]

    def IsPrefix(ev, s, t):
        return _seq(t, "IsPrefix")[:len(_seq(s, "IsPrefix"))] == s

    def IsStrictPrefix(ev, s, t):
        return IsPrefix(ev, s, t) and len(s) < len(t)

    def IsSuffix(ev, s, t):
        return len(s) <= len(t) and t[len(t) - len(s):] == s

    def FoldSeq(ev, op, base, s):
        acc = base
        for x in _seq(s, "FoldSeq"):
            acc = op.call([x, acc])
        return acc

    def FoldLeft(ev, op, base, s):
        acc = base
        for x in _seq(s, "FoldLeft"):
            acc = op.call([acc, x])
        return acc

    def FoldRight(ev, op, s, base):
        acc = base
        for x in reversed(_seq(s, "FoldRight")):
            acc = op.call([x, acc])
        return acc

    def FlattenSeq(ev, seqs):
        out: tuple = ()
        for s in _seq(seqs, "FlattenSeq"):
            out += _seq(s, "FlattenSeq")
        return out

    def Zip(ev, s, t):
        return tuple(zip(_seq(s, "Zip"), _seq(t, "Zip")))

    def SelectInSeq(ev, s, test):
        for i, x in enumerate(_seq(s, "SelectInSeq"), 1):
            if _bool(test.call([x]), "SelectInSeq"):
                return i
        return 0

    def SelectLastInSeq(ev, s, test):
        found = 0
        for i, x in enumerate(_seq(s, "SelectLastInSeq"), 1):
            if _bool(test.call([x]), "SelectLastInSeq"):
                found = i
        return found
    table = _ops("SequencesExt", ToSet=ToSet, SetToSeq=SetToSeq, SetToSortSeq=SetToSortSeq, SeqOf=SeqOf,
                 BoundedSeq=BoundedSeq, TupleOf=TupleOf, Contains=Contains, Reverse=Reverse, Remove=Remove,
                 ReplaceAll=ReplaceAll, InsertAt=InsertAt, ReplaceAt=ReplaceAt, RemoveAt=RemoveAt, Cons=Cons,
                 Snoc=Snoc, Front=Front, Last=Last, IsPrefix=IsPrefix, IsStrictPrefix=IsStrictPrefix,
                 IsSuffix=IsSuffix, FoldSeq=FoldSeq, FoldLeft=FoldLeft, FoldRight=FoldRight, FlattenSeq=FlattenSeq,
                 Zip=Zip, SelectInSeq=SelectInSeq, SelectLastInSeq=SelectLastInSeq)
    for name, b in itertools.chain(sequences().items(), integers().items(), finite_sets().items(),
                                   finite_sets_ext().items(), bags().items(), tlc().items()):
        table.setdefault(name, b)
    return table


class _BoundedSeqs(LazySet):
    """SeqOf(S, n): sequences over S of length 0..n."""

    def __init__(self, base, n: int):
        self.base, self.n = base, n

    def contains(self, v):
        return isinstance(v, tuple) and len(v) <= self.n and all(set_contains(self.base, x) for x in v)

    def elements(self, order):
        elems = set_elements(self.base, order)
        out = [tuple(c) for k in range(self.n + 1) for c in itertools.product(elems, repeat=k)]
        from modelcheck.tlaplus.values import sort_values
        return sort_values(out, order) if order is not None else out

    def size(self):
        b = set_size(self.base)
        return sum(b ** k for k in range(self.n + 1))

    def key(self):
        return ("BoundedSeqs", self.base, self.n)

    def __repr__(self):
        return f"SeqOf({show(self.base)}, {self.n})"


MODULES = {
    "Naturals": naturals, "Integers": integers, "Sequences": sequences, "FiniteSets": finite_sets,
    "TLC": tlc, "Bags": bags, "FiniteSetsExt": finite_sets_ext, "SequencesExt": sequences_ext, "Folds": folds,
    "Functions": functions,
}
