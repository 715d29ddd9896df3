"""Keyed sets: bounded sets in which a few parts of a record (its key) pick its slot.

Many networks hold at most one message per sender and receiver (a fetch
session has one fetch in flight). Such a set needs no sorting: declare the
key parts and every value they can take, and each key value owns one slot,
holding a record or nothing. The slots follow the key values in the order
given, which must be TLC's order of those records (the key parts lead the
record type's order), so trying slot 0, 1, ... still tries the messages in
the order TLC tries them. The set stays canonical: a slot without a record
holds the blank record.

The key parts of a slot's record are constants (they are the slot), so an
action that takes a message from slot k knows its sender and receiver at
build time, and instances that could never match fold away.

Adding a record whose key slot holds a different record would break the
claim that keys are unique: it sets the overflow flag, which the spec's
capacity check reports, rather than losing a message.

The interface is a ``RecordSet``'s: ``present(k)``, ``at(k)``, ``contains``,
``exists``, ``forall``; ``add``, ``remove_at``, ``remove``, ``remove_where``,
``clear``.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

from modelcheck.language.codec import Codec, json_set
from modelcheck.errors import SpecDefinitionError, TraceFormatError
from modelcheck.language.expr import FALSE, Expr, add, and_, const, eq, ite, lift, not_, or_, var
from modelcheck.language.records import ContainerWriter, RecordType, RecordView, SlotQueries, record_type
from modelcheck.language.schema import Field


def _indices(shape):
    if not shape:
        yield ()
        return
    for i in range(shape[0]):
        for rest in _indices(shape[1:]):
            yield (i,) + rest


class KeyedRecordSet:
    """A set of records of ``rtype`` with at most one record per value of the ``key`` parts."""

    def __init__(self, name: str, rtype: RecordType, key: Sequence[str], values: Sequence[tuple[int, ...]],
                 shape: tuple[int, ...] = ()):
        self.name, self.rtype, self.key, self.shape = name, rtype, tuple(key), tuple(shape)
        self.values = [tuple(v) for v in values]  # none: the set stays empty (one broker has no one to fetch from)
        if list(rtype.order[:len(self.key)]) != list(self.key):
            raise SpecDefinitionError(f"{name}: the key parts {', '.join(self.key)} must lead the order of "
                                      f"{rtype.name} records, so that slots follow TLC's order")
        if len(set(self.values)) != len(self.values) or any(len(v) != len(self.key) for v in self.values):
            raise SpecDefinitionError(f"{name}: key values must be distinct tuples of {len(self.key)} values")
        probes = [dict(zip(self.key, v), **{p: x.blank for p, x in rtype.by_name.items() if p not in self.key})
                  for v in self.values]
        keys = [rtype.python_key(p) for p in probes]
        if keys != sorted(keys):
            raise SpecDefinitionError(f"{name}: list the key values in the order of {rtype.name} records")
        self.others = [p.name for p in rtype.parts if p.name not in self.key]
        self.capacity = len(self.values)

    # --- layout
    @property
    def present_field(self) -> str:
        return f"{self.name}#present"

    @property
    def overflow_field(self) -> str:
        return f"{self.name}#overflow"

    def part_field(self, part: str) -> str:
        return f"{self.name}.{part}"

    def fields(self) -> list[Field]:
        out = [Field(self.present_field, self.shape + (self.capacity,), 0, 1, "bool")]
        out += [self.rtype.by_name[p].field(self.name, self.shape + (self.capacity,)) for p in self.others]
        out.append(Field(self.overflow_field, self.shape, 0, 1, "bool"))
        return out

    def row_slots(self, schema, index: tuple[int, ...]) -> dict[str, Any]:
        return {"present": [schema.slot(self.present_field, *index, k) for k in range(self.capacity)],
                "overflow": schema.slot(self.overflow_field, *index),
                "parts": {p: [schema.slot(self.part_field(p), *index, k) for k in range(self.capacity)]
                          for p in self.others}}

    def overflow_slots(self, schema) -> list[int]:
        return [schema.slot(self.overflow_field, *idx) for idx in _indices(self.shape)]

    def slot_record(self, k: int, parts: dict[str, Expr]) -> RecordView:
        """The record of slot k: its key parts are the slot's key value."""
        raw = {p: const(v) for p, v in zip(self.key, self.values[k])}
        raw.update(parts)
        return self.rtype.view(raw)

    def current(self, schema, index) -> "_Keyed":
        slots = self.row_slots(schema, index)
        return _Keyed([var(s) == 1 for s in slots["present"]],
                      [{p: var(slots["parts"][p][k]) for p in self.others} for k in range(self.capacity)],
                      var(slots["overflow"]) == 1)

    def view(self, schema, index) -> "KeyedSetView":
        return KeyedSetView(self, self.current(schema, index))

    def writer(self, owner, index) -> "KeyedSetWriter":
        return KeyedSetWriter(self, owner, index)

    def codec(self, schema, *index: int) -> Codec:
        return _KeyedCodec(self, self.row_slots(schema, tuple(index)))

    def describe(self, k: int) -> str:
        """Slot k by its key, as a parameter is shown: ``dest=2, source=1``."""
        record = dict(zip(self.key, self.values[k]))
        parts = self.rtype.by_name
        return ", ".join(f"{p}={parts[p].to_tla(v)}" for p, v in record.items())


class _Keyed:
    """A keyed set's value: per slot, whether it holds a record (a condition)
    and the record's other parts; and whether the set has overflowed."""

    def __init__(self, present: list[Expr], parts: list[dict[str, Expr]], overflow: Expr):
        self.present, self.parts, self.overflow = present, parts, overflow


class KeyedSetView(SlotQueries):
    def __init__(self, container: KeyedRecordSet, contents: _Keyed):
        self.container, self.contents = container, contents

    @property
    def capacity(self) -> int:
        return self.container.capacity

    @property
    def count(self) -> Expr:
        total: Expr = const(0)
        for here in self.contents.present:
            total = add(total, ite(here, 1, 0))
        return total

    def present(self, k: int) -> Expr:
        return self.contents.present[k]

    def at(self, k: int) -> RecordView:
        if isinstance(k, Expr) or not 0 <= k < self.capacity:
            raise SpecDefinitionError(f"{self.container.name}: read a slot by its number (0..{self.capacity - 1})")
        return self.container.slot_record(k, self.contents.parts[k])

    def is_empty(self) -> Expr:
        return and_(*(not_(here) for here in self.contents.present))


class KeyedSetWriter(ContainerWriter):
    """Changes to one keyed set within an action; its own ``flush`` assigns
    each key's slot."""

    view = KeyedSetView

    def add(self, record: RecordView) -> None:
        """set' = set \\union {record}: into the slot of its key."""
        c, old = self.container, self._contents
        if record_type(record) is not c.rtype:
            raise SpecDefinitionError(f"{c.name} holds {c.rtype.name} records, not {record_type(record).name}")
        present, parts, clash, placed = [], [], [], []
        for k, value in enumerate(c.values):
            match = and_(*(eq(record.raw(p), v) for p, v in zip(c.key, value)))
            same = and_(*(eq(record.raw(p), old.parts[k][p]) for p in c.others))
            clash.append(and_(match, old.present[k], not_(same)))
            placed.append(match)
            present.append(or_(old.present[k], match))
            parts.append({p: ite(and_(match, not_(old.present[k])), record.raw(p), old.parts[k][p])
                          for p in c.others})
        overflow = or_(old.overflow, *clash, not_(or_(*placed)))
        self._set(_Keyed(present, parts, overflow))

    def remove_at(self, k: int) -> None:
        """Remove the record the action took from slot k (which must hold one)."""
        c, old = self.container, self._contents
        if isinstance(k, Expr) or not 0 <= k < c.capacity:
            raise SpecDefinitionError(f"{c.name}: remove a slot by its number (a parameter)")
        self._owner.require(old.present[k])
        blank = c.rtype.blank()
        present = list(old.present)
        present[k] = FALSE
        parts = list(old.parts)
        parts[k] = {p: const(blank[p]) for p in c.others}
        self._set(_Keyed(present, parts, old.overflow))

    def remove_where(self, predicate: Callable[[RecordView], Any]) -> None:
        """set' = set \\ {m \\in set : predicate(m)}."""
        c, old = self.container, self._contents
        blank = c.rtype.blank()
        present, parts = [], []
        for k in range(c.capacity):
            drop = and_(old.present[k], lift(predicate(c.slot_record(k, old.parts[k]))))
            present.append(and_(old.present[k], not_(drop)))
            parts.append({p: ite(drop, blank[p], old.parts[k][p]) for p in c.others})
        self._set(_Keyed(present, parts, old.overflow))

    def remove(self, record: RecordView) -> None:
        self.remove_where(lambda m: m.equals(record))

    def clear(self) -> None:
        c = self.container
        blank = c.rtype.blank()
        self._set(_Keyed([FALSE] * c.capacity, [{p: const(blank[p]) for p in c.others}] * c.capacity, FALSE))

    def flush(self) -> None:
        if not self._changed:
            return
        slots = self.container.row_slots(self._owner._schema, self._index)
        contents = self._contents
        for k, slot in enumerate(slots["present"]):
            self._owner._assign(slot, ite(contents.present[k], 1, 0))
        for p, column in slots["parts"].items():
            for k, slot in enumerate(column):
                self._owner._assign(slot, contents.parts[k][p])
        self._owner._assign(slots["overflow"], ite(contents.overflow, 1, 0))
        self._changed = False


class _KeyedCodec(Codec):
    def __init__(self, container: KeyedRecordSet, slots: dict[str, Any]):
        self.container, self._slots = container, slots

    def encode(self, state):
        c = self.container
        out = []
        for k, value in enumerate(c.values):
            if state[self._slots["present"][k]]:
                values = dict(zip(c.key, value))
                values.update({p: state[self._slots["parts"][p][k]] for p in c.others})
                out.append(c.rtype.to_tla(values))
        return frozenset(out)

    def decode(self, value, out, path):
        c = self.container
        blank = c.rtype.blank()
        for k in range(c.capacity):
            out[self._slots["present"][k]] = 0
            for p in c.others:
                out[self._slots["parts"][p][k]] = blank[p]
        out[self._slots["overflow"]] = 0
        for x in json_set(value, path):
            values = c.rtype.from_tla(x, path)
            key = tuple(values[p] for p in c.key)
            if key not in c.values:
                raise TraceFormatError(f"{path}: no slot for a {c.rtype.name} with "
                                       f"{', '.join(f'{p}={v}' for p, v in zip(c.key, key))}")
            k = c.values.index(key)
            if out[self._slots["present"][k]]:
                raise TraceFormatError(f"{path}: two {c.rtype.name} records share "
                                       f"{', '.join(c.key)} ({c.describe(k)})")
            out[self._slots["present"][k]] = 1
            for p in c.others:
                out[self._slots["parts"][p][k]] = values[p]

    def slots(self):
        s = self._slots
        return list(s["present"]) + [s["overflow"]] + [x for column in s["parts"].values() for x in column]
