"""TLA+ values as users write them for constants: on the command line
(``--const Id=<<3, 1, 2>>``) and in .cfg files.

``read_literal`` reads integers, TRUE/FALSE, strings in quotes, names (model
values), intervals ``lo..hi``, sets ``{...}``, tuples ``<<...>>`` and
records ``[f |-> v, ...]``, nested freely, into *literals*: values that keep
what was written (a set's elements in the order written, which decides TLC's
order of the model values it names first). ``modelcheck.language.constants``
checks a literal against a constant's kind.
"""

from __future__ import annotations

import re
from typing import Any

from modelcheck.errors import InputError
from modelcheck.language.values import ModelValue, Record

# Error messages quote at most this much of what the user wrote.
QUOTED = 40


def quoted(text: str) -> str:
    """``text`` for an error line: repr'd, and cut short if long."""
    return repr(text) if len(text) <= QUOTED else repr(text[:QUOTED]) + f"... ({len(text):,} characters)"


class SetLiteral(tuple):
    """A set as written: its elements in the order written (a tuple keeps
    that order, which is TLC's order of the model values it names first)."""


class Interval(tuple):
    """``lo..hi`` as written: (lo, hi)."""


_TOKEN = re.compile(r"""\s*(?:
    (?P<number>-?[0-9]+)
  | (?P<string>"(?:[^"\\\n]|\\.)*")
  | (?P<name>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<punct><<|>>|\|->|\.\.|[{}\[\],])
)""", re.VERBOSE)


def read_literal(text: str, what: str) -> Any:
    """A TLA+ constant value as written: an integer, TRUE/FALSE, a string in
    quotes, a name (a model value), ``lo..hi``, ``{...}``, ``<<...>>`` or
    ``[f |-> v, ...]``, nested freely. Names come back as ``ModelValue``,
    sets as ``SetLiteral``, sequences as tuples, records as ``Record``."""
    tokens: list[tuple[str, str]] = []
    pos, text = 0, text.strip()
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if not m or m.end() == pos:
            raise InputError(f"{what}: cannot read {quoted(text[pos:].strip())}")
        tokens.append((m.lastgroup, m.group(m.lastgroup)))
        pos = m.end()
        while pos < len(text) and text[pos].isspace():
            pos += 1
    if not tokens:
        raise InputError(f"{what}: a value is missing")
    reader = _LiteralReader(tokens, what, text)
    value = reader.value()
    if reader.i != len(tokens):
        raise InputError(f"{what}: unexpected {quoted(tokens[reader.i][1])} after the value in {quoted(text)}")
    return value


class _LiteralReader:
    def __init__(self, tokens, what, text):
        self.tokens, self.what, self.text, self.i = tokens, what, text, 0

    def fail(self, message: str):
        raise InputError(f"{self.what}: {message} in {quoted(self.text)}")

    def peek(self):
        return self.tokens[self.i] if self.i < len(self.tokens) else (None, None)

    def take(self, text=None):
        kind, got = self.peek()
        if kind is None:
            self.fail("the value ends too soon")
        if text is not None and got != text:
            self.fail(f"expected {text!r}, got {got!r}")
        self.i += 1
        return kind, got

    def items(self, close: str) -> list:
        out = []
        if self.peek()[1] == close:
            self.take()
            return out
        while True:
            out.append(self.value())
            _, sep = self.take()
            if sep == close:
                return out
            if sep != ",":
                self.fail(f"expected , or {close}, got {sep!r}")

    def value(self):
        kind, text = self.take()
        if kind == "number":
            if len(text.lstrip("-")) > 19:
                self.fail(f"the number {quoted(text)} is too long")
            n = int(text)
            if self.peek()[1] == "..":
                self.take()
                hk, hi = self.take()
                if hk != "number" or len(hi.lstrip("-")) > 19:
                    self.fail("an interval lo..hi needs two integers")
                return Interval((n, int(hi)))
            return n
        if kind == "string":
            return bytes(text[1:-1], "utf-8").decode("unicode_escape") if "\\" in text else text[1:-1]
        if kind == "name":
            if text in ("TRUE", "FALSE", "true", "false"):
                return text in ("TRUE", "true")
            return ModelValue(text)
        if text == "{":
            return SetLiteral(self.items("}"))
        if text == "<<":
            return tuple(self.items(">>"))
        if text == "[":
            fields = []
            if self.peek()[1] == "]":
                self.fail("a record needs at least one field")
            while True:
                fk, name = self.take()
                if fk != "name":
                    self.fail(f"expected a field name, got {name!r}")
                self.take("|->")
                fields.append((name, self.value()))
                _, sep = self.take()
                if sep == "]":
                    break
                if sep != ",":
                    self.fail(f"expected , or ], got {sep!r}")
            if len({k for k, _ in fields}) != len(fields):
                self.fail("a record names a field twice")
            return Record(fields)
        self.fail(f"unexpected {text!r}")


def literal_model_values(lit: Any) -> list[str]:
    """The model values (and strings) a value names, in the order written:
    TLC orders both by when it first read them."""
    if isinstance(lit, str):
        return [lit]
    if isinstance(lit, (tuple, list)):
        return [m for x in lit for m in literal_model_values(x)]
    if isinstance(lit, Record):
        return [m for x in lit.values() for m in literal_model_values(x)]
    return []
