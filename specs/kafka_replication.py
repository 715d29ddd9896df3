"""KafkaReplication: the state and actions every replication spec shares.

One partition with a fixed set of replicas. Each replica has a bounded log and
a cached view of the partition (its leader, leader epoch, ISR and high
watermark). The controller has no state of its own: it edits the quorum state
(ZooKeeper, in the real system) directly and sends LeaderAndIsr requests,
which stay in a set forever so replicas may see them late, twice, or never.

This module defines no Next of its own; the modules built on it pick actions
from here and add their own truncation logic.

The six TLA+ variables map onto state fields as follows:

* replicaLog -> ``log_end``, ``log_id``, ``log_epoch`` (see finite_replicated_log)
* replicaState -> ``hw``, ``leader_epoch``, ``leader``, ``isr``
* nextRecordId, nextLeaderEpoch -> ``next_record_id``, ``next_leader_epoch``
* leaderAndIsrRequests -> ``request_sent``, ``request_leader``, ``request_isr``,
  one slot per leader epoch: each request carries a fresh epoch, so the slot
  index is the request's epoch and no two requests share a slot
* quorumState -> ``quorum_epoch``, ``quorum_leader``, ``quorum_isr``

Replicas are numbered 0..R-1 in the order the constant lists them; NONE (-1)
is "no leader" and sets of replicas are bitmasks.
"""

from __future__ import annotations

from modelcheck.language.codec import Const, Fn, IntSlot, KeyedSet, NilOr, Rec, ReplicaSetSlot, ReplicaSlot, StateCodec
from modelcheck.language.constants import INT, REPLICAS, ConstantDecl
from modelcheck.model.explain import Account
from modelcheck.language.expr import (all_of, and_, any_of, implies, ite, member, min_, not_, or_, set_with,
                                      set_without)
from modelcheck.language.schema import boolean, integer, subset
from modelcheck.model.spec import Domain, action, invariant, sometimes
from modelcheck.specs.finite_replicated_log import (NIL, LogRecord, append, get_record_at_offset, has_offset,
                                         has_some_entry, is_log_record, log_type_ok, offsets, replicate_to,
                                         truncate_to)
from modelcheck.specs.id_sequence import id_sequence_type_ok, next_id_available

NONE = -1  # "no leader"

CONSTANTS = (
    ConstantDecl("Replicas", REPLICAS, ("r1", "r2", "r3"), minimum=1, maximum=8,
                 doc="the replicas of the partition: a count (3) or names ({a,b,c})"),
    ConstantDecl("LogSize", INT, 2, minimum=1, maximum=16, doc="the capacity of each replica's log"),
    ConstantDecl("MaxRecords", INT, 2, minimum=1, maximum=64, doc="how many records producers may write in all"),
    ConstantDecl("MaxLeaderEpoch", INT, 2, minimum=0, maximum=64,
                 doc="the largest leader epoch; at most MaxLeaderEpoch+1 controller updates happen"),
)

REPLICA = Domain("Replicas", lambda c: range(len(c.Replicas)), lambda c, i: c.Replicas[i])
# A LeaderAndIsr request is named by its leader epoch, which is unique.
REQUEST = Domain("leaderAndIsrRequests", lambda c: range(c.MaxLeaderEpoch + 1), lambda c, e: e)


def replica_count(s) -> int:
    return len(s.c.Replicas)


def all_replicas(s) -> int:
    return (1 << replica_count(s)) - 1


def replicas(s) -> range:
    return range(replica_count(s))


# --- state ------------------------------------------------------------------

def fields(c):
    r, size, e, m = len(c.Replicas), c.LogSize, c.MaxLeaderEpoch, c.MaxRecords
    return [
        integer("log_end", 0, size, (r,)),
        integer("log_id", NIL, m - 1, (r, size)),
        integer("log_epoch", NIL, e, (r, size)),
        integer("hw", 0, size, (r,)),
        integer("leader_epoch", NIL, e, (r,)),
        integer("leader", NONE, r - 1, (r,)),
        subset("isr", r, (r,)),
        integer("next_record_id", 0, m),
        integer("next_leader_epoch", 0, e + 1),
        boolean("request_sent", (e + 1,)),
        integer("request_leader", NONE, r - 1, (e + 1,)),
        subset("request_isr", r, (e + 1,)),
        integer("quorum_epoch", NIL, e),
        integer("quorum_leader", NONE, r - 1),
        subset("quorum_isr", r),
    ]


def variables(c, schema) -> StateCodec:
    """How the fields read as the six TLA+ variables."""
    return StateCodec(schema, replication_codecs(c, schema))


def replication_codecs(c, schema) -> dict:
    """The six variables' codecs, for specs that extend the state."""
    names, size, e = c.Replicas, c.LogSize, c.MaxLeaderEpoch
    slot = schema.slot
    f = schema.by_name

    def int_of(name, *idx):
        return IntSlot(slot(name, *idx), f[name].lo, f[name].hi)

    def log(r):
        records = [NilOr(Rec(id=int_of("log_id", r, o), epoch=int_of("log_epoch", r, o))) for o in range(size)]
        return Rec(endOffset=int_of("log_end", r), records=Fn(range(size), records))

    def replica_state(r):
        return Rec(hw=int_of("hw", r), leaderEpoch=int_of("leader_epoch", r),
                   leader=ReplicaSlot(slot("leader", r), names), isr=ReplicaSetSlot(slot("isr", r), names))

    requests = {
        epoch: (slot("request_sent", epoch),
                Rec(leaderEpoch=Const(epoch), leader=ReplicaSlot(slot("request_leader", epoch), names),
                    isr=ReplicaSetSlot(slot("request_isr", epoch), names)))
        for epoch in range(e + 1)
    }
    blank = {slot("request_leader", epoch): NONE for epoch in range(e + 1)}
    blank.update({slot("request_isr", epoch): 0 for epoch in range(e + 1)})
    return {
        "replicaLog": Fn(names, [log(r) for r in range(len(names))]),
        "replicaState": Fn(names, [replica_state(r) for r in range(len(names))]),
        "nextRecordId": int_of("next_record_id"),
        "nextLeaderEpoch": int_of("next_leader_epoch"),
        "leaderAndIsrRequests": KeyedSet("leaderEpoch", requests, blank),
        "quorumState": Rec(leaderEpoch=int_of("quorum_epoch"), leader=ReplicaSlot(slot("quorum_leader"), names),
                           isr=ReplicaSetSlot(slot("quorum_isr"), names)),
    }


def Init(s, n) -> None:
    """Empty logs, no leader anywhere, every replica in the quorum's ISR, no requests."""
    for r in replicas(s):
        n.log_end[r] = 0
        for o in offsets(s):
            n.log_id[r][o] = NIL
            n.log_epoch[r][o] = NIL
        n.hw[r] = 0
        n.leader_epoch[r] = NIL
        n.leader[r] = NONE
        n.isr[r] = 0
    n.next_record_id = 0
    n.next_leader_epoch = 0
    for epoch in range(s.c.MaxLeaderEpoch + 1):
        n.request_sent[epoch] = False
        n.request_leader[epoch] = NONE
        n.request_isr[epoch] = 0
    n.quorum_epoch = NIL
    n.quorum_leader = NONE
    n.quorum_isr = all_replicas(s)


# --- operators ----------------------------------------------------------------

def replica_presumes_leadership(s, replica):
    return s.leader[replica] == replica


def replica_is_following(s, follower, leader):
    return s.leader[follower] == leader


def is_true_leader(s, leader):
    """The quorum names this replica leader and it is on the quorum's epoch."""
    return and_(s.quorum_leader == leader, replica_presumes_leadership(s, leader),
                s.leader_epoch[leader] == s.quorum_epoch)


def all_isr_members(s, leader, condition):
    """\\A follower \\in replicaState[leader].isr : condition(follower)."""
    return all_of(implies(member(s.isr[leader], f), condition(f)) for f in replicas(s))


def adopt_request(s, n, replica, request, leader) -> None:
    """A replica takes a LeaderAndIsr request that names ``leader`` and is
    newer than its own epoch: it adopts the request's epoch, leader and ISR.
    Every BecomeLeader / BecomeFollower variant starts this way."""
    n.require(s.request_sent[request], s.request_leader[request] == leader,
              request > s.leader_epoch[replica])
    n.leader_epoch[replica] = request
    n.leader[replica] = leader
    n.isr[replica] = s.request_isr[request]


def controller_update_isr(s, n, new_leader, new_isr) -> None:
    """ControllerUpdateIsr: take the next leader epoch, write the quorum state
    and send the matching LeaderAndIsr request."""
    epoch = s.next_leader_epoch
    n.require(next_id_available(epoch, s.c.MaxLeaderEpoch))
    n.next_leader_epoch = epoch + 1
    n.quorum_epoch = epoch
    n.quorum_leader = new_leader
    n.quorum_isr = new_isr
    n.request_sent[epoch] = True
    n.request_leader[epoch] = new_leader
    n.request_isr[epoch] = new_isr


def quorum_update_leader_and_isr(s, n, leader, new_isr) -> None:
    """QuorumUpdateLeaderAndIsr: only the true leader may change the ISR, and
    the change reaches the quorum and the leader's own cache, nothing else (no
    new epoch, no request)."""
    n.require(is_true_leader(s, leader), s.quorum_leader == leader)
    n.quorum_isr = new_isr
    n.isr[leader] = new_isr


def is_follower_caught_up(s, leader, follower, end_offset):
    """IsFollowerCaughtUp: the follower acknowledges the leader and has an
    entry at the offset just below ``end_offset`` (offsets only, no epochs)."""
    return and_(
        replica_is_following(s, follower, leader),
        or_(end_offset == 0,
            and_(end_offset > 0, has_some_entry(s, leader, end_offset - 1),
                 has_offset(s, follower, end_offset - 1))))


def become_follower_and_truncate_to(s, n, leader, replica, request, truncation_offset) -> None:
    """BecomeFollowerAndTruncateTo: a replica takes a newer LeaderAndIsr
    request naming another replica as leader and truncates its log.

    The TLA+ operator also handles a request with no leader, but every caller
    quantifies ``leader`` over the replicas, so that branch can never fire and
    is not carried over.
    """
    adopt_request(s, n, replica, request, leader)
    truncate_to(s, n, replica, truncation_offset)
    n.hw[replica] = min_(truncation_offset, s.hw[replica])


# --- actions --------------------------------------------------------------------

@action(replica=REPLICA)
def ControllerShrinkIsr(s, n, replica):
    """The controller takes a replica out of the ISR (a broker failed or shut
    down). Removing the leader leaves the partition leaderless; removing the
    sole ISR member who is leader keeps it in the ISR."""
    r = replica_count(s)
    is_leader = s.quorum_leader == replica
    n.require(or_(is_leader, member(s.quorum_isr, replica)))
    alone = s.quorum_isr == (1 << replica)
    new_leader = ite(is_leader, NONE, s.quorum_leader)
    new_isr = ite(and_(is_leader, alone), s.quorum_isr, set_without(s.quorum_isr, replica, r))
    controller_update_isr(s, n, new_leader, new_isr)


@action(newLeader=REPLICA)
def ControllerElectLeader(s, n, newLeader):
    """Clean election: any ISR member other than the current leader, with a
    new epoch."""
    n.require(member(s.quorum_isr, newLeader), s.quorum_leader != newLeader)
    controller_update_isr(s, n, newLeader, s.quorum_isr)


@action(leaderAndIsrRequest=REQUEST, leader=REPLICA)
def BecomeLeader(s, n, leaderAndIsrRequest, leader):
    """A replica named leader by a request newer than its epoch takes the
    leadership; it keeps its own (possibly stale) high watermark."""
    adopt_request(s, n, leader, leaderAndIsrRequest, leader)


@action(replica=REPLICA)
def LeaderWrite(s, n, replica):
    """A replica that presumes leadership appends the next record id with its
    own epoch, if ids remain and its log has room."""
    n.require(replica_presumes_leadership(s, replica), next_id_available(s.next_record_id, s.c.MaxRecords - 1))
    record = LogRecord(s.next_record_id, s.leader_epoch[replica])
    append(s, n, replica, record, s.log_end[replica])
    n.next_record_id = s.next_record_id + 1


@action(leader=REPLICA, replica=REPLICA, where=lambda leader, replica: leader != replica)
def LeaderShrinkIsr(s, n, leader, replica):
    """The true leader drops an ISR member that is not caught up to its log end.
    (The quantifier ranges over the ISR minus the leader itself.)"""
    isr = s.isr[leader]
    n.require(member(isr, replica), not_(is_follower_caught_up(s, leader, replica, s.log_end[leader])))
    quorum_update_leader_and_isr(s, n, leader, set_without(isr, replica, replica_count(s)))


@action(leader=REPLICA, replica=REPLICA)
def LeaderExpandIsr(s, n, leader, replica):
    """The true leader adds a replica that has caught up to its high watermark."""
    isr = s.isr[leader]
    n.require(not_(member(isr, replica)), is_follower_caught_up(s, leader, replica, s.hw[leader]))
    quorum_update_leader_and_isr(s, n, leader, set_with(isr, replica))


@action(leader=REPLICA)
def LeaderIncHighWatermark(s, n, leader):
    """The pre-KIP-320 rule: advance the high watermark once every replica in
    the leader's ISR follows it and has the offset, whatever its epoch."""
    hw = s.hw[leader]
    n.require(replica_presumes_leadership(s, leader), hw <= s.c.LogSize - 1,
              all_isr_members(s, leader, lambda f: and_(replica_is_following(s, f, leader), has_offset(s, f, hw))))
    n.hw[leader] = hw + 1


@action(follower=REPLICA, leader=REPLICA, where=lambda follower, leader: follower != leader)
def FollowerReplicate(s, n, follower, leader):
    """Unfenced replication: the follower copies the leader's record at its own
    end offset whenever both agree who leads, with no epoch check.
    (A replica "fetching" from itself would need an entry at its own end
    offset, which no log has, so those combinations are left out.)"""
    n.require(replica_presumes_leadership(s, leader), replica_is_following(s, follower, leader))
    replicate_to(s, n, leader, follower)
    n.hw[follower] = min_(s.hw[leader], s.log_end[follower] + 1)


# --- invariants -----------------------------------------------------------------

def _replica_state_type_ok(s, r):
    e, size, count = s.c.MaxLeaderEpoch, s.c.LogSize, replica_count(s)
    return and_(0 <= s.hw[r], s.hw[r] <= size, NIL <= s.leader_epoch[r], s.leader_epoch[r] <= e,
                NONE <= s.leader[r], s.leader[r] <= count - 1, 0 <= s.isr[r], s.isr[r] <= all_replicas(s))


def _quorum_state_type_ok(s, epoch, leader, isr):
    count = replica_count(s)
    return and_(NIL <= epoch, epoch <= s.c.MaxLeaderEpoch, NONE <= leader, leader <= count - 1,
                0 <= isr, isr <= all_replicas(s))


@invariant
def TypeOk(s):
    """Every variable holds a value of its declared type: counters within
    their sequences, logs well formed, replica and quorum states in range."""
    return and_(
        id_sequence_type_ok(s.next_leader_epoch, s.c.MaxLeaderEpoch),
        id_sequence_type_ok(s.next_record_id, s.c.MaxRecords - 1),
        all_of(log_type_ok(s, r) for r in replicas(s)),
        all_of(_replica_state_type_ok(s, r) for r in replicas(s)),
        _quorum_state_type_ok(s, s.quorum_epoch, s.quorum_leader, s.quorum_isr),
        all_of(implies(s.request_sent[e], _quorum_state_type_ok(s, e, s.request_leader[e], s.request_isr[e]))
               for e in range(s.c.MaxLeaderEpoch + 1)),
    )


def _same_entry(s, r1, r2, offset):
    """\\E record \\in LogRecords : HasEntry(r1, record, o) /\\ HasEntry(r2, record, o)."""
    rec1 = get_record_at_offset(s, r1, offset)
    rec2 = get_record_at_offset(s, r2, offset)
    return and_(has_offset(s, r1, offset), has_offset(s, r2, offset), rec1.equals(rec2), is_log_record(s, rec1))


def isr_disagreement(s, isr_of, r1, r2, offset):
    """What breaks WeakIsr or StrongIsr for a presumed leader r1: r2 is in
    ``isr_of(r1)``, ``offset`` is below r1's high watermark, and r1 and r2
    do not hold the same record there."""
    return and_(member(isr_of(r1), r2), offset < s.hw[r1], not_(_same_entry(s, r1, r2, offset)))


def _isr_agrees_below_hw(s, isr_of):
    """For every presumed leader r1 and every r2 in ``isr_of(r1)``, the logs of
    r1 and r2 hold the same records below r1's high watermark. (hw = 0 is
    implied by the offsets' range; it is spelled out as a quick exit.)"""
    def agrees(r1):
        return or_(
            not_(replica_presumes_leadership(s, r1)),
            s.hw[r1] == 0,
            all_of(not_(isr_disagreement(s, isr_of, r1, r2, o)) for r2 in replicas(s) for o in offsets(s)))
    return all_of(agrees(r1) for r1 in replicas(s))


def record_text(probe, replica, offset) -> str | None:
    """A replica's record at an offset as ``id0@2`` (id 0, leader epoch 2), or
    None where it holds no record: past its log end, or (only in the
    unreachable states a proof by induction may start from) an empty slot
    below it."""
    s = probe.s
    record_id = probe.value(s.log_id[replica][offset])
    if offset >= probe.value(s.log_end[replica]) or record_id < 0:
        return None
    return f"id{record_id}@{probe.value(s.log_epoch[replica][offset])}"


def _explain_isr(probe, isr_of, whose_isr) -> Account | None:
    """Names the presumed leader, the ISR member and the offset at which
    their logs differ below the leader's high watermark (the slot in both
    logs is the focus)."""
    s = probe.s
    found = probe.where(lambda s, r1, r2, o: and_(replica_presumes_leadership(s, r1),
                                                  isr_disagreement(s, isr_of, r1, r2, o)),
                        r1=replicas(s), r2=replicas(s), o=offsets(s))
    if not found:
        return None
    first = found[0]
    r1, r2, o = first["r1"], first["r2"], first["o"]
    name, other = probe.replica(r1), probe.replica(r2)
    isr = probe.replica_set(probe.value(isr_of(r1)))
    text = f"{name} presumes leadership with hw={probe.value(s.hw[r1])}, but "
    mine, theirs = record_text(probe, r1, o), record_text(probe, r2, o)
    if mine is None and r1 == r2:
        text += f"has no record at offset {o}, below that hw"
    elif mine is None:
        text += f"{name} itself has no record at offset {o} although {other} is in {whose_isr(name)} {isr}"
    elif theirs is None:
        text += f"{other} is in {whose_isr(name)} {isr} and has no record at offset {o} ({name} has {mine})"
    else:
        text += f"{other} is in {whose_isr(name)} {isr} and has {theirs} at offset {o} where {name} has {mine}"
    rest = [f"{probe.replica(w['r2'])} at offset {w['o']}" + ("" if w["r1"] == r1 else
                                                              f" below {probe.replica(w['r1'])}'s hw")
            for w in found[1:]]
    if rest:
        text += "; the same holds for " + ", ".join(rest)
    return Account(text, tuple(dict.fromkeys(((name, "log", o), (other, "log", o)))))


def explain_weak_isr(probe) -> str | None:
    return _explain_isr(probe, lambda r1: probe.s.isr[r1], lambda leader: f"{leader}'s own ISR")


def explain_strong_isr(probe) -> str | None:
    return _explain_isr(probe, lambda r1: probe.s.quorum_isr, lambda leader: "the quorum ISR")


def explain_leader_in_isr(probe) -> str | None:
    s = probe.s
    leader, epoch = probe.value(s.quorum_leader), probe.value(s.quorum_epoch)
    isr = probe.replica_set(probe.value(s.quorum_isr))
    if leader == NONE:
        return f"the quorum has no leader (epoch {epoch}, ISR {isr})"
    return f"the quorum names {probe.replica(leader)} leader on epoch {epoch}, but its ISR is {isr}"


@invariant(explain=explain_weak_isr)
def WeakIsr(s):
    """Below a presumed leader's high watermark, every replica in that
    leader's own cached ISR has exactly the leader's records."""
    return _isr_agrees_below_hw(s, lambda r1: s.isr[r1])


@invariant(explain=explain_strong_isr)
def StrongIsr(s):
    """Below a presumed leader's high watermark, every replica in the quorum's
    (true) ISR has exactly the leader's records, so any electable replica
    holds all data consumers may have seen."""
    return _isr_agrees_below_hw(s, lambda r1: s.quorum_isr)


@invariant(explain=explain_leader_in_isr)
def LeaderInIsr(s):
    """The quorum's leader is a member of the quorum's ISR. (With no leader it
    does not hold, which includes the initial state.)"""
    return member(s.quorum_isr, s.quorum_leader, replica_count(s))


@sometimes
def LeaderElected(s):
    """Some replica presumes leadership."""
    return any_of(replica_presumes_leadership(s, r) for r in replicas(s))


@sometimes
def HighWatermarkAdvanced(s):
    """Some replica's high watermark is above zero."""
    return any_of(s.hw[r] > 0 for r in replicas(s))


BASE_INVARIANTS = (TypeOk, WeakIsr, StrongIsr, LeaderInIsr)
DEFAULT_INVARIANTS = ("TypeOk", "WeakIsr", "StrongIsr")
BASE_SOMETIMES = (LeaderElected, HighWatermarkAdvanced)
