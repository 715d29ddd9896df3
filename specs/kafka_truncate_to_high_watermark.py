"""KafkaTruncateToHighWatermark: Kafka before KIP-101.

On becoming a follower a replica truncates its log to its own high
watermark. A replica elected right after such a truncation can lose records
that were already committed.
"""

from modelcheck.model.spec import action
from modelcheck.specs.family import replication_spec, unfenced_next, unfenced_spec
from modelcheck.specs.kafka_replication import REPLICA, REQUEST, become_follower_and_truncate_to


@action(leader=REPLICA, replica=REPLICA, leaderAndIsrRequest=REQUEST, where=lambda leader, replica, **_: leader != replica)
def BecomeFollowerTruncateToHighWatermark(s, n, leader, replica, leaderAndIsrRequest):
    """Become a follower of ``leader`` and truncate to the replica's own high
    watermark. (A replica cannot become its own follower.)"""
    become_follower_and_truncate_to(s, n, leader, replica, leaderAndIsrRequest, s.hw[replica])


SPEC = replication_spec(
    "truncate-to-hw", "KafkaTruncateToHighWatermark",
    "pre-KIP-101 Kafka: a new follower truncates to its own high watermark",
    unfenced_next(BecomeFollowerTruncateToHighWatermark), specifications=unfenced_spec(BecomeFollowerTruncateToHighWatermark))
