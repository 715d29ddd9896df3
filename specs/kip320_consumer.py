"""Kip320Consumer: a consumer reading one partition of the Kip320 model.

KIP-320's consumer-side mechanisms are switched by boolean constants:

* ``ConsumerFencing``: metadata carries the leader epoch, the consumer ignores
  metadata older than what it has, and a leader serves a fetch only on
  exactly the consumer's epoch;
* ``TruncationCheck``: after adopting a new epoch the consumer asks the leader
  where the epoch of its last consumed record ends (OffsetsForLeaderEpoch)
  and rewinds if the log was truncated below its position;
* ``UncleanElection``: with no leader, the controller may elect a replica
  outside the ISR, the way committed data gets lost.

Stale metadata is modelled by letting a refresh return any LeaderAndIsr
state the controller ever published. NoDivergentDelivery says the consumer
never delivers a record on top of a prefix that differs from what it already
delivered.

Fairness: the module's Spec is Kip320's (strong fairness on advancing the
high watermark, expanding the ISR and writing; weak fairness on becoming a
follower and on becoming leader) plus weak fairness on each consumer action:
refreshing metadata, fetching and validating the position. A consumer that
can keep doing one of these does it eventually, as a live client polls;
unclean election gets no fairness, like every controller action in Kip320,
because it stands for a failure and its recovery, which nothing forces.

State: Kip320's fields plus the consumer's (``consumer_*``) and the history
flag ``divergent_delivery``; the consumer's delivered log holds Nil at and
beyond its position, like a replica log.
"""

from __future__ import annotations

from modelcheck.language.codec import BoolSlot, Fn, IntSlot, NilOr, Rec, ReplicaSlot, StateCodec
from modelcheck.language.constants import BOOL, INT, REPLICAS, ConstantDecl
from modelcheck.model.explain import Account
from modelcheck.language.expr import and_, any_of, implies, ite, member, min_, not_, or_
from modelcheck.language.schema import boolean, integer
from modelcheck.model.spec import SpecDefinition, action, invariant, sometimes, written_here
from modelcheck.specs import kafka_replication as base
from modelcheck.specs.finite_replicated_log import NIL, LogRecord, get_record_at_offset, has_offset, min_offset_where, offsets
from modelcheck.specs.kafka_replication import (NONE, REPLICA, REQUEST, controller_update_isr, record_text,
                                     replica_presumes_leadership)
from modelcheck.language.temporal import WF, Specification
from modelcheck.specs.kip320 import FAIR_SPEC as KIP320_SPEC
from modelcheck.specs.kip320 import NEXT as KIP320_NEXT

CONSTANTS = (
    ConstantDecl("Replicas", REPLICAS, ("r1", "r2"), minimum=1, maximum=8,
                 doc="the replicas of the partition: a count (2) or names ({a,b})"),
    ConstantDecl("LogSize", INT, 2, minimum=1, maximum=16, doc="the capacity of each replica's log"),
    ConstantDecl("MaxRecords", INT, 3, minimum=1, maximum=64,
                 doc="how many records producers may write in all (3 lets a divergence show)"),
    ConstantDecl("MaxLeaderEpoch", INT, 2, minimum=0, maximum=64, doc="the largest leader epoch"),
    ConstantDecl("UncleanElection", BOOL, True, doc="the controller may elect a replica outside the ISR"),
    ConstantDecl("ConsumerFencing", BOOL, True, doc="fetches and metadata are fenced by leader epoch"),
    ConstantDecl("TruncationCheck", BOOL, True, doc="the consumer validates its position after an epoch change"),
)


def fields(c):
    size, e, m, r = c.LogSize, c.MaxLeaderEpoch, c.MaxRecords, len(c.Replicas)
    return base.fields(c) + [
        integer("consumer_leader", NONE, r - 1),
        integer("consumer_epoch", NIL, e),
        integer("consumer_position", 0, size),
        integer("consumer_last_epoch", NIL, e),
        integer("consumer_log_id", NIL, m - 1, (size,)),
        integer("consumer_log_epoch", NIL, e, (size,)),
        boolean("consumer_validated"),
        boolean("divergent_delivery"),
    ]


def variables(c, schema) -> StateCodec:
    return StateCodec(schema, consumer_codecs(c, schema))


def consumer_codecs(c, schema) -> dict:
    """Kip320's variables and the consumer's, for specs that extend the state."""
    replication = base.replication_codecs(c, schema)
    slot, f = schema.slot, schema.by_name

    def int_of(name, *idx):
        return IntSlot(slot(name, *idx), f[name].lo, f[name].hi)

    delivered = [NilOr(Rec(id=int_of("consumer_log_id", o), epoch=int_of("consumer_log_epoch", o)))
                 for o in range(c.LogSize)]
    return {
        **replication,
        "consumerLeader": ReplicaSlot(slot("consumer_leader"), c.Replicas),
        "consumerEpoch": int_of("consumer_epoch"),
        "consumerPosition": int_of("consumer_position"),
        "consumerLastEpoch": int_of("consumer_last_epoch"),
        "consumerLog": Fn(range(c.LogSize), delivered),
        "consumerValidated": BoolSlot(slot("consumer_validated")),
        "divergentDelivery": BoolSlot(slot("divergent_delivery")),
    }


def FullInit(s, n) -> None:
    """Kip320's Init, and a consumer that knows no leader and has read nothing."""
    base.Init(s, n)
    n.consumer_leader = NONE
    n.consumer_epoch = NIL
    n.consumer_position = 0
    n.consumer_last_epoch = NIL
    for o in offsets(s):
        n.consumer_log_id[o] = NIL
        n.consumer_log_epoch[o] = NIL
    n.consumer_validated = True
    n.divergent_delivery = False


def consumer_record(s, offset) -> LogRecord:
    return LogRecord(s.consumer_log_id[offset], s.consumer_log_epoch[offset])


def end_offset_for_epoch(s, leader, epoch):
    """EndOffsetForEpoch, as the leader answers OffsetsForLeaderEpoch: the
    first offset holding a larger epoch, or its log end if there is none."""
    return min_offset_where(s, lambda o: and_(has_offset(s, leader, o), s.log_epoch[leader][o] > epoch),
                            s.log_end[leader])


@action(newLeader=REPLICA)
def ControllerUncleanElectLeader(s, n, newLeader):
    """With no leader, elect a replica outside the ISR, alone in its new ISR."""
    n.require(s.c.UncleanElection, s.quorum_leader == NONE, not_(member(s.quorum_isr, newLeader)))
    controller_update_isr(s, n, newLeader, 1 << newLeader)


@action(leaderAndIsrRequest=REQUEST)
def ConsumerRefreshMetadata(s, n, leaderAndIsrRequest):
    """Adopt any published leader and epoch other than the current one; with
    fencing, only a newer epoch."""
    request = leaderAndIsrRequest
    n.require(s.request_sent[request], s.request_leader[request] != NONE, s.consumer_epoch != request,
              implies(s.c.ConsumerFencing, request > s.consumer_epoch))
    n.consumer_leader = s.request_leader[request]
    n.consumer_epoch = request
    n.consumer_validated = not_(and_(s.c.TruncationCheck, s.consumer_last_epoch != NIL))


def delivered_differs_at(s, leader, offset):
    """The leader's record at ``offset``, below the consumer's position,
    differs from the one the consumer delivered there."""
    return and_(offset < s.consumer_position,
                not_(get_record_at_offset(s, leader, offset).equals(consumer_record(s, offset))))


@action(leader=REPLICA)
def ConsumerFetch(s, n, leader):
    """Read the record at the consumer's position from the replica it believes
    leads (which must presume leadership, and with fencing be on the
    consumer's epoch), below that replica's high watermark. Remember whether
    the records below differ from what was delivered."""
    position = s.consumer_position
    n.require(s.consumer_leader == leader, s.consumer_validated, replica_presumes_leadership(s, leader),
              implies(s.c.ConsumerFencing, s.leader_epoch[leader] == s.consumer_epoch),
              position < s.hw[leader], position < s.log_end[leader])
    record = get_record_at_offset(s, leader, position)
    n.consumer_log_id[position] = record.id
    n.consumer_log_epoch[position] = record.epoch
    n.consumer_last_epoch = record.epoch
    n.divergent_delivery = or_(s.divergent_delivery, any_of(delivered_differs_at(s, leader, o) for o in offsets(s)))
    n.consumer_position = position + 1


@action(leader=REPLICA)
def ConsumerValidatePosition(s, n, leader):
    """After an epoch change, ask the leader (on the consumer's epoch) where
    the last consumed epoch ends, and rewind to it if that is below the
    position."""
    n.require(not_(s.consumer_validated), s.consumer_leader == leader, replica_presumes_leadership(s, leader),
              s.leader_epoch[leader] == s.consumer_epoch)
    end_offset = end_offset_for_epoch(s, leader, s.consumer_last_epoch)
    rewind = end_offset < s.consumer_position
    n.consumer_position = min_(end_offset, s.consumer_position)
    for o in offsets(s):
        dropped = and_(rewind, o >= end_offset)
        n.consumer_log_id[o] = ite(dropped, NIL, s.consumer_log_id[o])
        n.consumer_log_epoch[o] = ite(dropped, NIL, s.consumer_log_epoch[o])
    last_kept_epoch = ite(end_offset == 0, NIL, s.consumer_log_epoch[end_offset - 1])
    n.consumer_last_epoch = ite(rewind, last_kept_epoch, s.consumer_last_epoch)
    n.consumer_validated = True


def _record_text(record_id, epoch) -> str:
    return "nothing" if record_id == NIL else f"id{record_id}@{epoch}"


def explain_no_divergent_delivery(probe) -> Account | None:
    """Names the fetch that set the flag and the offsets below it where the
    leader's log differs from what the consumer had delivered.

    It is asked about the first state that breaks the invariant, the one a
    ConsumerFetch just produced: that fetch copied one record at the old
    position, so below the new position the delivered records and the
    leader's log are as the fetch compared them.
    """
    s = probe.s
    leader, position = probe.value(s.consumer_leader), probe.value(s.consumer_position)
    if leader == NONE or position == 0:
        return None
    differ = [w["o"] for w in probe.where(lambda s, o: delivered_differs_at(s, leader, o), o=offsets(s))]
    if not differ:
        return None
    name = probe.replica(leader)
    fetched = _record_text(probe.value(s.consumer_log_id[position - 1]), probe.value(s.consumer_log_epoch[position - 1]))
    details = []
    for o in differ:
        theirs = record_text(probe, leader, o) or "no record"
        mine = _record_text(probe.value(s.consumer_log_id[o]), probe.value(s.consumer_log_epoch[o]))
        details.append(f"at offset {o} {name} has {theirs} where the consumer delivered {mine}")
    text = (f"the consumer read {fetched} at offset {position - 1} from {name} "
            f"(leader epoch {probe.value(s.leader_epoch[leader])}, consumer epoch {probe.value(s.consumer_epoch)}), "
            f"but the log below it diverges from what the consumer delivered: " + "; ".join(details))
    # the diverging offsets, in the leader's log and in what the consumer delivered
    return Account(text, tuple(slot for o in differ for slot in ((name, "log", o), ("consumer", "delivered", o))))


@invariant(explain=explain_no_divergent_delivery)
def NoDivergentDelivery(s):
    """The consumer never delivered a record on top of a prefix that differs
    from the records it had already delivered."""
    return not_(s.divergent_delivery)


@sometimes
def ConsumerDelivered(s):
    """The consumer delivered at least one record."""
    return s.consumer_position > 0


SPEC = SpecDefinition(
    name="kip320-consumer", module="Kip320Consumer",
    summary="a KIP-320 consumer through leader changes, unclean elections and stale metadata",
    constants=CONSTANTS, fields=fields, init=FullInit,
    next=KIP320_NEXT + (ControllerUncleanElectLeader, ConsumerRefreshMetadata, ConsumerFetch,
                        ConsumerValidatePosition),
    invariants=base.BASE_INVARIANTS + (NoDivergentDelivery,),
    default_invariants=("NoDivergentDelivery",),
    variables=variables, sometimes=base.BASE_SOMETIMES + (ConsumerDelivered,), symmetry=("Replicas",),
    notes="UncleanElection, ConsumerFencing and TruncationCheck switch the mechanisms (TRUE/FALSE)",
    specifications=(Specification("Spec", KIP320_SPEC.fairness + (WF(ConsumerRefreshMetadata), WF(ConsumerFetch),
                                                                  WF(ConsumerValidatePosition)),
                                  "Kip320's fairness, and weak fairness on every consumer action."),),
    origin=written_here("tla/Kip320Consumer.tla", "it extends Kip320"),
    small_models=({"MaxLeaderEpoch": "1"},))
