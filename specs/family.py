"""The one place a replication-family spec is assembled from its Next.

Every module built on KafkaReplication shares its constants, state, Init,
invariants and reachability checks; they differ only in their actions.
"""

from __future__ import annotations

from modelcheck.model.spec import UPSTREAM, ActionDef, PredicateDef, SpecDefinition
from modelcheck.language.temporal import SF, WF, Specification
from modelcheck.specs.kafka_replication import (BASE_INVARIANTS, BASE_SOMETIMES, CONSTANTS, DEFAULT_INVARIANTS, BecomeLeader,
                                     ControllerElectLeader, ControllerShrinkIsr, FollowerReplicate, Init,
                                     LeaderExpandIsr, LeaderIncHighWatermark, LeaderShrinkIsr, LeaderWrite, fields,
                                     variables)


def unfenced_spec(become_follower: ActionDef) -> tuple[Specification, ...]:
    """The Spec of the modules before KIP-320 (KafkaReplication's high-watermark
    and ISR-expansion actions, the module's own follower transition)."""
    return (upstream_fairness(LeaderIncHighWatermark, LeaderExpandIsr, become_follower),)


def unfenced_next(become_follower: ActionDef) -> tuple[ActionDef, ...]:
    """The Next of the specs before KIP-320: KafkaReplication's actions, with
    the module's own way of becoming a follower (and truncating)."""
    return (ControllerElectLeader, ControllerShrinkIsr, BecomeLeader, LeaderExpandIsr, LeaderShrinkIsr, LeaderWrite,
            LeaderIncHighWatermark, become_follower, FollowerReplicate)


def upstream_fairness(inc_high_watermark: ActionDef, expand_isr: ActionDef,
                      become_follower: ActionDef) -> Specification:
    """The Spec every replication module declares: strong fairness on
    advancing the high watermark, expanding the ISR and writing, weak fairness
    on becoming a follower and on becoming leader. Each module names its own
    variants of the first, second and fourth actions."""
    return Specification("Spec", (SF(inc_high_watermark), SF(expand_isr), SF(LeaderWrite), WF(become_follower),
                                  WF(BecomeLeader)),
                         "Init /\\ [][Next]_vars with the module's own fairness.")


def replication_spec(name: str, module: str, summary: str, next_actions: tuple[ActionDef, ...],
                     notes: str = "", lemmas: tuple[PredicateDef, ...] = (),
                     specifications: tuple[Specification, ...] = (), properties: tuple = (),
                     origin: str = UPSTREAM) -> SpecDefinition:
    """``lemmas`` are extra invariants a module offers for proofs by induction;
    ``specifications`` start with the module's Spec."""
    return SpecDefinition(
        name=name, module=module, summary=summary, constants=CONSTANTS, fields=fields, init=Init,
        next=next_actions, invariants=BASE_INVARIANTS + tuple(lemmas), default_invariants=DEFAULT_INVARIANTS,
        variables=variables, sometimes=BASE_SOMETIMES, notes=notes,
        symmetry=("Replicas",), lemmas=tuple(p.name for p in lemmas), specifications=specifications,
        properties=properties, origin=origin,
        small_models=({"Replicas": "2", "MaxLeaderEpoch": "1"},))
