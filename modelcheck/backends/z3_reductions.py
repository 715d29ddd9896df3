"""Constraints that prune redundant paths from a bounded search, without
losing any shortest counterexample.

Let S be the behaviours of exactly d states that end in a bad state, and
order them lexicographically by their sequence of action-instance indices.
If S is not empty it has a least element p*, and p* satisfies everything
below, so adding these constraints keeps a counterexample of length d
whenever one exists:

* **Commuting steps in index order.** If instance ``a`` then ``b`` (``a >
  b``) can always be swapped into ``b`` then ``a`` with the same result,
  swapping them in p* would give a smaller element of S. So no behaviour
  needs ``a`` directly followed by ``b`` (peephole partial-order reduction).
* **Symmetry.** When the spec declares its replicas interchangeable, renaming
  them maps behaviours to behaviours and bad states to bad states, so the
  renamed p* is in S too, and p* is no larger than any of its renamings.

Both rely on S being closed under the operation: they apply to searches from
the initial states (bounded model checking, the base case of k-induction),
where intermediate states are free. The induction step, which constrains
every intermediate state, uses only symmetry.
"""

from __future__ import annotations

import itertools

import z3

from modelcheck.errors import SpecDefinitionError
from modelcheck.expr import slots_read

# All permutations up to this many replicas (23 renamings for 4), only the
# transpositions beyond: each renaming adds one lexicographic constraint.
ALL_PERMUTATIONS_UP_TO = 4


def slots_touched(inst) -> tuple[set[int], set[int]]:
    """The slots an action instance reads (guard and new values) and writes."""
    reads = set(slots_read(inst.guard))
    for e in inst.updates.values():
        reads |= slots_read(e)
    return reads, set(inst.updates)


def commuting_pairs(model) -> dict[int, list[int]]:
    """For each instance ``a``, the instances ``b < a`` such that ``a`` then
    ``b`` always equals ``b`` then ``a``.

    Two instances that write nothing the other reads or writes commute: each
    one's guard and new values are the same before and after the other.
    """
    touched = [slots_touched(inst) for inst in model.instances]
    pairs: dict[int, list[int]] = {}
    for a, (reads_a, writes_a) in enumerate(touched):
        pairs[a] = [b for b, (reads_b, writes_b) in enumerate(touched[:a])
                    if not writes_a & (reads_b | writes_b) and not writes_b & reads_a]
    return pairs


def steps_in_index_order(frames, t: int, pairs: dict[int, list[int]]) -> z3.BoolRef:
    """No commuting pair is taken out of index order at steps t, t + 1."""
    now, then = frames.chosen(t), frames.chosen(t + 1)
    return z3.And([z3.Or(z3.Not(now[a]), z3.Not(then[b])) for a, bs in pairs.items() for b in bs])


def _renamings(count: int) -> list[tuple[int, ...]]:
    identity = tuple(range(count))
    if count <= ALL_PERMUTATIONS_UP_TO:
        return [p for p in itertools.permutations(identity) if p != identity]
    out = []
    for i, j in itertools.combinations(identity, 2):
        p = list(identity)
        p[i], p[j] = j, i
        out.append(tuple(p))
    return out


def instance_permutations(model) -> list[list[int]]:
    """How each renaming of the spec's symmetric constants permutes the
    action instances: ``perm[i]`` is the instance ``i`` becomes.

    A parameter is renamed when its domain ranges over a symmetric constant
    (``Replicas``). Empty when the spec declares no symmetry.
    """
    spec, c = model.spec, model.constants
    symmetric = tuple(getattr(spec, "symmetry", ()))
    if not symmetric:
        return []
    if len(symmetric) != 1:
        raise SpecDefinitionError(f"{spec.name}: symmetry over more than one constant is not supported")
    constant = symmetric[0]
    count = len(getattr(c, constant))
    domains = {a.name: dict(a.params) for a in spec.next}
    index = {(inst.action, inst.params): i for i, inst in enumerate(model.instances)}
    perms = []
    for renaming in _renamings(count):
        perm = []
        for inst in model.instances:
            params = tuple((p, renaming[v] if domains[inst.action][p].name == constant else v)
                           for p, v in inst.params)
            image = index.get((inst.action, params))
            if image is None:
                raise SpecDefinitionError(
                    f"{spec.name} declares {constant} symmetric, but {inst.label()} has no renamed "
                    f"counterpart among the action instances")
            perm.append(image)
        perms.append(perm)
    return perms


def lex_leq(xs: list, ys: list) -> z3.BoolRef:
    """xs <= ys lexicographically (unsigned bit-vectors of equal length)."""
    result = z3.BoolVal(True)
    for x, y in reversed(list(zip(xs, ys))):
        result = z3.Or(z3.ULT(x, y), z3.And(x == y, result))
    return result


def permuted_index(frames, t: int, perm: list[int]) -> z3.BitVecRef:
    """The index of the renamed instance taken at step t."""
    chosen, bits = frames.chosen(t), frames.action_index(t).size()
    value = z3.BitVecVal(perm[-1], bits)
    for i in range(len(perm) - 2, -1, -1):
        value = z3.If(chosen[i], z3.BitVecVal(perm[i], bits), value)
    return value


def least_under_renaming(frames, steps: int, perms: list[list[int]]) -> z3.BoolRef:
    """Steps 0..steps-1 are no larger than any renaming of them."""
    if steps < 1 or not perms:
        return z3.BoolVal(True)
    taken = [frames.action_index(t) for t in range(steps)]
    return z3.And([lex_leq(taken, [permuted_index(frames, t, perm) for t in range(steps)]) for perm in perms])
