"""The fixed-shape layout of a spec's state, and the views actions are written against.

A state is a flat tuple of small integers, one per *slot*. A ``Field`` is a
named block of slots with a shape (a scalar, a row per replica, a grid of
replica x offset...) and a closed value range. Booleans are 0/1 and sets are
bitmasks. A field may say which TLA+ values its codes stand for
(``enumerated``: strings or model values, code i for ``values[i]``; a
``subset`` of values: bit i for ``values[i]``) and, when it has a shape, the
TLA+ values its indices stand for (``keys``: the domain of a function, such
as the model values of a constant). Such fields read and write in TLA+
values (``s.tmState == "init"``, ``n.rmState[r] = "prepared"``,
``member(s.tmPrepared, r)``), and a spec made of them needs no hand-written
codec: ``derived_codec`` writes and reads their TLA+ values.

Actions never see tuples. They read the current state through a
``StateView`` (``s.hw[r]`` is an expression for that slot) and write the next
state through a ``NextState`` builder (``n.hw[r] = ...``), which also collects
the guard. Slots an action does not assign keep their value, which is TLA+'s
UNCHANGED made the default.
"""

from __future__ import annotations

import itertools
import struct
from dataclasses import dataclass
from typing import Any, Callable, Iterator, Sequence

from modelcheck.errors import SpecDefinitionError
from modelcheck.language.expr import (BOOL, INT, Expr, Labelled, and_, const_value, eq, is_const, ite, lift, not_, or_,
                                      select, var)


@dataclass(frozen=True)
class Field:
    """A named block of state slots with a shape and an inclusive value range.

    ``labels``: the TLA+ values codes stand for (an ``enumerated`` field:
    code i is ``labels[i]``; a ``subset``: bit i). ``keys``: per dimension
    of the shape, the TLA+ values its indices stand for (a function's domain)."""

    name: str
    shape: tuple[int, ...]
    lo: int
    hi: int
    kind: str = "int"  # "int", "bool", "set" (a bitmask) or "enum" (a code among labels)
    labels: tuple = ()
    keys: tuple[tuple, ...] = ()

    @property
    def size(self) -> int:
        n = 1
        for d in self.shape:
            n *= d
        return n


def _keys(name: str, shape: tuple[int, ...], keys) -> tuple[tuple, ...]:
    """Keys given for one dimension (a sequence) or for each (a sequence of sequences)."""
    if not keys:
        return ()
    keys = tuple(keys)
    if len(shape) == 1 and not (keys and isinstance(keys[0], (tuple, list, range)) and len(keys) == 1):
        keys = (keys,)
    keys = tuple(tuple(k) for k in keys)
    if len(keys) != len(shape) or any(len(k) != d for k, d in zip(keys, shape)):
        raise SpecDefinitionError(f"field {name}: keys {keys} do not match its shape {shape}")
    return keys


def _shape(shape, keys) -> tuple[int, ...]:
    """A shape given directly, or read off the keys."""
    if shape:
        return tuple(shape)
    if not keys:
        return ()
    keys = tuple(keys)
    if keys and isinstance(keys[0], (tuple, list, range)):
        return tuple(len(k) for k in keys)
    return (len(keys),)


def boolean(name: str, shape: tuple[int, ...] = (), keys=()) -> Field:
    shape = _shape(shape, keys)
    return Field(name, shape, 0, 1, "bool", keys=_keys(name, shape, keys))


def subset(name: str, universe, shape: tuple[int, ...] = (), keys=()) -> Field:
    """A set as a bitmask: over ``universe`` elements (a size), or over the
    TLA+ values ``universe`` lists (bit i for ``universe[i]``; list them in
    TLC's order)."""
    shape = _shape(shape, keys)
    if isinstance(universe, int):
        return Field(name, shape, 0, (1 << universe) - 1, "set", keys=_keys(name, shape, keys))
    labels = tuple(universe)
    return Field(name, shape, 0, (1 << len(labels)) - 1, "set", labels, _keys(name, shape, keys))


def integer(name: str, lo: int, hi: int, shape: tuple[int, ...] = (), keys=()) -> Field:
    if hi < lo:
        raise SpecDefinitionError(f"field {name}: empty range {lo}..{hi}")
    shape = _shape(shape, keys)
    return Field(name, shape, lo, hi, "int", keys=_keys(name, shape, keys))


def enumerated(name: str, values, shape: tuple[int, ...] = (), keys=()) -> Field:
    """A field holding one of a few TLA+ values (strings, model values),
    coded 0, 1, ... in the order ``values`` lists them, which should be
    TLC's order where it matters (the field inside sets or records compared)."""
    labels = tuple(values)
    if not labels:
        raise SpecDefinitionError(f"field {name}: no values to hold")
    if len(set(labels)) != len(labels):
        raise SpecDefinitionError(f"field {name}: a value is listed twice in {labels}")
    shape = _shape(shape, keys)
    return Field(name, shape, 0, len(labels) - 1, "enum", labels, _keys(name, shape, keys))


def _indices(shape: tuple[int, ...]) -> Iterator[tuple[int, ...]]:
    if not shape:
        yield ()
        return
    for i in range(shape[0]):
        for rest in _indices(shape[1:]):
            yield (i,) + rest


RESERVED = ("c", "require", "built_guard", "built_assignments")


class Schema:
    """The slot layout of one spec instance."""

    def __init__(self, fields: Sequence[Any]):
        # Bounded sets and sequences (modelcheck.language.bounded) expand into plain fields.
        self.compounds: dict[str, Any] = {}
        self.declared = list(fields)  # fields and containers, as the spec lists them
        flat: list[Field] = []
        for f in fields:
            if isinstance(f, Field):
                flat.append(f)
                continue
            if f.name in self.compounds:
                raise SpecDefinitionError(f"field {f.name} declared twice")
            self.compounds[f.name] = f
            flat.extend(f.fields())
        # The slots a VIEW keeps (None: the whole state), set by the model when it applies one.
        self.view_slots: tuple[int, ...] | None = None
        self.fields = tuple(flat)
        self.by_name: dict[str, Field] = {}
        self.base: dict[str, int] = {}
        self.slot_names: list[str] = []
        self.slot_field: list[Field] = []
        offset = 0
        for f in self.fields:
            if f.name in self.compounds:
                raise SpecDefinitionError(f"field {f.name} declared twice")
            if f.name.startswith("_") or f.name in RESERVED:
                raise SpecDefinitionError(f"{f.name!r} cannot name a field (it is reserved by the state views)")
            if f.name in self.by_name:
                raise SpecDefinitionError(f"field {f.name} declared twice")
            self.by_name[f.name] = f
            self.base[f.name] = offset
            for idx in _indices(f.shape):
                self.slot_names.append(f.name + "".join(f"[{_key_text(f.keys, d, i)}]" for d, i in enumerate(idx)))
                self.slot_field.append(f)
            offset += f.size
        self.width = offset
        self.lo = tuple(f.lo for f in self.slot_field)
        self.hi = tuple(f.hi for f in self.slot_field)
        self._packer = struct.Struct("<" + "".join(_pack_code(f) for f in self.slot_field))

    def slot(self, name: str, *index: int) -> int:
        f = self.by_name[name]
        if len(index) != len(f.shape):
            raise SpecDefinitionError(f"{name} needs {len(f.shape)} indices, got {len(index)}")
        flat = 0
        for i, d in zip(index, f.shape):
            if not 0 <= i < d:
                raise SpecDefinitionError(f"{name}{list(index)} is outside its shape {f.shape}")
            flat = flat * d + i
        return self.base[name] + flat

    def pack(self, state: tuple) -> bytes:
        """The canonical byte encoding of a state (what fingerprints hash)."""
        return self._packer.pack(*state)

    def unpack(self, data: bytes) -> tuple:
        return self._packer.unpack(data)

    def get(self, state: tuple, name: str, *index: int) -> int:
        return state[self.slot(name, *index)]

    def in_range(self, state: tuple) -> bool:
        return all(lo <= v <= hi for v, lo, hi in zip(state, self.lo, self.hi))


def _key_text(keys: tuple[tuple, ...], depth: int, i: int) -> str:
    """How a slot's index reads: the key it stands for (a model value, a
    number, a string in quotes), or the position when the field has no keys."""
    if depth >= len(keys):
        return str(i)
    key = keys[depth][i]
    return f'"{key}"' if type(key) is str else str(key)


def _pack_code(f: Field) -> str:
    for code, lo, hi in (("b", -128, 127), ("h", -(1 << 15), (1 << 15) - 1),
                         ("i", -(1 << 31), (1 << 31) - 1)):
        if lo <= f.lo and f.hi <= hi:
            return code
    return "q"


# --- reading: the symbolic view of the current state ------------------------

class ExprArray:
    """A (possibly nested) array of expressions, indexable by build-time ints
    or by expressions (which become an ``ite`` selection), or, when its
    ``keys`` are known, by the TLA+ values they list."""

    def __init__(self, items: list, keys: tuple = ()):
        self.items = items
        self.keys = keys

    def __len__(self) -> int:
        return len(self.items)

    def __iter__(self):
        return iter(self.items)

    def __getitem__(self, index):
        if isinstance(index, Labelled):
            index = index.expr
        if isinstance(index, Expr):
            first = self.items[0]
            if isinstance(first, ExprArray):
                columns = range(len(first))
                return ExprArray([select([row[c] for row in self.items], index) for c in columns], first.keys)
            if isinstance(first, Labelled):
                return Labelled(select([x.expr for x in self.items], index), first.labels, first.is_set, first.what)
            return select(self.items, index)
        if self.keys:
            index = key_position((self.keys,), 0, index)
        if isinstance(index, bool) or not isinstance(index, int):
            raise SpecDefinitionError(f"cannot index a state field with {index!r}")
        if not 0 <= index < len(self.items):
            raise SpecDefinitionError(f"index {index} is outside 0..{len(self.items) - 1}")
        return self.items[index]


def key_position(keys: tuple[tuple, ...], depth: int, index):
    """The position of ``index`` in dimension ``depth``: an integer is one
    already; another value (a model value, a string) is looked up among the keys."""
    if isinstance(index, Expr) or (isinstance(index, int) and not isinstance(index, bool)):
        return index
    if depth < len(keys) and index in keys[depth]:
        return keys[depth].index(index)
    return index


def _build(shape: tuple[int, ...], leaf, keys: tuple[tuple, ...] = ()) -> Any:
    def rec(prefix: tuple[int, ...], rest: tuple[int, ...]):
        if not rest:
            return leaf(prefix)
        depth = len(prefix)
        return ExprArray([rec(prefix + (i,), rest[1:]) for i in range(rest[0])],
                         keys[depth] if depth < len(keys) else ())
    return rec((), shape)


class StateView:
    """Read access to the current state: ``s.field[i][j]`` is an expression.

    ``s.c`` holds the spec's constants, so helpers that take ``s`` have them
    at hand.
    """

    def __init__(self, schema: Schema, constants: Any):
        self._schema = schema
        self.c = constants
        self._cache: dict[str, Any] = {}

    def __getattr__(self, name: str):
        if name.startswith("_"):
            raise AttributeError(name)
        cache = self._cache
        if name not in cache and name in self._schema.compounds:
            cache[name] = _compound_rows(self._schema.compounds[name],
                                         lambda idx, c=self._schema.compounds[name]: c.view(self._schema, idx))
        if name not in cache:
            schema = self._schema
            if name not in schema.by_name:
                raise SpecDefinitionError(f"the state has no field {name!r}")
            f = schema.by_name[name]
            sort = BOOL if f.kind == "bool" else INT
            base = schema.base[name]
            shape = f.shape

            def leaf(idx: tuple[int, ...]) -> Expr:
                flat = 0
                for i, d in zip(idx, shape):
                    flat = flat * d + i
                e = var(base + flat, INT)
                # booleans are stored as 0/1; the view hands out a proper condition
                if sort == BOOL:
                    return e == 1
                if f.labels:
                    return Labelled(e, f.labels, f.kind == "set", schema.slot_names[base + flat])
                return e

            cache[name] = _build(shape, leaf, f.keys)
        return cache[name]


# --- writing: the next state and the guard ---------------------------------

class _Slots:
    """The write side of one field (or a row of it): ``n.hw[r] = value``."""

    def __init__(self, owner: "NextState", field: Field, prefix: tuple[int, ...]):
        self._owner = owner
        self._field = field
        self._prefix = prefix

    def __len__(self) -> int:
        return self._field.shape[len(self._prefix)]

    def _index(self, index):
        """A key of the field's domain (a model value, a string) as its
        position; integers are positions already."""
        if isinstance(index, Labelled):
            return index.expr
        return key_position(self._field.keys, len(self._prefix), index)

    def __getitem__(self, index):
        depth = len(self._prefix)
        index = self._index(index)
        if depth + 1 >= len(self._field.shape):
            raise SpecDefinitionError(
                f"{self._field.name}: assign with n.{self._field.name}[...] = value; primed values cannot be read")
        if not isinstance(index, int) or isinstance(index, bool):
            raise SpecDefinitionError(f"{self._field.name}: only the last index of a write may be an expression")
        return _Slots(self._owner, self._field, self._prefix + (index,))

    def __setitem__(self, index, value) -> None:
        index = self._index(index)
        depth = len(self._prefix)
        field = self._field
        if depth + 1 != len(field.shape):
            raise SpecDefinitionError(f"{field.name}: a write needs all {len(field.shape)} indices")
        owner = self._owner
        if isinstance(index, Expr):
            # a store at an index known only at run time: every slot of the
            # row keeps its value unless the index lands on it
            stored = _slot_value(field, value)
            for i in range(field.shape[-1]):
                slot = owner._schema.slot(field.name, *self._prefix, i)
                owner._assign(slot, ite(eq(index, i), stored, var(slot, INT)))
            return
        owner._assign(owner._schema.slot(field.name, *self._prefix, index), _slot_value(field, value))


def _slot_value(f: Field, value) -> Expr:
    """What gets stored in a slot of ``f``: booleans become 0/1, TLA+
    values of a labelled field their codes."""
    if f.labels:
        return Labelled(var(0), f.labels, f.kind == "set", f.name).coded(value)
    e = lift(value)
    if f.kind == "bool":
        if e.sort != BOOL:
            raise SpecDefinitionError(f"{f.name} is a boolean; assign a condition")
        if e.op == "eq" and e.args[0].op == "var" and is_const(e.args[1]) and const_value(e.args[1]) == 1:
            return e.args[0]  # the stored 0/1 of another boolean slot
        return ite(e, 1, 0)
    if e.sort != INT:
        raise SpecDefinitionError(f"{f.name} holds integers; got a condition")
    return e


class NextState:
    """Collects one action instance's guard and its assignments to primed slots."""

    def __init__(self, schema: Schema, current: StateView):
        self._schema = schema
        self._current = current
        self._guard_parts: list[Expr] = []
        self._assignments: dict[int, Expr] = {}
        self._writers: dict[str, Any] = {}  # bounded set/sequence name -> its writer rows
        self._pending: list[Any] = []  # writers with changes not yet assigned
        self._failures: list[tuple[Expr, str]] = []  # (condition, message): where TLC cannot evaluate the step
        self._chooser: Any = None  # in Init: what one_of asks for the value it returns

    def one_of(self, values):
        """In Init, TLA+'s ``x \\in S``: one of ``values`` (a finite
        sequence, in TLC's order of the set). Init is run once for each
        combination of the values its ``one_of`` calls return, as TLC
        enumerates them (the first call varying slowest), and each run gives
        an initial state; a run whose ``require`` fails gives none."""
        if self._chooser is None:
            raise SpecDefinitionError("one_of chooses among values in Init only; an action chooses through its "
                                      "parameters (@action(x=DOMAIN))")
        return self._chooser.one_of(values)

    def function_in(self, domain, values) -> dict:
        """In Init, TLA+'s ``f \\in [D -> S]``: a dict from each element of
        ``domain`` to one of ``values``, every function in TLC's order."""
        return {d: self.one_of(values) for d in domain}

    def subset_of(self, values) -> tuple:
        """In Init, TLA+'s ``x \\in SUBSET S``: a subset of ``values``, every
        one in TLC's order of sets (by size, then element by element)."""
        values = list(values)
        subsets = [c for k in range(len(values) + 1) for c in itertools.combinations(values, k)]
        return self.one_of(subsets)

    def fails_if(self, condition, message: str) -> None:
        """Where ``condition`` holds (with the guard), TLC cannot evaluate this
        step (a sequence indexed outside its domain, Nil compared with a
        number...) and stops with an error. The model then gives the step a
        successor that says so (see Model), so every engine stops there too."""
        self._failures.append((lift(condition), message))

    def require(self, *conditions) -> None:
        """Add conjuncts to the action's guard."""
        for c in conditions:
            self._guard_parts.append(lift(c))

    def cases(self, *arms, otherwise=None) -> None:
        """TLA+'s CASE (and IF) between actions: ``arms`` are (condition,
        function of a next-state builder) pairs; the first arm whose condition
        holds is taken, else ``otherwise`` (with none, the action is then
        disabled). Each arm writes its own changes and may add guard conjuncts;
        a slot an arm leaves alone keeps its value in that arm."""
        branches = [(lift(cond), fn) for cond, fn in arms]
        taken: list[tuple[Expr, Any]] = []
        earlier: list[Expr] = []
        for cond, fn in branches:
            taken.append((and_(cond, *[not_(e) for e in earlier]), fn))
            earlier.append(cond)
        if otherwise is not None:
            taken.append((and_(*[not_(e) for e in earlier]), otherwise))
        guards, writes = [], []
        for when, fn in taken:
            child = NextState(self._schema, self._current)
            fn(child)
            guard = child.built_guard()
            guards.append(and_(when, guard))
            writes.append((when, child.built_assignments()))
            for failing, message in child._failures:
                self._failures.append((and_(when, guard, failing), message))
        self.require(or_(*guards))
        slots = sorted({slot for _, assigned in writes for slot in assigned})
        for slot in slots:
            value: Expr = var(slot, INT)
            for when, assigned in reversed(writes):
                value = ite(when, assigned.get(slot, var(slot, INT)), value)
            self._assign(slot, value)

    def if_(self, cond, then, otherwise) -> None:
        """IF cond THEN then ELSE otherwise, between two actions (see ``cases``)."""
        self.cases((cond, then), otherwise=otherwise)

    def _note_pending(self, writer) -> None:
        if writer not in self._pending:
            self._pending.append(writer)

    def _flush(self) -> None:
        pending, self._pending = self._pending, []
        for writer in pending:
            writer.flush()

    def built_guard(self) -> Expr:
        self._flush()
        return and_(*self._guard_parts)

    def built_assignments(self) -> dict[int, Expr]:
        self._flush()
        return dict(self._assignments)

    def __getattr__(self, name: str):
        if name.startswith("_"):
            raise AttributeError(name)
        schema = self._schema
        if name in schema.compounds:
            if name not in self._writers:
                compound = schema.compounds[name]
                made: dict[tuple, Any] = {}

                def writer(idx, c=compound):
                    if idx not in made:
                        made[idx] = c.writer(self, idx)
                    return made[idx]
                self._writers[name] = _compound_rows(compound, writer)
            return self._writers[name]
        if name not in schema.by_name:
            raise SpecDefinitionError(f"the state has no field {name!r}")
        return _Slots(self, schema.by_name[name], ())

    def __setattr__(self, name: str, value) -> None:
        if name.startswith("_"):
            object.__setattr__(self, name, value)
            return
        schema = self._schema
        if name not in schema.by_name:
            raise SpecDefinitionError(f"the state has no field {name!r}")
        f = schema.by_name[name]
        if f.shape:
            raise SpecDefinitionError(f"{name} has shape {f.shape}; assign its elements")
        self._assign(schema.slot(name), _slot_value(f, value))

    def _assign(self, slot: int, e: Expr) -> None:
        if slot in self._assignments:
            raise SpecDefinitionError(f"{self._schema.slot_names[slot]} is assigned twice in one action")
        if e.op == "var" and e.args[0] == slot:
            return  # x' = x is the default
        self._assignments[slot] = e


def _compound_rows(compound, make):
    """A bounded set or sequence as specs index it: the container itself, or
    its rows (``s.log[b]``) when it is declared with a shape."""
    if not compound.shape:
        return make(())
    return Rows(make, compound.shape)


class Rows:
    """A shaped container's rows: ``s.log[b]`` (a build-time index only)."""

    def __init__(self, make: Callable[[tuple[int, ...]], Any], shape: tuple[int, ...], prefix: tuple[int, ...] = ()):
        self._make, self._shape, self._prefix = make, shape, prefix

    def __len__(self) -> int:
        return self._shape[len(self._prefix)]

    def __iter__(self):
        return (self[i] for i in range(len(self)))

    def __getitem__(self, i):
        if isinstance(i, Expr) or isinstance(i, bool) or not isinstance(i, int):
            raise SpecDefinitionError("a set or sequence held per replica must be indexed by a parameter "
                                      "or a build-time value, not by a state-dependent expression")
        if not 0 <= i < len(self):
            raise SpecDefinitionError(f"index {i} is outside 0..{len(self) - 1}")
        prefix = self._prefix + (i,)
        if len(prefix) == len(self._shape):
            return self._make(prefix)
        return Rows(self._make, self._shape, prefix)
