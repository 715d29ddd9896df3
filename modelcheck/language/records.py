"""Records: named fields of several types, as messages, log entries and
metadata snapshots carry them.

A ``RecordType`` lists its *parts* (an integer range, a flag, a set of ids
held as a bitmask, or a choice among named TLA+ values such as model values)
and the order in which two records compare. Each part is one state slot
wherever the record is stored (a slot of a message set, an entry of a
sequence, a plain state field), and reading it gives an expression, so a
record is as symbolic as any other state value: every engine reads it.

Records compare the way TLC compares record values, which is what decides
the order in which TLC tries the elements of a set of records (``\\E m \\in
messages``): a record type's ``order`` lists its parts in TLC's order of the
field names (TLC sorts a record's fields by when it first read the field's
name, not alphabetically), and each part compares as TLC compares its values:
integers by value, booleans FALSE first, named values in the order their
``labels`` give (a model value comes before any integer), sets by size and
then element by element. An entry of ``order`` may also be a function of the
record returning extra key expressions, for records whose shape varies (a
record with more fields compares after one with fewer).

Storing records sorted by this order keeps a set canonical (one encoding per
set) and makes "the k-th element of the set" the element TLC visits k-th.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

from modelcheck.language.codec import Codec, json_int, json_record, json_set
from modelcheck.errors import SpecDefinitionError, TraceFormatError
from modelcheck.language.expr import (BOOL, INT, Expr, Labelled, and_, const, const_value, eq, is_const, ite, lex_less,
                                      lift, not_, or_, select, set_order_key)
from modelcheck.language.schema import Field
from modelcheck.language.values import Record, show

NUMBER, FLAG, MEMBERS, CHOICE = "number", "flag", "members", "choice"


@dataclass(frozen=True)
class Part:
    """One field of a record type: a range of small integers and how its
    values read as TLA+ values.

    ``blank`` is the value the part holds where no record is stored (empty
    slots are kept at it, so that each set or sequence has one encoding).
    ``labels``: for a choice, the TLA+ value of each code ``lo + i``; for a set,
    the TLA+ value of each element (bit i). ``nil``: an integer part whose
    lowest code stands for a named value (the spec's Nil) rather than a number.
    """

    name: str
    kind: str
    lo: int
    hi: int
    blank: int
    labels: tuple = ()
    nil: str | None = None
    shift: int = 0  # a number part's TLA+ value is its code plus this (ids counted from 1, say)

    def field(self, prefix: str, shape: tuple[int, ...]) -> Field:
        kind = {FLAG: "bool", MEMBERS: "set"}.get(self.kind, "int")
        return Field(f"{prefix}.{self.name}", shape, self.lo, self.hi, kind)

    def labelled(self) -> bool:
        """Whether the part reads and writes as TLA+ values (a choice or a
        set of strings or model values) rather than integers: choices and
        sets of integer ids keep reading as their codes."""
        return self.kind in (CHOICE, MEMBERS) and bool(self.labels) and not any(
            isinstance(x, int) and not isinstance(x, bool) for x in self.labels)

    def read(self, raw: Expr, owner: str = "") -> Any:
        """The part as specs use it: a flag as a condition, a choice among
        strings or model values as those values (``m.type == "2b"``),
        anything else as its integer."""
        if self.kind == FLAG:
            return raw == 1
        if self.labelled():
            return Labelled(raw, self.labels, self.kind == MEMBERS, f"{owner}.{self.name}" if owner else self.name)
        return raw

    def store(self, value) -> Expr:
        """A value given for the part, as the integer stored in its slot. A
        choice takes one of its TLA+ values (or an integer code), a set of
        ids an iterable of them (or a bitmask)."""
        if self.kind in (CHOICE, MEMBERS) and self.labels and not isinstance(value, Expr):
            is_code = isinstance(value, int) and not isinstance(value, bool)
            if not is_code:
                value = Labelled(const(0), self.labels, self.kind == MEMBERS, self.name).coded(value)
        e = lift(value)
        if self.kind == FLAG:
            if e.sort != BOOL:
                raise SpecDefinitionError(f"record part {self.name} is a flag; give a condition")
            return ite(e, 1, 0)
        if e.sort != INT:
            raise SpecDefinitionError(f"record part {self.name} holds integers; got a condition")
        if is_const(e) and not self.lo <= const_value(e) <= self.hi:
            raise SpecDefinitionError(f"record part {self.name}: {const_value(e)} is outside {self.lo}..{self.hi}")
        return e

    def key(self, raw: Expr) -> list[Expr]:
        """Key expressions that order this part's values as TLC orders them."""
        if self.kind == MEMBERS:
            return list(set_order_key(raw, len(self.labels)))
        return [raw]

    # --- TLA+ values, both ways
    def to_tla(self, v: int) -> Any:
        if self.kind == FLAG:
            return bool(v)
        if self.kind == CHOICE:
            return self.labels[v - self.lo]
        if self.kind == MEMBERS:
            return frozenset(x for i, x in enumerate(self.labels) if v >> i & 1)
        if self.nil is not None and v == self.lo:
            return self.nil
        return v + self.shift

    def from_tla(self, x: Any, path: str) -> int:
        if self.kind == FLAG:
            if not isinstance(x, bool):
                raise TraceFormatError(f"{path}: expected TRUE or FALSE, got {x!r}")
            return int(x)
        if self.kind == CHOICE:
            if isinstance(x, dict) and set(x) == {"#bigint"}:
                x = json_int(x, path)
            for i, label in enumerate(self.labels):
                if label == x and isinstance(label, bool) == isinstance(x, bool):
                    return self.lo + i
            raise TraceFormatError(f"{path}: expected one of {', '.join(map(show, self.labels))}, got {x!r}")
        if self.kind == MEMBERS:
            mask = 0
            for e in json_set(x, path):
                e = json_int(e, path) if isinstance(e, dict) else e
                if e not in self.labels:
                    raise TraceFormatError(f"{path}: {e!r} is not one of {', '.join(map(str, self.labels))}")
                mask |= 1 << self.labels.index(e)
            return mask
        if self.nil is not None and x == self.nil:
            return self.lo
        v = json_int(x, path) - self.shift
        low = self.lo + 1 if self.nil is not None else self.lo
        if not low <= v <= self.hi:
            raise TraceFormatError(f"{path} = {v + self.shift} is outside {low + self.shift}..{self.hi + self.shift} "
                                   f"for these constants")
        return v


def number(name: str, lo: int, hi: int, blank: int | None = None, nil: str | None = None, shift: int = 0) -> Part:
    """An integer part in lo..hi; with ``nil``, the code ``lo`` stands for
    that named value (it orders before every number, as a model value does in
    TLC); ``shift`` is added to the code to give the TLA+ value (ids stored
    from 0 but numbered from 1, say)."""
    if hi < lo:
        raise SpecDefinitionError(f"record part {name}: empty range {lo}..{hi}")
    return Part(name, NUMBER, lo, hi, lo if blank is None else blank, nil=nil, shift=shift)


def flag(name: str) -> Part:
    return Part(name, FLAG, 0, 1, 0)


def members(name: str, elements: Sequence[Any]) -> Part:
    """A set of ids (bit i holds ``elements[i]``)."""
    return Part(name, MEMBERS, 0, (1 << len(elements)) - 1, 0, tuple(elements))


def choice(name: str, labels: Sequence[Any], blank: int | None = None) -> Part:
    """One of a few named values, coded 0, 1, ... in the order ``labels``
    lists them, which must be the order TLC gives them."""
    return Part(name, CHOICE, 0, len(labels) - 1, 0 if blank is None else blank, tuple(labels))


Key = Callable[["RecordView"], Sequence[Expr]]


class RecordType:
    """The parts of a record and the order TLC compares records of this type in.

    ``order`` lists part names and key functions (record view -> expressions);
    by default the parts in the order given. ``to_tla`` / ``from_tla``
    convert between a record's part values (a dict) and its TLA+ value, for
    records whose TLA+ shape is not one flat record of the parts (nested
    records, fields present only in some cases); by default each part is a
    field of one record.

    ``variants`` makes it a *variant* record, a union of record sets such as
    a protocol's messages, whose fields depend on a tag:
    ``variants=("type", {"1a": ("bal",), "2b": ("acc", "bal", "val")})``
    names the tag part (a ``choice``) and, for each of its values, the other
    fields present. Parts a variant lacks are kept blank (one record, one
    encoding); the TLA+ value has only the variant's fields, and the codec
    and TLC's order (records by their number of fields, then by their field
    names, then field by field) follow from the declaration. The TLC order
    of the field names is the order ``order`` lists them in (by default the
    parts' order): give the order in which the TLA+ module first names them.
    """

    def __init__(self, name: str, parts: Sequence[Part], order: Sequence[str | Key] | None = None,
                 to_tla: Callable[[Mapping[str, int]], Any] | None = None,
                 from_tla: Callable[[Any, str], dict[str, int]] | None = None,
                 variants: tuple[str, Mapping[Any, Sequence[str]]] | None = None):
        self.name = name
        self.parts = tuple(parts)
        self.by_name = {p.name: p for p in self.parts}
        if len(self.by_name) != len(self.parts):
            raise SpecDefinitionError(f"record type {name}: two parts share a name")
        self.order = tuple(order) if order is not None else tuple(p.name for p in self.parts)
        for entry in self.order:
            if isinstance(entry, str) and entry not in self.by_name:
                raise SpecDefinitionError(f"record type {name}: its order names no part {entry!r}")
        self._to_tla, self._from_tla = to_tla, from_tla
        self._python_key = None
        named = [e for e in self.order if isinstance(e, str)]
        # TLC's order of the field names (when it first read them): the order's, then the parts'
        self.name_rank = {n: k for k, n in enumerate(named + [p.name for p in self.parts if p.name not in named])}
        self.tag: str | None = None
        self.variants: dict[Any, tuple[str, ...]] = {}
        if variants is not None:
            self._declare_variants(*variants)

    def _declare_variants(self, tag: str, variants: Mapping[Any, Sequence[str]]) -> None:
        part = self.by_name.get(tag)
        if part is None or part.kind != CHOICE:
            raise SpecDefinitionError(f"record type {self.name}: the tag {tag!r} must be one of its choice parts")
        unknown = [label for label in variants if label not in part.labels]
        if unknown:
            raise SpecDefinitionError(f"record type {self.name}: {', '.join(map(show, unknown))} is not a value of "
                                      f"its tag {tag} ({', '.join(map(show, part.labels))})")
        missing = [label for label in part.labels if label not in variants]
        if missing:
            raise SpecDefinitionError(f"record type {self.name}: no fields given for the tag value(s) "
                                      f"{', '.join(map(show, missing))}")
        for label, names in variants.items():
            bad = [n for n in names if n not in self.by_name or n == tag]
            if bad:
                raise SpecDefinitionError(f"record type {self.name}: variant {show(label)} names "
                                          f"{', '.join(bad)}, which is not one of its other parts")
        self.tag = tag
        self.variants = {label: tuple(names) for label, names in variants.items()}
        if not any(not isinstance(e, str) for e in self.order):
            self.order = (self._variant_key,)

    def __repr__(self) -> str:
        return f"RecordType({self.name})"

    @property
    def names(self) -> list[str]:
        return [p.name for p in self.parts]

    def blank(self) -> dict[str, int]:
        return {p.name: p.blank for p in self.parts}

    # --- variants
    def fields_of(self, tag_value: Any) -> tuple[str, ...]:
        """The TLA+ fields of one variant, the tag first, in the parts' order."""
        present = set(self.variants[tag_value])
        return (self.tag,) + tuple(p.name for p in self.parts if p.name in present)

    def _variant_key(self, r: "RecordView") -> list[Expr]:
        """TLC's order of a variant record: its number of fields, then its
        field names (by their rank), then its values field by field. The
        first two depend on the variant alone, so they are one number, the
        rank of the variant's (number of fields, names) among the variants'."""
        tag = self.by_name[self.tag]
        rank = self.name_rank
        sorted_fields = {label: sorted(self.fields_of(label), key=rank.get) for label in self.variants}
        shapes = sorted({(len(f), tuple(rank[n] for n in f)) for f in sorted_fields.values()})
        shape_rank = {label: shapes.index((len(f), tuple(rank[n] for n in f))) for label, f in sorted_fields.items()}
        width = max(len(f) for f in sorted_fields.values())
        code = r.raw(self.tag)
        key: list[Expr] = [select([lift(shape_rank[label]) for label in tag.labels], code)]
        part_width = max(len(self.by_name[n].key(const(0))) for n in self.by_name)
        for j in range(width):
            for w in range(part_width):
                def value(label, j=j, w=w):
                    fields = sorted_fields[label]
                    if j >= len(fields):
                        return 0
                    keys = self.by_name[fields[j]].key(r.raw(fields[j]))
                    return keys[w] if w < len(keys) else 0
                key.append(select([lift(value(label)) for label in tag.labels], code))
        return key

    # --- building records as expressions
    def view(self, raw: Mapping[str, Expr]) -> "RecordView":
        return RecordView(self, dict(raw))

    def new(self, **given) -> "RecordView":
        """A record built from expressions (or plain values); parts not given
        hold their blank value. Of a variant record, only the tag and its
        variant's fields may be given."""
        unknown = set(given) - set(self.by_name)
        if unknown:
            raise SpecDefinitionError(f"record type {self.name} has no part {', '.join(sorted(unknown))}")
        if self.tag is not None:
            self._check_variant(given)
        raw = {p.name: p.store(given[p.name]) if p.name in given else const(p.blank) for p in self.parts}
        return RecordView(self, raw)

    def _check_variant(self, given: Mapping[str, Any]) -> None:
        if self.tag not in given:
            raise SpecDefinitionError(f"a {self.name} record needs its tag {self.tag}")
        value = given[self.tag]
        if isinstance(value, (Expr, Labelled)):
            return  # decided in the state: every variant's fields may be given
        label = value if value in self.variants else None
        if label is None:
            raise SpecDefinitionError(f"{show(value)} is not a {self.name} {self.tag} "
                                      f"({', '.join(map(show, self.variants))})")
        extra = [n for n in given if n != self.tag and n not in self.variants[label]]
        if extra:
            raise SpecDefinitionError(f"a {self.name} record of {self.tag} {show(label)} has no field "
                                      f"{', '.join(extra)} (its fields: {', '.join(self.fields_of(label))})")

    def key(self, r: "RecordView") -> list[Expr]:
        """The record's comparison key: a list of integer expressions, compared
        lexicographically (built once per record view: a set operation compares
        one new record with every slot)."""
        if r._key is None:
            r._key = self._build_key(r)
        return r._key

    def _build_key(self, r: "RecordView") -> list[Expr]:
        out: list[Expr] = []
        for entry in self.order:
            if isinstance(entry, str):
                out.extend(self.by_name[entry].key(r.raw(entry)))
            else:
                out.extend(lift(x) for x in entry(r))
        return out

    def less(self, a: "RecordView", b: "RecordView") -> Expr:
        """a < b in TLC's order of record values."""
        return lex_less(self.key(a), self.key(b))

    def python_key(self, values: Mapping[str, int]) -> tuple:
        """The comparison key of concrete part values (the same key expressions, evaluated)."""
        if self._python_key is None:
            from modelcheck.language.interpreter import evaluate
            from modelcheck.language.expr import var
            probe = self.view({p.name: var(i) for i, p in enumerate(self.parts)})
            exprs = self.key(probe)
            self._python_key = lambda state: tuple(evaluate(e, state) for e in exprs)
        return self._python_key(tuple(values[p.name] for p in self.parts))

    # --- TLA+ values
    def to_tla(self, values: Mapping[str, int]) -> Any:
        if self._to_tla is not None:
            return self._to_tla(values)
        if self.tag is not None:
            label = self.by_name[self.tag].to_tla(values[self.tag])
            return Record((n, self.by_name[n].to_tla(values[n])) for n in self.fields_of(label))
        return Record((p.name, p.to_tla(values[p.name])) for p in self.parts)

    def from_tla(self, x: Any, path: str) -> dict[str, int]:
        if self._from_tla is not None:
            values = self._from_tla(x, path)
        elif self.tag is not None:
            values = self._variant_from_tla(x, path)
        else:
            rec = json_record(x, self.names, path)
            values = {p.name: p.from_tla(rec[p.name], f"{path}.{p.name}") for p in self.parts}
        for p in self.parts:
            v = values.get(p.name, p.blank)
            if not p.lo <= v <= p.hi:
                raise TraceFormatError(f"{path}.{p.name} = {v} is outside {p.lo}..{p.hi} for these constants")
            values[p.name] = v
        return values

    def _variant_from_tla(self, x: Any, path: str) -> dict[str, int]:
        if not isinstance(x, dict) or self.tag not in x:
            raise TraceFormatError(f"{path}: expected a {self.name} record with a {self.tag} field, got {x!r}"[:200])
        tag = self.by_name[self.tag]
        code = tag.from_tla(x[self.tag], f"{path}.{self.tag}")
        label = tag.labels[code - tag.lo]
        rec = json_record(x, list(self.fields_of(label)), path)
        values = self.blank()
        for n in self.fields_of(label):
            values[n] = self.by_name[n].from_tla(rec[n], f"{path}.{n}")
        return values


class RecordView:
    """One record as expressions: ``r.source`` (or ``r["source"]``) reads a
    part (a flag as a condition, a choice among strings or model values as
    those values), ``r.raw(name)`` its stored integer. A part may have any
    name: a part named like a method (``type``, ``equals``...) is read by
    that name, and the methods are also functions of this module
    (``record_equals``, ``record_replace``)."""

    __slots__ = ("rtype", "_raw", "_key")

    def __init__(self, rtype: RecordType, raw: dict[str, Expr]):
        object.__setattr__(self, "rtype", rtype)
        object.__setattr__(self, "_raw", raw)
        object.__setattr__(self, "_key", None)

    def __setattr__(self, name, value):
        if name == "_key":
            object.__setattr__(self, name, value)
            return
        raise SpecDefinitionError("a record read from the state cannot be assigned: write the next state with "
                                  "n.<variable>.update(...) or build a record with .new(...)")

    def __getattribute__(self, name: str):
        if not name.startswith("_"):
            rtype = object.__getattribute__(self, "rtype")
            if name in rtype.by_name:
                return rtype.by_name[name].read(object.__getattribute__(self, "_raw")[name], rtype.name)
        return object.__getattribute__(self, name)

    def __getattr__(self, name: str):
        if name.startswith("_"):
            raise AttributeError(name)
        rtype = object.__getattribute__(self, "rtype")
        raise SpecDefinitionError(f"record type {rtype.name} has no part {name!r} "
                                  f"(its parts: {', '.join(rtype.names)})")

    def __getitem__(self, name: str):
        rtype = object.__getattribute__(self, "rtype")
        part = rtype.by_name.get(name)
        if part is None:
            raise SpecDefinitionError(f"record type {rtype.name} has no part {name!r} "
                                      f"(its parts: {', '.join(rtype.names)})")
        return part.read(object.__getattribute__(self, "_raw")[name], rtype.name)

    def raw(self, name: str) -> Expr:
        return object.__getattribute__(self, "_raw")[name]

    def raws(self) -> dict[str, Expr]:
        return dict(object.__getattribute__(self, "_raw"))

    def equals(self, other: "RecordView") -> Expr:
        """The two records are the same TLA+ value (every part equal)."""
        return record_equals(self, other)

    def replace(self, **changes) -> "RecordView":
        """This record with some parts changed (TLA+'s [r EXCEPT !.f = v])."""
        return record_replace(self, **changes)


def record_equals(a: RecordView, b: RecordView) -> Expr:
    """a = b for two records of one type (every part equal)."""
    ta, tb = object.__getattribute__(a, "rtype"), object.__getattribute__(b, "rtype")
    if ta is not tb:
        raise SpecDefinitionError(f"cannot compare a {ta.name} with a {tb.name}")
    return and_(*(eq(a.raw(p), b.raw(p)) for p in ta.names))


def record_replace(r: RecordView, **changes) -> RecordView:
    """[r EXCEPT !.f = v, ...]."""
    rtype = object.__getattribute__(r, "rtype")
    raw = r.raws()
    for name, value in changes.items():
        part = rtype.by_name.get(name)
        if part is None:
            raise SpecDefinitionError(f"record type {rtype.name} has no part {name!r}")
        raw[name] = part.store(value)
    return RecordView(rtype, raw)


def record_type(r: RecordView) -> RecordType:
    """The type of a record (also ``r.rtype``, unless a part is named rtype)."""
    return object.__getattribute__(r, "rtype")


def record_ite(cond, a: RecordView, b: RecordView) -> RecordView:
    """IF cond THEN a ELSE b, for two records of one type."""
    ta, tb = object.__getattribute__(a, "rtype"), object.__getattribute__(b, "rtype")
    if ta is not tb:
        raise SpecDefinitionError(f"record_ite: a {ta.name} and a {tb.name}")
    return RecordView(ta, {n: ite(cond, a.raw(n), b.raw(n)) for n in ta.names})


# --- a record as a state variable ------------------------------------------------

class RecordVar:
    """A state variable (or, with a shape, a function over ids) whose values
    are records of one type: ``s.broker_state[b].status`` reads a part,
    ``n.broker_state[b].set(record)`` or ``.update(status=...)`` writes.
    It expands into one plain field per part."""

    def __init__(self, name: str, rtype: RecordType, shape: tuple[int, ...] = ()):
        self.name, self.rtype, self.shape = name, rtype, tuple(shape)

    def fields(self) -> list[Field]:
        return [p.field(self.name, self.shape) for p in self.rtype.parts]

    def part_slots(self, schema, index: tuple[int, ...]) -> dict[str, int]:
        return {p.name: schema.slot(f"{self.name}.{p.name}", *index) for p in self.rtype.parts}

    def view(self, schema, index: tuple[int, ...]) -> RecordView:
        from modelcheck.language.expr import var
        return self.rtype.view({name: var(slot) for name, slot in self.part_slots(schema, index).items()})

    def writer(self, owner, index: tuple[int, ...]) -> "RecordWriter":
        return RecordWriter(self, owner, index)

    def overflow_slots(self, schema) -> list[int]:
        return []

    def codec(self, schema, *index: int):
        return _RecordCodec(self.rtype, self.part_slots(schema, tuple(index)))


class RecordWriter:
    """Assignments to one record variable within an action."""

    def __init__(self, var_decl: RecordVar, owner, index: tuple[int, ...]):
        self._decl, self._owner, self._index = var_decl, owner, index
        self._slots = var_decl.part_slots(owner._schema, index)

    def set(self, record: RecordView) -> None:
        """x' = record."""
        if record_type(record) is not self._decl.rtype:
            raise SpecDefinitionError(f"{self._decl.name} holds {self._decl.rtype.name} records, "
                                      f"not {record_type(record).name}")
        for name, slot in self._slots.items():
            self._owner._assign(slot, record.raw(name))

    def update(self, **changes) -> None:
        """x' = [x EXCEPT !.part = value, ...]."""
        for name, value in changes.items():
            part = self._decl.rtype.by_name.get(name)
            if part is None:
                raise SpecDefinitionError(f"{self._decl.rtype.name} has no part {name!r}")
            self._owner._assign(self._slots[name], part.store(value))


class _RecordCodec(Codec):
    """A record variable as its TLA+ value."""

    def __init__(self, rtype: RecordType, slots: dict[str, int]):
        self.rtype, self._slots = rtype, slots

    def encode(self, state):
        return self.rtype.to_tla({name: state[slot] for name, slot in self._slots.items()})

    def decode(self, value, out, path):
        for name, v in self.rtype.from_tla(value, path).items():
            out[self._slots[name]] = v

    def slots(self):
        return list(self._slots.values())


class SlotQueries:
    """What a set of records held in slots answers, from ``present(k)`` (is
    slot k occupied) and ``at(k)`` (its record): membership and the two
    quantifiers, as TLA+ reads them over the set."""

    capacity: int

    def record(self, **parts) -> "RecordView":
        """A record of the type this container holds (``rtype.new``)."""
        return self.container.rtype.new(**parts)

    def elements(self) -> list[tuple[Expr, "RecordView"]]:
        """(occupied, record) for every slot."""
        return [(self.present(k), self.at(k)) for k in range(self.capacity)]

    def contains(self, record: "RecordView") -> Expr:
        """record \\in set."""
        return or_(*(and_(here, r.equals(record)) for here, r in self.elements()))

    def exists(self, predicate: Callable[["RecordView"], Any]) -> Expr:
        """\\E m \\in set : predicate(m)."""
        return or_(*(and_(here, predicate(r)) for here, r in self.elements()))

    def forall(self, predicate: Callable[["RecordView"], Any]) -> Expr:
        """\\A m \\in set : predicate(m)."""
        return and_(*(or_(not_(here), predicate(r)) for here, r in self.elements()))


class ContainerWriter:
    """Changes to one record container (a set, a keyed set, a sequence) within
    an action: they compose in the order written, and are assigned when the
    action is built (``flush``). A subclass names its ``view``, the container
    as the changes so far leave it."""

    view: type

    def __init__(self, container, owner, index: tuple[int, ...]):
        self.container, self._owner, self._index = container, owner, index
        self._contents = container.current(owner._schema, index)
        self._changed = False

    def record(self, **parts) -> "RecordView":
        """A record of the type this container holds (``rtype.new``)."""
        return self.container.rtype.new(**parts)

    @property
    def now(self):
        """The container as the changes so far leave it."""
        return self.view(self.container, self._contents)

    def _set(self, contents) -> None:
        self._owner._note_pending(self)
        self._contents, self._changed = contents, True

    def flush(self) -> None:
        if self._changed:
            self.container.flush(self._owner, self._index, self._contents)
            self._changed = False
