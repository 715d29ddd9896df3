"""Kip279: truncation at the last offset where follower and leader agree.

The follower compares its records with the leader's, offset and epoch, and
truncates just past the highest offset that matches. Consecutive fast leader
changes can still make logs diverge.
"""

from modelcheck.language.expr import and_, ite
from modelcheck.model.spec import action
from modelcheck.specs.family import replication_spec, unfenced_next, unfenced_spec
from modelcheck.specs.finite_replicated_log import get_record_at_offset, has_entry, has_offset, is_empty, max_offset_where
from modelcheck.specs.kafka_replication import REPLICA, REQUEST, become_follower_and_truncate_to


def is_matching_offset(s, replica1, replica2, offset):
    """offset \\in MatchingOffsets(replica1, replica2): replica1 has an entry
    there and replica2 has the same record at the same offset."""
    return and_(has_offset(s, replica1, offset),
                has_entry(s, replica2, get_record_at_offset(s, replica1, offset), offset))


def first_non_matching_offset_from_tail(s, leader, follower):
    """FirstNonMatchingOffsetFromTail: one past the highest offset at which
    the follower's record matches the leader's; 0 if none does or the
    leader's log is empty."""
    last_match = max_offset_where(s, lambda o: is_matching_offset(s, follower, leader, o), -1)
    return ite(is_empty(s, leader), 0, last_match + 1)


@action(leader=REPLICA, replica=REPLICA, leaderAndIsrRequest=REQUEST, where=lambda leader, replica, **_: leader != replica)
def BecomeFollowerTruncateKip279(s, n, leader, replica, leaderAndIsrRequest):
    """Become a follower and truncate at the first non-matching offset from
    the tail. (The TLA+ disjunct for an empty log truncates to 0, which is
    what the general case gives for an empty log too.)"""
    truncation = ite(is_empty(s, replica), 0, first_non_matching_offset_from_tail(s, leader, replica))
    become_follower_and_truncate_to(s, n, leader, replica, leaderAndIsrRequest, truncation)


SPEC = replication_spec(
    "kip279", "Kip279",
    "KIP-279: a new follower truncates past the last offset that matches the leader",
    unfenced_next(BecomeFollowerTruncateKip279), specifications=unfenced_spec(BecomeFollowerTruncateKip279))
