"""Spec constants: their declarations, parsing from the command line and .cfg files, and validation.

A constant has a *kind*, the shape of its TLA+ value:

* ``INT``, ``BOOL`` (TRUE/FALSE, true/false also accepted), ``STRING``
  (``"abc"``);
* ``MODEL_VALUE``: one model value, such as Paxos' ``None`` (``None = None``
  in a .cfg declares it; its default is its own name);
* ``MODEL_VALUES``: a set of model values, written as TLC users write it
  (``RM = {r1, r2, r3}``), or as a count (``RM = 3``: names made of the
  declaration's ``prefix`` and 1..3, by default the first letter of the
  constant's name: ``{r1, r2, r3}``). ``REPLICAS`` is the same kind for the
  Kafka specs' replicas (its count names them r1, r2, ...);
* ``member_of("RM")``: one of the model values of another constant
  (``REPLICA``: one of the replicas);
* ``subset_of("Acceptor")``: a set of the model values of another constant;
* ``set_of(kind)``, ``seq_of(kind)`` and ``record_of(field=kind, ...)``: sets
  (``{{a1, a2}, {a2, a3}}``, ``0..2``), sequences or tuples (``<<3, 1, 2>>``)
  and records (``[x |-> 1, y |-> "a"]``) of those.

The Python value a spec reads (``c.RM``) is: an ``int``, a ``bool``, a
``str``, a ``ModelValue``; a tuple for a set of model values (in the order
written, which is TLC's order of them) and for any other set (in TLC's order
of its elements), and for a sequence; a ``Record`` for a record.

A declaration's default may be a function of the constants declared before
it (``Id`` defaulting to ``<<1, ..., N>>``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Iterable, Mapping

from modelcheck.errors import InputError, no_such
from modelcheck.language.notation import (QUOTED, Interval, SetLiteral, literal_model_values, quoted,  # noqa: F401
                                          read_literal)
from modelcheck.language.values import ModelValue, Record, tlc_key

INT, BOOL, STRING = "int", "bool", "string"
MODEL_VALUE, MODEL_VALUES = "model value", "model values"
REPLICAS, REPLICA = "replicas", "replica"  # the Kafka specs' sets of replicas and one replica of them
NONE = "NONE"  # the replication specs' "no leader" marker; no replica may take this name
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


# --- kinds that take an argument -------------------------------------------------------

@dataclass(frozen=True)
class MemberOf:
    """One of the model values of another constant (a set of model values)."""
    constant: str


@dataclass(frozen=True)
class SubsetOf:
    """A set of the model values of another constant."""
    constant: str


@dataclass(frozen=True)
class SetOf:
    element: Any


@dataclass(frozen=True)
class SeqOf:
    element: Any


@dataclass(frozen=True)
class RecordOf:
    fields: tuple[tuple[str, Any], ...]


def member_of(constant: str) -> MemberOf:
    """The kind of a constant holding one model value of ``constant``."""
    return MemberOf(constant)


def subset_of(constant: str) -> SubsetOf:
    """The kind of a set of ``constant``'s model values."""
    return SubsetOf(constant)


def set_of(element: Any) -> SetOf:
    """The kind of a set whose elements are of kind ``element``."""
    return SetOf(element)


def seq_of(element: Any) -> SeqOf:
    """The kind of a sequence (or tuple) whose entries are of kind ``element``."""
    return SeqOf(element)


def record_of(**fields: Any) -> RecordOf:
    """The kind of a record with these fields, each of the kind given."""
    return RecordOf(tuple(fields.items()))


def kind_words(kind: Any) -> str:
    """A kind in the user's terms, for messages ("a set of model values")."""
    if isinstance(kind, MemberOf):
        return f"one of the model values of {kind.constant}"
    if isinstance(kind, SubsetOf):
        return f"a set of model values of {kind.constant}"
    if isinstance(kind, SetOf):
        return f"a set of {_plural(kind.element)}"
    if isinstance(kind, SeqOf):
        return f"a sequence of {_plural(kind.element)}"
    if isinstance(kind, RecordOf):
        return "a record [" + ", ".join(f"{k} |-> {_plural(v, one=True)}" for k, v in kind.fields) + "]"
    return {INT: "an integer", BOOL: "TRUE or FALSE", STRING: "a string (in quotes)", MODEL_VALUE: "a model value",
            MODEL_VALUES: "a set of model values", REPLICAS: "a set of model values",
            REPLICA: "one of the replicas"}.get(kind, str(kind))


def _plural(kind: Any, one: bool = False) -> str:
    words = kind_words(kind)
    if one:
        return words
    simple = {INT: "integers", STRING: "strings", MODEL_VALUE: "model values", BOOL: "booleans"}
    if kind in simple:
        return simple[kind]
    if isinstance(kind, MemberOf):
        return f"model values of {kind.constant}"
    if isinstance(kind, SubsetOf):
        return f"sets of model values of {kind.constant}"
    return words[2:] + "s" if words.startswith("a ") else words


@dataclass(frozen=True)
class ConstantDecl:
    name: str
    kind: Any
    default: Any  # a value, or a function of the constants declared before it
    minimum: int | None = None  # of an integer, or of a set's (or sequence's) size
    maximum: int | None = None
    doc: str = ""
    prefix: str | None = None  # a set of model values given as a count: names prefix1, prefix2, ...

    def count_prefix(self) -> str:
        if self.prefix is not None:
            return self.prefix
        return "r" if self.kind == REPLICAS else self.name[0].lower()


class Constants:
    """The constants of one spec instance, read as attributes (``c.LogSize``)."""

    def __init__(self, values: Mapping[str, Any], order: Iterable[str]):
        self._values = dict(values)
        self._order = tuple(order)

    def __getattr__(self, name: str):
        if name.startswith("_"):
            raise AttributeError(name)
        try:
            return self._values[name]
        except KeyError:
            raise AttributeError(name) from None

    def __getitem__(self, name: str):
        return self._values[name]

    def __contains__(self, name: str) -> bool:
        return name in self._values

    def items(self):
        return [(k, self._values[k]) for k in self._order]

    def __eq__(self, other) -> bool:
        return isinstance(other, Constants) and self.items() == other.items()

    def __hash__(self) -> int:
        return hash(tuple(self.items()))

    def __repr__(self) -> str:
        return "Constants(" + ", ".join(f"{k}={v!r}" for k, v in self.items()) + ")"


# --- values: TLA+ values, notation, JSON ----------------------------------------------------

def _is_set_kind(kind: Any) -> bool:
    return kind in (MODEL_VALUES, REPLICAS) or isinstance(kind, (SubsetOf, SetOf))


def _element_kind(kind: Any) -> Any:
    if kind in (MODEL_VALUES, REPLICAS) or isinstance(kind, SubsetOf):
        return MODEL_VALUE
    return kind.element


def tla_value(kind: Any, value: Any) -> Any:
    """A constant's value as a TLA+ value (``modelcheck.language.values``): a
    set as a frozenset, a sequence as a tuple, a record as a Record."""
    if _is_set_kind(kind):
        return frozenset(tla_value(_element_kind(kind), x) for x in value)
    if isinstance(kind, SeqOf):
        return tuple(tla_value(kind.element, x) for x in value)
    if isinstance(kind, RecordOf):
        kinds = dict(kind.fields)
        return Record((k, tla_value(kinds[k], x)) for k, x in value.items())
    if kind in (MODEL_VALUE, REPLICA) or isinstance(kind, MemberOf):
        return ModelValue(value)
    return value


def format_value(kind: Any, value: Any) -> str:
    """A constant's value in TLA+ notation, sets in their stored order."""
    if _is_set_kind(kind):
        return "{" + ", ".join(format_value(_element_kind(kind), x) for x in value) + "}"
    if isinstance(kind, SeqOf):
        return "<<" + ", ".join(format_value(kind.element, x) for x in value) + ">>"
    if isinstance(kind, RecordOf):
        kinds = dict(kind.fields)
        return "[" + ", ".join(f"{k} |-> {format_value(kinds[k], x)}" for k, x in value.items()) + "]"
    if kind == BOOL:
        return "TRUE" if value else "FALSE"
    if kind == STRING:
        return '"' + str(value).replace("\\", "\\\\").replace('"', '\\"') + '"'
    return str(value)


def json_value(kind: Any, value: Any) -> Any:
    """How a constant appears in --json output and trace params: sets and
    sequences as arrays, records as objects."""
    if _is_set_kind(kind) or isinstance(kind, SeqOf):
        return [json_value(_element_kind(kind), x) for x in value]
    if isinstance(kind, RecordOf):
        kinds = dict(kind.fields)
        return {k: json_value(kinds[k], x) for k, x in value.items()}
    if kind in (MODEL_VALUE, REPLICA) or isinstance(kind, MemberOf):
        return str(value)
    return value


# --- reading values from trace files ---------------------------------------------------------------

def json_literal(raw: Any, kind: Any, where: str) -> Any:
    """A constant's value as a trace file writes it (plain JSON, or ITF's
    tagged forms), as a literal of ``kind``."""
    if isinstance(raw, dict) and set(raw) == {"#bigint"}:
        try:
            return int(raw["#bigint"])
        except (TypeError, ValueError):
            raise InputError(f"{where}: expected an integer") from None
    if isinstance(raw, dict) and set(raw) <= {"#set", "#tup"} and len(raw) == 1:
        raw = next(iter(raw.values()))
    if isinstance(raw, list):
        element = _element_kind(kind) if (_is_set_kind(kind) or isinstance(kind, SeqOf)) else None
        items = [json_literal(x, element, where) for x in raw]
        return tuple(items) if isinstance(kind, SeqOf) else SetLiteral(items)
    if isinstance(raw, dict):
        kinds = dict(kind.fields) if isinstance(kind, RecordOf) else {}
        return Record((k, json_literal(v, kinds.get(k), where)) for k, v in raw.items())
    if isinstance(raw, str) and kind != STRING:
        return ModelValue(raw)
    return raw


# --- checking a value against its kind ----------------------------------------------------------

class _Context:
    """What a value is checked against: the constants resolved so far (for
    ``member_of`` and ``subset_of``) and TLC's order of the model values."""

    def __init__(self, values: Mapping[str, Any], rank: dict[str, int]):
        self.values, self.rank = values, rank

    def order(self, name: str) -> Any:
        return self.rank.get(name, len(self.rank)), name


def convert(decl: ConstantDecl, lit: Any, ctx: _Context | None = None, kind: Any = None, path: str | None = None) -> Any:
    """A literal (``read_literal``) checked against the kind and turned into
    the value specs read; ``kind``/``path`` name a part of a nested value."""
    kind = decl.kind if kind is None else kind
    path = path or f"constant {decl.name}"
    ctx = ctx or _Context({}, {})

    def wrong(extra: str = ""):
        from modelcheck.language.values import show
        got = show(lit) if not isinstance(lit, (SetLiteral, Interval)) else _literal_text(lit)
        raise InputError(f"{path} must be {kind_words(kind)}{extra}, got {quoted(got)}")

    if kind == INT:
        if isinstance(lit, bool) or not isinstance(lit, int):
            wrong()
        return lit
    if kind == BOOL:
        if not isinstance(lit, bool):
            wrong()
        return lit
    if kind == STRING:
        if isinstance(lit, ModelValue) or not isinstance(lit, str):
            wrong(' such as "abc"')
        return lit
    if kind == MODEL_VALUE:
        if not isinstance(lit, ModelValue) or not _NAME.match(lit):
            wrong(" (a name: letters, digits, _)")
        return lit
    if kind in (MODEL_VALUES, REPLICAS):
        return _model_values(decl, lit, path, wrong)
    if kind == REPLICA or isinstance(kind, MemberOf):
        if not isinstance(lit, ModelValue) or not _NAME.match(lit):
            wrong(" (a name)")
        owner = _owner(decl, kind, ctx)
        if owner is not None and lit not in ctx.values[owner]:
            listed = format_value(MODEL_VALUES, ctx.values[owner])
            raise InputError(f"{path} must be one of the model values of {owner} {listed}, got {lit}")
        return ModelValue(lit)
    if isinstance(kind, SubsetOf):
        if not isinstance(lit, SetLiteral):
            wrong()
        names = _model_values(decl, lit, path, wrong, allow_empty=True)
        universe = ctx.values.get(kind.constant)
        outside = [n for n in names if universe is not None and n not in universe]
        if outside:
            raise InputError(f"{path}: {', '.join(outside)} not among the model values of {kind.constant} "
                             f"{format_value(MODEL_VALUES, universe)}")
        return tuple(sorted(names, key=ctx.order))
    if isinstance(kind, SetOf):
        if isinstance(lit, Interval):
            if kind.element != INT:
                wrong()
            lo, hi = lit
            if hi - lo > 10_000:
                raise InputError(f"{path}: {lo}..{hi} is too large a set for modelcheck")
            lit = SetLiteral(range(lo, hi + 1))
        if not isinstance(lit, SetLiteral):
            wrong()
        elements = [convert(decl, x, ctx, kind.element, f"{path}: an element") for x in lit]
        unique = {tla_value(kind.element, x): x for x in elements}
        rank = lambda name: ctx.order(name)
        return tuple(unique[v] for v in sorted(unique, key=lambda v: tlc_key(v, rank)))
    if isinstance(kind, SeqOf):
        if isinstance(lit, SetLiteral) and not lit:  # {} and <<>> are the same empty value
            lit = ()
        if not isinstance(lit, tuple) or isinstance(lit, (SetLiteral, Interval)):
            wrong(" such as <<1, 2>>")
        return tuple(convert(decl, x, ctx, kind.element, f"{path}[{i + 1}]") for i, x in enumerate(lit))
    if isinstance(kind, RecordOf):
        if not isinstance(lit, Record):
            wrong()
        wanted = [k for k, _ in kind.fields]
        if set(lit) != set(wanted):
            raise InputError(f"{path} must be a record with fields {', '.join(wanted)}, "
                             f"got one with {', '.join(lit) or 'none'}")
        kinds = dict(kind.fields)
        return Record((k, convert(decl, lit[k], ctx, kinds[k], f"{path}.{k}")) for k in wanted)
    raise AssertionError(f"unknown constant kind {kind!r}")


def _literal_text(lit: Any) -> str:
    if isinstance(lit, Interval):
        return f"{lit[0]}..{lit[1]}"
    from modelcheck.language.values import show
    return "{" + ", ".join(show(x) if not isinstance(x, (SetLiteral, Interval)) else _literal_text(x)
                           for x in lit) + "}"


def _owner(decl: ConstantDecl, kind: Any, ctx: _Context) -> str | None:
    """The constant a member_of (or a legacy replica) constant draws from."""
    if isinstance(kind, MemberOf):
        return kind.constant if kind.constant in ctx.values else None
    for name, value in ctx.values.items():
        if isinstance(value, tuple) and name != decl.name and value and all(isinstance(v, ModelValue) for v in value):
            return name
    return None


def _model_values(decl: ConstantDecl, lit: Any, path: str, wrong, allow_empty: bool = False) -> tuple:
    name = decl.name
    if isinstance(lit, int) and not isinstance(lit, bool):
        _check_count(decl, lit)
        prefix = decl.count_prefix()
        return tuple(ModelValue(f"{prefix}{i}") for i in range(1, lit + 1))
    if not isinstance(lit, SetLiteral):
        wrong(" (a count such as 3, or names such as {a,b,c})")
    if not lit and not allow_empty:
        raise InputError(f"{name} must have at least 1 member, got the empty set")
    if not allow_empty:
        _check_count(decl, len(lit))
    for n in lit:
        if not isinstance(n, ModelValue) or not _NAME.match(n):
            from modelcheck.language.values import show
            raise InputError(f"{path}: {quoted(show(n))} is not a model value name (letters, digits, _)")
        if decl.kind == REPLICAS and n == NONE:
            raise InputError(f"{name}: {NONE} is reserved for 'no leader' and cannot name a replica")
    if len(set(lit)) != len(lit):
        raise InputError(f"{name}: the model values must be distinct, got {quoted(_literal_text(lit))}")
    return tuple(ModelValue(n) for n in lit)


def _check_count(decl: ConstantDecl, count: int) -> None:
    if count < 1:
        raise InputError(f"{decl.name} must have at least 1 member, got {count}")
    if decl.maximum is not None and count > decl.maximum:
        raise InputError(f"{decl.name} can be at most {decl.maximum} in modelcheck, got {count:,} members")


def parse_value(decl: ConstantDecl, text: str) -> Any:
    """Parse one constant's value as written on the command line or in a .cfg.
    Declared bounds are checked on the text, before anything is built from it;
    a value drawn from another constant is checked against it by ``resolve``."""
    text = text.strip()
    if decl.kind == INT and not re.fullmatch(r"[+-]?[0-9]+", text):
        raise InputError(f"constant {decl.name} must be an integer, got {quoted(text)}")
    if decl.kind == INT or (decl.kind in (MODEL_VALUES, REPLICAS) and re.fullmatch(r"[+-]?[0-9]+", text)):
        _bounded_int(decl, text, decl.name)
        text = text.lstrip("+")
    if decl.kind in (MODEL_VALUES, REPLICAS) and not re.fullmatch(r"-?[0-9]+", text) \
            and not (text.startswith("{") and text.endswith("}")):
        raise InputError(f"{decl.name} must be a count (3) or a set of model values ({{a,b,c}}), got {quoted(text)}")
    if decl.kind == BOOL and text not in ("TRUE", "FALSE", "true", "false"):
        raise InputError(f"constant {decl.name} must be TRUE or FALSE, got {quoted(text)}")
    return convert(decl, read_literal(text, f"constant {decl.name}"))


def _bounded_int(decl: ConstantDecl, digits: str, what: str) -> int:
    """``digits`` as an int, refused before conversion when it has more
    digits than any bound of ``decl`` allows (a 10,000-digit count would
    otherwise cost seconds and a 10,000-character error line)."""
    bound = max(abs(b) for b in (decl.minimum, decl.maximum, 1 << 62) if b is not None)
    if len(digits.lstrip("+-").lstrip("0")) > len(str(bound)):
        limit = f"at most {decl.maximum}" if decl.maximum is not None else "a 62-bit number"
        raise InputError(f"{what} can be {limit} in modelcheck, got a {len(digits):,}-digit number")
    return int(digits)


def _depends_on(kind: Any) -> set[str]:
    if isinstance(kind, (MemberOf, SubsetOf)):
        return {kind.constant}
    if isinstance(kind, (SetOf, SeqOf)):
        return _depends_on(kind.element)
    if isinstance(kind, RecordOf):
        return set().union(*(_depends_on(k) for _, k in kind.fields))
    return set()


def resolve(decls: tuple[ConstantDecl, ...], given: Mapping[str, str], spec_name: str,
            parsed: Mapping[str, Any] | None = None, named_first: Iterable[str] = ()) -> Constants:
    """Combine defaults with user-given values (texts in TLA+ notation, or
    values already parsed) and check each against its kind and declared bounds.

    Model values are ordered as TLC orders them, by when they were first
    written: ``named_first`` (a .cfg's declarations ``a1 = a1``), then in
    the values given, in the order given, then in the defaults."""
    by_name = {d.name: d for d in decls}
    for key in list(given) + list(parsed or {}):
        if key not in by_name:
            raise InputError(no_such(f"{spec_name} has no constant", key, by_name, "its constants"))
    literals: dict[str, Any] = {}
    for key, text in given.items():
        decl = by_name[key]
        parse_value(decl, text)  # the checks on the text itself (a count's size, an integer's digits)
        literals[key] = read_literal(text.strip().lstrip("+") if decl.kind == INT else text, f"constant {key}")
    rank: dict[str, int] = {name: k for k, name in enumerate(dict.fromkeys(named_first))}
    for lit in literals.values():
        for m in literal_model_values(lit):
            rank.setdefault(m, len(rank))
    replicas = next((d.name for d in decls if d.kind == REPLICAS), None)

    def needs(d: ConstantDecl) -> set[str]:
        found = _depends_on(d.kind) & set(by_name)
        return found | ({replicas} if d.kind == REPLICA and replicas else set())

    values: dict[str, Any] = {}
    pending = [d for d in decls]
    while pending:
        ready = [d for d in pending if not needs(d) & {p.name for p in pending}]
        if not ready:
            raise InputError(f"{spec_name}: the constants {', '.join(d.name for d in pending)} depend on each other")
        for d in ready:
            ctx = _Context(values, rank)
            if d.name in literals:
                value = convert(d, literals[d.name], ctx)
            elif parsed and d.name in parsed:
                value = parsed[d.name]
                value = convert(d, _as_literal(value, d.kind), ctx)
            else:
                default = d.default
                if callable(default):
                    default = default(Constants(values, [x.name for x in decls if x.name in values]))
                value = convert(d, _as_literal(default, d.kind), ctx)
            for m in literal_model_values(_as_literal(value, d.kind)):
                rank.setdefault(m, len(rank))
            values[d.name] = value
            check_bounds(d, value)
        pending = [d for d in pending if d.name not in values]
    return Constants(values, [d.name for d in decls])


def _as_literal(value: Any, kind: Any) -> Any:
    """A Python value (a default, or a value already parsed) in the literal
    form ``convert`` reads: sets as SetLiteral, names of model values as ModelValue."""
    if _is_set_kind(kind):
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        element = _element_kind(kind)
        return SetLiteral(_as_literal(x, element) for x in value)
    if isinstance(kind, SeqOf):
        return tuple(_as_literal(x, kind.element) for x in value)
    if isinstance(kind, RecordOf):
        kinds = dict(kind.fields)
        return Record((k, _as_literal(x, kinds.get(k))) for k, x in dict(value).items())
    if (kind in (MODEL_VALUE, REPLICA) or isinstance(kind, MemberOf)) and isinstance(value, str):
        return ModelValue(value)
    return value


def check_bounds(decl: ConstantDecl, value: Any) -> None:
    """The declared minimum and maximum of a parsed value (a size for sets and sequences)."""
    sized = _is_set_kind(decl.kind) or isinstance(decl.kind, SeqOf)
    if decl.kind != INT and not sized:
        return
    size = len(value) if sized else value
    what = " members" if sized else ""
    if decl.minimum is not None and size < decl.minimum:
        raise InputError(f"{decl.name} must be at least {decl.minimum}{what}, got {format_value(decl.kind, value)}")
    if decl.maximum is not None and size > decl.maximum:
        raise InputError(f"{decl.name} can be at most {decl.maximum}{what} in modelcheck, "
                         f"got {format_value(decl.kind, value)}")


def parse_assignment(text: str) -> tuple[str, str]:
    """Split a --const NAME=VALUE argument."""
    if "=" not in text:
        raise InputError(f"--const expects NAME=VALUE, got {quoted(text)}")
    name, value = text.split("=", 1)
    name = name.strip()
    if not _NAME.match(name):
        raise InputError(f"--const: {quoted(name)} is not a constant name")
    return name, value.strip()


def constant_from_json(decl: ConstantDecl, raw: Any, where: str) -> Any:
    """A constant's value as a trace file gives it, as the literal ``resolve``
    takes among its parsed values."""
    return json_literal(raw, decl.kind, where)

