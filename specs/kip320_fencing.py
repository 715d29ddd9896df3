"""Kip320's fencing operator, shared by the module (``specs/kip320.py``) and
the lemmas offered for its proofs (``specs/kip320_lemmas.py``)."""

from modelcheck.language.expr import and_
from modelcheck.specs.kafka_replication import replica_presumes_leadership


def is_following_leader_epoch(s, leader, follower):
    """IsFollowingLeaderEpoch: the leader presumes leadership and the follower
    follows it on the leader's own epoch."""
    return and_(replica_presumes_leadership(s, leader), s.leader[follower] == leader,
                s.leader_epoch[follower] == s.leader_epoch[leader])
