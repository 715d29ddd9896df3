"""The backend-neutral expression language that every spec is written in.

A spec's guards, effects and invariants are built from these nodes once, when
the spec is instantiated with its constants. Each engine then reads the same
tree: the interpreter and the Python code generator evaluate it on concrete
states, the numpy backend on whole columns of states, and the z3 backend turns
it into formulas. Keeping the vocabulary this small (constants, state slots,
arithmetic, comparisons, boolean connectives, ``ite`` and and/or/xor on
replica-set bitmasks) is what lets four backends agree.

Python values mix freely with expressions: ``s.hw[r] + 1`` or
``s.leader[r] == r`` build nodes, and anything whose value is known at build
time is folded to a constant straight away. Because every action parameter is
a concrete Python value, most of a spec folds away per action instance.

Using an expression in a Python ``if``, ``and`` or ``not`` is a definition
mistake (the value depends on the state, so Python cannot branch on it). It
fails at load time with a message that says what to write instead.
"""

from __future__ import annotations

from typing import Iterable, Union

from modelcheck.errors import SpecDefinitionError

BOOL = "bool"
INT = "int"


class Expr:
    """One node of an expression tree.

    ``op`` names the operator, ``args`` holds the operands (other nodes, or for
    ``const`` and ``var`` the Python value / state slot), ``sort`` is BOOL or
    INT. Nodes are immutable and may be shared between trees.
    """

    __slots__ = ("op", "args", "sort")

    def __init__(self, op: str, args: tuple, sort: str):
        self.op = op
        self.args = args
        self.sort = sort

    # Nodes compare by identity; == builds an equality node instead.
    __hash__ = object.__hash__

    def __bool__(self):
        raise SpecDefinitionError(
            "a state-dependent value was used where Python needs a plain True/False "
            "(an `if`, `and`, `or` or `not`); build the condition with and_, or_, not_ or ite"
        )

    def __repr__(self) -> str:
        return to_text(self)

    # arithmetic
    def __add__(self, other):
        return add(self, other)

    def __radd__(self, other):
        return add(other, self)

    def __sub__(self, other):
        return sub(self, other)

    def __rsub__(self, other):
        return sub(other, self)

    # comparisons
    def __eq__(self, other):  # type: ignore[override]
        return eq(self, other)

    def __ne__(self, other):  # type: ignore[override]
        return ne(self, other)

    def __lt__(self, other):
        return lt(self, other)

    def __le__(self, other):
        return le(self, other)

    def __gt__(self, other):
        return lt(other, self)

    def __ge__(self, other):
        return le(other, self)


Value = Union[Expr, "Labelled", int, bool]

TRUE = Expr("const", (True,), BOOL)
FALSE = Expr("const", (False,), BOOL)


def const(value) -> Expr:
    if value is True:
        return TRUE
    if value is False:
        return FALSE
    if isinstance(value, int):
        return Expr("const", (int(value),), INT)
    raise SpecDefinitionError(f"cannot use {value!r} ({type(value).__name__}) in a spec expression")


def lift(value: Value) -> Expr:
    if isinstance(value, Expr):
        return value
    if isinstance(value, Labelled):
        return value.expr
    return const(value)


# --- coded TLA+ values: strings, model values, and sets of them -----------------------

class Labelled:
    """An integer expression that codes TLA+ values other than numbers:
    code ``i`` stands for ``labels[i]`` (a string, a model value...), or, for
    a set (``is_set``), bit ``i`` for ``labels[i]`` being a member.

    It compares with the values themselves: ``s.tmState == "init"``,
    ``m.type != "2b"``, ``s.tmPrepared == frozenset(RM)``; ``member``,
    ``set_with`` and ``set_without`` take the values too. Anywhere else it is
    its integer expression. A value that is not among the labels is a
    mistake in the spec (a misspelt string, say) and is refused when the spec
    loads, naming the values it may hold."""

    __slots__ = ("expr", "labels", "is_set", "what")

    def __init__(self, expr: Expr, labels: tuple, is_set: bool = False, what: str = "this value"):
        self.expr, self.labels, self.is_set, self.what = expr, tuple(labels), is_set, what

    __hash__ = object.__hash__

    def __bool__(self):
        return self.expr.__bool__()

    def __repr__(self) -> str:
        return to_text(self.expr)

    @property
    def sort(self) -> str:
        return self.expr.sort

    def int_labels(self) -> bool:
        """Whether the values are integers (then an integer given is a value, not a position)."""
        return any(isinstance(x, int) and not isinstance(x, bool) for x in self.labels)

    def code(self, value) -> int:
        """The code of one of the labels."""
        for i, label in enumerate(self.labels):
            if label == value and isinstance(label, bool) == isinstance(value, bool):
                return i
        shown = ", ".join(_label_text(x) for x in self.labels)
        raise SpecDefinitionError(f"{_label_text(value)} is not a value {self.what} can hold (it holds "
                                  f"{'sets of ' if self.is_set else ''}{shown})")

    def mask(self, values) -> int:
        """The bitmask of a set of the labels."""
        out = 0
        for v in values:
            out |= 1 << self.code(v)
        return out

    def coded(self, value) -> Expr:
        """A Python value (a label, or for a set an iterable of labels) or
        another labelled expression, as an expression over this one's codes."""
        if isinstance(value, Labelled):
            if value.labels == self.labels or (value.is_set and self.is_set and
                                               value.labels == self.labels[:len(value.labels)]):
                return value.expr
            if value.is_set or self.is_set:
                raise SpecDefinitionError(f"cannot compare sets of {value.labels} with sets of {self.labels}")
            # codes of two different lists of values: translate
            result: Expr = const(-1)
            for j, label in reversed(list(enumerate(value.labels))):
                if label in self.labels:
                    result = ite(eq(value.expr, j), self.labels.index(label), result)
            return result
        if isinstance(value, Expr):
            return value
        if isinstance(value, ValueIte):
            return ite(value.cond, self.coded(value.then), self.coded(value.otherwise))
        if isinstance(value, int) and not isinstance(value, bool) and not self.int_labels():
            return const(value)  # a code (a position among the values), as parameters give them
        if self.is_set:
            if isinstance(value, str):
                raise SpecDefinitionError(f"{self.what} is a set; compare it with a set of values")
            return const(self.mask(value))
        return const(self.code(value))

    def is_in(self, values) -> Expr:
        """x \\in {v1, v2, ...}: values it cannot hold are simply not it."""
        return or_(*(eq(self.expr, const(i)) for i, label in enumerate(self.labels)
                     if any(label == v and isinstance(label, bool) == isinstance(v, bool) for v in values)))

    def __eq__(self, other):  # type: ignore[override]
        return eq(self.expr, self.coded(other))

    def __lt__(self, other):
        raise SpecDefinitionError(f"{self.what} holds TLA+ values that are not numbers; they cannot be compared with <")

    __le__ = __gt__ = __ge__ = __lt__

    def __ne__(self, other):  # type: ignore[override]
        return ne(self.expr, self.coded(other))


def _plain_value(v) -> bool:
    """A TLA+ value that is no number or boolean (a string, a model value, a set)."""
    return isinstance(v, (str, frozenset, tuple, set))


class ValueIte:
    """IF cond THEN a ELSE b between TLA+ values that are not numbers
    (``ite(c, "won", "lost")``): coded once it is stored in, or compared
    with, something that says what its codes are."""

    __slots__ = ("cond", "then", "otherwise")

    def __init__(self, cond: Expr, then, otherwise):
        self.cond, self.then, self.otherwise = cond, then, otherwise

    def __bool__(self):
        raise SpecDefinitionError("a state-dependent value was used where Python needs a plain True/False")

    def __repr__(self) -> str:
        return f"(IF {to_text(self.cond)} THEN {self.then!r} ELSE {self.otherwise!r})"


def _label_text(v) -> str:
    if isinstance(v, str) and type(v) is str:
        return f'"{v}"'
    return "TRUE" if v is True else "FALSE" if v is False else str(v)


def labelled(value, labels: tuple, is_set: bool = False, what: str = "this value") -> Labelled:
    """``value`` (an expression over codes) read as the TLA+ values ``labels``."""
    return Labelled(lift(value), labels, is_set, what)


def var(slot: int, sort: str = INT) -> Expr:
    return Expr("var", (slot,), sort)


def is_const(e: Expr) -> bool:
    return e.op == "const"


def const_value(e: Expr):
    return e.args[0]


def _expect(e: Expr, sort: str, where: str) -> Expr:
    if e.sort != sort:
        raise SpecDefinitionError(f"{where} expects a {sort} operand, got a {e.sort}: {to_text(e)}")
    return e


# --- arithmetic ------------------------------------------------------------

def add(a: Value, b: Value) -> Expr:
    a, b = _expect(lift(a), INT, "+"), _expect(lift(b), INT, "+")
    if is_const(a) and is_const(b):
        return const(const_value(a) + const_value(b))
    if is_const(b) and const_value(b) == 0:
        return a
    if is_const(a) and const_value(a) == 0:
        return b
    return Expr("add", (a, b), INT)


def sub(a: Value, b: Value) -> Expr:
    a, b = _expect(lift(a), INT, "-"), _expect(lift(b), INT, "-")
    if is_const(a) and is_const(b):
        return const(const_value(a) - const_value(b))
    if is_const(b) and const_value(b) == 0:
        return a
    return Expr("sub", (a, b), INT)


# --- comparisons -----------------------------------------------------------

_COMPARE = {
    "eq": lambda x, y: x == y,
    "ne": lambda x, y: x != y,
    "lt": lambda x, y: x < y,
    "le": lambda x, y: x <= y,
}


def _compare(op: str, a: Value, b: Value) -> Expr:
    a, b = lift(a), lift(b)
    if a.sort != b.sort:
        raise SpecDefinitionError(f"cannot compare a {a.sort} with a {b.sort}: {to_text(a)} vs {to_text(b)}")
    if op in ("lt", "le"):
        _expect(a, INT, "<")
    if is_const(a) and is_const(b):
        return const(_COMPARE[op](const_value(a), const_value(b)))
    if a is b:
        return const(op in ("eq", "le"))
    return Expr(op, (a, b), BOOL)


def eq(a: Value, b: Value) -> Expr:
    return _compare("eq", a, b)


def ne(a: Value, b: Value) -> Expr:
    return _compare("ne", a, b)


def lt(a: Value, b: Value) -> Expr:
    return _compare("lt", a, b)


def le(a: Value, b: Value) -> Expr:
    return _compare("le", a, b)


def gt(a: Value, b: Value) -> Expr:
    return _compare("lt", b, a)


def ge(a: Value, b: Value) -> Expr:
    return _compare("le", b, a)


# --- boolean connectives ---------------------------------------------------

def _flatten(op: str, items: Iterable[Value]) -> list[Expr]:
    out: list[Expr] = []
    for item in items:
        e = _expect(lift(item), BOOL, "and_/or_" if op else "")
        if e.op == op:
            out.extend(e.args)
        else:
            out.append(e)
    return out


def _junction(op: str, unit: Expr, absorbing: Expr, items) -> Expr:
    kept = []
    for e in _flatten(op, items):
        if e is absorbing:
            return absorbing
        if e is not unit:
            kept.append(e)
    if not kept:
        return unit
    return kept[0] if len(kept) == 1 else Expr(op, tuple(kept), BOOL)


def and_(*conjuncts: Value) -> Expr:
    """Conjunction; folds constants and flattens nested conjunctions."""
    return _junction("and", TRUE, FALSE, conjuncts)


def or_(*disjuncts: Value) -> Expr:
    """Disjunction; folds constants and flattens nested disjunctions."""
    return _junction("or", FALSE, TRUE, disjuncts)


def not_(a: Value) -> Expr:
    a = _expect(lift(a), BOOL, "not_")
    if is_const(a):
        return const(not const_value(a))
    if a.op == "not":
        return a.args[0]
    return Expr("not", (a,), BOOL)


def implies(a: Value, b: Value) -> Expr:
    return or_(not_(a), b)


def all_of(items: Iterable[Value]) -> Expr:
    """A universal quantifier over a finite, build-time domain."""
    return and_(*items)


def any_of(items: Iterable[Value]) -> Expr:
    """An existential quantifier over a finite, build-time domain."""
    return or_(*items)


def ite(cond: Value, then: Value, otherwise: Value) -> Expr:
    """IF cond THEN then ELSE otherwise. Between TLA+ values other than
    numbers (strings, model values: ``ite(c, "won", s.state[i])``) it keeps
    them as such, to be coded where they are stored or compared."""
    if isinstance(then, Labelled) or isinstance(otherwise, Labelled):
        ref = then if isinstance(then, Labelled) else otherwise
        return Labelled(ite(cond, ref.coded(then), ref.coded(otherwise)), ref.labels, ref.is_set, ref.what)  # type: ignore[return-value]
    if _plain_value(then) or _plain_value(otherwise) or isinstance(then, ValueIte) or isinstance(otherwise, ValueIte):
        return ValueIte(lift(cond), then, otherwise)  # type: ignore[return-value]
    cond = _expect(lift(cond), BOOL, "ite")
    then, otherwise = lift(then), lift(otherwise)
    if then.sort != otherwise.sort:
        raise SpecDefinitionError(f"ite branches differ in sort: {to_text(then)} / {to_text(otherwise)}")
    if is_const(cond):
        return then if const_value(cond) else otherwise
    if then is otherwise or (is_const(then) and is_const(otherwise)
                             and const_value(then) == const_value(otherwise)):
        return then
    if then is TRUE and otherwise is FALSE:
        return cond
    if then is FALSE and otherwise is TRUE:
        return not_(cond)
    return Expr("ite", (cond, then, otherwise), then.sort)


def min_(a: Value, b: Value) -> Expr:
    """Min({a, b}) of two integers."""
    a, b = lift(a), lift(b)
    return ite(le(a, b), a, b)


def max_(a: Value, b: Value) -> Expr:
    a, b = lift(a), lift(b)
    return ite(le(b, a), a, b)


def select(items: list[Value], index: Value) -> Expr:
    """``items[index]`` for an index known only at run time.

    It becomes a chain of ``ite`` on the index. An index outside the list
    yields the last element: callers guard every data-dependent index, as
    TLA+ requires for function application, so that value is never observed.
    """
    index = lift(index)
    exprs = [lift(x) for x in items]
    if is_const(index):
        i = const_value(index)
        return exprs[i] if 0 <= i < len(exprs) else exprs[-1]
    result = exprs[-1]
    for i in range(len(exprs) - 2, -1, -1):
        result = ite(eq(index, i), exprs[i], result)
    return result


# --- bit operations: replica sets are bitmasks ------------------------------

def _bitop(op: str, fold, a: Value, b: Value) -> Expr:
    a, b = _expect(lift(a), INT, op), _expect(lift(b), INT, op)
    if is_const(a) and is_const(b):
        return const(fold(const_value(a), const_value(b)))
    return Expr(op, (a, b), INT)


def bit_and(a: Value, b: Value) -> Expr:
    a, b = lift(a), lift(b)
    if (is_const(a) and const_value(a) == 0) or (is_const(b) and const_value(b) == 0):
        return const(0)
    return _bitop("band", lambda x, y: x & y, a, b)


def bit_or(a: Value, b: Value) -> Expr:
    a, b = lift(a), lift(b)
    if is_const(b) and const_value(b) == 0:
        return a
    if is_const(a) and const_value(a) == 0:
        return b
    return _bitop("bor", lambda x, y: x | y, a, b)


def bit_xor(a: Value, b: Value) -> Expr:
    return _bitop("bxor", lambda x, y: x ^ y, a, b)


def bit(index: Value, size: int | None = None) -> Expr:
    """The one-element set {index} as a bitmask over a universe of ``size``."""
    index = lift(index)
    if is_const(index):
        return const(1 << const_value(index))
    if size is None:
        raise SpecDefinitionError("a set built from a run-time index needs the universe size")
    return select([1 << i for i in range(size)], index)


def _label_index(mask, index, size):
    """For a labelled set, the element given as a value becomes its bit's index."""
    if isinstance(mask, Labelled) and mask.is_set:
        size = len(mask.labels) if size is None else size
        if isinstance(index, Labelled):
            index = Labelled(index.expr, index.labels, False, index.what)
            return mask.expr, Labelled(const(0), mask.labels, False, mask.what).coded(index), size
        positions = isinstance(index, int) and not isinstance(index, bool) and not mask.int_labels()
        if not isinstance(index, Expr) and not positions:  # a value, unless an integer among non-integers
            index = mask.code(index)
        return mask.expr, index, size
    return mask, index, size


def member(mask: Value, index: Value, size: int | None = None) -> Expr:
    """index \\in mask. A run-time index is compared with each element in
    turn, so an index outside the universe (such as NONE) is simply not a member.
    For a set of labelled values (``subset(name, values)``), ``index`` is the value."""
    mask, index, size = _label_index(mask, index, size)
    index = lift(index)
    if is_const(index):
        return ne(bit_and(mask, 1 << const_value(index)), 0)
    if size is None:
        raise SpecDefinitionError("membership of a run-time index needs the universe size")
    return or_(*(and_(eq(index, i), ne(bit_and(mask, 1 << i), 0)) for i in range(size)))


def set_with(mask: Value, index: Value, size: int | None = None) -> Expr:
    """mask \\union {index}."""
    mask, index, size = _label_index(mask, index, size)
    return bit_or(mask, bit(index, size))


def set_without(mask: Value, index: Value, size: int | None = None) -> Expr:
    """mask \\ {index} over a universe of ``size`` elements (a labelled set knows its own)."""
    mask, index, size = _label_index(mask, index, size)
    if size is None:
        raise SpecDefinitionError("set_without needs the universe size")
    universe = (1 << size) - 1
    return bit_and(mask, bit_xor(universe, bit(index, size)))


# --- walking trees ---------------------------------------------------------

def nodes(*roots: Expr) -> list[Expr]:
    """Every distinct node of one or more trees (a DAG), children before
    parents; a subtree the trees share is walked once."""
    seen: set[int] = set()
    order: list[Expr] = []
    stack: list[tuple[Expr, bool]] = [(root, False) for root in reversed(roots)]
    while stack:
        e, expanded = stack.pop()
        if id(e) in seen:
            continue
        if expanded or e.op in ("const", "var"):
            seen.add(id(e))
            order.append(e)
            continue
        stack.append((e, True))
        for child in e.args:
            if id(child) not in seen:
                stack.append((child, False))
    return order


def slots_read(*roots: Expr) -> set[int]:
    return {e.args[0] for e in nodes(*roots) if e.op == "var"}


_INFIX = {"add": "+", "sub": "-", "eq": "=", "ne": "#", "lt": "<", "le": "<=",
          "band": "&", "bor": "|", "bxor": "^"}


def to_text(e: Expr, names=None) -> str:
    """A readable rendering, used in error messages and debugging."""
    if e.op == "const":
        v = e.args[0]
        return ("TRUE" if v else "FALSE") if isinstance(v, bool) else str(v)
    if e.op == "var":
        return names(e.args[0]) if names else f"s[{e.args[0]}]"
    if e.op in _INFIX:
        a, b = e.args
        return f"({to_text(a, names)} {_INFIX[e.op]} {to_text(b, names)})"
    if e.op in ("and", "or"):
        joiner = " /\\ " if e.op == "and" else " \\/ "
        return "(" + joiner.join(to_text(a, names) for a in e.args) + ")"
    if e.op == "not":
        return "~" + to_text(e.args[0], names)
    if e.op == "ite":
        c, a, b = e.args
        return f"(IF {to_text(c, names)} THEN {to_text(a, names)} ELSE {to_text(b, names)})"
    return f"{e.op}({', '.join(to_text(a, names) for a in e.args)})"


# --- sets as bitmasks: size and TLC's order ------------------------------------

def cardinality(mask: Value, size: int | None = None) -> Expr:
    """Cardinality(mask) for a set over a universe of ``size`` elements (a
    labelled set knows its own)."""
    if isinstance(mask, Labelled) and size is None:
        size = len(mask.labels)
    if size is None:
        raise SpecDefinitionError("cardinality needs the universe size")
    mask = lift(mask)
    if is_const(mask):
        return const(bin(const_value(mask)).count("1"))
    total: Value = 0
    for i in range(size):
        total = add(total, ite(ne(bit_and(mask, 1 << i), 0), 1, 0))
    return lift(total)


def subset_of(a: Value, b: Value) -> Expr:
    """a \\subseteq b for two bitmasks."""
    return eq(bit_and(a, b), a)


def set_order_key(mask: Value, size: int) -> tuple[Expr, Expr]:
    """Two integers that order sets (bitmasks over elements 0..size-1), taken
    lexicographically, as TLC orders set values: by cardinality, then by their
    sorted elements, lexicographically.

    Between two sets of the same size, the one holding the least element of
    their symmetric difference comes first; reversing the bits (element 0 as
    the highest bit) and complementing turns that into plain integer order.
    """
    mask = lift(mask)
    full = (1 << size) - 1
    reversed_bits: Value = 0
    for i in range(size):
        reversed_bits = add(reversed_bits, ite(ne(bit_and(mask, 1 << i), 0), 1 << (size - 1 - i), 0))
    return cardinality(mask, size), sub(full, reversed_bits)


def lex_less(xs: list[Value], ys: list[Value]) -> Expr:
    """xs < ys, lexicographically, for two equally long lists of integers."""
    if len(xs) != len(ys):
        raise SpecDefinitionError("lex_less compares lists of the same length")
    result: Expr = FALSE
    for x, y in reversed(list(zip(xs, ys))):
        result = or_(lt(x, y), and_(eq(x, y), result))
    return result
