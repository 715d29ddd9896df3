"""Spec constants: their declarations, parsing from the command line and .cfg files, and validation.

Values are parsed the way TLC users write them: ``Replicas=3`` means the
model values {r1, r2, r3}, ``Replicas={a,b}`` names them, integers are
decimal, booleans are TRUE/FALSE (true/false also accepted).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Iterable, Mapping

from modelcheck.errors import InputError, no_such

REPLICAS, INT, BOOL, REPLICA = "replicas", "int", "bool", "replica"
NONE = "NONE"  # the spec's "no leader" marker; no replica may take this name
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


@dataclass(frozen=True)
class ConstantDecl:
    name: str
    kind: str
    default: Any
    minimum: int | None = None
    maximum: int | None = None
    doc: str = ""


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

    def items(self):
        return [(k, self._values[k]) for k in self._order]

    def __eq__(self, other) -> bool:
        return isinstance(other, Constants) and self.items() == other.items()

    def __hash__(self) -> int:
        return hash(tuple(self.items()))

    def __repr__(self) -> str:
        return "Constants(" + ", ".join(f"{k}={v!r}" for k, v in self.items()) + ")"


def format_value(kind: str, value: Any) -> str:
    if kind == REPLICAS:
        return "{" + ", ".join(value) + "}"
    if kind == BOOL:
        return "TRUE" if value else "FALSE"
    return str(value)


def json_value(kind: str, value: Any) -> Any:
    """How a constant appears in --json output and trace params."""
    if kind == REPLICAS:
        return list(value)
    return value


# Error messages quote at most this much of what the user wrote.
QUOTED = 40


def quoted(text: str) -> str:
    """``text`` for an error line: repr'd, and cut short if long."""
    return repr(text) if len(text) <= QUOTED else repr(text[:QUOTED]) + f"... ({len(text):,} characters)"


def parse_value(decl: ConstantDecl, text: str) -> Any:
    """Parse one constant's value as written on the command line or in a .cfg.
    Declared bounds are checked on the text, before anything is built from it."""
    text = text.strip()
    if decl.kind == REPLICAS:
        return _parse_replicas(decl, text)
    if decl.kind == INT:
        if not re.fullmatch(r"[+-]?[0-9]+", text):
            raise InputError(f"constant {decl.name} must be an integer, got {quoted(text)}")
        return _bounded_int(decl, text, decl.name)
    if decl.kind == BOOL:
        if text in ("TRUE", "true"):
            return True
        if text in ("FALSE", "false"):
            return False
        raise InputError(f"constant {decl.name} must be TRUE or FALSE, got {quoted(text)}")
    if decl.kind == REPLICA:
        if not _NAME.match(text):
            raise InputError(f"constant {decl.name} must be a replica name, got {quoted(text)}")
        return text
    raise AssertionError(decl.kind)


def _bounded_int(decl: ConstantDecl, digits: str, what: str) -> int:
    """``digits`` as an int, refused before conversion when it has more
    digits than any bound of ``decl`` allows (a 10,000-digit count would
    otherwise cost seconds and a 10,000-character error line)."""
    bound = max(abs(b) for b in (decl.minimum, decl.maximum, 1 << 62) if b is not None)
    if len(digits.lstrip("+-").lstrip("0")) > len(str(bound)):
        limit = f"at most {decl.maximum}" if decl.maximum is not None else "a 62-bit number"
        raise InputError(f"{what} can be {limit} in modelcheck, got a {len(digits):,}-digit number")
    return int(digits)


def _check_count(decl: ConstantDecl, count: int) -> None:
    if count < 1:
        raise InputError(f"{decl.name} must have at least 1 member, got {count}")
    if decl.maximum is not None and count > decl.maximum:
        raise InputError(f"{decl.name} can be at most {decl.maximum} in modelcheck, got {count:,} members")


def _parse_replicas(decl: ConstantDecl, text: str) -> tuple[str, ...]:
    name = decl.name
    if re.fullmatch(r"[+-]?[0-9]+", text):
        count = _bounded_int(decl, text, name)
        _check_count(decl, count)
        return tuple(f"r{i}" for i in range(1, count + 1))
    if not (text.startswith("{") and text.endswith("}")):
        raise InputError(f"{name} must be a count (3) or a set of names ({{a,b,c}}), got {quoted(text)}")
    inner = text[1:-1].strip()
    if not inner:
        raise InputError(f"{name} must have at least 1 member, got the empty set")
    _check_count(decl, inner.count(",") + 1)
    names = [part.strip() for part in inner.split(",")]
    for n in names:
        if not _NAME.match(n):
            raise InputError(f"{name}: {quoted(n)} is not a valid replica name (letters, digits, _)")
        if n == NONE:
            raise InputError(f"{name}: {NONE} is reserved for 'no leader' and cannot name a replica")
    if len(set(names)) != len(names):
        raise InputError(f"{name}: replica names must be distinct, got {quoted(text)}")
    return tuple(names)


def resolve(decls: tuple[ConstantDecl, ...], given: Mapping[str, str], spec_name: str,
            parsed: Mapping[str, Any] | None = None) -> Constants:
    """Combine defaults with user-given values (strings, or already parsed values)
    and check each against its declared bounds."""
    by_name = {d.name: d for d in decls}
    values = {d.name: d.default for d in decls}
    for key, text in given.items():
        if key not in by_name:
            raise InputError(no_such(f"{spec_name} has no constant", key, by_name, "its constants"))
        values[key] = parse_value(by_name[key], text)
    for key, value in (parsed or {}).items():
        if key not in by_name:
            raise InputError(no_such(f"{spec_name} has no constant", key, by_name, "its constants"))
        values[key] = value
    for d in decls:
        check_bounds(d, values[d.name])
    for d in decls:
        if d.kind == REPLICA:
            replicas = next((values[x.name] for x in decls if x.kind == REPLICAS), ())
            if values[d.name] not in replicas:
                raise InputError(f"{d.name} must be one of the replicas {format_value(REPLICAS, replicas)}, "
                                 f"got {values[d.name]}")
    return Constants(values, [d.name for d in decls])


def check_bounds(decl: ConstantDecl, value: Any) -> None:
    """The declared minimum and maximum of a parsed value (a count for replica sets)."""
    if decl.kind not in (INT, REPLICAS):
        return
    size = len(value) if decl.kind == REPLICAS else value
    if decl.minimum is not None and size < decl.minimum:
        raise InputError(f"{decl.name} must be at least {decl.minimum}, got {format_value(decl.kind, value)}")
    if decl.maximum is not None and size > decl.maximum:
        raise InputError(f"{decl.name} can be at most {decl.maximum} in modelcheck, "
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
