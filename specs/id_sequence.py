"""IdSequence: a counter handing out ids 0..MaxId, each exactly once.

KafkaReplication uses two: one for record ids (MaxId = MaxRecords - 1) and
one for leader epochs (MaxId = MaxLeaderEpoch).
"""

from modelcheck.language.expr import and_


def next_id_available(next_id, max_id: int):
    """NextId(id) is enabled for exactly one id, the current counter, while
    it has not run past MaxId."""
    return next_id <= max_id


def id_sequence_type_ok(next_id, max_id: int):
    """IdSequence's TypeOk: the counter is in 0..MaxId+1."""
    return and_(0 <= next_id, next_id <= max_id + 1)
