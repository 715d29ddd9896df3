"""Leader election on a unidirectional ring by Chang and Roberts, after the
ChangRoberts module of tlaplus/Examples (specifications/chang_roberts),
keeping its names.

N nodes sit on a ring; node i has the identity Id[i]. Any node may start as
an initiator (``initiator \\in [Node -> BOOLEAN]``: the spec has 2^N initial
states) and sends its identity to its successor. A node forwards an identity
smaller than its own and marks itself lost; it swallows a larger one; a
candidate that receives its own identity has won. The node with the smallest
identity among the initiators is elected.

Run it with ``modelcheck run examples/chang_roberts/chang_roberts.py``; the
.cfg beside it is the module's own model (N = 3, Id = <<1, 2, 3>>), with the
liveness property: ``--config examples/chang_roberts/MCChangRoberts.cfg``.
"""

from modelcheck.language.constants import INT, ConstantDecl, seq_of
from modelcheck.language.expr import all_of, and_, any_of, implies, ite, member, not_, or_, set_with, set_without
from modelcheck.language.schema import boolean, enumerated, subset
from modelcheck.language.temporal import WF, Specification, initially_implies_eventually, temporal
from modelcheck.errors import InputError
from modelcheck.model.spec import (Domain, SpecDefinition, action, by_first_parameter, fixing, invariant,
                                   sometimes, values_of)

MOST_NODES = 6

CONSTANTS = (
    ConstantDecl("N", INT, 3, minimum=1, maximum=MOST_NODES, doc="the number of nodes on the ring"),
    ConstantDecl("Id", seq_of(INT), lambda c: tuple(range(1, c.N + 1)),
                 doc="the nodes' identities, distinct natural numbers: a sequence <<...>> of length N "
                     "(default <<1, ..., N>>)"),
)

# The strings, in the order the TLA+ module first writes them (TLC orders strings so).
STATES = ("cand", "lost", "won")
LABELS = ("n0", "n1", "Done")


def check_constants(c) -> None:
    """The module's ASSUME: Id is a sequence of N distinct natural numbers."""
    if len(c.Id) != c.N:
        raise InputError(f"Id must have N = {c.N} entries, got {len(c.Id)}")
    if any(i < 0 for i in c.Id) or len(set(c.Id)) != len(c.Id):
        raise InputError(f"Id must be distinct natural numbers, got {c.Id}")


def nodes(c) -> tuple[int, ...]:
    """Node == 1 .. N."""
    return tuple(range(1, c.N + 1))


def succ(c, i: int) -> int:
    """The successor of the node at position i (0-based) on the ring."""
    return (i + 1) % c.N


NODE = Domain("Node", lambda c: range(c.N), lambda c, i: i + 1)
ID = values_of("Id")  # \E id \in msgs[self]: the identities, smallest first (TLC's order)


def fields(c):
    identities = sorted(c.Id)
    return [
        subset("msgs", identities, keys=nodes(c)),  # msgs[n]: the identities waiting at node n
        enumerated("pc", LABELS, keys=nodes(c)),
        boolean("initiator", keys=nodes(c)),
        enumerated("state", STATES, keys=nodes(c)),
    ]


def Init(s, n):
    c = s.c
    initiator = n.function_in(range(c.N), (False, True))  # initiator \in [Node -> BOOLEAN]
    for i in range(c.N):
        n.msgs[i] = ()
        n.initiator[i] = initiator[i]
        n.state[i] = "cand" if initiator[i] else "lost"
        n.pc[i] = "n0"


@action(self=NODE)
def n0(s, n, self):
    """An initiator sends its own identity to its successor."""
    c = s.c
    n.require(s.pc[self] == "n0")
    nxt = succ(c, self)
    n.msgs[nxt] = ite(s.initiator[self], set_with(s.msgs[nxt], c.Id[self]), s.msgs[nxt])
    n.pc[self] = "n1"


@action(self=NODE, id=ID)
def n1(s, n, self, id):
    """The node takes an identity from its inbox: a lost node forwards it;
    a candidate forwards a smaller one (and has lost), swallows a larger one,
    and has won when it is its own."""
    c = s.c
    n.require(s.pc[self] == "n1", member(s.msgs[self], id))
    lost = s.state[self] == "lost"
    forward = or_(lost, id < c.Id[self])
    nxt = succ(c, self)
    taken = set_without(s.msgs[self], id)
    if nxt == self:  # a ring of one: the identity goes back where it came from
        n.msgs[self] = ite(forward, set_with(taken, id), taken)
    else:
        n.msgs[self] = taken
        n.msgs[nxt] = ite(forward, set_with(s.msgs[nxt], id), s.msgs[nxt])
    if id < c.Id[self]:
        n.state[self] = "lost"
    elif id == c.Id[self]:
        n.state[self] = ite(lost, s.state[self], "won")
    n.pc[self] = "n1"


@action()
def Terminating(s, n):
    """Every process is done: the behaviour stutters (never enabled here: no process reaches Done)."""
    n.require(all_of(s.pc[i] == "Done" for i in range(s.c.N)))


@action(self=NODE, id=ID)
def node(s, n, self, id):
    """node(self) == n0(self) \\/ n1(self), for the fairness of each node (not part of Next)."""
    n.cases((s.pc[self] == "n0", lambda m: n0(s, m, self=self)),
            (s.pc[self] == "n1", lambda m: n1(s, m, self=self, id=id)))


@invariant
def TypeOK(s):
    """Every variable holds a value of its type."""
    everyone = range(s.c.N)
    return all_of(and_(s.pc[i].is_in(LABELS), s.state[i].is_in(STATES)) for i in everyone)


@invariant
def Correctness(s):
    """A node that has won is an initiator, every other node has lost, and
    every other initiator has a larger identity."""
    c = s.c
    everyone = range(c.N)
    return all_of(implies(s.state[w] == "won",
                          and_(s.initiator[w],
                               all_of(and_(s.state[m] == "lost", implies(s.initiator[m], c.Id[m] > c.Id[w]))
                                      for m in everyone if m != w)))
                  for w in everyone)


@sometimes
def Elected(s):
    """Some node wins."""
    return any_of(s.state[i] == "won" for i in range(s.c.N))


@temporal
def Liveness(s):
    """If some node starts as a candidate, some node eventually wins."""
    everyone = range(s.c.N)
    return initially_implies_eventually(any_of(s.state[i] == "cand" for i in everyone),
                                        any_of(s.state[i] == "won" for i in everyone))


# Spec == Init /\ [][Next]_vars /\ \A self \in Node : WF_vars(node(self)); the conditions of
# nodes a configuration lacks have no instances, so they hold trivially
Spec = Specification("Spec", tuple(WF(fixing(node, f"node({i + 1})", self=i)) for i in range(MOST_NODES)),
                     "Init /\\ [][Next]_vars /\\ \\A self \\in Node : WF_vars(node(self))")

SPEC = SpecDefinition(
    name="chang-roberts", module="ChangRoberts",
    summary="leader election on a unidirectional ring (Chang and Roberts), with 2^N initial states",
    constants=CONSTANTS, check_constants=check_constants, fields=fields, init=Init,
    next=(n0, n1, Terminating),
    # Next == (\E self \in Node : n0(self) \/ n1(self)) \/ Terminating
    instance_order=by_first_parameter((n0, n1), after=(Terminating,)),
    invariants=(TypeOK, Correctness), sometimes=(Elected,),
    properties=(Liveness,), specifications=(Spec,),
)
