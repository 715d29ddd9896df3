"""What a TLC model configuration (.cfg) asks of a module, as the front-end takes it.

``modelcheck/loading/cfgfile.py`` reads the file; the loading layer hands
the front-end a ``TlaConfig``: the constants' values as written (``1``,
``{a, b}``, ``"s"``, a model value's name), the ``<-`` substitutions, the
operators INIT/NEXT/SPECIFICATION, INVARIANT, PROPERTY, CONSTRAINT,
ACTION_CONSTRAINT, VIEW and SYMMETRY name, and the words of the file in
order (TLC reads the .cfg before the module, so its names come first in
TLC's order of strings and model values).

``constant_value`` turns a value as written into a TLA+ value: integers,
TRUE/FALSE, strings, sets and tuples of values, and any other name is a
model value (``r1 = r1`` declares one; ``Replicas = {r1, r2}`` makes a set
of them).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from modelcheck.tlaplus.syntax import TlaError
from modelcheck.tlaplus.values import ModelValue, fcn


@dataclass
class TlaConfig:
    path: str | None = None
    constants: dict[str, str] = field(default_factory=dict)  # name -> value as written
    constant_lines: dict[str, int] = field(default_factory=dict)
    # name (NAME[Module] for NAME <-[Module] Op) -> (operator, module)
    substitutions: dict[str, tuple[str, str | None]] = field(default_factory=dict)
    init: str | None = None
    next: str | None = None
    specification: str | None = None
    invariants: list[str] = field(default_factory=list)
    properties: list[str] = field(default_factory=list)
    constraints: list[str] = field(default_factory=list)
    action_constraints: list[str] = field(default_factory=list)
    view: str | None = None
    symmetry: str | None = None
    check_deadlock: bool | None = None
    words: list[str] = field(default_factory=list)


_TOKEN = re.compile(r'\s*(?:(-?[0-9]+)|("(?:[^"\\]|\\.)*")|([A-Za-z_][A-Za-z0-9_]*)|(\{|\}|<<|>>|\|->|\.\.|\[|\]|,))')


def constant_value(text: str, where: str = "") -> Any:
    """The TLA+ value of a constant as a .cfg (or --const) writes it."""
    tokens = []
    pos = 0
    text = text.strip()
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if not m or m.end() == pos:
            raise TlaError(f"{where}cannot read the value {text!r}")
        tokens.append(m.groups())
        pos = m.end()
        while pos < len(text) and text[pos].isspace():
            pos += 1
    value, rest = _value(tokens, 0, text, where)
    if rest != len(tokens):
        raise TlaError(f"{where}cannot read the value {text!r}")
    return value


def _value(tokens, i: int, text: str, where: str):
    if i >= len(tokens):
        raise TlaError(f"{where}the value {text!r} ends too soon")
    num, string, name, punct = tokens[i]
    if num is not None:
        if i + 2 < len(tokens) and tokens[i + 1][3] == ".." and tokens[i + 2][0] is not None:
            return frozenset(range(int(num), int(tokens[i + 2][0]) + 1)), i + 3  # lo..hi
        return int(num), i + 1
    if string is not None:
        return string[1:-1].replace('\\"', '"').replace("\\\\", "\\"), i + 1
    if name is not None:
        if name == "TRUE":
            return True, i + 1
        if name == "FALSE":
            return False, i + 1
        return ModelValue(name), i + 1
    if punct == "[":  # a record [f |-> v, ...]
        fields = []
        i += 1
        while True:
            if i + 1 >= len(tokens) or tokens[i][2] is None or tokens[i + 1][3] != "|->":
                raise TlaError(f"{where}expected field |-> value in {text!r}")
            v, j = _value(tokens, i + 2, text, where)
            fields.append((tokens[i][2], v))
            if j >= len(tokens):
                raise TlaError(f"{where}unclosed [ in {text!r}")
            if tokens[j][3] == ",":
                i = j + 1
                continue
            if tokens[j][3] == "]":
                return fcn(fields), j + 1
            raise TlaError(f"{where}expected , or ] in {text!r}")
    if punct in ("{", "<<"):
        close = "}" if punct == "{" else ">>"
        items = []
        i += 1
        if i < len(tokens) and tokens[i][3] == close:
            return (frozenset() if punct == "{" else ()), i + 1
        while True:
            v, i = _value(tokens, i, text, where)
            items.append(v)
            if i >= len(tokens):
                raise TlaError(f"{where}unclosed {punct} in {text!r}")
            if tokens[i][3] == ",":
                i += 1
                continue
            if tokens[i][3] == close:
                return (frozenset(items) if punct == "{" else tuple(items)), i + 1
            raise TlaError(f"{where}expected , or {close} in {text!r}")
    raise TlaError(f"{where}cannot read the value {text!r}")


def show_constant(value: Any) -> str:
    from modelcheck.tlaplus.values import show
    return show(value)
