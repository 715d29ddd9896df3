"""Lemmas for proving Kip320's StrongIsr by induction (``modelcheck prove``).

StrongIsr holds in every reachable state but is not inductive: the solver
finds unreachable states that satisfy it and step to states that break it (a
replica on an epoch no request named, a follower whose log is not a prefix of
its leader's, a record id never handed out...). Each lemma below is a fact
about reachable states that rules a family of those out. None is in the
upstream module. They are named invariants like any other: breadth-first
search checks them (``modelcheck run kip320 --inv NAME``) and ``prove``
proves them together with StrongIsr, so none is taken on trust.

The first five are the ones the proof cannot do without on small
configurations; the rest shorten it (a smaller k, fewer solver seconds).
"""

from __future__ import annotations

from modelcheck.language.expr import all_of, and_, any_of, bit_or, implies, member, not_
from modelcheck.model.spec import invariant
from modelcheck.specs.finite_replicated_log import NIL, get_record_at_offset, offsets
from modelcheck.specs.kafka_replication import NONE, is_true_leader, replica_count, replica_presumes_leadership, replicas
from modelcheck.specs.kip320_fencing import is_following_leader_epoch


def _epochs(s) -> range:
    return range(s.c.MaxLeaderEpoch + 1)


def _held(s, r, o):
    """Replica r holds a record at offset o."""
    return o < s.log_end[r]


# --- controller and epochs ---------------------------------------------------------

@invariant
def RequestsSentBelowNextEpoch(s):
    """Exactly the requests of the epochs handed out so far have been sent."""
    return all_of(s.request_sent[e] == (e < s.next_leader_epoch) for e in _epochs(s))


@invariant
def QuorumOnLatestEpoch(s):
    """The quorum is on the last epoch handed out, and that epoch's request
    names the quorum's leader."""
    return and_(s.quorum_epoch == s.next_leader_epoch - 1,
                all_of(implies(s.quorum_epoch == e, s.request_leader[e] == s.quorum_leader) for e in _epochs(s)))


@invariant
def ReplicaEpochFromRequest(s):
    """A replica has a leader exactly when it has an epoch; that epoch is no
    newer than the quorum's, and its request names the same leader."""
    return all_of(
        and_((s.leader_epoch[r] == NIL) == (s.leader[r] == NONE),
             s.leader_epoch[r] <= s.quorum_epoch,
             all_of(implies(s.leader_epoch[r] == e, s.request_leader[e] == s.leader[r]) for e in _epochs(s)))
        for r in replicas(s))


@invariant
def RecordEpochsUpToReplicaEpoch(s):
    """No replica holds a record written in an epoch later than its own."""
    return all_of(implies(_held(s, r, o), s.log_epoch[r][o] <= s.leader_epoch[r])
                  for r in replicas(s) for o in offsets(s))


@invariant
def FollowerIsPrefixOfLeader(s):
    """A follower on its leader's epoch holds a prefix of the leader's log."""
    def prefix(follower, leader):
        return and_(s.log_end[follower] <= s.log_end[leader],
                    all_of(implies(_held(s, follower, o),
                                   get_record_at_offset(s, follower, o).equals(get_record_at_offset(s, leader, o)))
                           for o in offsets(s)))

    return all_of(implies(is_following_leader_epoch(s, leader, follower), prefix(follower, leader))
                  for leader in replicas(s) for follower in replicas(s) if follower != leader)


# --- leadership and the ISR --------------------------------------------------------

@invariant
def QuorumLeaderInQuorumIsr(s):
    """The quorum's leader, when there is one, is in the quorum's ISR."""
    return implies(s.quorum_leader != NONE, member(s.quorum_isr, s.quorum_leader, replica_count(s)))


@invariant
def TrueLeaderCachesQuorumIsr(s):
    """The true leader's cached ISR is the quorum's; with no true leader yet,
    the quorum's ISR is still the one its epoch's request carried."""
    true_leader = [(r, is_true_leader(s, r)) for r in replicas(s)]
    unchanged = all_of(implies(s.quorum_epoch == e, s.request_isr[e] == s.quorum_isr) for e in _epochs(s))
    return and_(all_of(implies(t, s.isr[r] == s.quorum_isr) for r, t in true_leader),
                implies(and_(s.quorum_epoch >= 0, all_of(not_(t) for _, t in true_leader)), unchanged))


@invariant
def IsrGrowsOnlyUnderItsLeader(s):
    """A replica joins the ISR only through the leader of an epoch, once that
    leader has taken the epoch up: an epoch's request carries no ISR member
    beyond the previous request's unless the previous request's leader
    reached that epoch (the controller never adds to the ISR)."""
    def grew(e):
        return bit_or(s.request_isr[e + 1], s.request_isr[e]) != s.request_isr[e]

    def leader_reached(e):
        return any_of(and_(s.request_leader[e] == r, s.leader_epoch[r] >= e) for r in replicas(s))

    return all_of(implies(and_(s.request_sent[e + 1], grew(e)), leader_reached(e))
                  for e in _epochs(s)[:-1])


@invariant
def StaleLeaderCachesNextIsr(s):
    """A leader left behind on epoch e caches every member of epoch e+1's ISR:
    the controller makes the next epoch from the quorum's ISR (which the
    true leader caches) or a subset of it, and a leader no longer true can
    not change its cache."""
    def covers(r, e):
        return bit_or(s.isr[r], s.request_isr[e + 1]) == s.isr[r]

    return all_of(implies(and_(s.leader[r] == r, s.leader_epoch[r] == e, s.request_sent[e + 1]), covers(r, e))
                  for r in replicas(s) for e in _epochs(s)[:-1])


@invariant
def RequestLeaderInRequestIsr(s):
    """A request that names a leader has it in its ISR."""
    return all_of(implies(and_(s.request_sent[e], s.request_leader[e] != NONE),
                          member(s.request_isr[e], s.request_leader[e], replica_count(s))) for e in _epochs(s))


@invariant
def LeaderInOwnIsr(s):
    """A replica that presumes leadership is in its own cached ISR."""
    return all_of(implies(replica_presumes_leadership(s, r), member(s.isr[r], r)) for r in replicas(s))


@invariant
def CachedIsrNonEmptyOnAnEpoch(s):
    """A replica that has taken up an epoch caches a non-empty ISR: requests
    that name a leader carry it in their ISR, and a leader never drops
    itself. (FencedLeaderIncHighWatermark reads an empty ISR as everyone
    having caught up, so a follower with one could advance its high
    watermark on its own.)"""
    return all_of(implies(s.leader_epoch[r] != NIL, s.isr[r] != 0) for r in replicas(s))


@invariant
def FollowersBehindTheirLeader(s):
    """A replica following another is on an epoch the leader has reached."""
    return all_of(implies(s.leader[f] == leader, s.leader_epoch[leader] >= s.leader_epoch[f])
                  for f in replicas(s) for leader in replicas(s) if f != leader)


# --- records and logs --------------------------------------------------------------

@invariant
def RecordIdsIssued(s):
    """Every record held was handed an id already."""
    return all_of(implies(_held(s, r, o), s.log_id[r][o] < s.next_record_id) for r in replicas(s) for o in offsets(s))


@invariant
def RecordIdsGrow(s):
    """Within a log, ids increase with the offset."""
    return all_of(implies(_held(s, r, o + 1), s.log_id[r][o] < s.log_id[r][o + 1])
                  for r in replicas(s) for o in offsets(s)[:-1])


@invariant
def RecordEpochsGrow(s):
    """Within a log, epochs never decrease with the offset."""
    return all_of(implies(_held(s, r, o + 1), s.log_epoch[r][o] <= s.log_epoch[r][o + 1])
                  for r in replicas(s) for o in offsets(s)[:-1])


@invariant
def RecordIdsPlacedOnce(s):
    """A record id sits at one offset and carries one epoch, in every log that holds it."""
    def same_id(r1, o1, r2, o2):
        a, b = get_record_at_offset(s, r1, o1), get_record_at_offset(s, r2, o2)
        return and_(_held(s, r1, o1), _held(s, r2, o2), a.id == b.id), a.epoch == b.epoch

    parts = []
    cells = [(r, o) for r in replicas(s) for o in offsets(s)]
    for i, (r1, o1) in enumerate(cells):
        for r2, o2 in cells[i + 1:]:
            both, same_epoch = same_id(r1, o1, r2, o2)
            parts.append(implies(both, same_epoch) if o1 == o2 else not_(both))
    return all_of(parts)


@invariant
def LogMatching(s):
    """Two logs holding the same record at an offset agree on every offset below it."""
    def same(r1, r2, o):
        return get_record_at_offset(s, r1, o).equals(get_record_at_offset(s, r2, o))

    return all_of(implies(and_(_held(s, r1, o), _held(s, r2, o), same(r1, r2, o)),
                          all_of(same(r1, r2, p) for p in range(o)))
                  for r1 in replicas(s) for r2 in replicas(s) if r1 < r2 for o in offsets(s))


@invariant
def EpochLeaderStartedBeforeItsRecords(s):
    """The leader named for an epoch has reached that epoch once any record of it exists."""
    return all_of(implies(and_(_held(s, r, o), s.log_epoch[r][o] == e, s.request_leader[e] == leader),
                          s.leader_epoch[leader] >= e)
                  for r in replicas(s) for o in offsets(s) for e in _epochs(s) for leader in replicas(s))


@invariant
def HighWatermarkWithinLog(s):
    """No replica's high watermark is past its own log end."""
    return all_of(s.hw[r] <= s.log_end[r] for r in replicas(s))


LEMMAS = (RequestsSentBelowNextEpoch, QuorumOnLatestEpoch, ReplicaEpochFromRequest, RecordEpochsUpToReplicaEpoch,
          FollowerIsPrefixOfLeader, QuorumLeaderInQuorumIsr, TrueLeaderCachesQuorumIsr, IsrGrowsOnlyUnderItsLeader,
          StaleLeaderCachesNextIsr, RequestLeaderInRequestIsr, LeaderInOwnIsr, CachedIsrNonEmptyOnAnEpoch,
          FollowersBehindTheirLeader, RecordIdsIssued, RecordIdsGrow, RecordEpochsGrow, RecordIdsPlacedOnce,
          LogMatching, EpochLeaderStartedBeforeItsRecords, HighWatermarkWithinLog)
