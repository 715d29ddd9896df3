"""Constraints that prune redundant paths from a bounded search, without
losing any shortest counterexample.

Let S be the behaviours of exactly d states that end in a bad state, and
order them lexicographically by their sequence of action-instance indices.
If S is not empty it has a least element p*, and p* satisfies everything
below, so adding these constraints keeps a counterexample of length d
whenever one exists:

* **Commuting steps in index order.** If instance ``b`` commutes with
  ``a`` (either order gives the same result) and ``b < a``, moving ``b`` in
  front of ``a`` in p* would give a smaller element of S. So no behaviour
  needs ``a`` directly followed by ``b``, nor ``a`` followed a few steps later
  by such a ``b`` that commutes with every step in between (partial-order
  reduction in the style of peephole and sleep-set reductions).
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

from modelcheck.language.expr import slots_read
from modelcheck.language.renaming import rename_instances, renamings


def slots_touched(inst) -> tuple[set[int], set[int]]:
    """The slots an action instance reads (guard and new values) and writes."""
    reads = slots_read(inst.guard, *inst.updates.values())
    return reads, set(inst.updates)


def commuting_pairs(model) -> dict[int, list[int]]:
    """For each instance ``a``, the instances ``b < a`` such that ``a`` then
    ``b`` always equals ``b`` then ``a``.

    Two instances that write nothing the other reads or writes commute: each
    one's guard and new values are the same before and after the other. (A
    write at an index known only at run time counts as a write of the whole
    row, so this errs on the side of "dependent".)
    """
    touched = [slots_touched(inst) for inst in model.instances]
    pairs: dict[int, list[int]] = {}
    for a, (reads_a, writes_a) in enumerate(touched):
        pairs[a] = [b for b, (reads_b, writes_b) in enumerate(touched[:a])
                    if not writes_a & (reads_b | writes_b) and not writes_b & reads_a]
    return pairs


def instance_permutations(model) -> list[list[int]]:
    """How each renaming of the spec's symmetric values permutes the action
    instances (empty when the spec declares no symmetry)."""
    return [rename_instances(model, renaming) for renaming in renamings(model)]


def partners_of(pairs: dict[int, list[int]]) -> dict[int, set[int]]:
    """The commuting relation both ways: instance -> every instance it commutes with."""
    partners: dict[int, set[int]] = {a: set() for a in pairs}
    for a, bs in pairs.items():
        for b in bs:
            partners[a].add(b)
            partners[b].add(a)
    return partners


class CommutingSteps:
    """Partial-order constraints between the steps of one unrolling.

    If the step at t + j takes an instance ``b`` below the one taken at t,
    and ``b`` commutes with every step from t to t + j - 1, then ``b`` could
    move to position t, giving a smaller behaviour of the same length with
    the same last state. The least behaviour has no such pair, so none is
    needed; ``window`` bounds j (1 is adjacent steps only).
    """

    def __init__(self, frames, pairs: dict[int, list[int]], window: int):
        self.frames = frames
        self.pairs = pairs
        self.partners = partners_of(pairs)
        self.window = window
        self._commutes: dict[tuple[int, int], z3.BoolRef] = {}

    def commutes(self, u: int, b: int) -> z3.BoolRef:
        """The step taken at u commutes with instance ``b``."""
        key = (u, b)
        if key not in self._commutes:
            chosen = self.frames.chosen(u)
            self._commutes[key] = z3.Or([chosen[c] for c in sorted(self.partners[b])])
        return self._commutes[key]

    def ending_at(self, last: int) -> z3.BoolRef:
        """The constraints whose later step is ``last``."""
        parts = []
        later = self.frames.chosen(last)
        for j in range(1, min(self.window, last) + 1):
            t = last - j
            now = self.frames.chosen(t)
            for a, bs in self.pairs.items():
                for b in bs:
                    between = [z3.Not(self.commutes(u, b)) for u in range(t + 1, last)]
                    parts.append(z3.Or(z3.Not(now[a]), z3.Not(later[b]), *between))
        return z3.And(parts)


def lex_leq(xs: list, ys: list) -> z3.BoolRef:
    """xs <= ys lexicographically (unsigned bit-vectors of equal length)."""
    result = z3.BoolVal(True)
    for x, y in reversed(list(zip(xs, ys))):
        result = z3.Or(z3.ULT(x, y), z3.And(x == y, result))
    return result


class LeastUnderRenaming:
    """Each behaviour is no larger, lexicographically, than any renaming of it.

    ``up_to(t)`` compares the instance indices of steps 0..t with those of
    their renamings; as the unrolling grows, the constraint for each longer
    prefix is added (each implies those for the shorter ones).
    """

    def __init__(self, frames, perms: list[list[int]]):
        self.frames = frames
        self.perms = perms
        self._renamed: dict[tuple[int, int], z3.BitVecRef] = {}

    def renamed_index(self, p: int, t: int) -> z3.BitVecRef:
        """The index of the renamed instance taken at step t."""
        if (p, t) not in self._renamed:
            self._renamed[(p, t)] = self.frames.indexed(t, self.perms[p])
        return self._renamed[(p, t)]

    def up_to(self, last: int) -> z3.BoolRef:
        taken = [self.frames.action_index(t) for t in range(last + 1)]
        return z3.And([lex_leq(taken, [self.renamed_index(p, t) for t in range(last + 1)])
                       for p in range(len(self.perms))])
