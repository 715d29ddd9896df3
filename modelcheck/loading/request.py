"""The part of every command's request that is the same for all of them.

``run``, ``sweep``, ``simulate``, ``prove``, ``graph``, ``replay`` and
``show`` read their input through these functions, each defined once:

* the spec, its constants (defaults, then the .cfg, then ``--const``) and
  the .cfg itself (``resolve``), or the constants given for a trace
  (``given_constants``);
* the invariants to check (``choose_invariants``) and the temporal
  properties with the specification they are checked under
  (``choose_properties``);
* the bounds a search may be given (``check_bounds``);
* warnings, one line each on stderr (``warn``).

Where a command may write is checked by ``modelcheck/runtime/destinations.py``, and
what it exits with is ``modelcheck/exitcodes.py``.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field
from typing import Any, Sequence

from modelcheck.loading.cfgfile import read_config
from modelcheck.loading.registry import load_file
from modelcheck.loading.tla import is_tla, load_module
from modelcheck.language.constants import Constants, check_bounds as check_constant_bounds, parse_assignment, parse_value
from modelcheck.language.notation import literal_model_values, read_literal
from modelcheck.errors import InputError, no_such
from modelcheck.model.spec import SpecDefinition


@dataclass
class Resolved:
    """A command's spec, its constants and its .cfg (None without --config)."""

    spec: SpecDefinition
    constants: Constants
    cfg: Any = None
    warnings: list[str] = field(default_factory=list)


def spec_named(name: str) -> SpecDefinition:
    """A command's SPEC: a registered name or the path of a spec file
    (``modelcheck.loading.registry``)."""
    from modelcheck.loading.registry import find_spec
    return find_spec(name)


def spec_for_trace(path: str, given: str | None, recorded: str | None, source: dict | None,
                   consts: Sequence[str] = ()) -> SpecDefinition:
    """The spec a trace is read against: the one named (a name or a spec
    file), else the one the trace records (its spec file, where it was
    loaded from one, else its name). A TLA+ module is compiled with its
    constants: ``--const`` given here, else those the trace records."""
    from modelcheck.loading.registry import from_source
    if given and is_tla(given) and not consts and isinstance(source, dict) \
            and source.get("file") == os.path.realpath(given):
        return from_source(source, recorded)  # the module the trace records, with the .cfg it was checked with
    if given and is_tla(given):
        return load_file(given, consts=tuple(consts))
    if given:
        return spec_named(given)
    found = from_source(source, recorded) if source else None
    if found is not None:
        recorded_digest = source.get("sha256") if isinstance(source, dict) else None
        if recorded_digest and found.loaded_from is not None and found.loaded_from.digest != recorded_digest:
            warn([f"spec file {source.get('file')} has changed since {path} was written; the trace is read "
                  f"against its current text"])
        return found
    if not recorded:
        raise InputError(f"{path} does not say which spec it is a trace of; name it with --spec")
    return spec_named(recorded)


def given_constants(consts: Sequence[str]) -> dict[str, str]:
    """``--const NAME=VALUE`` assignments, by name (the last one wins)."""
    return dict(parse_assignment(text) for text in consts)


def resolve(spec_name: str, consts: Sequence[str] = (), config: str | None = None) -> Resolved:
    """The spec, its constants (defaults < .cfg < --const) and the .cfg, if
    any; the .cfg's warnings are kept for the command to show. A TLA+
    module (a path ending in .tla) is compiled with its .cfg (``--config``,
    else the one beside it) and the --const values (``modelcheck/loading/tla.py``)."""
    if is_tla(spec_name):
        if config == OWN_CONFIG:  # a module's own settings: the .cfg beside it, as TLC reads it
            config = None
        spec = load_file(spec_name, config=config, consts=tuple(consts))
        loaded = load_module(spec_name, config, consts)
        return Resolved(spec, spec.resolve_constants(), loaded.cfg, list(loaded.cfg.warnings))
    spec = spec_named(spec_name)
    cfg = (own_config(spec) if config == OWN_CONFIG else read_config(config)) if config else None
    given: dict[str, str] = {}
    warnings = list(cfg.warnings) + cfg.unused() if cfg else []
    named_first: list[str] = []
    if cfg:
        given, named_first = config_constants(spec, cfg, warnings)
    given.update(given_constants(consts))
    return Resolved(spec, spec.resolve_constants(given, named_first=named_first), cfg, warnings)


def config_constants(spec: SpecDefinition, cfg, warnings: list[str]) -> tuple[dict[str, str], list[str]]:
    """The constants a .cfg gives the spec, as --const texts in the file's
    order: values, model values declared as themselves (``None = None``) and
    substitutions (``Acceptor <- MCAcceptor``, from the spec's
    ``definitions``); and the model values it names, in the order it names
    them (TLC's order of model values). Each error names its line."""
    decls = {d.name: d for d in spec.constants}
    given: dict[str, str] = {}
    named: list[str] = []

    def where(line: int) -> str:
        return f"{cfg.path}:{line}"

    def check(name: str, text: str, line: int) -> None:
        if name not in decls:
            raise InputError(f"{where(line)}: " + no_such(f"{spec.name} has no constant", name, decls, "its constants"))
        try:  # a bad value is reported at its line
            check_constant_bounds(decls[name], parse_value(decls[name], text))
        except InputError as e:
            raise InputError(f"{where(line)}: {e}") from None
        given[name] = text
        named.extend(literal_model_values(read_literal(text, name)))

    substitutions = {}
    for key, (definition, line, module) in cfg.substitutions.items():
        name = key.split("[", 1)[0]
        if module is not None and module != spec.module:
            warnings.append(f"{where(line)}: {name} <-[{module}] {definition} applies to module {module}, which "
                            f"{spec.name} (module {spec.module}) does not have; ignored")
            continue
        substitutions[name] = (definition, line)
    for name in cfg.order:
        if name in cfg.model_values and name not in given:
            named.append(name)
            if name in decls:  # a model-value constant (Paxos' None = None)
                check(name, name, cfg.model_values[name])
        elif name in cfg.constants and name not in given:
            check(name, cfg.constants[name], cfg.constant_lines[name])
        elif name in substitutions and name not in given:
            definition, line = substitutions[name]
            if definition not in spec.definitions:
                offered = ", ".join(spec.definitions) or "none"
                raise InputError(f"{where(line)}: {name} <- {definition}: {spec.name} has no definition "
                                 f"{definition!r} (its definitions: {offered})")
            value = spec.definitions[definition]
            check(name, value if isinstance(value, str) else definition_text(value), line)
    return given, named


def definition_text(value: Any) -> str:
    """A definition given as a Python value, in TLA+ notation."""
    from modelcheck.language.values import show
    if isinstance(value, (list, tuple, set, frozenset)) and not isinstance(value, str):
        return "{" + ", ".join(definition_text(v) for v in value) + "}"
    return show(value)


OWN_CONFIG = "default"  # --config default: the spec's own settings, as its module's .cfg gives them


def own_config(spec: SpecDefinition):
    """``--config default``: the settings the spec runs with when given no
    .cfg (its constants' defaults, which it leaves as they are, its default
    invariants and, for a spec counted under its module's VIEW, the VIEW),
    as a .cfg would give them. For a ported module these are its own .cfg's,
    which is not shipped (upstream files are not the project's): this is the
    project's reading of it."""
    from modelcheck.loading.cfgfile import ConfigFile
    cfg = ConfigFile(f"{spec.name}'s own settings (--config default)", invariants=list(spec.default_invariants))
    if spec.view and spec.view_default:
        cfg.view = ("view", 0)
    return cfg


def choose_invariants(spec: SpecDefinition, requested: Sequence[str], cfg=None, *, defaults: bool = True,
                      lemmas: bool = False, recorded: str | None = None) -> tuple[str, ...]:
    """The invariants to check: ``--inv``, else the .cfg's INVARIANT lines,
    else the spec's defaults (unless ``defaults`` is off: a run that names
    temporal properties checks only the invariants it names), with the
    invariant a trace file records added to the defaults, and the spec's
    lemmas with ``lemmas``. Each is checked to exist; repeats are dropped."""
    names = list(requested) or list(cfg.invariants if cfg and cfg.invariants else ())
    if not names and defaults:
        names = list(spec.default_invariants)
        if recorded and recorded in spec.invariant_names() and recorded not in names:
            names.append(recorded)
    if lemmas:
        if not spec.lemmas:
            raise InputError(f"{spec.name} offers no lemmas (--lemmas); name invariants with --inv instead")
        names += list(spec.lemmas)
    spec.check_invariant_names(names)
    return tuple(dict.fromkeys(names))


def choose_properties(spec: SpecDefinition, requested: Sequence[str], cfg, specification: str | None,
                      warnings: list[str]):
    """``(properties, specification)``: the temporal properties to check
    (--prop, else the .cfg's PROPERTY lines) and the specification they are
    checked under (--specification, else the .cfg's, else Spec); ``()`` and
    None without properties. An unknown name is refused even without them."""
    properties = tuple(dict.fromkeys(requested or (cfg.properties if cfg else ())))
    spec.check_property_names(properties)
    name = specification or (cfg.specification if cfg else None)
    chosen = spec.specification(name)
    if specification and not properties:
        warnings.append(f"--specification {name} only matters for temporal properties; name them with --prop")
    return (properties, chosen) if properties else ((), None)


def check_bounds(max_depth: int | None = None, max_states: int | None = None) -> None:
    """--max-depth and --max-states, where given, are at least 1."""
    for option, value in (("--max-depth", max_depth), ("--max-states", max_states)):
        if value is not None and value < 1:
            raise InputError(f"{option} must be at least 1, got {value}")


def warn(messages: Sequence[str]) -> None:
    """Each message as one ``modelcheck: warning:`` line on stderr."""
    for m in messages:
        print(f"modelcheck: warning: {m}", file=sys.stderr)
