"""Resolution: modules found where TLC finds them, and the names each one sees.

A spec's module is read with the modules it uses: each is looked for beside
the spec, then in the directories of the search path, and the standard and
community modules modelcheck builds in (``builtins.py``) need no file at all.
A built-in module found as a file (the community modules are often copied
beside a spec) is read for its other definitions, and its built-in operators
stay built in, as TLC's Java overrides do.

Each module instance is a ``Scope``: every name it sees, bound to a
``Definition``:

* ``OpBinding``: an operator (or function) defined in TLA+, with the scope
  its body is read in;
* ``Builtin``: an operator of a standard or community module, in Python;
* ``Constant`` / ``Variable``: a constant or variable of the spec itself;
* ``Substituted``: a constant or variable of an instantiated module, which
  stands for an expression of the instantiating scope
  (``INSTANCE M WITH x <- e``; a name not given is substituted by the same
  name, as TLA+ says);
* ``NamedInstance``: ``I == INSTANCE M ...``, reached as ``I!Op``.

EXTENDS brings in every definition the extended module exports (LOCAL ones
stay behind) and shares its constants and variables; an unnamed INSTANCE
brings in the instance's definitions.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any, Sequence

from modelcheck.tlaplus.parse import parse_module
from modelcheck.tlaplus.syntax import (Assumption, Builtin, ConstantDecl, InstanceDef, Loc, Module, Node, OpDef,  # noqa: F401
                                       TlaError, VariableDecl)

# What a .tla file may be at most (a spec's modules are small; this only stops a mistaken path)
MODULE_CAP = 4 << 20


@dataclass
class OpBinding:
    opdef: OpDef
    scope: "Scope"

    @property
    def name(self) -> str:
        return self.opdef.name


@dataclass
class Constant:
    name: str
    loc: Loc
    arity: int = 0


@dataclass
class Variable:
    name: str
    loc: Loc


@dataclass
class Substituted:
    """A constant or variable of an instantiated module: ``expr`` read in ``scope``
    with the instance's parameters bound as in ``env``."""

    name: str
    expr: Node
    scope: "Scope"
    env: dict


@dataclass
class NamedInstance:
    name: str
    instance: InstanceDef
    scope: "Scope"  # the instantiating scope
    cache: dict = field(default_factory=dict)


class Scope:
    """The names one module instance sees (``defs``) and those it exports
    (``exported``: all but its LOCAL ones)."""

    def __init__(self, module: Module, root: "Program"):
        self.module = module
        self.program = root
        self.defs: dict[str, Any] = {}
        self.exported: dict[str, Any] = {}
        self.assumptions: list[tuple[Node, "Scope"]] = []

    def define(self, name: str, definition: Any, local: bool) -> None:
        self.defs[name] = definition
        if not local:
            self.exported[name] = definition
        elif name in self.exported:
            del self.exported[name]

    def lookup(self, name: str):
        return self.defs.get(name)

    def __repr__(self) -> str:
        return f"Scope({self.module.name})"


class Program:
    """A spec's module with every module it uses: parsed once each, found on
    the search path, and resolved into the root ``scope``."""

    def __init__(self, root_path: str, search: Sequence[str] = ()):
        from modelcheck.tlaplus import builtins
        self.builtins = builtins
        self.root_path = os.path.abspath(root_path)
        self.search = [os.path.dirname(self.root_path)] + [os.path.abspath(p) for p in search]
        self.parsed: dict[str, Module] = {}
        self.order: list[str] = []  # the modules in the order they were read
        root = self._read_file(self.root_path)
        self.root_module = root
        self.scope = self.instantiate(root, None)

    # --- finding and reading modules ----------------------------------------------------
    def find(self, name: str, where: Loc) -> Module | None:
        """The module named ``name``: parsed from a file on the search path, or
        None for a built-in module with no file."""
        if name in self.parsed:
            return self.parsed[name]
        for d in self.search:
            path = os.path.join(d, name + ".tla")
            if os.path.isfile(path):
                mod = self._read_file(path)
                if mod.name != name:
                    raise TlaError(f"{path} holds module {mod.name}, not {name}", mod.loc)
                return mod
        if name in self.builtins.MODULES:
            return None
        places = ", ".join(self.search)
        raise TlaError(f"cannot find module {name} (looked in {places}; modelcheck builds in "
                       f"{', '.join(sorted(self.builtins.MODULES))})", where)

    def _read_file(self, path: str) -> Module:
        try:
            size = os.path.getsize(path)
            if size > MODULE_CAP:
                raise TlaError(f"{path} is {size:,} bytes, more than a TLA+ module modelcheck reads "
                               f"({MODULE_CAP:,})")
            with open(path, encoding="utf-8-sig") as f:
                text = f.read()
        except OSError as e:
            raise TlaError(f"cannot read {path}: {e.strerror or e}") from None
        except UnicodeDecodeError:
            raise TlaError(f"{path} is not a text file") from None
        mod = parse_module(text, path)
        self.parsed[mod.name] = mod
        self.order.append(mod.name)
        return mod

    def words(self) -> list[str]:
        """Every name of every module read, in the order TLC's parser meets them:
        the root module first, then the others as they were found."""
        out: list[str] = []
        for name in self.order:
            out.extend(self.parsed[name].words)
        return out

    # --- scopes ----------------------------------------------------------------------
    def instantiate(self, module: Module, subs: dict | None, importer: "Scope | None" = None) -> Scope:
        """The scope of ``module``; ``subs`` maps its constants and variables to
        what they stand for (None: it is the spec itself or extended by it)."""
        scope = Scope(module, self)
        for name, b in self.builtins.core().items():  # BOOLEAN and STRING need no module
            scope.define(name, b, True)
        for name, where in module.extends:
            self._extend(scope, name, where, subs, importer)
        for unit in module.units:
            self._unit(scope, unit, subs, importer)
        return scope

    def builtin_scope(self, name: str) -> dict[str, Builtin]:
        return dict(self.builtins.MODULES[name]())

    def _extend(self, scope: Scope, name: str, where: Loc, subs, importer) -> None:
        if name in self.builtins.MODULES:
            for op, b in self.builtin_scope(name).items():
                scope.define(op, b, False)
        mod = self.find(name, where)
        if mod is None:
            return
        inner = self.instantiate(mod, subs, importer)
        overrides = self.builtin_scope(name) if name in self.builtins.MODULES else {}
        for op, d in inner.exported.items():
            scope.define(op, overrides.get(op, d), False)
        scope.assumptions.extend(inner.assumptions)

    def _unit(self, scope: Scope, unit, subs, importer) -> None:
        if isinstance(unit, ConstantDecl):
            scope.define(unit.name, self._declared(unit.name, unit.loc, subs, importer, Constant(unit.name, unit.loc,
                                                                                                  unit.arity)), False)
        elif isinstance(unit, VariableDecl):
            scope.define(unit.name, self._declared(unit.name, unit.loc, subs, importer,
                                                   Variable(unit.name, unit.loc)), False)
        elif isinstance(unit, OpDef):
            scope.define(unit.name, OpBinding(unit, scope), unit.local)
        elif isinstance(unit, InstanceDef):
            if unit.name is not None:
                scope.define(unit.name, NamedInstance(unit.name, unit, scope), unit.local)
            else:
                inner = self.instance_scope(unit, scope, {})
                for op, d in inner.exported.items():
                    scope.define(op, d, unit.local)
        elif isinstance(unit, Assumption):
            scope.assumptions.append((unit.expr, scope))

    def _declared(self, name: str, where: Loc, subs, importer, own):
        if subs is None:
            return own
        if name in subs:
            return subs[name]
        found = importer.lookup(name) if importer is not None else None
        if found is None:
            raise TlaError(f"INSTANCE gives no value for {name}, and the instantiating module has no {name} "
                           f"to stand for it", where)
        return found

    def instance_scope(self, inst: InstanceDef, importer: Scope, env: dict) -> Scope:
        mod = self.find(inst.module, inst.loc)
        if mod is None:
            raise TlaError(f"INSTANCE of the built-in module {inst.module} is not supported; use EXTENDS",
                           inst.loc)
        subs = {target: Substituted(target, expr, importer, env) for target, expr in inst.substitutions}
        return self.instantiate(mod, subs, importer)

    def named_instance_scope(self, ni: NamedInstance, args: tuple, env: dict) -> Scope:
        """The scope of ``I!...`` (of ``I(a, b)!...`` with the arguments' values)."""
        key = args
        if key not in ni.cache:
            bound = dict(env)
            bound.update({p: a for (p, _), a in zip(ni.instance.params, args)})
            ni.cache[key] = self.instance_scope(ni.instance, ni.scope, bound)
        return ni.cache[key]

    # --- what the spec declares ----------------------------------------------------------
    def constants(self) -> list[Constant]:
        return [d for d in self.scope.defs.values() if isinstance(d, Constant)]

    def variables(self) -> list[str]:
        """The spec's variables, in the order they are declared (extended modules first)."""
        seen: list[str] = []
        self._collect_variables(self.root_module, seen, set())
        return seen

    def _collect_variables(self, mod: Module, out: list[str], visited: set) -> None:
        if mod.name in visited:
            return
        visited.add(mod.name)
        for name, where in mod.extends:
            inner = self.find(name, where)
            if inner is not None:
                self._collect_variables(inner, out, visited)
        for unit in mod.units:
            if isinstance(unit, VariableDecl) and unit.name not in out:
                out.append(unit.name)


def subexpression(scope: "Scope", name: str, positions: Sequence[int], loc: Loc) -> tuple[Node, "Scope"]:
    """``Op!1!2``: the part of a definition's body at those positions (the k-th
    item of a conjunction or disjunction list, or the k-th operand of an
    operator), with the scope it is read in."""
    d = scope.lookup(name)
    shown = f"{name}!{'!'.join(map(str, positions))}"
    if not isinstance(d, OpBinding) or d.opdef.params:
        raise TlaError(f"{shown}: {name} is no definition without arguments", loc)
    node = d.opdef.body
    for k in positions:
        if node.kind in ("and", "or"):
            parts = node.args
        elif node.kind == "op":
            parts = node.args[1:]
        else:
            parts = ()
        if not 1 <= k <= len(parts):
            raise TlaError(f"{shown}: the body of {name} has no part {k} there", loc)
        node = parts[k - 1]
    return node, d.scope
