"""What a broken kafka-clients property means, said in Kafka's terms.

Each function receives a probe on the first state that breaks a property
(see ``modelcheck.model.explain``) and names the clients, replicas, epochs and
offsets involved. They read the state through the spec's own operators,
which ``modelcheck.specs.kafka_clients`` passes in where a property needs one.
"""

from __future__ import annotations

from modelcheck.language.expr import not_
from modelcheck.specs.finite_replicated_log import NIL
from modelcheck.specs.kafka_replication import NONE, record_text, replica_presumes_leadership, replicas


def _on(probe, replica) -> str:
    """A replica, its role and epoch, as the explanations name it."""
    s = probe.s
    role = "leading" if probe.holds(replica_presumes_leadership(s, replica)) else "not leading"
    return f"{probe.replica(replica)} ({role} on epoch {probe.value(s.leader_epoch[replica])})"


def _quorum(probe) -> str:
    s = probe.s
    leader, epoch = probe.replica(probe.value(s.quorum_leader)), probe.value(s.quorum_epoch)
    return f"the controller names {leader} leader on epoch {epoch}"


def _committed(probe) -> str:
    s = probe.s
    offset, epoch = probe.value(s.committed_offset), probe.value(s.committed_epoch)
    return f"offset {offset} committed " + ("without an epoch" if epoch == NIL else f"in epoch {epoch}")


def no_acked_write_lost(acked_write_kept):
    """The explanation of NoAckedWriteLost, reading ``acked_write_kept``."""
    def explain(probe) -> str | None:
        s = probe.s
        lost = probe.where(lambda s, i, r: not_(acked_write_kept(s, i, r)), i=range(s.c.MaxRecords),
                           r=replicas(s))
        if not lost:
            return None
        i, r = lost[0]["i"], lost[0]["r"]
        offset = probe.value(s.acked_offset[i])
        theirs = record_text(probe, r, offset) or "no record"
        return (f"id{i} was acknowledged at offset {offset} by a leader on epoch "
                f"{probe.value(s.acked_leader_epoch[i])}, but {_on(probe, r)} has {theirs} there")
    return explain


def no_write_to_stale_leader(probe) -> str | None:
    s = probe.s
    leader = probe.value(s.producer_leader)
    if leader == NONE or probe.value(s.log_end[leader]) == 0:
        return None
    offset = probe.value(s.log_end[leader]) - 1
    return (f"{_on(probe, leader)} appended the producer's {record_text(probe, leader, offset)} at offset {offset} "
            f"(the producer's metadata: {probe.replica(leader)} on epoch {probe.value(s.producer_epoch)}), "
            f"but {_quorum(probe)}")


def _older_than_acted(probe, replica, acted) -> bool:
    return replica != NONE and probe.value(probe.s.leader_epoch[replica]) < acted


def no_leader_regression(probe) -> str | None:
    """Names the client whose server is on an older epoch than one that
    served it before: the consumer's leader, or the replica that took the
    producer's last record (its pending acks=all request, or with acks=1 the
    leader in its metadata)."""
    s = probe.s
    told = []
    consumer_acted = probe.value(s.consumer_acted_epoch)
    leader = probe.value(s.consumer_leader)
    if _older_than_acted(probe, leader, consumer_acted):
        told.append(f"the consumer group, already served by a leader on epoch {consumer_acted}, was answered by "
                    f"{_on(probe, leader)} (the consumer at position {probe.value(s.consumer_position)}, "
                    f"{_committed(probe)}, metadata epoch {probe.value(s.consumer_epoch)})")
    producer_acted = probe.value(s.producer_acted_epoch)
    writer = probe.value(s.pending_leader)
    if writer == NONE:
        writer = probe.value(s.producer_leader)
    if _older_than_acted(probe, writer, producer_acted):
        told.append(f"the producer, whose records a leader on epoch {producer_acted} had already appended, had its "
                    f"next record appended by {_on(probe, writer)} (its metadata: epoch "
                    f"{probe.value(s.producer_epoch)})")
    if not told:
        return None
    return " or ".join(told) + f"; {_quorum(probe)}"


def no_spurious_out_of_range(probe) -> str | None:
    s = probe.s
    leader = probe.value(s.consumer_leader)
    if leader == NONE:
        return None
    position, end = probe.value(s.consumer_position), probe.value(s.log_end[leader])
    if position > end:
        told = (f"the consumer, at position {position} with epoch {probe.value(s.consumer_epoch)}, was told "
                f"OFFSET_OUT_OF_RANGE by {_on(probe, leader)}, whose log ends at {end}")
    else:  # the state after a validation rewound the consumer
        told = (f"validating against {_on(probe, leader)}, the consumer (epoch {probe.value(s.consumer_epoch)}, "
                f"{_committed(probe)}) was rewound to position {position}")
    return f"{told}, though {_quorum(probe)} and that leader had every record the consumer had read"
