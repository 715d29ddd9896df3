"""Codecs: how a spec's flat state maps onto its TLA+ variables, both ways.

A spec describes each TLA+ variable once, as a tree of codecs over its state
slots (a function over replicas of records of ...). From that one description
modelcheck writes states as TLA+ values (ITF traces, text diffs, viewers) and
reads them back from JSON, accepting both ITF's tagged forms and the plain
forms TLC's ``-dumpTrace json`` uses (sets and sequences as arrays, functions
as objects keyed by their argument).
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from modelcheck.errors import SpecDefinitionError, TraceFormatError
from modelcheck.language.values import Function, ModelValue, Record, show

NIL = -1


# --- reading JSON values of either flavour ----------------------------------

def json_int(v: Any, path: str) -> int:
    if isinstance(v, bool):
        raise TraceFormatError(f"{path}: expected an integer, got {v!r}")
    if isinstance(v, int):
        return v
    if isinstance(v, dict) and set(v) == {"#bigint"}:
        try:
            return int(v["#bigint"])
        except (TypeError, ValueError):
            pass
    raise TraceFormatError(f"{path}: expected an integer, got {_brief(v)}")


def json_set(v: Any, path: str) -> list:
    if isinstance(v, dict) and set(v) == {"#set"} and isinstance(v["#set"], list):
        return v["#set"]
    if isinstance(v, list):
        return v
    raise TraceFormatError(f"{path}: expected a set, got {_brief(v)}")


def json_record(v: Any, keys: Sequence[str], path: str) -> dict:
    if not isinstance(v, dict) or any(k.startswith("#") for k in v):
        raise TraceFormatError(f"{path}: expected a record with fields {', '.join(keys)}, got {_brief(v)}")
    if set(v) != set(keys):
        raise TraceFormatError(f"{path}: expected fields {', '.join(keys)}, got {', '.join(v) or 'none'}")
    return v


def json_function(v: Any, keys: Sequence[Any], path: str) -> list:
    """The values of a function, in the order of ``keys``."""
    if isinstance(v, dict) and set(v) == {"#map"} and isinstance(v["#map"], list):
        found = {}
        for pair in v["#map"]:
            if not (isinstance(pair, list) and len(pair) == 2):
                raise TraceFormatError(f"{path}: a #map entry must be a [key, value] pair")
            found[_json_key(pair[0], path)] = pair[1]
    elif isinstance(v, dict) and not any(str(k).startswith("#") for k in v):
        found = dict(v)
    elif isinstance(v, list):
        if len(v) != len(keys):
            raise TraceFormatError(f"{path}: expected {len(keys)} entries, got {len(v)}")
        return list(v)
    else:
        raise TraceFormatError(f"{path}: expected a function, got {_brief(v)}")
    wanted = [str(k) for k in keys]
    if set(map(str, found)) != set(wanted):
        raise TraceFormatError(f"{path}: expected a function over {', '.join(wanted)}, "
                               f"got one over {', '.join(map(str, found)) or 'nothing'}")
    by_text = {str(k): x for k, x in found.items()}
    return [by_text[w] for w in wanted]


def _json_key(k: Any, path: str) -> str:
    if isinstance(k, dict) and "#bigint" in k:
        return str(json_int(k, path))
    if isinstance(k, (str, int)) and not isinstance(k, bool):
        return str(k)
    raise TraceFormatError(f"{path}: unsupported function argument {_brief(k)}")


def _brief(v: Any) -> str:
    text = repr(v)
    return text if len(text) <= 60 else text[:57] + "..."


def _as_model_values(names: Sequence[Any]) -> tuple:
    """Names of replicas (or other ids) as model values; integers stay integers."""
    return tuple(ModelValue(n) if type(n) is str else n for n in names)


# --- codecs ------------------------------------------------------------------

class Codec:
    def encode(self, state: tuple) -> Any:
        raise NotImplementedError

    def decode(self, value: Any, out: list, path: str) -> None:
        raise NotImplementedError

    def slots(self) -> list[int]:
        raise NotImplementedError


class IntSlot(Codec):
    def __init__(self, slot: int, lo: int, hi: int):
        self.slot, self.lo, self.hi = slot, lo, hi

    def encode(self, state):
        return state[self.slot]

    def decode(self, value, out, path):
        v = json_int(value, path)
        if not self.lo <= v <= self.hi:
            raise TraceFormatError(f"{path} = {v} is outside {self.lo}..{self.hi} for these constants")
        out[self.slot] = v

    def slots(self):
        return [self.slot]


class BoolSlot(Codec):
    def __init__(self, slot: int):
        self.slot = slot

    def encode(self, state):
        return bool(state[self.slot])

    def decode(self, value, out, path):
        if not isinstance(value, bool):
            raise TraceFormatError(f"{path}: expected TRUE or FALSE, got {_brief(value)}")
        out[self.slot] = int(value)

    def slots(self):
        return [self.slot]


class ReplicaSlot(Codec):
    """A replica index, or -1 for the "NONE" marker when ``none`` names it."""

    def __init__(self, slot: int, names: Sequence[str], none: str | None = "NONE"):
        self.slot, self.names = slot, _as_model_values(names)
        self.none = None if none is None else ModelValue(none)

    def encode(self, state):
        v = state[self.slot]
        return self.none if v == -1 else self.names[v]

    def decode(self, value, out, path):
        if self.none is not None and value == self.none:
            out[self.slot] = -1
        elif isinstance(value, str) and value in self.names:
            out[self.slot] = self.names.index(value)
        else:
            options = ", ".join(self.names + ((self.none,) if self.none else ()))
            raise TraceFormatError(f"{path}: expected one of {options}, got {_brief(value)}")

    def slots(self):
        return [self.slot]


class ReplicaSetSlot(Codec):
    """A set of replicas (or of any values ``names`` lists) held as a bitmask."""

    def __init__(self, slot: int, names: Sequence[str], model_values: bool = True):
        """``model_values``: plain strings among ``names`` are model values
        (replica names); off, the values are taken as given (strings stay strings)."""
        self.slot, self.names = slot, _as_model_values(names) if model_values else tuple(names)

    def encode(self, state):
        mask = state[self.slot]
        return frozenset(n for i, n in enumerate(self.names) if mask >> i & 1)

    def decode(self, value, out, path):
        mask = 0
        for x in json_set(value, path):
            if isinstance(x, dict) and set(x) == {"#bigint"}:  # sets of integer ids (brokers 1..n)
                x = json_int(x, path)
            if isinstance(x, bool) or not isinstance(x, (str, int)) or x not in self.names:
                raise TraceFormatError(f"{path}: {_brief(x)} is not one of {', '.join(map(str, self.names))}")
            mask |= 1 << self.names.index(x)
        out[self.slot] = mask

    def slots(self):
        return [self.slot]


class ChoiceSlot(Codec):
    """One of a few TLA+ values (strings, model values), coded by its
    position in ``labels``."""

    def __init__(self, slot: int, labels: Sequence[Any]):
        self.slot, self.labels = slot, tuple(labels)

    def encode(self, state):
        return self.labels[state[self.slot]]

    def decode(self, value, out, path):
        if isinstance(value, dict) and set(value) == {"#bigint"}:
            value = json_int(value, path)
        for i, label in enumerate(self.labels):
            if label == value and isinstance(label, bool) == isinstance(value, bool):
                out[self.slot] = i
                return
        raise TraceFormatError(f"{path}: expected one of {', '.join(map(show, self.labels))}, got {_brief(value)}")

    def slots(self):
        return [self.slot]


class Const(Codec):
    """A value fixed by the encoding itself (no slot), checked when reading."""

    def __init__(self, value: Any):
        self.value = value

    def encode(self, state):
        return self.value

    def decode(self, value, out, path):
        got = json_int(value, path) if isinstance(self.value, int) else value
        if got != self.value:
            raise TraceFormatError(f"{path}: expected {self.value!r}, got {_brief(value)}")

    def slots(self):
        return []


class Rec(Codec):
    def __init__(self, **fields: Codec):
        self.fields = fields

    def encode(self, state):
        return Record((k, c.encode(state)) for k, c in self.fields.items())

    def decode(self, value, out, path):
        rec = json_record(value, list(self.fields), path)
        for k, c in self.fields.items():
            c.decode(rec[k], out, f"{path}.{k}")

    def slots(self):
        return [s for c in self.fields.values() for s in c.slots()]


class Fn(Codec):
    """A function over a fixed domain (replica names, offsets...)."""

    def __init__(self, keys: Sequence[Any], values: Sequence[Codec]):
        self.keys, self.values = list(keys), list(values)

    def encode(self, state):
        return Function((k, c.encode(state)) for k, c in zip(self.keys, self.values))

    def decode(self, value, out, path):
        for k, c, x in zip(self.keys, self.values, json_function(value, self.keys, path)):
            c.decode(x, out, f"{path}[{k}]")

    def slots(self):
        return [s for c in self.values for s in c.slots()]


class NilOr(Codec):
    """Either the spec's Nil (-1, every slot at -1) or the inner value."""

    def __init__(self, inner: Codec):
        self.inner = inner

    def encode(self, state):
        if all(state[s] == NIL for s in self.inner.slots()):
            return NIL
        return self.inner.encode(state)

    def decode(self, value, out, path):
        is_int = (isinstance(value, int) and not isinstance(value, bool)) or (
            isinstance(value, dict) and set(value) == {"#bigint"})
        if is_int:
            if json_int(value, path) != NIL:
                raise TraceFormatError(f"{path}: expected Nil (-1) or a record, got {_brief(value)}")
            for s in self.inner.slots():
                out[s] = NIL
            return
        self.inner.decode(value, out, path)

    def slots(self):
        return self.inner.slots()


class KeyedSet(Codec):
    """A set of records in which one field is unique and picks a slot.

    The LeaderAndIsr requests are such a set: every request carries a fresh
    leader epoch, so slot ``e`` holds the request of epoch ``e`` (or nothing).
    """

    def __init__(self, key: str, entries: Mapping[int, tuple[int, Codec]], blank: Mapping[int, int]):
        self.key = key
        self.entries = dict(entries)  # key value -> (present slot, record codec)
        self.blank = dict(blank)  # slot -> value when the entry is absent

    def encode(self, state):
        return frozenset(codec.encode(state) for present, codec in self.entries.values() if state[present])

    def decode(self, value, out, path):
        seen: set[int] = set()
        for key, (present, codec) in self.entries.items():
            out[present] = 0
            for s in codec.slots():
                out[s] = self.blank[s]
        for element in json_set(value, path):
            if not isinstance(element, dict) or self.key not in element:
                raise TraceFormatError(f"{path}: every element needs a {self.key} field, got {_brief(element)}")
            k = json_int(element[self.key], f"{path}.{self.key}")
            if k not in self.entries:
                raise TraceFormatError(f"{path}: {self.key} {k} is outside {min(self.entries)}..{max(self.entries)}")
            if k in seen:
                raise TraceFormatError(f"{path}: two elements share {self.key} {k}")
            seen.add(k)
            present, codec = self.entries[k]
            out[present] = 1
            codec.decode(element, out, f"{path}[{self.key}={k}]")

    def slots(self):
        return [s for present, codec in self.entries.values() for s in [present] + codec.slots()]

    def presence(self) -> list[int]:
        """The slots that say whether each entry is in the set."""
        return [present for present, _ in self.entries.values()]


def strings_as_model_values(v: Any) -> Any:
    """Every plain string in a value made a model value."""
    if type(v) is str:
        return ModelValue(v)
    if isinstance(v, frozenset):
        return frozenset(strings_as_model_values(x) for x in v)
    if isinstance(v, tuple):
        return tuple(strings_as_model_values(x) for x in v)
    if isinstance(v, Record):
        return Record((k, strings_as_model_values(x)) for k, x in v.items())
    if isinstance(v, Function):
        return Function((strings_as_model_values(k), strings_as_model_values(x)) for k, x in v.items())
    return v


class StateCodec:
    """The TLA+ variables of a spec, each described by a codec."""

    def __init__(self, schema, variables: Mapping[str, Codec], hidden: Sequence[int] = (),
                 names_are_model_values: bool = False):
        """``hidden``: slots of the port that are no TLA+ variable (they read
        back as 0), such as the record of a step TLC could not evaluate.
        ``names_are_model_values``: the codecs write named values as plain
        strings, and every one of them is a model value of the module (it
        has no TLA+ strings), so that they are shown bare."""
        self.schema = schema
        self.variables = dict(variables)
        self.hidden = tuple(hidden)
        self.names_are_model_values = names_are_model_values
        covered: list[int] = [s for c in self.variables.values() for s in c.slots()] + list(self.hidden)
        if sorted(covered) != list(range(schema.width)):
            missing = set(range(schema.width)) - set(covered)
            doubled = {s for s in covered if covered.count(s) > 1}
            names = lambda ss: ", ".join(schema.slot_names[s] for s in sorted(ss))
            raise SpecDefinitionError(
                f"the TLA+ variables must cover every state slot exactly once "
                f"(missing: {names(missing) or '-'}; twice: {names(doubled) or '-'})")

    @property
    def names(self) -> list[str]:
        return list(self.variables)

    def encode(self, state: tuple) -> dict[str, Any]:
        if self.names_are_model_values:
            return {name: strings_as_model_values(c.encode(state)) for name, c in self.variables.items()}
        return {name: c.encode(state) for name, c in self.variables.items()}

    def decode(self, values: Mapping[str, Any], where: str = "state") -> tuple:
        missing = [n for n in self.variables if n not in values]
        if missing:
            raise TraceFormatError(f"{where}: missing variable(s) {', '.join(missing)}")
        out: list = [None] * self.schema.width
        for slot in self.hidden:
            out[slot] = 0
        for name, c in self.variables.items():
            c.decode(values[name], out, f"{where}: {name}")
        return tuple(out)


# --- a codec derived from the fields' own declarations -------------------------------------

def derived_codec(schema, hidden_fields: Sequence[str] = ("evaluation_error",)) -> StateCodec:
    """The TLA+ variables of a spec whose fields say what they hold: each
    field or container (record, set or sequence of records) is a variable of
    its name; a field's codes are its values (``enumerated``, a ``subset``
    of values, integers, booleans), and a shape is a function over its keys."""
    variables: dict[str, Codec] = {}
    hidden: list[int] = []
    for declared in schema.declared:
        name = declared.name
        if name in schema.compounds:
            container = schema.compounds[name]
            variables[name] = _shaped(name, container.shape, getattr(container, "keys", ()),
                                      lambda idx, c=container: c.codec(schema, *idx))
            continue
        if name in hidden_fields:
            hidden.extend(schema.slot(name, *idx) for idx in _positions(declared.shape))
            continue
        variables[name] = _shaped(name, declared.shape, declared.keys,
                                  lambda idx, f=declared: _leaf_codec(schema, f, idx))
    return StateCodec(schema, variables, hidden)


def _positions(shape):
    if not shape:
        yield ()
        return
    for i in range(shape[0]):
        for rest in _positions(shape[1:]):
            yield (i,) + rest


def _shaped(name: str, shape, keys, leaf, prefix: tuple = ()) -> Codec:
    depth = len(prefix)
    if depth == len(shape):
        return leaf(prefix)
    if depth >= len(keys):
        raise SpecDefinitionError(f"{name} has a shape {tuple(shape)} but no keys: give keys= (the TLA+ values its "
                                  f"positions stand for, such as a constant's model values), or write variables=")
    return Fn(keys[depth], [_shaped(name, shape, keys, leaf, prefix + (i,)) for i in range(shape[depth])])


def _leaf_codec(schema, f, idx) -> Codec:
    slot = schema.slot(f.name, *idx)
    if f.kind == "bool":
        return BoolSlot(slot)
    if f.kind == "enum":
        return ChoiceSlot(slot, f.labels)
    if f.kind == "set":
        if not f.labels:
            raise SpecDefinitionError(f"{f.name} is a set of positions; declare the values it holds "
                                      f"(subset({f.name!r}, values)) or write variables=")
        return ReplicaSetSlot(slot, f.labels, model_values=False)
    return IntSlot(slot, f.lo, f.hi)
