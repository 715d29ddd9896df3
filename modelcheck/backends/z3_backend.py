"""The model's expression trees as z3 formulas over bit-vectors.

Every state slot at time ``t`` becomes one z3 bit-vector constant named after
the slot (``hw[1]@3``) and constrained to its field's ``lo..hi`` range. The
action instance taken from ``t`` to ``t + 1`` is chosen by one Boolean
selector per instance (exactly one is true), so a trace read back from a z3
model says which action instance produced each state.

All integers share one width, chosen by interval analysis over every tree the
model holds (``bit_width``): no intermediate value (``log_end + 1``, a mask
complement, a selection that falls through) can wrap around, so signed
bit-vector arithmetic computes exactly what the Python backends compute on
unbounded integers. Bitwise and/or/xor agree too: Python treats negative
integers as infinite two's complement, which sign extension reproduces.

The transition relation is read straight from ``model.instances``; nothing
here knows which spec it translates. ``Frames`` hands out the variables of
each time step and the formulas over them, named as in the mathematics:
``init(0)``, ``trans(t)``, ``holds(names, t)``, ``at_time(e, t)``.
"""

from __future__ import annotations

from dataclasses import dataclass

import z3

from modelcheck.language.expr import BOOL, Expr, nodes

ONE_HOT = "one-hot"
BINARY = "binary"
SELECTORS = (ONE_HOT, BINARY)


# --- widths -------------------------------------------------------------------

@dataclass(frozen=True)
class Interval:
    lo: int
    hi: int

    def union(self, other: "Interval") -> "Interval":
        return Interval(min(self.lo, other.lo), max(self.hi, other.hi))


def bitwise_interval(a: Interval, b: Interval) -> Interval:
    """A sound bound for and/or/xor: the result needs no more bits than the
    wider operand (its sign included)."""
    bits = max(abs(x).bit_length() for x in (a.lo, a.hi, b.lo, b.hi))
    if a.lo >= 0 and b.lo >= 0:
        return Interval(0, (1 << bits) - 1)
    return Interval(-(1 << bits), (1 << bits) - 1)


def value_intervals(roots: list[Expr], slot_lo, slot_hi) -> dict[int, Interval]:
    """The range of every integer node under ``roots`` (keyed by node id),
    given each state slot's range."""
    out: dict[int, Interval] = {}
    for root in roots:
        for e in nodes(root):
            if id(e) in out or e.sort == BOOL:
                continue
            op, args = e.op, e.args
            if op == "const":
                out[id(e)] = Interval(int(args[0]), int(args[0]))
            elif op == "var":
                out[id(e)] = Interval(slot_lo[args[0]], slot_hi[args[0]])
            elif op == "add":
                a, b = out[id(args[0])], out[id(args[1])]
                out[id(e)] = Interval(a.lo + b.lo, a.hi + b.hi)
            elif op == "sub":
                a, b = out[id(args[0])], out[id(args[1])]
                out[id(e)] = Interval(a.lo - b.hi, a.hi - b.lo)
            elif op == "ite":
                out[id(e)] = out[id(args[1])].union(out[id(args[2])])
            elif op in ("band", "bor", "bxor"):
                out[id(e)] = bitwise_interval(out[id(args[0])], out[id(args[1])])
            else:
                raise ValueError(f"unknown integer operator {op}")
    return out


def signed_bits(lo: int, hi: int) -> int:
    """The fewest bits whose two's complement range holds lo..hi."""
    bits = 1
    while not (-(1 << (bits - 1)) <= lo and hi <= (1 << (bits - 1)) - 1):
        bits += 1
    return bits


def model_roots(model) -> list[Expr]:
    """Every expression tree of the model an engine may translate."""
    roots: list[Expr] = []
    for inst in model.instances:
        roots.append(inst.guard)
        roots.extend(inst.updates.values())
    roots.extend(model.invariants.values())
    roots.extend(model.sometimes.values())
    return roots


def bit_width(model) -> int:
    """One width for every integer of the model, wide enough that nothing overflows."""
    schema = model.schema
    intervals = value_intervals(model_roots(model), schema.lo, schema.hi).values()
    lo = min([0, *schema.lo, *(i.lo for i in intervals)])
    hi = max([1, *schema.hi, *(i.hi for i in intervals)])
    return signed_bits(lo, hi)


# --- translation --------------------------------------------------------------

_BINARY_OPS = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "eq": lambda a, b: a == b,
    "ne": lambda a, b: a != b,
    "lt": lambda a, b: a < b,  # < and <= are signed on z3 bit-vectors
    "le": lambda a, b: a <= b,
    "band": lambda a, b: a & b,
    "bor": lambda a, b: a | b,
    "bxor": lambda a, b: a ^ b,
}


def to_z3(root: Expr, state: list, width: int, memo: dict | None = None) -> z3.ExprRef:
    """The z3 term of ``root``, reading slot ``i`` from ``state[i]``.

    ``memo`` (node id -> term) may be shared by calls over the same ``state``,
    so subtrees the action instances share are translated once.
    """
    memo = {} if memo is None else memo
    for e in nodes(root):
        if id(e) in memo:
            continue
        op, args = e.op, e.args
        if op == "const":
            term = z3.BoolVal(args[0]) if e.sort == BOOL else z3.BitVecVal(int(args[0]), width)
        elif op == "var":
            term = state[args[0]]
        elif op in _BINARY_OPS:
            term = _BINARY_OPS[op](memo[id(args[0])], memo[id(args[1])])
        elif op == "and":
            term = z3.And([memo[id(a)] for a in args])
        elif op == "or":
            term = z3.Or([memo[id(a)] for a in args])
        elif op == "not":
            term = z3.Not(memo[id(args[0])])
        elif op == "ite":
            term = z3.If(memo[id(args[0])], memo[id(args[1])], memo[id(args[2])])
        else:
            raise ValueError(f"unknown operator {op}")
        memo[id(e)] = term
    return memo[id(root)]


def writers_by_slot(model) -> dict[int, list[int]]:
    """For each state slot, the action instances that assign it."""
    writers: dict[int, list[int]] = {}
    for i, inst in enumerate(model.instances):
        for slot in inst.updates:
            writers.setdefault(slot, []).append(i)
    return writers


def exactly_one(flags: list) -> z3.BoolRef:
    """One of ``flags`` is true: a clause and pairwise exclusions (they
    propagate at once, which a pseudo-Boolean constraint does not)."""
    if len(flags) > 256:
        return z3.And(z3.Or(flags), z3.AtMost(*flags, 1))
    pairs = [z3.Or(z3.Not(a), z3.Not(b)) for i, a in enumerate(flags) for b in flags[i + 1:]]
    return z3.And([z3.Or(flags), *pairs])


class Frames:
    """The model unrolled in time: the state variables of each step, and
    Init, the transition relation and predicates over them.

    Variables are created on first use and kept, so ``state(t)`` always gives
    the same z3 constants. ``prefix`` keeps the names of two unrollings in one
    solver apart. A ``Frames`` holds no solver.
    """

    def __init__(self, model, selectors: str = ONE_HOT, prefix: str = ""):
        if selectors not in SELECTORS:
            raise ValueError(f"selectors must be one of {SELECTORS}, not {selectors!r}")
        self.model = model
        self.schema = model.schema
        self.width = bit_width(model)
        self.selectors = selectors
        self.prefix = prefix
        self._count = len(model.instances)
        self._index_bits = max(1, (self._count - 1).bit_length())
        self._writers = writers_by_slot(model)
        self._states: dict[int, list] = {}
        self._chosen: dict[int, list] = {}
        self._index: dict[int, z3.BitVecRef] = {}
        self._memos: dict[int, dict] = {}
        self._first_step: z3.BoolRef | None = None

    # --- variables
    def state(self, t: int) -> list:
        """The state variables s_t, one per slot."""
        if t not in self._states:
            names = self.schema.slot_names
            self._states[t] = [z3.BitVec(f"{self.prefix}{name}@{t}", self.width) for name in names]
        return self._states[t]

    def chosen(self, t: int) -> list:
        """For each action instance, a condition saying it is the one taken
        from s_t to s_{t+1}."""
        if t not in self._chosen:
            if self.selectors == ONE_HOT:
                self._chosen[t] = [z3.Bool(f"{self.prefix}{inst.label()}@{t}") for inst in self.model.instances]
            else:
                index = z3.BitVec(f"{self.prefix}action@{t}", self._index_bits)
                self._index[t] = index
                self._chosen[t] = [index == i for i in range(self._count)]
        return self._chosen[t]

    def action_index(self, t: int) -> z3.BitVecRef:
        """The index of the instance taken from s_t, as a bit-vector."""
        chosen = self.chosen(t)
        if t not in self._index:
            self._index[t] = self.indexed(t, list(range(self._count)))
        return self._index[t]

    def indexed(self, t: int, values: list[int]) -> z3.BitVecRef:
        """``values[i]`` for the instance i taken from s_t, as a bit-vector."""
        chosen = self.chosen(t)
        value = z3.BitVecVal(values[-1], self._index_bits)
        for i in range(len(values) - 2, -1, -1):
            value = z3.If(chosen[i], z3.BitVecVal(values[i], self._index_bits), value)
        return value

    def at_time(self, e: Expr, t: int) -> z3.ExprRef:
        """An expression over the state, read at time ``t``."""
        return to_z3(e, self.state(t), self.width, self._memos.setdefault(t, {}))

    # --- formulas
    def in_range(self, t: int) -> z3.BoolRef:
        """Every slot of s_t lies within its field's range."""
        w = self.width
        return z3.And([z3.And(z3.BitVecVal(lo, w) <= v, v <= z3.BitVecVal(hi, w))
                       for v, lo, hi in zip(self.state(t), self.schema.lo, self.schema.hi)])

    def init(self, t: int = 0) -> z3.BoolRef:
        """Init: s_t is one of the initial states."""
        s = self.state(t)
        return z3.Or([z3.And([v == value for v, value in zip(s, state)]) for state in self.model.init_states])

    def trans(self, t: int) -> z3.BoolRef:
        """Next, from s_t to s_{t+1}: exactly one action instance is taken,
        its guard holds, the slots it assigns take their new values and every
        other slot keeps its value (the frame condition).

        The formula is built once, for t = 0, and renamed for later steps
        (one call into z3 instead of rebuilding every term in Python).
        """
        if not self._count:
            return z3.BoolVal(False)
        if self._first_step is None:
            self._first_step = self._build_trans(0)
        if t == 0:
            return self._first_step
        return z3.substitute(self._first_step, *self._renaming(0, t))

    def _renaming(self, t: int, u: int) -> list[tuple]:
        """Pairs that rename the variables of step t (s_t, s_{t+1}, the action
        taken) to those of step u."""
        pairs = list(zip(self.state(t), self.state(u))) + list(zip(self.state(t + 1), self.state(u + 1)))
        self.chosen(t), self.chosen(u)
        if self.selectors == ONE_HOT:
            pairs += list(zip(self._chosen[t], self._chosen[u]))
        else:
            pairs.append((self._index[t], self._index[u]))
        return pairs

    def _build_trans(self, t: int) -> z3.BoolRef:
        instances = self.model.instances
        chosen, cur, nxt = self.chosen(t), self.state(t), self.state(t + 1)
        if self.selectors == ONE_HOT:
            parts = [exactly_one(chosen)]
        else:
            parts = [z3.ULT(self._index[t], self._count)] if self._count < (1 << self._index_bits) else []
        parts += [z3.Implies(chosen[i], self.at_time(inst.guard, t)) for i, inst in enumerate(instances)]
        for slot, after in enumerate(nxt):
            value = cur[slot]
            for i in reversed(self._writers.get(slot, [])):
                value = z3.If(chosen[i], self.at_time(instances[i].updates[slot], t), value)
            parts.append(after == value)
        return z3.And(parts)

    def enabled(self, t: int) -> z3.BoolRef:
        """Some action instance is enabled at s_t; its negation is a deadlock."""
        return z3.Or([self.at_time(inst.guard, t) for inst in self.model.instances])

    def holds(self, names, t: int) -> z3.BoolRef:
        """The conjunction of the named invariants or reachability checks at s_t."""
        predicates = {**self.model.sometimes, **self.model.invariants}
        return z3.And([self.at_time(predicates[n], t) for n in names])

    def differs(self, t: int, u: int) -> z3.BoolRef:
        """s_t and s_u are different states (for simple paths)."""
        return z3.Or([a != b for a, b in zip(self.state(t), self.state(u))])

    # --- reading a z3 model back
    def decode_state(self, z3_model: z3.ModelRef, t: int) -> tuple:
        return tuple(z3_model.eval(v, model_completion=True).as_signed_long() for v in self.state(t))

    def decode_action(self, z3_model: z3.ModelRef, t: int) -> int:
        taken = [i for i, c in enumerate(self.chosen(t)) if z3.is_true(z3_model.eval(c, model_completion=True))]
        if len(taken) != 1:
            raise RuntimeError(f"z3 model takes {len(taken)} action instances at step {t}")
        return taken[0]

    def decode_path(self, z3_model: z3.ModelRef, first: int, last: int) -> tuple[list[tuple], list]:
        """States s_first..s_last, and the action instance before each (None
        for the first)."""
        states = [self.decode_state(z3_model, t) for t in range(first, last + 1)]
        actions = [None] + [self.decode_action(z3_model, t) for t in range(first, last)]
        return states, actions
