"""Reading TLC model configuration files (.cfg).

modelcheck takes CONSTANT(S), INVARIANT(S), CHECK_DEADLOCK, SYMMETRY (what it
names is interpreted in modelcheck/search/canonical.py), SPECIFICATION (the name of
one of the spec's named specifications), PROPERTY/PROPERTIES (its temporal
properties) and VIEW (for a spec that defines one) from them.
INIT, NEXT, CONSTRAINT(S) and ACTION_CONSTRAINT(S) name TLA+ operators: a
TLA+ module checked directly (``modelcheck run Spec.tla``) uses them; for a
spec written in Python they are skipped with a warning (``unused``).
POSTCONDITION and ALIAS are skipped for both. ``words`` keeps the file's
names in order: TLC reads the .cfg before the module, and its order of
strings and model values starts with them.

In CONSTANTS, ``r1 = r1`` declares a model value (it gives a constant of
that name, such as Paxos' ``None``, its model value, and fixes TLC's order of
model values: the order the file first names them); ``Acceptor <-
MCAcceptor`` gives a constant the value of a definition the spec offers
(``SpecDefinition.definitions``; the TLA+ front-end, its module's); with
a module, ``Ballot <-[Voting] MCBallot`` applies to that module only. Values
are written in TLA+ notation: numbers, TRUE/FALSE, strings, model values,
sets ``{...}``, intervals ``lo..hi``, tuples ``<<...>>`` and records
``[f |-> v]``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import NoReturn

from modelcheck.errors import InputError
from modelcheck.runtime.reading import CONFIG_CAP, read_text

USED = {"CONSTANT", "CONSTANTS", "INVARIANT", "INVARIANTS", "CHECK_DEADLOCK", "SYMMETRY", "SPECIFICATION",
        "PROPERTY", "PROPERTIES", "VIEW", "INIT", "NEXT", "CONSTRAINT", "CONSTRAINTS", "ACTION_CONSTRAINT",
        "ACTION_CONSTRAINTS"}
SKIPPED = {"POSTCONDITION", "ALIAS"}
KEYWORDS = USED | SKIPPED

_TOKEN = re.compile(r"""
    (?P<space>[ \t\r]+)
  | (?P<newline>\n)
  | (?P<line_comment>\\\*[^\n]*)
  | (?P<block_comment>\(\*)
  | (?P<arrow><-)
  | (?P<punct><<|>>|\|->|\.\.|[={},\[\]()])
  | (?P<number>-?[0-9]+)
  | (?P<string>"[^"\n]*")
  | (?P<ident>[A-Za-z_][A-Za-z0-9_!]*)
""", re.VERBOSE)


@dataclass
class ConfigFile:
    path: str
    constants: dict[str, str] = field(default_factory=dict)  # name -> value text, as --const takes it
    constant_lines: dict[str, int] = field(default_factory=dict)
    invariants: list[str] = field(default_factory=list)
    check_deadlock: bool | None = None
    symmetry: list[tuple[str, int]] = field(default_factory=list)  # (what SYMMETRY names, line)
    warnings: list[str] = field(default_factory=list)
    specification: str | None = None
    properties: list[str] = field(default_factory=list)
    view: tuple[str, int] | None = None  # (the operator VIEW names, its line)
    # ``Name <- Definition`` (or ``<-[Module]``): name -> (definition, line, module or None)
    substitutions: dict[str, tuple[str, int, str | None]] = field(default_factory=dict)
    # model values declared as themselves (``r1 = r1``), with their lines
    model_values: dict[str, int] = field(default_factory=dict)
    # every CONSTANTS entry's name in the order the file gives them (TLC's order of model values follows it)
    order: list[str] = field(default_factory=list)
    # what a TLA+ module checked directly reads (a spec written in Python warns about them: ``unused``)
    init: tuple[str, int] | None = None
    next: tuple[str, int] | None = None
    constraints: list[tuple[str, int]] = field(default_factory=list)
    action_constraints: list[tuple[str, int]] = field(default_factory=list)
    words: list[str] = field(default_factory=list)  # the file's names and strings, in order

    def unused(self) -> list[str]:
        """Warnings for what only a TLA+ module checked directly uses."""
        out = []
        for word, entry in (("INIT", self.init), ("NEXT", self.next)):
            if entry is not None:
                out.append(f"{self.path}:{entry[1]}: {word} {entry[0]} is not used by modelcheck "
                           f"(it evaluates the spec's own Init and Next)")
        for word, entries in (("CONSTRAINT", self.constraints), ("ACTION_CONSTRAINT", self.action_constraints)):
            for name, line in entries:
                out.append(f"{self.path}:{line}: {word} {name} is not used by modelcheck "
                           f"(it evaluates the spec's own Init and Next)")
        return out


def _tokens(text: str, path: str) -> list[tuple[str, str, int]]:
    out = []
    pos, line = 0, 1
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if not m:
            snippet = text[pos:pos + 20].split("\n")[0]
            raise InputError(f"{path}:{line}: cannot read {snippet!r}")
        kind = m.lastgroup
        if kind == "block_comment":
            depth, i = 1, m.end()
            while depth and i < len(text):
                if text.startswith("(*", i):
                    depth, i = depth + 1, i + 2
                elif text.startswith("*)", i):
                    depth, i = depth - 1, i + 2
                else:
                    i += 1
            if depth:
                raise InputError(f"{path}:{line}: unterminated (* comment")
            line += text.count("\n", pos, i)
            pos = i
            continue
        if kind == "newline":
            line += 1
        elif kind not in ("space", "line_comment"):
            out.append((kind, m.group(), line))
        pos = m.end()
    return out


def parse_config(text: str, path: str = "<cfg>") -> ConfigFile:
    toks = _tokens(text, path)
    cfg = _Reader(toks, path).config()
    cfg.words = [t[1] if t[0] == "ident" else t[1][1:-1] for t in toks if t[0] in ("ident", "string")]
    return cfg


class _Reader:
    """The tokens of one .cfg, read section by section into a ConfigFile.
    Each section runs up to the next keyword; each error names the line."""

    def __init__(self, toks: list[tuple[str, str, int]], path: str):
        self.toks, self.path, self.i = toks, path, 0
        self.cfg = ConfigFile(path)

    def config(self) -> ConfigFile:
        sections = {"CONSTANT": self.constants, "CONSTANTS": self.constants,
                    "INVARIANT": self.invariants, "INVARIANTS": self.invariants,
                    "PROPERTY": self.properties, "PROPERTIES": self.properties, "SPECIFICATION": self.properties,
                    "SYMMETRY": self.symmetry, "VIEW": self.view, "CHECK_DEADLOCK": self.check_deadlock,
                    "INIT": self.behaviour, "NEXT": self.behaviour, "CONSTRAINT": self.constraint,
                    "CONSTRAINTS": self.constraint, "ACTION_CONSTRAINT": self.constraint,
                    "ACTION_CONSTRAINTS": self.constraint}
        while self.i < len(self.toks):
            kind, word, line = self.toks[self.i]
            if kind != "ident" or word not in KEYWORDS:
                self.fail(line, f"expected a section keyword such as CONSTANTS or INVARIANT, got {word!r}")
            self.i += 1
            sections.get(word, self.skipped)(word, line)
        return self.cfg

    # --- the cursor ------------------------------------------------------------
    def fail(self, line: int, message: str) -> NoReturn:
        raise InputError(f"{self.path}:{line}: {message}")

    def peek(self):
        return self.toks[self.i] if self.i < len(self.toks) else None

    def at_keyword(self) -> bool:
        t = self.peek()
        return t is not None and t[0] == "ident" and t[1] in KEYWORDS

    def section(self) -> list[tuple[str, str, int]]:
        """The tokens up to the next keyword (or the end), consumed."""
        start = self.i
        while self.i < len(self.toks) and not self.at_keyword():
            self.i += 1
        return self.toks[start:self.i]

    def names(self, what: str) -> list[str]:
        """A section that lists names: each an identifier."""
        found = self.section()
        for kind, name, line in found:
            if kind != "ident":
                self.fail(line, f"expected {what} name, got {name!r}")
        return [name for _, name, _ in found]

    def value(self) -> str:
        """A constant's value, in TLA+ notation: a number, a name, a string,
        TRUE/FALSE, or a set, tuple or record of them; an interval lo..hi.
        Given back as text with its tokens joined (``modelcheck.language.constants``
        reads it)."""
        t = self.peek()
        if t is None:
            self.fail(self.toks[-1][2], "a value is missing at the end of the file")
        kind, text, line = t
        self.i += 1
        if kind == "number":
            nxt = self.peek()
            if nxt is not None and nxt[1] == "..":
                self.i += 1
                hi = self.peek()
                if hi is None or hi[0] != "number":
                    self.fail(line, "an interval lo..hi needs two numbers")
                self.i += 1
                return f"{text}..{hi[1]}"
            return text
        if kind in ("ident", "string"):
            return text
        closing = {"{": "}", "<<": ">>", "[": "]"}.get(text)
        if closing is None:
            self.fail(line, f"expected a value, got {text!r}")
        what = {"{": "a set", "<<": "a tuple", "[": "a record"}[text]
        items = []
        while True:
            t = self.peek()
            if t is None:
                self.fail(line, f"unclosed {text}")
            if t[1] == closing:
                self.i += 1
                return text + ",".join(items) + closing
            if text == "[":
                name = self.peek()
                if name[0] != "ident":
                    self.fail(name[2], f"expected a field name in {what}, got {name[1]!r}")
                self.i += 1
                arrow = self.peek()
                if arrow is None or arrow[1] != "|->":
                    self.fail(name[2], f"expected |-> after field {name[1]}")
                self.i += 1
                items.append(f"{name[1]} |-> {self.value()}")
            else:
                items.append(self.value())
            t = self.peek()
            if t is not None and t[1] == ",":
                self.i += 1
            elif t is None or t[1] != closing:
                self.fail((t or self.toks[-1])[2], f"expected , or {closing} in {what}")

    # --- the sections ------------------------------------------------------------
    def constants(self, word: str, line: int) -> None:
        cfg = self.cfg
        while self.i < len(self.toks) and not self.at_keyword():
            name_kind, name, name_line = self.toks[self.i]
            if name_kind != "ident":
                self.fail(name_line, f"expected a constant name, got {name!r}")
            self.i += 1
            op = self.peek()
            if op is None or op[1] not in ("=", "<-"):
                self.fail(name_line, f"expected = after constant {name}")
            self.i += 1
            if op[1] != "<-" and (name in cfg.constants or name in cfg.substitutions or name in cfg.model_values):
                self.fail(name_line, f"constant {name} is given twice")
            if op[1] == "<-":
                module = None
                if self.peek() is not None and self.peek()[1] == "[":  # <-[Module] Definition
                    self.i += 1
                    found = self.peek()
                    if found is None or found[0] != "ident" or self.i + 1 >= len(self.toks) \
                            or self.toks[self.i + 1][1] != "]":
                        self.fail(name_line, f"{name} <-[Module] Definition: expected a module name in brackets")
                    module, self.i = found[1], self.i + 2
                target = self.peek()
                if target is None or target[0] != "ident":
                    self.fail(name_line, f"{name} <- ...: expected the name of a definition")
                self.i += 1
                key = name if module is None else f"{name}[{module}]"  # one per module
                if key in cfg.substitutions or (module is None and (name in cfg.constants or name in cfg.model_values)):
                    self.fail(name_line, f"constant {name} is given twice")
                cfg.substitutions[key] = (target[1], name_line, module)
                cfg.order.append(name)
                continue
            v = self.value()
            cfg.order.append(name)
            if v == name:  # a model value declared as itself
                cfg.model_values[name] = name_line
                continue
            cfg.constants[name] = v
            cfg.constant_lines[name] = name_line
            if self.peek() is not None and self.peek()[1] == ",":
                self.i += 1

    def invariants(self, word: str, line: int) -> None:
        names = self.names("an invariant")
        if not names:
            self.fail(line, f"{word} names no invariant")
        self.cfg.invariants.extend(names)

    def properties(self, word: str, line: int) -> None:
        names = self.names(f"a {word.lower()}")
        if not names:
            self.fail(line, f"{word} names nothing")
        if word != "SPECIFICATION":
            self.cfg.properties.extend(names)
        elif len(names) > 1 or self.cfg.specification is not None:
            self.fail(line, "give one SPECIFICATION")
        else:
            self.cfg.specification = names[0]

    def symmetry(self, word: str, line: int) -> None:
        found = self.section()
        if not found:
            self.fail(line, "SYMMETRY names nothing")
        self.cfg.symmetry.append(("".join(t[1] for t in found), line))

    def view(self, word: str, line: int) -> None:
        found = self.section()
        if len(found) != 1 or found[0][0] != "ident":
            self.fail(line, "VIEW names one operator")
        self.cfg.view = (found[0][1], line)

    def check_deadlock(self, word: str, line: int) -> None:
        t = self.peek()
        if t is None or t[1] not in ("TRUE", "FALSE"):
            self.fail(line, "CHECK_DEADLOCK takes TRUE or FALSE")
        self.cfg.check_deadlock = t[1] == "TRUE"
        self.i += 1

    def behaviour(self, word: str, line: int) -> None:
        names = self.names(f"an {word.lower()}")
        if len(names) != 1:
            self.fail(line, f"{word} names one operator")
        if getattr(self.cfg, word.lower()) is not None:
            self.fail(line, f"give one {word}")
        setattr(self.cfg, word.lower(), (names[0], line))

    def constraint(self, word: str, line: int) -> None:
        names = self.names("a constraint")
        if not names:
            self.fail(line, f"{word} names nothing")
        target = self.cfg.action_constraints if word.startswith("ACTION") else self.cfg.constraints
        target.extend((n, line) for n in names)

    def skipped(self, word: str, line: int) -> None:
        names = " ".join(t[1] for t in self.section())
        self.cfg.warnings.append(f"{self.path}:{line}: {word} {names} is not used by modelcheck "
                                 f"(it evaluates the spec's own Init and Next)")


def read_config(path: str) -> ConfigFile:
    """A .cfg, from a regular file of at most ``reading.CONFIG_CAP`` bytes."""
    try:  # a byte-order mark, as some editors write, is fine
        text = read_text(path, "--config", CONFIG_CAP, encoding="utf-8-sig")
    except OSError as e:
        raise InputError(f"cannot read config {path}: {e.strerror or e}") from None
    except UnicodeDecodeError:
        raise InputError(f"{path}: not a text file") from None
    return parse_config(text, path)
