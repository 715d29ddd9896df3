"""Two-phase commit, after the TwoPhase module of tlaplus/Examples
(specifications/transaction_commit), keeping its names.

A transaction manager (TM) and the resource managers RM: each RM prepares
(and says so with a "Prepared" message) or aborts on its own; the TM commits
once every RM has prepared, or aborts at any time, and broadcasts its
decision, which the RMs follow. Messages are never removed: ``msgs`` is the
set of every message sent.

Run it with ``modelcheck run examples/two_phase/two_phase.py``, or with the
TLC configuration beside it: ``--config examples/two_phase/TwoPhase.cfg``.
"""

from modelcheck.language.bounded import RecordSet
from modelcheck.language.constants import MODEL_VALUES, ConstantDecl
from modelcheck.language.expr import all_of, and_, not_, set_with
from modelcheck.language.records import RecordType, choice
from modelcheck.language.schema import enumerated, subset
from modelcheck.language.temporal import Specification
from modelcheck.model.spec import SpecDefinition, action, by_first_parameter, invariant, members_of, sometimes

# The strings, in the order the TLA+ module first writes them (TLC orders strings so).
MESSAGE_TYPES = ("Prepared", "Commit", "Abort")
RM_STATES = ("working", "prepared", "committed", "aborted")
TM_STATES = ("committed", "aborted", "init")

CONSTANTS = (
    ConstantDecl("RM", MODEL_VALUES, 3, minimum=1, maximum=8,
                 doc="the resource managers: a count (3 is {r1, r2, r3}) or names ({a, b})"),
)

RM = members_of("RM")


def message(c) -> RecordType:
    """Message == [type : {"Prepared"}, rm : RM] \\cup [type : {"Commit", "Abort"}]."""
    return RecordType("Message", [choice("type", MESSAGE_TYPES), choice("rm", c.RM)],
                      variants=("type", {"Prepared": ("rm",), "Commit": (), "Abort": ()}))


def fields(c):
    return [
        enumerated("rmState", RM_STATES, keys=c.RM),
        enumerated("tmState", TM_STATES),
        subset("tmPrepared", c.RM),
        # at most one Prepared message per RM, one Commit and one Abort
        RecordSet("msgs", message(c), capacity=len(c.RM) + 2),
    ]


def TPInit(s, n):
    for rm in range(len(s.c.RM)):
        n.rmState[rm] = "working"
    n.tmState = "init"
    n.tmPrepared = ()
    n.msgs.clear()


@action(rm=RM)
def TMRcvPrepared(s, n, rm):
    """The TM receives a Prepared message from rm."""
    n.require(s.tmState == "init", s.msgs.contains(s.msgs.record(type="Prepared", rm=rm)))
    n.tmPrepared = set_with(s.tmPrepared, rm)


@action()
def TMCommit(s, n):
    """The TM commits once every RM has prepared."""
    n.require(s.tmState == "init", s.tmPrepared == s.c.RM)
    n.tmState = "committed"
    n.msgs.add(n.msgs.record(type="Commit"))


@action()
def TMAbort(s, n):
    """The TM aborts on its own."""
    n.require(s.tmState == "init")
    n.tmState = "aborted"
    n.msgs.add(n.msgs.record(type="Abort"))


@action(rm=RM)
def RMPrepare(s, n, rm):
    """rm prepares and tells the TM."""
    n.require(s.rmState[rm] == "working")
    n.rmState[rm] = "prepared"
    n.msgs.add(n.msgs.record(type="Prepared", rm=rm))


@action(rm=RM)
def RMChooseToAbort(s, n, rm):
    """rm aborts on its own (sending nothing)."""
    n.require(s.rmState[rm] == "working")
    n.rmState[rm] = "aborted"


@action(rm=RM)
def RMRcvCommitMsg(s, n, rm):
    """rm is told to commit."""
    n.require(s.msgs.contains(s.msgs.record(type="Commit")))
    n.rmState[rm] = "committed"


@action(rm=RM)
def RMRcvAbortMsg(s, n, rm):
    """rm is told to abort."""
    n.require(s.msgs.contains(s.msgs.record(type="Abort")))
    n.rmState[rm] = "aborted"


@invariant
def TPTypeOK(s):
    """Every variable holds a value of its type."""
    return and_(all_of(s.rmState[rm].is_in(RM_STATES) for rm in range(len(s.c.RM))),
                s.tmState.is_in(("init", "committed", "aborted")),
                s.msgs.forall(lambda m: m.type.is_in(MESSAGE_TYPES)))


@invariant
def TCConsistent(s):
    """No RM has aborted while another has committed (TCommit's TCConsistent)."""
    everyone = range(len(s.c.RM))
    return all_of(not_(and_(s.rmState[a] == "aborted", s.rmState[b] == "committed"))
                  for a in everyone for b in everyone)


@sometimes
def Committed(s):
    """Some RM commits."""
    return s.tmState == "committed"


# TPNext == TMCommit \/ TMAbort \/ \E rm \in RM : TMRcvPrepared(rm) \/ RMPrepare(rm) \/ ...
PER_RM = (TMRcvPrepared, RMPrepare, RMChooseToAbort, RMRcvCommitMsg, RMRcvAbortMsg)

SPEC = SpecDefinition(
    name="two-phase", module="TwoPhase",
    summary="two-phase commit: a transaction manager and resource managers (after tlaplus/Examples' TwoPhase)",
    constants=CONSTANTS, fields=fields, init=TPInit,
    next=(TMCommit, TMAbort) + PER_RM,
    instance_order=by_first_parameter(PER_RM, before=(TMCommit, TMAbort)),
    invariants=(TPTypeOK, TCConsistent), sometimes=(Committed,),
    specifications=(Specification("TPSpec", (), "TPInit /\\ [][TPNext]_<<rmState, tmState, tmPrepared, msgs>>"),),
    small_models=({"RM": "2"},),
)
