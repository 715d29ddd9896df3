"""A TLA+ module as the spec of a command: ``modelcheck run path/Spec.tla``.

The module is compiled by the TLA+ front-end (``modelcheck/tlaplus/``) with
its .cfg: ``--config``, else ``Spec.cfg`` beside it, as TLC does. ``--const
NAME=VALUE`` overrides a constant of the .cfg (values written as in a .cfg:
``3``, ``{a, b}``, ``"s"``, ``TRUE``). Modules the spec uses are found
beside it, then in the directories of ``MODELCHECK_TLA_PATH`` (separated as
PATH is), then among the modules modelcheck builds in.

A module is read as every spec file is (``modelcheck.loading.registry``,
whose ``FILE_LOADERS`` name ``tla_spec`` for the extension .tla). A
compiled module is kept for the rest of the process, so that the commands
that read the spec more than once (a run, then its trace) compile it once.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Sequence

from modelcheck.errors import InputError
from modelcheck.language.constants import parse_assignment
from modelcheck.loading.cfgfile import ConfigFile, read_config
from modelcheck.model.spec import SpecDefinition

TLA_PATH = "MODELCHECK_TLA_PATH"


def is_tla(name: str) -> bool:
    """Whether a command's SPEC argument names a TLA+ module file."""
    return name.endswith(".tla")


@dataclass
class LoadedModule:
    spec: SpecDefinition
    cfg: ConfigFile
    compiled: object  # modelcheck.tlaplus.compile.Compiled


_COMPILED: dict[tuple, LoadedModule] = {}

def tla_spec(path: str, absolute: str, data: bytes, digest: str, name: str, *,
             config: str | None = None, consts: Sequence[str] = ()) -> SpecDefinition:
    """A spec file's loader (``registry.FILE_LOADERS``): the module at
    ``absolute`` (read as ``data``) compiled with its .cfg and ``--const``
    overrides."""
    if name:
        raise InputError(f"{path}: a TLA+ module is named by its path alone (no :{name})")
    return load_module(path, config, consts).spec


def default_config(path: str) -> str:
    return os.path.splitext(path)[0] + ".cfg"


def search_path() -> tuple[str, ...]:
    value = os.environ.get(TLA_PATH, "")
    return tuple(p for p in value.split(os.pathsep) if p)


def load_module(path: str, config: str | None = None, consts: Sequence[str] = ()) -> LoadedModule:
    """The module at ``path`` compiled with its .cfg and ``--const`` overrides."""
    from modelcheck.tlaplus.compile import compile_module
    from modelcheck.tlaplus.config import TlaConfig
    from modelcheck.tlaplus.syntax import TlaError
    if not os.path.isfile(path):
        raise InputError(f"no TLA+ module at {path}")
    cfg_path = config or default_config(path)
    if not os.path.isfile(cfg_path):
        raise InputError(f"{path}: no model configuration {cfg_path} beside it; give one with --config FILE.cfg")
    given = dict(parse_assignment(text) for text in consts)
    key = (os.path.abspath(path), os.path.abspath(cfg_path), tuple(sorted(given.items())), search_path())
    if key in _COMPILED:
        return _COMPILED[key]
    cfg = read_config(cfg_path)
    tla_cfg = TlaConfig(
        path=cfg_path, constants=dict(cfg.constants), constant_lines=dict(cfg.constant_lines),
        substitutions={key: (op, mod) for key, (op, _, mod) in cfg.substitutions.items()},
        init=cfg.init[0] if cfg.init else None, next=cfg.next[0] if cfg.next else None,
        specification=cfg.specification, invariants=list(cfg.invariants), properties=list(cfg.properties),
        constraints=[n for n, _ in cfg.constraints], action_constraints=[n for n, _ in cfg.action_constraints],
        view=cfg.view[0] if cfg.view else None, symmetry=cfg.symmetry[0][0] if cfg.symmetry else None,
        check_deadlock=cfg.check_deadlock, words=list(cfg.words))
    for name in cfg.model_values:  # X = X: the constant X is the model value X
        tla_cfg.constants.setdefault(name, name)
    for name, text in given.items():
        for key in [k for k in tla_cfg.substitutions if k.split("[", 1)[0] == name]:
            del tla_cfg.substitutions[key]
        tla_cfg.constants[name] = text
    holder: list[LoadedModule] = []

    def widened(again) -> None:  # a search outgrew the learned bounds: the wider spec replaces this one
        holder[0].spec, holder[0].compiled = again.spec, again
    try:
        compiled = compile_module(path, tla_cfg, search_path(), on_widen=widened)
    except TlaError as e:
        raise InputError(str(e)) from None
    loaded = LoadedModule(compiled.spec, cfg, compiled)
    holder.append(loaded)
    _COMPILED[key] = loaded
    return loaded
