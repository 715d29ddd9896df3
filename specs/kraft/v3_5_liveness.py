"""The liveness half of v3_5_properties and the module's LivenessSpec.

Upstream's ``Liveness`` is weak fairness on each broker's instance of the
healing actions (``\\A b \\in Brokers : WF_vars(BrokerStart(b)) /\\ ...``), not
on whole actions; perturbations (shutdowns, fencing, reassignment, writes)
get none. Each such condition is one action restricted to one broker
(``modelcheck.language.temporal.each_value``); the port declares them for
every broker a configuration can have, and those of brokers a configuration
lacks have no instances, so they hold trivially and reports leave them out.

Liveness is checked on whole states: the module's .cfg says to drop the VIEW
for it, and a run with temporal properties does.
"""

from __future__ import annotations

from modelcheck.language.expr import all_of, and_, any_of, eq, implies, lt, member, ne, not_, or_
from modelcheck.model.spec import ActionDef
from modelcheck.language.temporal import Specification, always_eventually, each_value, forall, leads_to, temporal
from modelcheck.specs.kraft.v3_5_functions import log_of, log_offsets, partition_needs_action, unreplicated_offset
from modelcheck.specs.kraft.v3_5_types import BROKER, FENCED, FOLLOWER, NIL_ROLE, RUNNING, STARTING, UNFENCED, VALUE, brokers


def liveness_specification(healing: tuple[ActionDef, ...], most_brokers: int) -> Specification:
    """LivenessSpec: Init /\\ [][Next]_vars /\\ Liveness, where Liveness is
    ``\\A b \\in Brokers : WF_vars(BrokerStart(b)) /\\ ...``: weak fairness on
    each healing action for each broker separately."""
    families = [each_value("WF", act, "b", range(most_brokers)) for act in healing]
    fairness = tuple(family[b] for b in range(most_brokers) for family in families)  # broker by broker
    return Specification("LivenessSpec", fairness,
                         "Init /\\ [][Next]_vars /\\ Liveness: weak fairness on each broker's healing actions "
                         "(registration, metadata, AlterPartition, fetch, unfencing).")


def _status(s, b):
    return s.broker_state[b].status


@temporal
def EventuallyRuns(s):
    """A starting broker eventually runs, unfenced."""
    return forall(s, BROKER, lambda b: leads_to(eq(_status(s, b), STARTING),
                                                and_(eq(_status(s, b), RUNNING),
                                                     eq(s.con_broker_reg[b].status, UNFENCED))))


@temporal
def EventuallyUnfenced(s):
    """A fenced broker is eventually unfenced."""
    return forall(s, BROKER, lambda b: leads_to(eq(s.con_broker_reg[b].status, FENCED),
                                                eq(s.con_broker_reg[b].status, UNFENCED)))


@temporal
def AlterPartitionEpochEventuallyReachedOrZero(s):
    """For each broker: if it has an AlterPartition request pending again and
    again, the pending partition epoch is reached or cleared again and again."""
    # Upstream writes []<>(\A b : pending ~> reached or cleared); a leads-to
    # is itself an always-formula, so that is ([]<>pending) => []<>(reached or cleared).
    from modelcheck.language.temporal import infinitely_often_implies_infinitely_often

    def case(b):
        pending = s.partition_pending_ap[b].epoch
        return infinitely_often_implies_infinitely_often(
            lt(0, pending), or_(eq(pending, s.partition_metadata[b].partition_epoch), eq(pending, 0)))
    return forall(s, BROKER, case)


@temporal
def EventuallyMetadataConverges(s):
    """Infinitely often, every broker agrees with the controller's partition
    metadata, or is a follower with no relevant metadata record to replicate,
    or holds no replica."""
    con = s.con_partition_metadata

    def converged(b):
        md = s.partition_metadata[b]
        same = and_(eq(md.isr, con.isr), eq(md.leader, con.leader), eq(md.leader_epoch, con.leader_epoch),
                    eq(md.partition_epoch, con.partition_epoch))
        idle_follower = and_(eq(s.partition_status[b], FOLLOWER),
                             not_(any_of(and_(unreplicated_offset(s, b, o), partition_needs_action(s, b, o))
                                         for o in range(1, s.con_metadata_log.capacity + 1))))
        removed = and_(eq(s.partition_status[b], NIL_ROLE), not_(member(con.replicas, b)))
        return or_(same, idle_follower, removed)
    return always_eventually(all_of(converged(b) for b in brokers(s.c)))


@temporal
def EventuallyWriteIsAcceptedOrRejected(s):
    """A value written is eventually acknowledged, positively or negatively."""
    return forall(s, VALUE, lambda v: leads_to(member(s.inv_sent, v),
                                               or_(member(s.inv_pos_acked, v), member(s.inv_neg_acked, v))))


@temporal
def EventuallyAcknowledgedValueFullyReplicated(s):
    """A positively acknowledged value eventually sits in the log of every replica."""
    def everywhere(v):
        return all_of(implies(member(s.con_partition_metadata.replicas, b),
                              any_of(and_(here, eq(log_of(s, b).at(o).value, v)) for o, here in log_offsets(s, b)))
                      for b in brokers(s.c))
    return forall(s, VALUE, lambda v: leads_to(member(s.inv_pos_acked, v), everywhere(v)))


@temporal
def EventuallyReassignmentCompletes(s):
    """Once replicas are being removed from the partition, eventually
    nothing is being added or removed."""
    # Upstream's bulleted disjunction reads adding # {} \/ (removing # {} ~>
    # adding = {} /\ removing = {}): its first disjunct is a state predicate,
    # false in the initial state (nothing is being added), so the property is
    # the leads-to alone.
    con = s.con_partition_metadata
    return leads_to(ne(con.removing, 0), and_(eq(con.adding, 0), eq(con.removing, 0)))


PROPERTIES = (EventuallyRuns, EventuallyUnfenced, AlterPartitionEpochEventuallyReachedOrZero,
              EventuallyMetadataConverges, EventuallyWriteIsAcceptedOrRejected,
              EventuallyAcknowledgedValueFullyReplicated, EventuallyReassignmentCompletes)
