"""Kip320Live: temporal properties of Kip320, and the specifications to check them under.

The module extends Kip320 with eight properties ("does the protocol make
progress?") and two more specifications besides Kip320's own ``Spec``:
``NoFairSpec`` (the same behaviours without fairness) and ``FairFetchSpec``
(``Spec`` with follower fetching weakly fair as well). ``specs/kip320.py``
attaches them to the kip320 spec.
"""

from __future__ import annotations

from modelcheck.language.expr import all_of, and_, any_of, implies
from modelcheck.language.temporal import (WF, Specification, always_eventually, eventually, eventually_always,
                                          eventually_always_step, forall, infinitely_often_implies_eventually, leads_to,
                                          no_fairness, temporal)
from modelcheck.specs.finite_replicated_log import get_end_offset
from modelcheck.specs.kafka_replication import REPLICA, replica_presumes_leadership, replicas


def on_quorum_epoch(s, r):
    """replicaState[r].leaderEpoch = quorumState.leaderEpoch."""
    return s.leader_epoch[r] == s.quorum_epoch


def requests(s) -> range:
    """The request slots: one per leader epoch (sent or not)."""
    return range(s.c.MaxLeaderEpoch + 1)


def has_newer_request(s, r):
    """\\E q \\in leaderAndIsrRequests : q.leader = r /\\ q.leaderEpoch > replicaState[r].leaderEpoch."""
    return any_of(and_(s.request_sent[e], s.request_leader[e] == r, e > s.leader_epoch[r]) for e in requests(s))


def has_adopted_requests(s, r):
    """\\A q \\in leaderAndIsrRequests : q.leader = r => q.leaderEpoch <= replicaState[r].leaderEpoch."""
    return all_of(implies(and_(s.request_sent[e], s.request_leader[e] == r), e <= s.leader_epoch[r])
                  for e in requests(s))


@temporal
def LeaderEventuallyElected(s):
    """Some replica eventually presumes leadership."""
    return eventually(any_of(replica_presumes_leadership(s, r) for r in replicas(s)))


@temporal
def EpochsConverge(s):
    """Every replica ends up on the controller's latest leader epoch."""
    return eventually_always(all_of(on_quorum_epoch(s, r) for r in replicas(s)))


@temporal
def WrittenLeadsToCommitted(s):
    """Once a replica holds a record, some high watermark covers a record."""
    return leads_to(any_of(get_end_offset(s, r) > 0 for r in replicas(s)),
                    any_of(s.hw[r] > 0 for r in replicas(s)))


@temporal
def InSyncInfinitelyOften(s):
    """Infinitely often, no replica is on an older epoch than the quorum's."""
    return always_eventually(all_of(on_quorum_epoch(s, r) for r in replicas(s)))


@temporal
def IsrSettles(s):
    """From some point on, every replica on the quorum's epoch caches the quorum's ISR."""
    return eventually_always(all_of(implies(on_quorum_epoch(s, r), s.isr[r] == s.quorum_isr) for r in replicas(s)))


@temporal
def LeaderAdoptsItsRequest(s):
    """A replica named leader by a request newer than its
    epoch eventually reaches that epoch or a later one (weak fairness on BecomeLeader at work)."""
    return forall(s, REPLICA, lambda r: leads_to(has_newer_request(s, r), has_adopted_requests(s, r)))


@temporal
def WritesWhenLed(s):
    """If some replica presumes leadership infinitely often, a record is written."""
    return infinitely_often_implies_eventually(any_of(replica_presumes_leadership(s, r) for r in replicas(s)),
                                               s.next_record_id > 0)


@temporal
def QuorumIsrStabilizes(s, t):
    """From some point on, no step changes the quorum's ISR (no
    shrink-and-expand cycle goes on forever)."""
    return eventually_always_step(t.quorum_isr == s.quorum_isr)


PROPERTIES = (LeaderEventuallyElected, EpochsConverge, WrittenLeadsToCommitted, InSyncInfinitelyOften,
              IsrSettles, LeaderAdoptsItsRequest, WritesWhenLed, QuorumIsrStabilizes)


def specifications(spec: Specification, follower_fetch) -> tuple[Specification, ...]:
    """Kip320's Spec, then NoFairSpec and FairFetchSpec (Spec /\\ WF_vars(FencedFollowerFetch))."""
    return (spec, no_fairness(),
            Specification("FairFetchSpec", spec.fairness + (WF(follower_fetch),),
                          "Spec with follower fetching weakly fair as well."))

