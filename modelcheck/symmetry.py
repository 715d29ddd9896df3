"""Renaming interchangeable model values, as TLC's SYMMETRY does.

A spec may declare constants whose model values are interchangeable
(``SpecDefinition.symmetry``, e.g. ``("Replicas",)``): swapping r1 and r2
everywhere maps Init to Init, each action instance to its renamed
counterpart and every invariant onto itself. Engines may use that to prune
(see ``modelcheck/backends/z3_reductions.py``). The declaration is a claim
about the spec; ``rename_state`` and ``rename_instances`` let the tests check
it on every reachable state of small models. The explicit engines keep one
state per orbit when asked (``--symmetry``, or a .cfg SYMMETRY line); the
checks of that request live here, the search itself in modelcheck/canonical.py.
"""

from __future__ import annotations

import itertools
from typing import Any

from modelcheck.constants import REPLICA
from modelcheck.errors import InputError, SpecDefinitionError
from modelcheck.values import Function, Record, to_itf

# All renamings up to this many values (23 for 4 replicas); only the swaps of
# two values beyond, so the number of renamings stays quadratic.
ALL_PERMUTATIONS_UP_TO = 4


def symmetric_constant(model) -> str | None:
    """The constant whose values the spec declares interchangeable, if any."""
    declared = tuple(getattr(model.spec, "symmetry", ()))
    if not declared:
        return None
    if len(declared) > 1:
        raise SpecDefinitionError(f"{model.spec.name}: symmetry over more than one constant is not supported")
    return declared[0]


def renamings(model) -> list[tuple[int, ...]]:
    """Non-identity permutations of the symmetric constant's values, as
    tuples ``p`` with value ``i`` renamed to ``p[i]``."""
    constant = symmetric_constant(model)
    if constant is None:
        return []
    identity = tuple(range(len(getattr(model.constants, constant))))
    if len(identity) <= ALL_PERMUTATIONS_UP_TO:
        return [p for p in itertools.permutations(identity) if p != identity]
    swaps = []
    for i, j in itertools.combinations(identity, 2):
        p = list(identity)
        p[i], p[j] = j, i
        swaps.append(tuple(p))
    return swaps


def rename_instances(model, renaming: tuple[int, ...]) -> list[int]:
    """``perm[i]``: the action instance that instance ``i`` becomes when its
    parameters ranging over the symmetric constant are renamed."""
    constant = symmetric_constant(model)
    domains = {a.name: dict(a.params) for a in model.spec.next}
    index = {(inst.action, inst.params): i for i, inst in enumerate(model.instances)}
    perm = []
    for inst in model.instances:
        params = tuple((p, renaming[v] if domains[inst.action][p].name == constant else v) for p, v in inst.params)
        image = index.get((inst.action, params))
        if image is None:
            raise SpecDefinitionError(f"{model.spec.name} declares {constant} symmetric, but {inst.label()} "
                                      f"has no renamed counterpart among the action instances")
        perm.append(image)
    return perm


def _rename_value(v: Any, names: dict[str, str]) -> Any:
    if isinstance(v, str):
        return names.get(v, v)
    if isinstance(v, frozenset):
        return frozenset(_rename_value(x, names) for x in v)
    if isinstance(v, Record):
        return Record((k, _rename_value(x, names)) for k, x in v.items())
    if isinstance(v, Function):
        return Function((_rename_value(k, names), _rename_value(x, names)) for k, x in v.items())
    return v


def rename_state(model, state: tuple, renaming: tuple[int, ...]) -> tuple:
    """The state with the symmetric constant's model values renamed, through
    the spec's own TLA+ reading of its state."""
    values = getattr(model.constants, symmetric_constant(model))
    names = {values[i]: values[j] for i, j in enumerate(renaming)}
    renamed = {var: to_itf(_rename_value(v, names)) for var, v in model.codec.encode(state).items()}
    return model.codec.decode(renamed)


# --- asking for symmetry ------------------------------------------------------

EXPLICIT_ENGINES = ("bfs", "fast", "spark")


def check_symmetry_request(model, engine: str = "bfs") -> None:
    """Refuse --symmetry, before any search, where it would be unsound or meaningless."""
    spec = model.spec
    if engine not in EXPLICIT_ENGINES:
        raise InputError(f"--symmetry works with the engines {', '.join(EXPLICIT_ENGINES)}, not {engine}"
                         + (" (z3 prunes by symmetry on its own)" if engine == "z3" else ""))
    constant = symmetric_constant(model)
    if constant is None:
        raise InputError(f"--symmetry: {spec.name} declares none of its constants symmetric, "
                         f"so there is nothing to permute")
    named = [d.name for d in spec.constants if d.kind == REPLICA]
    if named:
        raise InputError(f"--symmetry: {spec.name}'s constant {named[0]} names one of the {constant} "
                         f"specifically, so they are not interchangeable")
    from modelcheck.canonical import replica_roles
    replica_roles(model)  # a state the renaming cannot reach is refused here


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
