"""Kip320: fetches, truncation, high-watermark advance and ISR changes fenced
by the leader epoch.

The rules it enforces: a follower truncates only against a leader on the same
epoch (through OffsetForLeaderEpoch) before fetching; it fetches only on the
leader's epoch; the leader advances its high watermark only on followers
that acknowledge its epoch; and it admits a replica to the ISR only once its
own high watermark has reached its current epoch.
"""

from modelcheck.language.expr import and_, member, min_, not_, or_, set_with, set_without
from modelcheck.model.spec import UPSTREAM, action, written_here
from modelcheck.specs.family import replication_spec, upstream_fairness
from modelcheck.specs.finite_replicated_log import (get_record_at_offset, has_offset, is_log_record, replicate_to,
                                         truncate_to)
from modelcheck.specs.kafka_replication import (NONE, REPLICA, REQUEST, BecomeLeader, ControllerElectLeader,
                                     ControllerShrinkIsr, LeaderWrite, adopt_request, all_isr_members,
                                     quorum_update_leader_and_isr, replica_count, replica_presumes_leadership)
from modelcheck.specs.kip279 import first_non_matching_offset_from_tail
from modelcheck.specs.kip320_fencing import is_following_leader_epoch
from modelcheck.specs.kip320_lemmas import LEMMAS
from modelcheck.specs.kip320_live import PROPERTIES, specifications


def has_high_watermark_reached_current_epoch(s, leader):
    """HasHighWatermarkReachedCurrentEpoch: the high watermark is at the log
    end, or the record at the high watermark was written in the leader's own
    epoch. Both cases count."""
    hw = s.hw[leader]
    record = get_record_at_offset(s, leader, hw)
    return or_(hw == s.log_end[leader],
               and_(has_offset(s, leader, hw), is_log_record(s, record), record.epoch == s.leader_epoch[leader]))


def has_follower_reached_high_watermark(s, leader, follower):
    hw = s.hw[leader]
    return or_(hw == 0, and_(hw > 0, has_offset(s, follower, hw - 1)))


@action(follower=REPLICA, leader=REPLICA, where=lambda follower, leader: follower != leader)
def FencedFollowerFetch(s, n, follower, leader):
    """Fetch one record on the leader's epoch; the follower's high watermark
    becomes the smaller of the leader's and its new end offset. (Fetching from
    oneself is impossible, as in FollowerReplicate.)"""
    n.require(is_following_leader_epoch(s, leader, follower))
    replicate_to(s, n, leader, follower)
    n.hw[follower] = min_(s.hw[leader], s.log_end[follower] + 1)


@action(leader=REPLICA)
def FencedLeaderIncHighWatermark(s, n, leader):
    """Advance the high watermark over a record the leader has, once every
    member of its ISR follows its epoch and has that offset."""
    hw = s.hw[leader]
    n.require(has_offset(s, leader, hw),
              all_isr_members(s, leader, lambda f: and_(is_following_leader_epoch(s, leader, f), has_offset(s, f, hw))))
    n.hw[leader] = hw + 1


@action(leader=REPLICA, follower=REPLICA, where=lambda leader, follower: leader != follower)
def FencedLeaderShrinkIsr(s, n, leader, follower):
    """Drop an ISR member (other than the leader) that is off the leader's
    epoch or behind its log end."""
    isr = s.isr[leader]
    n.require(member(isr, follower),
              or_(not_(is_following_leader_epoch(s, leader, follower)), s.log_end[follower] < s.log_end[leader]))
    quorum_update_leader_and_isr(s, n, leader, set_without(isr, follower, replica_count(s)))


@action(leader=REPLICA, follower=REPLICA)
def FencedLeaderExpandIsr(s, n, leader, follower):
    """Admit a replica on the leader's epoch that has reached the leader's high
    watermark, but only once that high watermark has reached the current epoch."""
    isr = s.isr[leader]
    n.require(not_(member(isr, follower)), is_following_leader_epoch(s, leader, follower),
              has_follower_reached_high_watermark(s, leader, follower),
              has_high_watermark_reached_current_epoch(s, leader))
    quorum_update_leader_and_isr(s, n, leader, set_with(isr, follower))


@action(leader=REPLICA, replica=REPLICA, leaderAndIsrRequest=REQUEST, where=lambda leader, replica, **_: leader != replica,
        cases={"leader = None": lambda s, leader, **_: leader == NONE,
               "leader # None": lambda s, leader, **_: leader != NONE})
def FencedBecomeFollowerAndTruncate(s, n, leader, replica, leaderAndIsrRequest):
    """Become a follower only against a leader already on the request's epoch,
    truncating at the first non-matching offset from the tail. (The TLA+
    branch for a request with no leader cannot fire: ``leader`` ranges over
    the replicas. The action declares both TLA+ branches as ``cases``, so
    coverage reports that one as dead rather than leaving it unmentioned.)"""
    request = leaderAndIsrRequest
    n.require(replica_presumes_leadership(s, leader), s.leader_epoch[leader] == request)
    adopt_request(s, n, replica, request, leader)
    truncation = first_non_matching_offset_from_tail(s, leader, replica)
    truncate_to(s, n, replica, truncation)
    n.hw[replica] = min_(truncation, s.hw[replica])


NEXT = (ControllerElectLeader, ControllerShrinkIsr, BecomeLeader, FencedLeaderExpandIsr, FencedLeaderShrinkIsr,
        LeaderWrite, FencedLeaderIncHighWatermark, FencedBecomeFollowerAndTruncate, FencedFollowerFetch)

# Kip320's Spec; Kip320Live adds NoFairSpec and FairFetchSpec and the temporal properties.
FAIR_SPEC = upstream_fairness(FencedLeaderIncHighWatermark, FencedLeaderExpandIsr, FencedBecomeFollowerAndTruncate)

SPEC = replication_spec(
    "kip320", "Kip320",
    "KIP-320: replication fenced by leader epoch (the adopted design)", NEXT, lemmas=LEMMAS,
    specifications=specifications(FAIR_SPEC, FencedFollowerFetch), properties=PROPERTIES,
    origin=UPSTREAM + "; its temporal properties and the NoFairSpec and FairFetchSpec specifications port Kip320Live, "
    + written_here("tla/Kip320Live.tla"))
