"""The one place a replication-family spec is assembled from its Next.

Every module built on KafkaReplication shares its constants, state, Init,
invariants and reachability checks; they differ only in their actions.
"""

from __future__ import annotations

from modelcheck.spec import ActionDef, PredicateDef, SpecDefinition
from specs.kafka_replication import (BASE_INVARIANTS, BASE_SOMETIMES, CONSTANTS, DEFAULT_INVARIANTS, BecomeLeader,
                                     ControllerElectLeader, ControllerShrinkIsr, FollowerReplicate, Init,
                                     LeaderExpandIsr, LeaderIncHighWatermark, LeaderShrinkIsr, LeaderWrite, fields,
                                     variables)


def unfenced_next(become_follower: ActionDef) -> tuple[ActionDef, ...]:
    """The Next of the specs before KIP-320: KafkaReplication's actions, with
    the module's own way of becoming a follower (and truncating)."""
    return (ControllerElectLeader, ControllerShrinkIsr, BecomeLeader, LeaderExpandIsr, LeaderShrinkIsr, LeaderWrite,
            LeaderIncHighWatermark, become_follower, FollowerReplicate)


def replication_spec(name: str, module: str, summary: str, next_actions: tuple[ActionDef, ...],
                     notes: str = "", lemmas: tuple[PredicateDef, ...] = ()) -> SpecDefinition:
    """``lemmas`` are extra invariants a module offers for proofs by induction."""
    return SpecDefinition(
        name=name, module=module, summary=summary, constants=CONSTANTS, fields=fields, init=Init,
        next=next_actions, invariants=BASE_INVARIANTS + tuple(lemmas), default_invariants=DEFAULT_INVARIANTS,
        variables=variables, sometimes=BASE_SOMETIMES, notes=notes,
        symmetry=("Replicas",), lemmas=tuple(p.name for p in lemmas))
