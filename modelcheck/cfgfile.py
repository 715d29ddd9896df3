"""Reading TLC model configuration files (.cfg).

modelcheck takes CONSTANT(S), INVARIANT(S), CHECK_DEADLOCK, SYMMETRY (what it
names is interpreted in modelcheck/canonical.py), SPECIFICATION (the name of
one of the spec's named specifications), PROPERTY/PROPERTIES (its temporal
properties) and VIEW (for a spec that defines one) from them.
Other sections (INIT, NEXT, CONSTRAINT...) name TLA+ operators modelcheck does
not evaluate; they are skipped with a warning. Model-value declarations such as ``r1 = r1`` are accepted
and need nothing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from modelcheck.errors import InputError
from modelcheck.reading import CONFIG_CAP, read_text

USED = {"CONSTANT", "CONSTANTS", "INVARIANT", "INVARIANTS", "CHECK_DEADLOCK", "SYMMETRY", "SPECIFICATION",
        "PROPERTY", "PROPERTIES", "VIEW"}
SKIPPED = {"INIT", "NEXT", "CONSTRAINT", "CONSTRAINTS",
           "ACTION_CONSTRAINT", "ACTION_CONSTRAINTS", "POSTCONDITION", "ALIAS"}
KEYWORDS = USED | SKIPPED

_TOKEN = re.compile(r"""
    (?P<space>[ \t\r]+)
  | (?P<newline>\n)
  | (?P<line_comment>\\\*[^\n]*)
  | (?P<block_comment>\(\*)
  | (?P<arrow><-)
  | (?P<punct>[={},\[\]()])
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
    cfg = ConfigFile(path)
    toks = _tokens(text, path)
    i = 0

    def peek(k=0):
        return toks[i + k] if i + k < len(toks) else None

    def at_keyword() -> bool:
        t = peek()
        return t is not None and t[0] == "ident" and t[1] in KEYWORDS

    def value() -> str:
        nonlocal i
        t = peek()
        if t is None:
            raise InputError(f"{path}:{toks[-1][2]}: a value is missing at the end of the file")
        kind, text_, line = t
        if kind in ("number", "ident", "string"):
            i += 1
            return text_
        if text_ == "{":
            i += 1
            items = []
            while True:
                t = peek()
                if t is None:
                    raise InputError(f"{path}:{line}: unclosed {{")
                if t[1] == "}":
                    i += 1
                    break
                items.append(value())
                t = peek()
                if t is not None and t[1] == ",":
                    i += 1
                elif t is None or t[1] != "}":
                    raise InputError(f"{path}:{(t or toks[-1])[2]}: expected , or }} in a set")
            return "{" + ",".join(items) + "}"
        raise InputError(f"{path}:{line}: expected a value, got {text_!r}")

    while i < len(toks):
        kind, word, line = toks[i]
        if kind != "ident" or word not in KEYWORDS:
            raise InputError(f"{path}:{line}: expected a section keyword such as CONSTANTS or INVARIANT, got {word!r}")
        i += 1
        if word in ("CONSTANT", "CONSTANTS"):
            while i < len(toks) and not at_keyword():
                name_kind, name, name_line = toks[i]
                if name_kind != "ident":
                    raise InputError(f"{path}:{name_line}: expected a constant name, got {name!r}")
                i += 1
                op = peek()
                if op is None or op[1] not in ("=", "<-"):
                    raise InputError(f"{path}:{name_line}: expected = after constant {name}")
                i += 1
                if op[1] == "<-":
                    target = value()
                    raise InputError(f"{path}:{name_line}: {name} <- {target}: operator substitution is not "
                                     f"supported; give the value directly ({name} = ...)")
                v = value()
                if v == name:
                    continue  # a model value declared as itself
                if name in cfg.constants:
                    raise InputError(f"{path}:{name_line}: constant {name} is given twice")
                cfg.constants[name] = v
                cfg.constant_lines[name] = name_line
                if peek() is not None and peek()[1] == ",":
                    i += 1
        elif word in ("INVARIANT", "INVARIANTS"):
            start = i
            while i < len(toks) and not at_keyword():
                k, name, l2 = toks[i]
                if k != "ident":
                    raise InputError(f"{path}:{l2}: expected an invariant name, got {name!r}")
                cfg.invariants.append(name)
                i += 1
            if i == start:
                raise InputError(f"{path}:{line}: {word} names no invariant")
        elif word in ("PROPERTY", "PROPERTIES", "SPECIFICATION"):
            start = i
            while i < len(toks) and not at_keyword():
                k, name, l2 = toks[i]
                if k != "ident":
                    raise InputError(f"{path}:{l2}: expected a {word.lower()} name, got {name!r}")
                i += 1
            names = [t[1] for t in toks[start:i]]
            if not names:
                raise InputError(f"{path}:{line}: {word} names nothing")
            if word == "SPECIFICATION":
                if len(names) > 1 or cfg.specification is not None:
                    raise InputError(f"{path}:{line}: give one SPECIFICATION")
                cfg.specification = names[0]
            else:
                cfg.properties.extend(names)
        elif word == "SYMMETRY":
            start = i
            while i < len(toks) and not at_keyword():
                i += 1
            if i == start:
                raise InputError(f"{path}:{line}: SYMMETRY names nothing")
            cfg.symmetry.append(("".join(t[1] for t in toks[start:i]), line))
        elif word == "VIEW":
            start = i
            while i < len(toks) and not at_keyword():
                i += 1
            names = [t[1] for t in toks[start:i]]
            if len(names) != 1 or toks[start][0] != "ident":
                raise InputError(f"{path}:{line}: VIEW names one operator")
            cfg.view = (names[0], line)
        elif word == "CHECK_DEADLOCK":
            t = peek()
            if t is None or t[1] not in ("TRUE", "FALSE"):
                raise InputError(f"{path}:{line}: CHECK_DEADLOCK takes TRUE or FALSE")
            cfg.check_deadlock = t[1] == "TRUE"
            i += 1
        else:
            start = i
            while i < len(toks) and not at_keyword():
                i += 1
            names = " ".join(t[1] for t in toks[start:i])
            cfg.warnings.append(f"{path}:{line}: {word} {names} is not used by modelcheck "
                                f"(it evaluates the spec's own Init and Next)")
    return cfg


def read_config(path: str) -> ConfigFile:
    """A .cfg, from a regular file of at most ``reading.CONFIG_CAP`` bytes."""
    try:  # a byte-order mark, as some editors write, is fine
        text = read_text(path, "--config", CONFIG_CAP, encoding="utf-8-sig")
    except OSError as e:
        raise InputError(f"cannot read config {path}: {e.strerror or e}") from None
    except UnicodeDecodeError:
        raise InputError(f"{path}: not a text file") from None
    return parse_config(text, path)
