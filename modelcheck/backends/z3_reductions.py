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

import z3

from modelcheck.expr import slots_read
from modelcheck.symmetry import rename_instances, renamings


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


def instance_permutations(model) -> list[list[int]]:
    """How each renaming of the spec's symmetric values permutes the action
    instances (empty when the spec declares no symmetry)."""
    return [rename_instances(model, renaming) for renaming in renamings(model)]


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
