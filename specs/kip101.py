"""Kip101: truncation by leader epoch (OffsetForLeaderEpoch).

A new follower asks the leader where the epoch of its own last record ends
and truncates there, instead of to its high watermark.
"""

from modelcheck.language.expr import and_, ite, or_
from modelcheck.model.spec import action
from modelcheck.specs.family import replication_spec, unfenced_next, unfenced_spec
from modelcheck.specs.finite_replicated_log import get_latest_record, has_offset, is_empty, is_log_record, min_offset_where
from modelcheck.specs.kafka_replication import REPLICA, REQUEST, become_follower_and_truncate_to


def lookup_offset_for_epoch(s, leader, follower, epoch):
    """LookupOffsetForEpoch: the leader's end offset if its last record has
    ``epoch``; otherwise the first offset whose epoch is larger; the follower's
    own high watermark when the leader's log is empty or has no larger epoch."""
    first_larger = min_offset_where(
        s, lambda o: and_(has_offset(s, leader, o), s.log_epoch[leader][o] > epoch), s.hw[follower])
    return ite(is_empty(s, leader), s.hw[follower],
               ite(get_latest_record(s, leader).epoch == epoch, s.log_end[leader], first_larger))


@action(leader=REPLICA, replica=REPLICA, leaderAndIsrRequest=REQUEST, where=lambda leader, replica, **_: leader != replica)
def BecomeFollowerTruncateKip101(s, n, leader, replica, leaderAndIsrRequest):
    """Become a follower: an empty log stays empty; otherwise truncate to the
    leader's answer for the epoch of the replica's last record. (The two TLA+
    disjuncts exclude each other, so they combine into one truncation offset.)"""
    empty = is_empty(s, replica)
    latest = get_latest_record(s, replica)
    n.require(or_(empty, is_log_record(s, latest)))
    truncation = ite(empty, 0, lookup_offset_for_epoch(s, leader, replica, latest.epoch))
    become_follower_and_truncate_to(s, n, leader, replica, leaderAndIsrRequest, truncation)


SPEC = replication_spec(
    "kip101", "Kip101",
    "KIP-101: a new follower truncates where the leader says its last epoch ends",
    unfenced_next(BecomeFollowerTruncateKip101), specifications=unfenced_spec(BecomeFollowerTruncateKip101))
