"""The z3 translation against the explicit engine: expressions, predicates
and, above all, successor sets must agree exactly."""

import random

import pytest
import z3
from hypothesis import given, settings, strategies as st

from support import every_spec, model, reachable, small_constants
from modelcheck.language import interpreter
from modelcheck.backends.z3_backend import BINARY, Frames, Interval, bit_width, signed_bits, to_z3, value_intervals
from modelcheck.language.expr import and_, bit_and, bit_or, bit_xor, eq, ite, le, lift, lt, ne, not_, or_, select, var

# Per spec, the small configurations the successor sets are compared on, and
# how many reachable states of each are sampled.
CONFIGS = {
    "async-isr": [({}, 80), ({"Replicas": 2}, 50)],
    "kip320-consumer": [({}, 50), ({"UncleanElection": "false", "ConsumerFencing": "false",
                                     "TruncationCheck": "false"}, 50), ({"Replicas": 3, "MaxRecords": 2}, 30)],
    "kafka-clients": [({"MaxLeaderEpoch": 1}, 50),
                      ({"UncleanElection": "true", "AcksAll": "false", "ProduceFencing": "false",
                        "UnknownEpochBackoff": "false", "MetadataVersionCheck": "false",
                        "AwaitCommittedEpoch": "false"}, 50)],
    # messages, sequences and records: a few states suffice to meet every form
    "kraft-3.5": [({"BrokerCount": 2, "InitReplicationFactor": 2, "MinISR": 1, "InitIsrSize": 1,
                    "UncleanShutdownLimit": 0, "FenceBrokerLimit": 0}, 12)],
    "kraft-kip966": [({"BrokerCount": 2, "InitReplicationFactor": 2, "MinISR": 1, "InitIsrSize": 2,
                       "DataLossShutdownLimit": 0, "FenceBrokerLimit": 1}, 12)],
}
# Specs whose steps from arbitrary (unreachable) states may leave the declared
# ranges: their bounds are derived for reachable states (kraft's epochs and
# counters grow with the limits), so only reachable states are compared.
REACHABLE_ONLY = {"kraft-3.5", "kraft-kip966", "paxos"}
# a few states of one acceptor's network of variant records (a minute for 30 states of two acceptors)
CONFIGS["paxos"] = [({"Acceptor": "{a1}", "Value": "{v1, v2}", "Quorum": "{{a1}}", "Ballot": "0..1"}, 8)]
FAMILY = [({"Replicas": 2}, 80), ({"Replicas": 3, "MaxLeaderEpoch": 1}, 50)]
REPLICATION_FAMILY = {"truncate-to-hw", "kip101", "kip279", "kip320", "kip320-first-try"}
RANDOM_STATES = 20
SAMPLE = 30  # reachable states sampled of a spec's own small model, for specs not listed above


def configs(name):
    """The configurations a spec's successor sets are compared on: those
    listed above, else the spec's own first small model."""
    if name in CONFIGS:
        return CONFIGS[name]
    if name in REPLICATION_FAMILY:
        return FAMILY
    return [(small_constants(name), SAMPLE)]


def reachable_sample(m, count, seed, limit=30_000):
    """``count`` reachable states picked at random from the first ``limit``
    a breadth-first search finds (all of them for the small models)."""
    found = reachable(m, limit)
    assert len(found) >= count
    return random.Random(seed).sample(found, count)


def random_states(m, count, seed):
    """States with every slot anywhere in its range: not reachable, but the
    translation must agree on them too (induction starts from such states)."""
    rng = random.Random(seed)
    return [tuple(rng.randint(lo, hi) for lo, hi in zip(m.schema.lo, m.schema.hi)) for _ in range(count)]


class SymbolicSuccessors:
    """The successors z3's transition relation admits from a given state,
    enumerated one at a time with blocking clauses."""

    def __init__(self, m, selectors="one-hot", step=0):
        self.frames = f = Frames(m, selectors)
        self.step = t = step
        self.solver = z3.SolverFor("QF_BV")
        self.solver.add(f.trans(0), f.trans(t), f.in_range(t), f.in_range(t + 1))

    def __call__(self, state):
        f, solver, t = self.frames, self.solver, self.step
        solver.push()
        solver.add([v == x for v, x in zip(f.state(t), state)])
        found = set()
        while solver.check() == z3.sat:
            zm = solver.model()
            assert f.decode_state(zm, t) == state
            index, after = f.decode_action(zm, t), f.decode_state(zm, t + 1)
            found.add((index, after))
            solver.add(z3.Not(z3.And(f.chosen(t)[index], *[v == x for v, x in zip(f.state(t + 1), after)])))
        solver.pop()
        return found


def in_range(m, state):
    return all(lo <= v <= hi for v, lo, hi in zip(state, m.schema.lo, m.schema.hi))


@pytest.mark.parametrize("name", every_spec())
def test_successor_sets_match_the_explicit_engine(name):
    """On the reachable states sampled per spec (100 or more for most; and some arbitrary ones),
    z3 admits exactly the (action instance, next state) pairs the compiled
    successor function produces."""
    reachable_checked = 0
    for k, (consts, count) in enumerate(configs(name)):
        m = model(name, **consts)
        symbolic = SymbolicSuccessors(m)
        for state in reachable_sample(m, count, seed=k):
            assert symbolic(state) == set(m.successors(state)), m.codec.encode(state)
            reachable_checked += 1
        for state in random_states(m, 0 if name in REACHABLE_ONLY else RANDOM_STATES, seed=k):
            # a step the explicit engine takes out of the declared ranges is one
            # z3 rules out; none of the specs has one, even from arbitrary states
            explicit = set(m.successors(state))
            assert all(in_range(m, t) for _, t in explicit)
            assert symbolic(state) == explicit
    assert reachable_checked >= sum(count for _, count in configs(name))


def test_later_steps_and_binary_selectors_admit_the_same_successors():
    """Steps after the first are the first step's formula renamed; binary
    action selectors encode the same relation as one-hot ones."""
    m = model("kip320-first-try", Replicas=2)
    later, binary = SymbolicSuccessors(m, step=3), SymbolicSuccessors(m, BINARY, step=2)
    for state in reachable_sample(m, 60, seed=3):
        assert later(state) == binary(state) == set(m.successors(state))


@pytest.mark.parametrize("name", every_spec())
def test_predicates_match_the_compiled_ones(name):
    consts, _ = configs(name)[0]
    m = model(name, **consts)
    f = Frames(m)
    count = min(100, configs(name)[0][1])
    states = reachable_sample(m, count, seed=5) + random_states(m, count // 2, seed=5)
    for state in states:
        values = [z3.BitVecVal(v, f.width) for v in state]
        for pred_name, expr in {**m.invariants, **m.sometimes}.items():
            got = z3.is_true(z3.simplify(to_z3(expr, values, f.width)))
            assert got == m.compiled.predicates[pred_name](state), pred_name


# --- widths ---------------------------------------------------------------------

def test_signed_bits():
    assert [signed_bits(lo, hi) for lo, hi in [(0, 0), (0, 1), (-1, 0), (-1, 3), (0, 7), (-1, 7), (0, 255)]] == \
        [1, 2, 1, 3, 4, 4, 9]


def test_intervals_cover_intermediate_values():
    x, y = var(0), var(1)  # x in -1..2, y in 0..7
    e_sum, e_diff = x + y, x - y - 3
    mask = bit_xor(7, y)
    got = value_intervals([eq(e_sum, 0), eq(e_diff, 0), eq(mask, 0)], (-1, 0), (2, 7))
    assert got[id(e_sum)] == Interval(-1, 9)
    assert got[id(e_diff)] == Interval(-11, -1)
    assert got[id(mask)] == Interval(0, 7)


def test_model_widths():
    """Sets of three replicas need 3 bits and epochs go down to -1, so kip320
    needs 4; AsyncIsr's sets of ISRs hold up to 2^8 - 1."""
    assert bit_width(model("kip320", Replicas=3)) == 4
    assert bit_width(model("async-isr")) == 9


# --- every operator, on random trees ----------------------------------------------

RANGES = [(-1, 2), (0, 3), (0, 7), (-1, 1)]


def int_exprs():
    leaves = st.one_of(st.integers(-2, 8), st.sampled_from([var(i) for i in range(len(RANGES))]))

    def extend(children):
        conds = st.builds(lambda op, a, b: op(a, b), st.sampled_from([eq, ne, lt, le]), children, children)
        return st.one_of(
            st.builds(lambda a, b: lift(a) + b, children, children),
            st.builds(lambda a, b: lift(a) - b, children, children),
            st.builds(ite, conds, children, children),
            st.builds(lambda f, a, b: f(a, b), st.sampled_from([bit_and, bit_or, bit_xor]), children, children),
            st.builds(lambda items, i: select(items, i), st.lists(children, min_size=1, max_size=3), children),
        )
    return st.recursive(leaves, extend, max_leaves=12)


def bool_exprs():
    comparisons = st.builds(lambda op, a, b: op(a, b), st.sampled_from([eq, ne, lt, le]), int_exprs(), int_exprs())
    return st.recursive(comparisons, lambda c: st.one_of(
        st.builds(lambda a, b: and_(a, b), c, c), st.builds(lambda a, b: or_(a, b), c, c), st.builds(not_, c)),
        max_leaves=4)


@settings(max_examples=300, deadline=None)
@given(bool_exprs(), st.randoms(use_true_random=False))
def test_every_operator_translates_exactly(e, rng):
    roots = [e]
    lo = [r[0] for r in RANGES]
    hi = [r[1] for r in RANGES]
    intervals = value_intervals(roots, lo, hi).values()
    width = signed_bits(min([0, *lo, *(i.lo for i in intervals)]), max([1, *hi, *(i.hi for i in intervals)]))
    for _ in range(5):
        state = tuple(rng.randint(a, b) for a, b in RANGES)
        values = [z3.BitVecVal(v, width) for v in state]
        assert z3.is_true(z3.simplify(to_z3(e, values, width))) == bool(interpreter.evaluate(e, state))
