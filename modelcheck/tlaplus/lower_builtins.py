"""The standard and community modules' operators over symbolic values.

Each function takes the ``Lowerer`` and the argument values (at least one
symbolic; with none, the concrete built-in of ``builtins.py`` runs instead)
and returns the value as ``symbolic.py`` represents it. Where TLC fails
(Head of <<>>, Max of {}), the condition goes to ``L.fail``.
"""

from __future__ import annotations

from modelcheck.language.expr import FALSE, TRUE, add, and_, const, eq, ite, le, lift, lt, not_, or_, sub
from modelcheck.tlaplus.symbolic import (SFun, SMask, SSeq, SSet, STup, as_int, boolean, cond, describe, is_sym,
                                         ite_value, make_int, make_seq, make_set, member, seq_of, set_items, set_size,
                                         value_eq)
from modelcheck.tlaplus.syntax import EvalError, Unsupported
from modelcheck.tlaplus.values import SeqSet, fcn_items


def _seq(L, v, what: str):
    s = seq_of(v)
    if s is None:
        raise EvalError(f"{what} expects a sequence, got {describe(v)}")
    return s


def Len(L, s):
    length, items = _seq(L, s, "Len")
    return make_int(length, 0, len(items))


def Append(L, s, e):
    length, items = _seq(L, s, "Append")
    out = [ite_value(eq(length, k), e, x, L.order, L.store) for k, x in enumerate(items)] + [e]
    return make_seq(add(length, 1), out)


def Head(L, s):
    length, items = _seq(L, s, "Head")
    L.fail(eq(length, 0), "Head of the empty sequence")
    if not items:
        raise EvalError("Head of the empty sequence")
    return items[0]


def Tail(L, s):
    length, items = _seq(L, s, "Tail")
    L.fail(eq(length, 0), "Tail of the empty sequence")
    return make_seq(ite(eq(length, 0), 0, sub(length, 1)), items[1:])


def Last(L, s):
    length, items = _seq(L, s, "Last")
    L.fail(eq(length, 0), "Last of the empty sequence")
    if not items:
        raise EvalError("Last of the empty sequence")
    result = items[0]
    for k in range(2, len(items) + 1):
        result = ite_value(eq(length, k), items[k - 1], result, L.order, L.store)
    return result


def Front(L, s):
    length, items = _seq(L, s, "Front")
    return make_seq(ite(eq(length, 0), 0, sub(length, 1)), items[:-1] if items else [])


def SubSeq(L, s, m, n):
    """SubSeq(s, m, n): element i is s[m + i - 1]."""
    length, items = _seq(L, s, "SubSeq")
    me, mlo, mhi = as_int(m, L, "SubSeq")
    ne_, nlo, nhi = as_int(n, L, "SubSeq")
    empty = lt(ne_, me)
    L.fail(and_(not_(empty), or_(lt(me, 1), lt(length, ne_))), "SubSeq outside the sequence")
    new_len = ite(empty, 0, add(sub(ne_, me), 1))
    cap = max(0, min(nhi, len(items)) - max(1, mlo) + 1)
    out = []
    for i in range(cap):
        # position m + i (1-based) of s
        cands = [(k, items[k - 1]) for k in range(max(1, mlo + i), min(mhi + i, len(items)) + 1)]
        if not cands:
            break
        result = cands[-1][1]
        for k, x in reversed(cands[:-1]):
            result = ite_value(eq(add(me, i), k), x, result, L.order, L.store)
        out.append(result)
    return make_seq(new_len, out)


def concat(L, a, b):
    la, ia = _seq(L, a, "\\o")
    lb, ib = _seq(L, b, "\\o")
    out = []
    for k in range(len(ia) + len(ib)):
        # position k (0-based): a's if k < Len(a), else b's k - Len(a)
        options = []
        if k < len(ia):
            options.append((lt(k, la), ia[k]))
        for j in range(len(ib)):
            here = eq(sub(k, la), j) if k >= j else FALSE
            if here is not FALSE:
                options.append((here, ib[j]))
        if not options:
            continue
        result = options[-1][1]
        for c, x in reversed(options[:-1]):
            result = ite_value(c, x, result, L.order, L.store)
        out.append(result)
    return make_seq(add(la, lb), out)


def SelectSeq(L, s, test):
    raise Unsupported("SelectSeq over a sequence the state decides")


def Cardinality(L, s):
    e, lo, hi = set_size(s, L.order)
    return make_int(e, lo, hi)


def IsFiniteSet(L, s):
    return True


def Seq(L, s):
    return SeqSet(s)


def ToSet(L, s):
    length, items = _seq(L, s, "ToSet")
    return make_set([(lt(k, length), x) for k, x in enumerate(items)], L.order)


def Contains(L, s, e):
    length, items = _seq(L, s, "Contains")
    return boolean(or_(*(and_(lt(k, length), value_eq(x, e, L.order)) for k, x in enumerate(items))))


def Remove(L, s, e):
    """Remove(s, e): s without the elements equal to e (positions shift down)."""
    length, items = _seq(L, s, "Remove")
    keep = [and_(lt(k, length), not_(value_eq(x, e, L.order))) for k, x in enumerate(items)]
    return _compacted(L, keep, items)


def _compacted(L, keep, items):
    rank = []
    total = const(0)
    for k in keep:
        rank.append(total)
        total = add(total, ite(k, 1, 0))
    out = []
    for j in range(len(items)):
        options = [(and_(keep[i], eq(rank[i], j)), items[i]) for i in range(j, len(items))]
        options = [(c, x) for c, x in options if c is not FALSE]
        if not options:
            break
        result = options[-1][1]
        for c, x in reversed(options[:-1]):
            result = ite_value(c, x, result, L.order, L.store)
        out.append(result)
    return make_seq(total, out)


def _minmax(L, s, least: bool, name: str):
    items = [(p, x) for p, x in set_items(s, L.order) if p is not FALSE]
    L.fail(and_(*(not_(p) for p, _ in items)), f"{name} of the empty set")
    if not items:
        raise EvalError(f"{name} of the empty set")
    best = None
    lo = hi = None
    for p, x in items:
        e, xl, xh = as_int(x, L, name)
        lo = xl if lo is None else min(lo, xl)
        hi = xh if hi is None else max(hi, xh)
        if best is None:
            best_e, best_p = e, p
            best = True
            continue
        better = lt(e, best_e) if least else lt(best_e, e)
        take = and_(p, or_(not_(best_p), better))
        best_e = ite(take, e, best_e)
        best_p = or_(best_p, p)
    return make_int(best_e, lo, hi)


def Max(L, s):
    return _minmax(L, s, False, "Max")


def Min(L, s):
    return _minmax(L, s, True, "Min")


def Range(L, f):
    if isinstance(f, SFun):
        return make_set([(TRUE, v) for v in f.values], L.order)
    length, items = _seq(L, f, "Range")
    return make_set([(lt(k, length), x) for k, x in enumerate(items)], L.order)


def SeqOf(L, s, n):
    from modelcheck.tlaplus.builtins import _BoundedSeqs
    if is_sym(n):
        raise Unsupported("SeqOf with a length the state decides")
    return _BoundedSeqs(s, n)


def Quantify(L, s, p):
    total = const(0)
    hi = 0
    for q, x in set_items(s, L.order):
        c = cond(p.call([x]))
        total = add(total, ite(and_(q, c), 1, 0))
        hi += 1
    return make_int(total, 0, hi)


def FoldSet(L, op, base, s):
    raise Unsupported("FoldSet over a set the state decides")


def colon_gt(L, a, b):
    if is_sym(a):
        raise Unsupported(":> with an argument the state decides")
    return SFun((a,), [b])


def PrintT(L, out):
    return True


def Print(L, out, val):
    return val


def Assert(L, val, out):
    c = cond(val)
    L.fail(not_(c), f"Assert failed: {out}")
    return True


SYMBOLIC = {
    "Len": Len, "Append": Append, "Head": Head, "Tail": Tail, "Last": Last, "Front": Front, "SubSeq": SubSeq,
    "\\o": concat, "SelectSeq": SelectSeq, "Cardinality": Cardinality, "IsFiniteSet": IsFiniteSet, "Seq": Seq,
    "ToSet": ToSet, "Contains": Contains, "Remove": Remove, "Max": Max, "Min": Min, "Range": Range,
    "SeqOf": SeqOf, "Quantify": Quantify, "FoldSet": FoldSet, ":>": colon_gt, "PrintT": PrintT, "Print": Print,
    "Assert": Assert,
}
