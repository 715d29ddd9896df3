"""Bounded sets and sequences of records, stored in fixed slots.

These are the state forms message-passing specs need: a network held as a
set (or bag) of message records, a log or a metadata log held as a sequence.
Each is declared beside the spec's other fields and expands into plain
fields:

* ``RecordSet(name, rtype, capacity)``: a count, ``capacity`` slots of the
  record's parts, and an overflow flag. The occupied slots come first,
  sorted by the record type's order (TLC's order of record values) with no
  repeats, and every free slot holds the blank record. So one set has one
  encoding, and equal sets fingerprint equally. With ``bag=N`` the set is a
  bag: each slot also holds how many copies of its record there are (1..N).
* ``RecordSeq(name, rtype, capacity)``: a length, ``capacity`` slots, and an
  overflow flag; entries past the length hold the blank record.

Both may be declared with a ``shape`` (one per replica, say), like any field.

Specs read them through the state view (``s.messages.exists(...)``,
``s.log[b].at(i)``) and change them through the next-state builder
(``n.messages.add(...)``, ``n.log[b].append(...)``). Every operation is
built from the ordinary expression vocabulary (comparisons, ``ite``), so
every engine reads them with nothing added.

A taken message is a parameter: an action
``@action(m=Domain("slot", lambda c: range(capacity(c))))`` runs once per
slot, reads ``s.messages.at(m)`` (plain slot reads, no selection) and its
guard requires the slot to be occupied. Because the slots
are kept in TLC's order of the records, the instances for m = 0, 1, ... try
the messages in the order TLC tries them.

**Capacity.** A spec derives each capacity from its constants (the limits
that bound how many messages can be in flight). Adding to a full set or
sequence does not drop anything silently: it sets the overflow flag, and the
``within_capacity`` predicate (which specs include in their invariants) is
false in that state, so a run stops there with a clear message instead of
exploring a truncated network.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Sequence

from modelcheck.language.codec import Codec, json_set
from modelcheck.errors import SpecDefinitionError, TraceFormatError
from modelcheck.language.expr import (FALSE, TRUE, Expr, add, and_, const, eq, ite, le, lift, lt, max_, not_, or_, select,
                                      sub, var)
from modelcheck.language.records import ContainerWriter, RecordType, RecordView, SlotQueries, record_type
from modelcheck.language.schema import Field


# --- the contents of one set or sequence, as expressions ---------------------

@dataclass
class Contents:
    """A set's or sequence's value: its size (count or length), the raw part
    values of each slot, how many copies each slot holds (bags only), and
    whether it has overflowed (a condition)."""

    size: Expr
    slots: list[dict[str, Expr]]
    overflow: Expr
    copies: list[Expr] | None = None


class _Container:
    """What sets and sequences share: their declaration, fields and codecs."""

    size_name = "size"

    def __init__(self, name: str, rtype: RecordType, capacity: int, shape: tuple[int, ...] = ()):
        if capacity < 1:
            raise SpecDefinitionError(f"{name}: a capacity must be at least 1, got {capacity}")
        self.name, self.rtype, self.capacity, self.shape = name, rtype, capacity, tuple(shape)

    # names of the plain fields it expands into
    @property
    def size_field(self) -> str:
        return f"{self.name}#{self.size_name}"

    @property
    def overflow_field(self) -> str:
        return f"{self.name}#overflow"

    def part_field(self, part: str) -> str:
        return f"{self.name}.{part}"

    def fields(self) -> list[Field]:
        out = [Field(self.size_field, self.shape, 0, self.capacity, "int")]
        out += [p.field(self.name, self.shape + (self.capacity,)) for p in self.rtype.parts]
        out.append(Field(self.overflow_field, self.shape, 0, 1, "bool"))
        return out

    def row_slots(self, schema, index: tuple[int, ...]) -> dict[str, Any]:
        """The slots of one row: size, overflow, and per part the slot of each position."""
        return {"size": schema.slot(self.size_field, *index),
                "overflow": schema.slot(self.overflow_field, *index),
                "parts": {p.name: [schema.slot(self.part_field(p.name), *index, k) for k in range(self.capacity)]
                          for p in self.rtype.parts}}

    def current(self, schema, index: tuple[int, ...]) -> Contents:
        """The row's value in the current state."""
        slots = self.row_slots(schema, index)
        parts = slots["parts"]
        return Contents(var(slots["size"]),
                        [{name: var(parts[name][k]) for name in parts} for k in range(self.capacity)],
                        var(slots["overflow"]) == 1)

    def blank_slot(self) -> dict[str, Expr]:
        return {name: const(v) for name, v in self.rtype.blank().items()}

    def flush(self, owner, index: tuple[int, ...], contents: Contents) -> None:
        """Assign the row's slots in the next state."""
        slots = self.row_slots(owner._schema, index)
        owner._assign(slots["size"], contents.size)
        owner._assign(slots["overflow"], ite(contents.overflow, 1, 0))
        for name, column in slots["parts"].items():
            for k, slot in enumerate(column):
                owner._assign(slot, contents.slots[k][name])

    def overflow_slots(self, schema) -> list[int]:
        return [schema.slot(self.overflow_field, *idx) for idx in _indices(self.shape)]

    def codec(self, schema, *index: int) -> Codec:
        return _ContainerCodec(self, self.row_slots(schema, tuple(index)))

    # views
    def view(self, schema, index: tuple[int, ...]):
        raise NotImplementedError

    def writer(self, owner, index: tuple[int, ...]):
        raise NotImplementedError


def _indices(shape: tuple[int, ...]):
    if not shape:
        yield ()
        return
    for i in range(shape[0]):
        for rest in _indices(shape[1:]):
            yield (i,) + rest


# --- sets ----------------------------------------------------------------------

class RecordSet(_Container):
    """A bounded set (or, with ``bag``, a bag holding up to ``bag`` copies of
    a record) of records of one type; see the module docstring."""

    size_name = "count"

    def __init__(self, name: str, rtype: RecordType, capacity: int, shape: tuple[int, ...] = (),
                 bag: int | None = None):
        super().__init__(name, rtype, capacity, shape)
        if bag is not None and bag < 2:
            raise SpecDefinitionError(f"{name}: a bag holds at least 2 copies of a record (bag={bag})")
        self.bag = bag

    @property
    def copies_field(self) -> str:
        return f"{self.name}#copies"

    def fields(self) -> list[Field]:
        out = super().fields()
        if self.bag:
            out.append(Field(self.copies_field, self.shape + (self.capacity,), 0, self.bag, "int"))
        return out

    def row_slots(self, schema, index):
        slots = super().row_slots(schema, index)
        if self.bag:
            slots["copies"] = [schema.slot(self.copies_field, *index, k) for k in range(self.capacity)]
        return slots

    def current(self, schema, index):
        c = super().current(schema, index)
        if self.bag:
            c.copies = [var(s) for s in self.row_slots(schema, index)["copies"]]
        return c

    def flush(self, owner, index, contents):
        super().flush(owner, index, contents)
        if self.bag:
            for slot, e in zip(self.row_slots(owner._schema, index)["copies"], contents.copies):
                owner._assign(slot, e)

    def view(self, schema, index):
        return SetView(self, self.current(schema, index))

    def writer(self, owner, index):
        return SetWriter(self, owner, index)

    def empty(self) -> Contents:
        return Contents(const(0), [self.blank_slot() for _ in range(self.capacity)], FALSE,
                        [const(0)] * self.capacity if self.bag else None)


class SetView(SlotQueries):
    """Read access to a set's value: membership, "exists a message with ...",
    the element in a slot."""

    def __init__(self, container: RecordSet, contents: Contents):
        self.container, self.contents = container, contents

    @property
    def capacity(self) -> int:
        return self.container.capacity

    @property
    def count(self) -> Expr:
        """How many distinct records the set holds."""
        return self.contents.size

    def present(self, k: int) -> Expr:
        """Slot k holds a record."""
        return lt(k, self.contents.size)

    def at(self, k: int) -> RecordView:
        """The record in slot k (meaningful only where ``present(k)``)."""
        if isinstance(k, Expr) or not 0 <= k < self.capacity:
            raise SpecDefinitionError(f"{self.container.name}: read a slot by its number (0..{self.capacity - 1})")
        return self.container.rtype.view(self.contents.slots[k])

    def copies(self, k: int) -> Expr:
        """How many copies of slot k's record a bag holds (1 for a set's occupied slot)."""
        if self.contents.copies is None:
            return ite(self.present(k), 1, 0)
        return self.contents.copies[k]

    def is_empty(self) -> Expr:
        return eq(self.contents.size, 0)


def set_add(container: RecordSet, c: Contents, record: RecordView) -> Contents:
    """c \\union {record} (for a bag, one more copy), kept sorted."""
    rtype, size, K = container.rtype, c.size, container.capacity
    olds = [rtype.view(slot) for slot in c.slots]
    present = [lt(i, size) for i in range(K)]
    same = [and_(present[i], olds[i].equals(record)) for i in range(K)]
    dup = or_(*same)
    before = [and_(present[i], rtype.less(olds[i], record)) for i in range(K)]
    full = le(K, size)
    new = record.raws()
    slots: list[dict[str, Expr]] = []
    for i in range(K):
        keep = or_(dup, before[i])
        if i == 0:
            slots.append({p: ite(keep, c.slots[0][p], new[p]) for p in new})
        else:
            slots.append({p: ite(keep, c.slots[i][p], ite(before[i - 1], new[p], c.slots[i - 1][p])) for p in new})
    copies = None
    if c.copies is not None:
        top = container.bag
        copies = []
        for i in range(K):
            keep = or_(dup, before[i])
            moved = c.copies[i - 1] if i else const(0)
            inserted = ite(keep, c.copies[i], ite(const(True) if i == 0 else before[i - 1], 1, moved))
            copies.append(ite(same[i], ite(lt(c.copies[i], top), add(c.copies[i], 1), c.copies[i]), inserted))
        too_many = or_(*(and_(same[i], le(top, c.copies[i])) for i in range(K)))
        overflow = or_(c.overflow, and_(not_(dup), full), too_many)
    else:
        overflow = or_(c.overflow, and_(not_(dup), full))
    return Contents(ite(or_(dup, full), size, add(size, 1)), slots, overflow, copies)


def _compact(container: _Container, c: Contents, keep: list[Expr]) -> Contents:
    """The slots whose ``keep`` holds, moved to the front in their order."""
    K = container.capacity
    blank = container.blank_slot()
    rank: list[Expr] = []
    total: Expr = const(0)
    for i in range(K):
        rank.append(total)
        total = add(total, ite(keep[i], 1, 0))
    slots = []
    copies = [] if c.copies is not None else None
    for j in range(K):
        chosen = {p: blank[p] for p in blank}
        chosen_copies: Expr = const(0)
        for i in range(K - 1, j - 1, -1):
            here = and_(keep[i], eq(rank[i], j))
            chosen = {p: ite(here, c.slots[i][p], chosen[p]) for p in chosen}
            if copies is not None:
                chosen_copies = ite(here, c.copies[i], chosen_copies)
        slots.append(chosen)
        if copies is not None:
            copies.append(chosen_copies)
    return Contents(total, slots, c.overflow, copies)


def set_remove_where(container: RecordSet, c: Contents, predicate: Callable[[RecordView], Any]) -> Contents:
    """c \\ {m \\in c : predicate(m)} (every copy, for a bag)."""
    rtype = container.rtype
    keep = [and_(lt(i, c.size), not_(lift(predicate(rtype.view(c.slots[i]))))) for i in range(container.capacity)]
    return _compact(container, c, keep)


def set_remove_at(container: RecordSet, c: Contents, k: int) -> Contents:
    """Remove the record in slot k (one copy of it, for a bag); the slot must be occupied."""
    K = container.capacity
    blank = container.blank_slot()
    shifted = [c.slots[i] if i < k else (c.slots[i + 1] if i + 1 < K else blank) for i in range(K)]
    if c.copies is None:
        return Contents(sub(c.size, 1), shifted, c.overflow)
    last = c.copies[k]
    shifted_copies = [c.copies[i] if i < k else (c.copies[i + 1] if i + 1 < K else const(0)) for i in range(K)]
    one_left = eq(last, 1)
    slots = [{p: ite(one_left, shifted[i][p], c.slots[i][p]) for p in blank} for i in range(K)]
    copies = [ite(one_left, shifted_copies[i], sub(c.copies[i], 1) if i == k else c.copies[i]) for i in range(K)]
    return Contents(ite(one_left, sub(c.size, 1), c.size), slots, c.overflow, copies)


class SetWriter(ContainerWriter):
    """Changes to one set within an action; they compose in the order written
    (``n.requests.remove_at(m)`` then ``n.responses.add(...)``, or several
    changes to one set), and are assigned when the action is built."""

    view = SetView

    def add(self, record: RecordView) -> None:
        """messages' = messages \\union {record}."""
        self._check(record)
        self._set(set_add(self.container, self._contents, record))

    def add_all(self, records: Sequence[RecordView]) -> None:
        for r in records:
            self.add(r)

    def remove_at(self, k: int) -> None:
        """Remove the record the action took from slot k; the action's guard
        then requires the slot to be occupied."""
        if isinstance(k, Expr) or not 0 <= k < self.container.capacity:
            raise SpecDefinitionError(f"{self.container.name}: remove a slot by its number (a parameter)")
        self._owner.require(lt(k, self._contents.size))
        self._set(set_remove_at(self.container, self._contents, k))

    def remove(self, record: RecordView) -> None:
        """messages' = messages \\ {record} (no change if it is not there)."""
        self._check(record)
        self.remove_where(lambda m: m.equals(record))

    def remove_where(self, predicate: Callable[[RecordView], Any]) -> None:
        """messages' = messages \\ {m \\in messages : predicate(m)}."""
        self._set(set_remove_where(self.container, self._contents, predicate))

    def clear(self) -> None:
        self._set(self.container.empty())

    def _check(self, record: RecordView) -> None:
        if record_type(record) is not self.container.rtype:
            raise SpecDefinitionError(f"{self.container.name} holds {self.container.rtype.name} records, "
                                      f"not {record_type(record).name}")


# --- sequences -------------------------------------------------------------------

class RecordSeq(_Container):
    """A bounded sequence of records (TLA+ ``Seq(R)`` of at most ``capacity``
    entries); see the module docstring."""

    size_name = "len"

    def view(self, schema, index):
        return SeqView(self, self.current(schema, index))

    def writer(self, owner, index):
        return SeqWriter(self, owner, index)

    def empty(self) -> Contents:
        return Contents(const(0), [self.blank_slot() for _ in range(self.capacity)], FALSE)


class SeqView:
    """Read access to a sequence. Positions are TLA+'s: 1..Len."""

    def __init__(self, container: RecordSeq, contents: Contents):
        self.container, self.contents = container, contents

    @property
    def capacity(self) -> int:
        return self.container.capacity

    @property
    def len(self) -> Expr:
        """Len(s)."""
        return self.contents.size

    def is_empty(self) -> Expr:
        return eq(self.contents.size, 0)

    def at(self, i) -> RecordView:
        """s[i] for a position 1..Len(s); a position known only at run time
        becomes a selection (guard it: outside 1..Len the value is a blank
        or the last slot's, as function application outside the domain is an
        error in TLA+)."""
        rtype = self.container.rtype
        if isinstance(i, Expr):
            index = sub(i, 1)
            return rtype.view({p: select([slot[p] for slot in self.contents.slots], index) for p in rtype.names})
        if not 1 <= i <= self.capacity:
            raise SpecDefinitionError(f"{self.container.name}: position {i} is outside 1..{self.capacity}")
        return rtype.view(self.contents.slots[i - 1])

    def last(self) -> RecordView:
        """Last(s) (guard Len(s) > 0)."""
        return self.at(self.contents.size)

    def has(self, i) -> Expr:
        """i \\in DOMAIN s."""
        return and_(le(1, i), le(i, self.contents.size))

    def entries(self) -> list[tuple[int, Expr, RecordView]]:
        """(position, position in the domain, entry) for every slot."""
        return [(i + 1, lt(i, self.contents.size), self.at(i + 1)) for i in range(self.capacity)]

    def equals(self, other: "SeqView") -> Expr:
        """The two sequences are equal (same length, same entries; free slots are blank in both)."""
        if other.container.rtype is not self.container.rtype:
            raise SpecDefinitionError("cannot compare sequences of different record types")
        n = min(self.capacity, other.capacity)
        parts = [eq(self.len, other.len)]
        for i in range(n):
            parts.append(self.at(i + 1).equals(other.at(i + 1)))
        for longer in (self, other):
            for i in range(n, longer.capacity):
                parts.append(le(longer.len, i))
        return and_(*parts)


def seq_append(container: RecordSeq, c: Contents, record: RecordView) -> Contents:
    """Append(s, record)."""
    K = container.capacity
    new = record.raws()
    full = le(K, c.size)
    slots = [{p: ite(eq(c.size, i), new[p], c.slots[i][p]) for p in new} for i in range(K)]
    return Contents(ite(full, c.size, add(c.size, 1)), slots, or_(c.overflow, full))


def seq_prefix(container: RecordSeq, c: Contents, k) -> Contents:
    """SubSeq(s, 1, k) for 0 <= k <= Len(s); the slots past k are cleared."""
    k = lift(k)
    blank = container.blank_slot()
    slots = [{p: ite(lt(i, k), c.slots[i][p], blank[p]) for p in blank} for i in range(container.capacity)]
    return Contents(k, slots, c.overflow)


def seq_extend(container: RecordSeq, c: Contents, other: Contents, lo, hi, aligned: bool = False) -> Contents:
    """s \\o SubSeq(t, lo, hi). With ``aligned`` the caller states that lo is
    Len(s) + 1 (the common "copy what I am missing" form), which needs no
    selection: position i of the result is position i of t."""
    K = container.capacity
    blank = container.blank_slot()
    lo, hi = lift(lo), lift(hi)
    if aligned:
        new_size = max_(c.size, hi)
    else:
        new_size = add(c.size, max_(add(sub(hi, lo), 1), 0))
    slots = []
    for i in range(K):
        if aligned:
            source = other.slots[i] if i < len(other.slots) else blank
        else:
            index = add(sub(lo, 1), sub(i, c.size))  # 0-based position in t
            source = {p: select([s[p] for s in other.slots] + [blank[p]], ite(lt(index, 0), len(other.slots), index))
                      for p in blank}
        slots.append({p: ite(lt(i, c.size), c.slots[i][p], ite(lt(i, new_size), source[p], blank[p]))
                      for p in blank})
    overflow = or_(c.overflow, lt(K, new_size))
    return Contents(ite(lt(K, new_size), K, new_size), slots, overflow)


class SeqWriter(ContainerWriter):
    """Changes to one sequence within an action, composed in the order written."""

    view = SeqView

    def append(self, record: RecordView) -> None:
        """s' = Append(s, record)."""
        if record_type(record) is not self.container.rtype:
            raise SpecDefinitionError(f"{self.container.name} holds {self.container.rtype.name} records")
        self._set(seq_append(self.container, self._contents, record))

    def append_if(self, condition, record: RecordView) -> None:
        """s' = IF condition THEN Append(s, record) ELSE s."""
        before = self._contents
        after = seq_append(self.container, before, record)
        cond = lift(condition)
        self._set(Contents(ite(cond, after.size, before.size),
                           [{p: ite(cond, a[p], b[p]) for p in a} for a, b in zip(after.slots, before.slots)],
                           or_(before.overflow, and_(cond, after.overflow))))

    def truncate(self, k) -> None:
        """s' = SubSeq(s, 1, k), for 0 <= k <= Len(s)."""
        self._set(seq_prefix(self.container, self._contents, k))

    def clear(self) -> None:
        """s' = <<>>."""
        self._set(self.container.empty())

    def set(self, records: Sequence[RecordView]) -> None:
        """s' = <<r1, r2, ...>>."""
        self.clear()
        for r in records:
            self.append(r)

    def extend(self, other: SeqView, lo, hi, aligned: bool = False) -> None:
        """s' = s \\o SubSeq(other, lo, hi) (see ``seq_extend`` for ``aligned``)."""
        if other.container.rtype is not self.container.rtype:
            raise SpecDefinitionError("cannot concatenate sequences of different record types")
        self._set(seq_extend(self.container, self._contents, other.contents, lo, hi, aligned))


# --- slot domains, TLA+ values -----------------------------------------------------

def within_capacity(s, *names: str) -> Expr:
    """No set or sequence (all of them, or those named) has overflowed."""
    schema = s._schema
    containers = [c for n, c in schema.compounds.items() if not names or n in names]
    flags = [var(slot) == 0 for c in containers for slot in c.overflow_slots(schema)]
    return and_(*flags) if flags else TRUE


class _ContainerCodec(Codec):
    """A set as a TLA+ set of records, a sequence as a TLA+ sequence."""

    def __init__(self, container: _Container, slots: dict[str, Any]):
        self.container, self._slots = container, slots

    def _values(self, state, k: int) -> dict[str, int]:
        return {name: state[column[k]] for name, column in self._slots["parts"].items()}

    def encode(self, state):
        rtype = self.container.rtype
        size = state[self._slots["size"]]
        items = [rtype.to_tla(self._values(state, k)) for k in range(size)]
        if isinstance(self.container, RecordSet):
            return frozenset(items)
        return tuple(items)

    def decode(self, value, out, path):
        c, rtype = self.container, self.container.rtype
        if isinstance(c, RecordSet):
            elements = json_set(value, path)
        else:
            if isinstance(value, dict) and set(value) == {"#tup"}:
                value = value["#tup"]
            if not isinstance(value, list):
                raise TraceFormatError(f"{path}: expected a sequence, got {value!r}")
            elements = value
        records = [rtype.from_tla(x, f"{path}[{i + 1}]") for i, x in enumerate(elements)]
        if isinstance(c, RecordSet):
            unique = {tuple(r[n] for n in rtype.names): r for r in records}
            records = sorted(unique.values(), key=rtype.python_key)
        if len(records) > c.capacity:
            raise TraceFormatError(f"{path}: {len(records)} elements, more than the {c.capacity} "
                                   f"these constants allow")
        blank = rtype.blank()
        out[self._slots["size"]] = len(records)
        out[self._slots["overflow"]] = 0
        for name, column in self._slots["parts"].items():
            for k, slot in enumerate(column):
                out[slot] = records[k][name] if k < len(records) else blank[name]
        if "copies" in self._slots:
            for k, slot in enumerate(self._slots["copies"]):
                out[slot] = 1 if k < len(records) else 0

    def slots(self):
        s = self._slots
        return ([s["size"], s["overflow"]] + [x for column in s["parts"].values() for x in column]
                + list(s.get("copies", ())))


class UnionCodec(Codec):
    """One TLA+ set held as several sets (a network split by message type):
    written as their union; read back by sending each element to the set
    ``route`` names for it (an index into ``codecs``)."""

    def __init__(self, codecs: Sequence[Codec], route: Callable[[Any, str], int]):
        self.codecs, self.route = list(codecs), route

    def encode(self, state):
        out: frozenset = frozenset()
        for c in self.codecs:
            out = out | c.encode(state)
        return out

    def decode(self, value, out, path):
        groups: list[list] = [[] for _ in self.codecs]
        for x in json_set(value, path):
            groups[self.route(x, path)].append(x)
        for c, items in zip(self.codecs, groups):
            c.decode(items, out, path)

    def slots(self):
        return [s for c in self.codecs for s in c.slots()]
