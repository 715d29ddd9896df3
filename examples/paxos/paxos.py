"""Paxos consensus with general quorums, after the Paxos module of
tlaplus/Examples (specifications/Paxos), keeping its names.

Acceptors vote in numbered ballots on values proposed by leaders: a leader
starts ballot b (a "1a" message), acceptors promise not to vote in earlier
ballots and report their last vote ("1b"), the leader proposes a value safe
at b given the reports of a quorum ("2a"), and acceptors vote for it ("2b").
A value is chosen once a quorum has voted for it in one ballot. Quorums are
any family of sets of acceptors that pairwise intersect (the module's
QuorumAssumption): majorities by default, or whatever ``Quorum`` is given.

The module's ``Ballot == Nat`` is replaced by a constant here, as its .cfg
replaces it (``Ballot <- MCBallot``). ``None`` is a model value.

Run it with ``modelcheck run examples/paxos/paxos.py``, or with the TLC-style
configuration beside it (``--config examples/paxos/MCPaxos.cfg``), whose
substitutions name the definitions this module offers; try other quorums
with ``--const 'Quorum={{a1, a2}, {a1, a3}}'``.
"""

from itertools import combinations

from modelcheck.errors import InputError
from modelcheck.language.bounded import RecordSet
from modelcheck.language.constants import INT, MODEL_VALUE, MODEL_VALUES, ConstantDecl, set_of, subset_of
from modelcheck.language.expr import all_of, and_, any_of, implies, not_, or_
from modelcheck.language.records import RecordType, choice, number
from modelcheck.language.schema import enumerated, integer
from modelcheck.model.spec import Domain, SpecDefinition, action, invariant, members_of, next_disjuncts, sometimes, values_of


def majorities(c):
    """The sets of more than half of the acceptors."""
    acceptors = c.Acceptor
    return [q for k in range(len(acceptors) // 2 + 1, len(acceptors) + 1) for q in combinations(acceptors, k)]


CONSTANTS = (
    ConstantDecl("Acceptor", MODEL_VALUES, 3, minimum=1, maximum=5,
                 doc="the acceptors: a count (3 is {a1, a2, a3}) or names"),
    ConstantDecl("Value", MODEL_VALUES, 2, minimum=1, maximum=3, doc="the values: a count (2 is {v1, v2}) or names"),
    ConstantDecl("Quorum", set_of(subset_of("Acceptor")), majorities,
                 doc="the quorums: sets of acceptors, any two of which intersect (default: the majorities)"),
    ConstantDecl("Ballot", set_of(INT), (0, 1), minimum=1, maximum=4, doc="the ballot numbers (default 0..1)"),
    ConstantDecl("None", MODEL_VALUE, "None", doc="the value of an acceptor that has not voted"),
)

# What a .cfg's substitutions may name, as MCPaxos does (Acceptor <- MCAcceptor ...).
DEFINITIONS = {
    "MCAcceptor": "{a1, a2, a3}",
    "MCValue": "{v1, v2}",
    "MCQuorum": "{{a1, a2}, {a1, a3}, {a2, a3}}",
    "MCBallot": "0..1",
}


def check_constants(c) -> None:
    """The module's QuorumAssumption (any two quorums intersect), and
    ballots that are natural numbers."""
    for q1, q2 in combinations(c.Quorum, 2):
        if not set(q1) & set(q2):
            raise InputError(f"Quorum: {{{', '.join(q1)}}} and {{{', '.join(q2)}}} do not intersect "
                             f"(the module's QuorumAssumption)")
    if any(not q for q in c.Quorum) or not c.Quorum:
        raise InputError("Quorum: a quorum must have an acceptor, and there must be one")
    if any(b < 0 for b in c.Ballot):
        raise InputError(f"Ballot must be natural numbers, got {set(c.Ballot)}")
    if c["None"] in c.Value:
        raise InputError("None must not be one of the values")


# The strings and field names in the order the module first writes them (TLC orders them so).
TYPES = ("1a", "1b", "2a", "2b")


def message(c) -> RecordType:
    """Message == [type : {"1a"}, bal : Ballot]
                \\cup [type : {"1b"}, acc : Acceptor, bal : Ballot, mbal : Ballot \\cup {-1}, mval : Value \\cup {None}]
                \\cup [type : {"2a"}, bal : Ballot, val : Value]
                \\cup [type : {"2b"}, acc : Acceptor, bal : Ballot, val : Value]"""
    low, high = min(c.Ballot), max(c.Ballot)
    return RecordType("Message", [
        choice("type", TYPES), number("bal", low, high), choice("acc", c.Acceptor), number("mbal", -1, high),
        choice("mval", c.Value + (c["None"],)), choice("val", c.Value)],
        variants=("type", {"1a": ("bal",), "1b": ("acc", "bal", "mbal", "mval"), "2a": ("bal", "val"),
                           "2b": ("acc", "bal", "val")}))


def fields(c):
    high = max(c.Ballot)
    # per ballot: one 1a and one 2a message, and a 1b and a 2b message per acceptor
    capacity = len(c.Ballot) * (2 + 2 * len(c.Acceptor))
    return [
        integer("maxBal", -1, high, keys=c.Acceptor),
        integer("maxVBal", -1, high, keys=c.Acceptor),
        enumerated("maxVal", c.Value + (c["None"],), keys=c.Acceptor),
        RecordSet("msgs", message(c), capacity),
    ]


def Init(s, n):
    for a in s.c.Acceptor:
        n.maxBal[a] = -1
        n.maxVBal[a] = -1
        n.maxVal[a] = s.c["None"]
    n.msgs.clear()


ACCEPTOR, VALUE, BALLOT = members_of("Acceptor"), members_of("Value"), values_of("Ballot")


def slots(c):
    """The message a Phase1b or Phase2b step takes: a slot of msgs."""
    return range(len(c.Ballot) * (2 + 2 * len(c.Acceptor)))


MESSAGE = Domain("msgs", slots)


@action(b=BALLOT)
def Phase1a(s, n, b):
    """A leader starts ballot b."""
    n.msgs.add(n.msgs.record(type="1a", bal=b))


@action(a=ACCEPTOR, m=MESSAGE)
def Phase1b(s, n, a, m):
    """Acceptor a promises, for a 1a message of a ballot above its own, and reports its last vote."""
    msg = s.msgs.at(m)
    n.require(s.msgs.present(m), msg.type == "1a", msg.bal > s.maxBal[a])
    n.maxBal[a] = msg.bal
    n.msgs.add(n.msgs.record(type="1b", acc=a, bal=msg.bal, mbal=s.maxVBal[a], mval=s.maxVal[a]))


def shows_safe(s, Q, b, v):
    """Quorum Q has reported for ballot b, and v is safe: no acceptor of Q
    voted before, or v is the value of the highest vote reported."""
    def reported(m):  # m \in Q1b
        return and_(m.type == "1b", or_(*(m.acc == a for a in Q)), m.bal == b)

    def voted(m):  # m \in Q1bv
        return and_(reported(m), m.mbal >= 0)
    everyone_reported = all_of(s.msgs.exists(lambda m: and_(reported(m), m.acc == a)) for a in Q)
    highest = s.msgs.exists(lambda m: and_(voted(m), m.mval == v,
                                           s.msgs.forall(lambda mm: implies(voted(mm), m.mbal >= mm.mbal))))
    return and_(everyone_reported, or_(not_(s.msgs.exists(voted)), highest))


@action(b=BALLOT, v=VALUE)
def Phase2a(s, n, b, v):
    """The leader of ballot b proposes v, safe by the reports of some quorum."""
    value = s.c.Value[v]
    n.require(not_(s.msgs.exists(lambda m: and_(m.type == "2a", m.bal == b))),
              any_of(shows_safe(s, Q, b, value) for Q in s.c.Quorum))
    n.msgs.add(n.msgs.record(type="2a", bal=b, val=value))


@action(a=ACCEPTOR, m=MESSAGE)
def Phase2b(s, n, a, m):
    """Acceptor a votes for a 2a message's value, unless it promised a later ballot."""
    msg = s.msgs.at(m)
    n.require(s.msgs.present(m), msg.type == "2a", msg.bal >= s.maxBal[a])
    n.maxBal[a] = msg.bal
    n.maxVBal[a] = msg.bal
    n.maxVal[a] = msg.val
    n.msgs.add(n.msgs.record(type="2b", acc=a, bal=msg.bal, val=msg.val))


@invariant
def TypeOK(s):
    """Every variable holds a value of its type."""
    c = s.c
    ballots = tuple(c.Ballot) + (-1,)
    return all_of(and_(any_of(s.maxBal[a] == x for x in ballots), any_of(s.maxVBal[a] == x for x in ballots),
                       s.maxVal[a].is_in(c.Value + (c["None"],)))
                  for a in c.Acceptor)


def chosen(s, v):
    """v \\in chosen: a quorum voted for v in some ballot (Voting's ChosenAt)."""
    c = s.c
    return any_of(all_of(s.msgs.contains(s.msgs.record(type="2b", acc=a, bal=b, val=v)) for a in Q)
                  for b in c.Ballot for Q in c.Quorum)


@invariant
def Consistency(s):
    """At most one value is chosen."""
    return all_of(not_(and_(chosen(s, v), chosen(s, w))) for v, w in combinations(s.c.Value, 2))


@sometimes
def Chosen(s):
    """Some value is chosen."""
    return any_of(chosen(s, v) for v in s.c.Value)


SPEC = SpecDefinition(
    name="paxos", module="Paxos",
    summary="Paxos consensus with general quorums (after tlaplus/Examples' Paxos)",
    constants=CONSTANTS, check_constants=check_constants, definitions=DEFINITIONS,
    fields=fields, init=Init,
    next=(Phase1a, Phase2a, Phase1b, Phase2b),
    # Next == \/ \E b \in Ballot : Phase1a(b) \/ \E v \in Value : Phase2a(b, v)
    #         \/ \E a \in Acceptor : Phase1b(a) \/ Phase2b(a)
    instance_order=next_disjuncts((Phase1a, Phase2a), (Phase1b, Phase2b)),
    invariants=(TypeOK, Consistency), sometimes=(Chosen,),
    # one acceptor: 45 states, and a compiled kernel a quarter the size of two acceptors' (which take 145)
    small_models=({"Acceptor": "{a1}", "Quorum": "{{a1}}"},),
)
