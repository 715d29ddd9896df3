"""Renaming interchangeable model values, as TLC's SYMMETRY does.

A spec may declare constants whose model values are interchangeable
(``SpecDefinition.symmetry``, e.g. ``("Replicas",)``): swapping r1 and r2
everywhere maps Init to Init, each action instance to its renamed
counterpart and every invariant onto itself. Engines may use that to prune:
the explicit engines keep one state per orbit (``modelcheck/search/canonical.py``),
z3 looks only for the least behaviour under renaming
(``modelcheck/backends/z3_reductions.py``). The declaration is a claim about
the spec; ``rename_state`` and ``rename_instances`` let the tests check it on
every reachable state of small models.
"""

from __future__ import annotations

import itertools
from typing import Any

from modelcheck.errors import SpecDefinitionError
from modelcheck.language.values import Function, Record, to_itf

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
