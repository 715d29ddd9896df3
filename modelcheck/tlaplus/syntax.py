"""The abstract syntax the TLA+ front-end works on, and where each piece came from.

The parser (``parse.py``) turns tree-sitter-tlaplus's concrete tree into
these nodes; every later stage (resolution, the reference evaluator, the
lowering onto expression trees) reads only them. An expression is a
``Node``: a ``kind``, its arguments and its ``Loc``. The kinds:

=================  ==========================================================
``num`` ``str``    a literal (args: the Python value); ``bool`` likewise
``name``           an identifier (args: the name)
``apply``          ``Op(a, b)`` (args: the name, the argument nodes)
``inst``           ``I!Op(a)`` or ``I(x)!Op`` (args: the prefix as (name, args)
                   pairs, the operator's name, its arguments)
``op``             a built-in operator by its symbol: ``+``, ``\\in``, ``'``,
                   ``UNCHANGED``, ``DOMAIN``... (args: the symbol, the operands)
``and`` ``or``     a conjunction or disjunction (args: the items, flattened)
``if``             (condition, then, else)
``case``           (arms as (condition, value) pairs, the OTHER value or None)
``let``            (definitions, body)
``quant``          ``\\E``/``\\A`` (args: "E" or "A", bounds, body)
``choose``         (pattern, set or None, body)
``setenum``        ``{a, b}``; ``setfilter`` (pattern, set, predicate);
                   ``setmap`` (expression, bounds); ``funset`` ``[S -> T]``
``fundef``         ``[x \\in S |-> e]`` (bounds, body); ``funapp`` ``f[a, b]``
``record``         ``[a |-> e]`` (field, value) pairs; ``recset`` ``[a : S]``;
                   ``dot`` ``r.a``
``except``         (base, updates as (path, value)); a path is a tuple of
                   ``(".", field)`` and ``("[]", argument nodes)``; ``at`` is ``@``
``tuple``          ``<<a, b>>``; ``times`` ``S \\X T \\X U``
``lambda``         (parameter names, body)
``fair``           ``WF_v(A)`` / ``SF_v(A)`` (args: "WF" or "SF", v, A)
``boxact``         ``[A]_v`` (A, v); ``diaact`` ``<<A>>_v`` (A, v)
``subexpr``        ``Op!1`` (args: the operator's name, the positions)
=================  ==========================================================

A bound (of a quantifier, a set form or a function) is ``(pattern, set)``
where the pattern is a name or a tuple of names (``<<a, b>> \\in S``).

A module is a ``Module``: its name, what it extends and its units (constants,
variables, definitions, instances, assumptions), in the order written.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable


@dataclass(frozen=True)
class Loc:
    """Where a piece of TLA+ text starts: file, line and column (1-based)."""

    path: str
    line: int
    col: int

    def __str__(self) -> str:
        return f"{self.path}:{self.line}:{self.col}"


NOWHERE = Loc("<built-in>", 0, 0)


class Node:
    """One expression node (see the module docstring for the kinds)."""

    __slots__ = ("kind", "args", "loc")

    def __init__(self, kind: str, args: tuple, loc: Loc):
        self.kind = kind
        self.args = args
        self.loc = loc

    def __repr__(self) -> str:
        return f"Node({self.kind}, {self.args!r})"


Pattern = Any  # a name (str) or a tuple of names


@dataclass
class OpDef:
    """``Op(p1, p2) == body``. A parameter is (name, arity): arity 0 for a
    value, n for an operator taken as an argument (``F(_, _)``)."""

    name: str
    params: tuple[tuple[str, int], ...]
    body: Node
    loc: Loc
    local: bool = False
    # set for f[x \in S] == e: the bounds of a (possibly recursive) function
    fun_bounds: tuple | None = None


@dataclass
class ConstantDecl:
    name: str
    arity: int
    loc: Loc


@dataclass
class VariableDecl:
    name: str
    loc: Loc


@dataclass
class InstanceDef:
    """``INSTANCE M WITH a <- e`` (unnamed: its definitions join the module)
    or ``I(p) == INSTANCE M ...`` (named: reached as ``I!Op``)."""

    module: str
    substitutions: tuple[tuple[str, Node], ...]
    loc: Loc
    name: str | None = None
    params: tuple[tuple[str, int], ...] = ()
    local: bool = False


@dataclass
class Assumption:
    expr: Node
    loc: Loc


@dataclass
class Module:
    name: str
    path: str
    extends: tuple[tuple[str, Loc], ...]
    units: list = field(default_factory=list)
    # identifiers and strings in the order the text gives them (TLC's order
    # of strings, model values and record fields depends on it)
    words: tuple[str, ...] = ()
    loc: Loc = NOWHERE


class TlaError(Exception):
    """A problem with a TLA+ module the user wrote, at a place in it."""

    def __init__(self, message: str, loc: Loc | None = None):
        super().__init__(message)
        self.message = message
        self.loc = loc

    def __str__(self) -> str:
        return f"{self.loc}: {self.message}" if self.loc and self.loc.line else self.message


class Unsupported(TlaError):
    """A construct outside the subset the front-end compiles (exit 2)."""


class EvalError(TlaError):
    """What TLC stops with: a value TLC cannot evaluate (exit 75)."""


@dataclass
class Builtin:
    """An operator of a standard or community module, built in (``modelcheck.tlaplus.builtins``)."""
    name: str
    module: str
    arity: int
    fn: Callable[..., Any]
    # a built-in whose arguments are taken unevaluated (IF-like or action-level ones)
    lazy: bool = False
