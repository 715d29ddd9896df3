"""Symmetry as a capability: the checks of a request for it, and its note.

The renamings themselves are ``modelcheck.language.renaming`` (re-exported here);
the search on orbit representatives is ``modelcheck.search.canonical``. Which
engines keep one state per orbit is declared in the engine registry.
"""

from __future__ import annotations

from modelcheck.language.constants import REPLICA, MemberOf
from modelcheck.errors import InputError
from modelcheck.language.renaming import rename_instances, rename_state, renamings, symmetric_constant

__all__ = ["check_symmetry_request", "symmetry_requested", "symmetry_from_config", "symmetry_note", "rename_instances", "rename_state",
           "renamings", "symmetric_constant"]


def check_symmetry_request(model, engine: str | None = None) -> None:
    """Refuse --symmetry, before any search, where it would be unsound or
    meaningless: on an engine that does not keep orbits (the registry says
    which do; by default the reference engine), or on a spec whose replicas
    are not interchangeable."""
    from modelcheck.engines import REFERENCE_ENGINE, require
    from modelcheck.engines.contract import SYMMETRY
    require(engine or REFERENCE_ENGINE, SYMMETRY)
    spec = model.spec
    constant = symmetric_constant(model)
    if constant is None:
        raise InputError(f"--symmetry: {spec.name} declares none of its constants symmetric, "
                         f"so there is nothing to permute")
    named = [d.name for d in spec.constants
             if d.kind == REPLICA or (isinstance(d.kind, MemberOf) and d.kind.constant == constant)]
    if named:
        raise InputError(f"--symmetry: {spec.name}'s constant {named[0]} names one of the {constant} "
                         f"specifically, so they are not interchangeable")
    from modelcheck.search.canonical import replica_roles
    replica_roles(model)  # a state the renaming cannot reach is refused here


def symmetry_requested(requested: bool, cfg, model, engine: str, warnings: list[str]) -> bool:
    """Whether to keep one state per orbit: ``--symmetry``, or a .cfg SYMMETRY
    line (with a note on how it is read); refused where it cannot be had."""
    wanted = requested or symmetry_from_config(cfg, model, warnings)
    if wanted:
        check_symmetry_request(model, engine)
    return wanted


def symmetry_from_config(cfg, model, notes: list[str]) -> bool:
    """Whether a .cfg's SYMMETRY lines ask for symmetry, with a note on how each is read.

    TLC's SYMMETRY names a definition in the .tla, which modelcheck does not
    read; it is taken to be the permutations of the spec's symmetric
    constant. ``Permutations(C)`` is accepted too, for a symmetric C.
    """
    if cfg is None or not cfg.symmetry:
        return False
    spec = model.spec
    constant = symmetric_constant(model)
    for text, line in cfg.symmetry:
        where = f"{cfg.path}:{line}: SYMMETRY {text}"
        if constant is None and spec.widen is not None:  # a TLA+ module read directly
            raise InputError(f"{where}: modelcheck does not apply SYMMETRY to a TLA+ module read directly yet; "
                             f"remove the line to check every state (compare with TLC's counts without it)")
        if constant is None:
            raise InputError(f"{where}: {spec.name} declares none of its constants symmetric")
        if text.startswith("Permutations(") and text.endswith(")"):
            named = text[len("Permutations("):-1]
            if named != constant:
                raise InputError(f"{where}: {named} is not a symmetric constant of {spec.name} "
                                 f"(only {constant} is); use Permutations({constant})")
            notes.append(f"{where}: one state per orbit under renamings of {constant}")
            continue
        if not text.isidentifier():
            raise InputError(f"{where}: expected the name of a permutation set, such as Permutations({constant})")
        if text in {d.name for d in spec.constants}:
            raise InputError(f"{where}: {text} is a constant, not a set of permutations; "
                             f"use Permutations({constant})")
        notes.append(f"{where}: taken to mean Permutations({constant}) (the .tla's definition is not read): "
                     f"one state per orbit under renamings of {constant}")
    return True


def symmetry_note(model) -> str:
    constant = symmetric_constant(model)
    return (f"symmetry: distinct states count orbits under renamings of {constant}; "
            f"a trace is mapped back to a genuine behaviour")
