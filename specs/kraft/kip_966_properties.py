"""kip_966_properties: v3.5's properties where KIP-966 leaves them alone, and
the ones Eligible Leader Replicas change or add."""

from __future__ import annotations

from modelcheck.language.expr import (all_of, and_, any_of, bit_and, cardinality, eq, implies, le, lt, member, not_, or_,
                                      subset_of)
from modelcheck.model.spec import invariant
from modelcheck.specs.kraft.v3_5_functions import leo_of, pending_alter_partition_response
from modelcheck.specs.kraft import v3_5_properties as base
from modelcheck.specs.kraft.v3_5_properties import is_non_stale_leader
from modelcheck.specs.kraft.v3_5_types import RUNNING, brokers


@invariant
def ValidControllerState(s):
    """The controller's fenced statuses agree with its unfenced set, and no
    fenced broker is in the ISR (which may now be empty)."""
    return and_(base.controller_status_agrees(s), not_(base.fenced_isr_member(s)))


@invariant
def ValidControllerIsrAndElr(s):
    """ISR and ELR members are replicas, no one is in both, and the ELR is
    empty while the ISR has MinISR members."""
    md = s.con_partition_metadata
    return and_(subset_of(md.isr, md.replicas), subset_of(md.elr, md.replicas), eq(bit_and(md.elr, md.isr), 0),
                implies(le(s.c.MinISR, cardinality(md.isr, s.c.BrokerCount)), eq(md.elr, 0)))


@invariant(explain=base.explain_quorum_superset)
def ReplicationQuorumSupersetProperty(s):
    """A leader on the current leader epoch whose ISR has MinISR members
    advances its high watermark on a maximal ISR holding the controller's ISR
    and ELR (and equal to its own ISR when no AlterPartition request is pending)."""
    con = s.con_partition_metadata

    def holds(b):
        md = s.partition_metadata[b]
        return implies(is_non_stale_leader(s, b),
                       and_(implies(not_(pending_alter_partition_response(s, b)), eq(md.maximal_isr, md.isr)),
                            implies(le(s.c.MinISR, cardinality(md.isr, s.c.BrokerCount)),
                                    and_(subset_of(con.isr, md.maximal_isr), subset_of(con.elr, md.maximal_isr)))))
    return all_of(holds(b) for b in brokers(s.c))


@invariant(explain=base.explain_candidate_completeness)
def LeaderCandidateCompletenessProperty(s):
    """Once something is committed, every running member of the controller's
    ISR and ELR has the whole committed log."""
    md = s.con_partition_metadata
    short = any_of(and_(or_(member(md.isr, b), member(md.elr, b)), lt(leo_of(s, b), s.inv_true_hwm),
                        eq(s.broker_state[b].status, RUNNING))
                   for b in brokers(s.c))
    return implies(lt(1, s.inv_true_hwm), not_(short))


@invariant
def MinIsrRecoveryQuorum(s):
    """With both ISR and ELR empty, the last known ELR holds exactly MinISR replicas."""
    md = s.con_partition_metadata
    return implies(and_(eq(md.isr, 0), eq(md.elr, 0)), eq(cardinality(md.last_known_elr, s.c.BrokerCount), s.c.MinISR))


INVARIANTS = (base.TypeOK, base.ValidBrokerState, base.ValidReplicaState, base.ValidFetcherState,
              ValidControllerState, ValidControllerIsrAndElr, ReplicationQuorumSupersetProperty,
              LeaderCandidateCompletenessProperty, base.LeaderCompletenessProperty, base.LogMatchingProperty,
              base.MetadataLogMatchingProperty, base.NoCommittedRecordLostGlobally, base.ConsistentReadProperty,
              MinIsrRecoveryQuorum, base.TestInv, base.WithinCapacity, base.Evaluable)
CFG_INVARIANTS = ("LeaderCompletenessProperty", "LeaderCandidateCompletenessProperty",
                  "ReplicationQuorumSupersetProperty", "LogMatchingProperty", "MetadataLogMatchingProperty",
                  "ConsistentReadProperty", "MinIsrRecoveryQuorum", "NoCommittedRecordLostGlobally")
