"""Kip320FirstTry: the rejected "expected next epoch" design of KIP-320.

Followers do not truncate on becoming a follower. They fetch straight away,
sending the epoch they expect, and truncate only when the leader answers that
their last record's epoch does not match. The leader cannot tell whether a
follower is on its current epoch when it advances the high watermark, and a
follower can later truncate away a committed record while it is still in the
ISR.
"""

from modelcheck.language.expr import and_, member, min_, not_, or_, set_with, set_without
from modelcheck.model.spec import action
from modelcheck.specs.family import replication_spec, upstream_fairness
from modelcheck.specs.finite_replicated_log import (get_latest_record, has_offset, has_some_entry, is_empty, is_log_record,
                                         replicate_to, truncate_to)
from modelcheck.specs.kafka_replication import (REPLICA, REQUEST, BecomeLeader, ControllerElectLeader, ControllerShrinkIsr,
                                     LeaderExpandIsr, LeaderWrite, adopt_request, all_isr_members, quorum_update_leader_and_isr,
                                     replica_count, replica_is_following, replica_presumes_leadership)
from modelcheck.specs.kip279 import first_non_matching_offset_from_tail
# The upstream module carries its own LOCAL copy of this operator, identical
# to Kip320's; one definition serves both here.
from modelcheck.specs.kip320 import has_high_watermark_reached_current_epoch


def is_follower_caught_up_to_leader_epoch(s, leader, follower, end_offset):
    """IsFollowerCaughtUpToLeaderEpoch: the record just below ``end_offset``
    exists on both and carries the same epoch."""
    below = end_offset - 1
    return and_(
        replica_presumes_leadership(s, leader), replica_is_following(s, follower, leader),
        or_(end_offset == 0,
            and_(end_offset > 0, has_some_entry(s, leader, below), has_offset(s, follower, below),
                 s.log_epoch[follower][below] == s.log_epoch[leader][below])))


def follower_needs_truncation(s, follower, leader):
    """FollowerNeedsTruncation: the follower's log is longer than the leader's,
    or its last record's epoch differs from the leader's at that offset."""
    latest = get_latest_record(s, follower)
    last_offset = s.log_end[follower] - 1
    return or_(
        s.log_end[follower] > s.log_end[leader],
        and_(not_(is_empty(s, follower)), is_log_record(s, latest), has_offset(s, leader, last_offset),
             s.log_epoch[leader][last_offset] != latest.epoch))


@action(leader=REPLICA, follower=REPLICA, where=lambda leader, follower: leader != follower)
def FollowerTruncate(s, n, leader, follower):
    """On a LOG_TRUNCATION answer, truncate at the first non-matching offset
    from the tail. (A replica never needs truncation against itself.)"""
    n.require(replica_presumes_leadership(s, leader), replica_is_following(s, follower, leader),
              follower_needs_truncation(s, follower, leader))
    truncation = first_non_matching_offset_from_tail(s, leader, follower)
    truncate_to(s, n, follower, truncation)
    n.hw[follower] = min_(truncation, s.hw[follower])


@action(leader=REPLICA)
def ImprovedLeaderIncHighWatermark(s, n, leader):
    """Advance the high watermark over a record the leader has once every ISR
    member's record there carries the same epoch (which the leader sees in
    their fetches) - without knowing which epoch they are on."""
    hw = s.hw[leader]
    n.require(replica_presumes_leadership(s, leader), has_some_entry(s, leader, hw),
              all_isr_members(s, leader, lambda f: is_follower_caught_up_to_leader_epoch(s, leader, f, hw + 1)))
    n.hw[leader] = hw + 1


@action(follower=REPLICA, leader=REPLICA, where=lambda follower, leader: follower != leader)
def FollowerFetch(s, n, follower, leader):
    """Fetch only if the epoch of the follower's last record matches the
    leader's at that offset. (Fetching from oneself is impossible.)"""
    n.require(is_follower_caught_up_to_leader_epoch(s, leader, follower, s.log_end[follower]))
    replicate_to(s, n, leader, follower)
    n.hw[follower] = min_(s.hw[leader], s.log_end[follower] + 1)


@action(leader=REPLICA, replica=REPLICA, where=lambda leader, replica: leader != replica)
def LeaderShrinkIsrBetterFencing(s, n, leader, replica):
    """Drop an ISR member (other than the leader) not caught up, by epoch, to
    the leader's log end."""
    isr = s.isr[leader]
    n.require(member(isr, replica),
              not_(is_follower_caught_up_to_leader_epoch(s, leader, replica, s.log_end[leader])))
    quorum_update_leader_and_isr(s, n, leader, set_without(isr, replica, replica_count(s)))


@action(leader=REPLICA, replica=REPLICA)
def LeaderExpandIsrBetterFencing(s, n, leader, replica):
    """Admit a replica caught up by epoch to the leader's high watermark, once
    that high watermark has reached the current epoch."""
    isr = s.isr[leader]
    n.require(not_(member(isr, replica)),
              is_follower_caught_up_to_leader_epoch(s, leader, replica, s.hw[leader]),
              has_high_watermark_reached_current_epoch(s, leader))
    quorum_update_leader_and_isr(s, n, leader, set_with(isr, replica))


@action(leader=REPLICA, replica=REPLICA, leaderAndIsrRequest=REQUEST, where=lambda leader, replica, **_: leader != replica)
def BecomeFollower(s, n, leader, replica, leaderAndIsrRequest):
    """Take a newer request naming another replica leader, without truncating."""
    adopt_request(s, n, replica, leaderAndIsrRequest, leader)


SPEC = replication_spec(
    "kip320-first-try", "Kip320FirstTry",
    'the rejected "expected next epoch" design: fetch first, truncate on LOG_TRUNCATION',
    (ControllerElectLeader, ControllerShrinkIsr, BecomeLeader, LeaderExpandIsrBetterFencing,
     LeaderShrinkIsrBetterFencing, LeaderWrite, ImprovedLeaderIncHighWatermark, BecomeFollower, FollowerFetch,
     FollowerTruncate),
    # As upstream, the strong fairness on ISR expansion names KafkaReplication's
    # LeaderExpandIsr, which this Next does not use: a step counts as taking it
    # when it satisfies that action (an epoch-checked expansion often does).
    specifications=(upstream_fairness(ImprovedLeaderIncHighWatermark, LeaderExpandIsr, BecomeFollower),))
