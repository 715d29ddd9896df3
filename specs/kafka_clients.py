"""KafkaClients: a producer and a consumer of one partition of the Kip320 model.

Ported from ``tla/KafkaClients.tla``, which extends Kip320Consumer. The
producer is the only writer (it replaces Kip320's LeaderWrite): it caches a
leader and an epoch from metadata that may be any LeaderAndIsr state the
controller ever published, and its produce request is handled atomically by
the replica it believes leads, which appends only while it presumes
leadership. One request is in flight at a time.

Switches (boolean constants):

* ``AcksAll``: acks=all, acknowledged once the leader's high watermark is
  above the record (the request may also fail); FALSE is acks=1,
  acknowledged on the append;
* ``ProduceFencing`` (KIP-359): the leader appends only when the producer's
  epoch equals its own;
* ``MetadataVersionCheck`` (KIP-232): producer and consumer ignore metadata
  older than the epoch they hold;
* ``ConsumerFencing``: KIP-320's fetch check alone (a leader serves a fetch
  only on the consumer's epoch); Kip320Consumer's switch of that name also
  covers the metadata check, which is ``MetadataVersionCheck`` here;
* ``TruncationCheck`` and ``UncleanElection`` as in Kip320Consumer.

A validation that rewinds the consumer is judged like OFFSET_OUT_OF_RANGE
(ClientConsumerValidatePosition wraps Kip320Consumer's action).

Properties: NoAckedWriteLost, NoWriteToStaleLeader, NoMetadataRegression and
NoSpuriousOutOfRange (see each one). Three of them read history flags that
the actions set at the step that breaks them.

State: Kip320Consumer's fields, the producer's metadata, its pending acks=all
request (``pending_leader`` NONE: none; the other ``pending_*`` are then Nil),
for each record id the offset it was acknowledged at and the acknowledging
leader's epoch (Nil: not acknowledged), and the three flags.
"""

from __future__ import annotations

from modelcheck.codec import BoolSlot, Fn, IntSlot, Rec, ReplicaSlot, StateCodec
from modelcheck.constants import BOOL, INT, REPLICAS, ConstantDecl
from modelcheck.expr import all_of, and_, any_of, implies, not_, or_
from modelcheck.schema import boolean, integer
from modelcheck.spec import SpecDefinition, action, invariant, sometimes
from specs import kafka_replication as base
from specs import kip320_consumer as consumer
from specs.finite_replicated_log import NIL, LogRecord, append, has_entry, has_offset, offsets
from specs.id_sequence import next_id_available
from specs.kafka_replication import NONE, REPLICA, REQUEST, record_text, replica_presumes_leadership, replicas
from specs.kip320 import NEXT as KIP320_NEXT
from specs.kip320 import ControllerShrinkIsr, LeaderWrite

CONSTANTS = (
    ConstantDecl("Replicas", REPLICAS, ("r1", "r2"), minimum=1, maximum=8,
                 doc="the replicas of the partition: a count (2) or names ({a,b})"),
    ConstantDecl("LogSize", INT, 1, minimum=1, maximum=16, doc="the capacity of each replica's log"),
    ConstantDecl("MaxRecords", INT, 1, minimum=1, maximum=64, doc="how many records the producer may send in all"),
    ConstantDecl("MaxLeaderEpoch", INT, 2, minimum=0, maximum=64,
                 doc="the largest leader epoch (2 lets an unclean election follow a leader's removal)"),
    ConstantDecl("UncleanElection", BOOL, False, doc="the controller may elect a replica outside the ISR"),
    ConstantDecl("ConsumerFencing", BOOL, True, doc="a leader serves a fetch only on the consumer's epoch (KIP-320)"),
    ConstantDecl("TruncationCheck", BOOL, True, doc="the consumer validates its position after an epoch change"),
    ConstantDecl("AcksAll", BOOL, True, doc="acks=all (TRUE) or acks=1 (FALSE)"),
    ConstantDecl("ProduceFencing", BOOL, True, doc="a leader appends only on the producer's epoch (KIP-359)"),
    ConstantDecl("MetadataVersionCheck", BOOL, True, doc="clients ignore metadata older than theirs (KIP-232)"),
)


def fields(c):
    size, e, m, r = c.LogSize, c.MaxLeaderEpoch, c.MaxRecords, len(c.Replicas)
    return consumer.fields(c) + [
        integer("producer_leader", NONE, r - 1),
        integer("producer_epoch", NIL, e),
        integer("pending_leader", NONE, r - 1),
        integer("pending_offset", NIL, size - 1),
        integer("pending_id", NIL, m - 1),
        integer("pending_epoch", NIL, e),
        integer("acked_offset", NIL, size - 1, (m,)),
        integer("acked_leader_epoch", NIL, e, (m,)),
        boolean("stale_write"),
        boolean("metadata_regression"),
        boolean("spurious_out_of_range"),
    ]


def variables(c, schema):
    slot, f = schema.slot, schema.by_name

    def int_of(name, *idx):
        return IntSlot(slot(name, *idx), f[name].lo, f[name].hi)

    acked = [Rec(offset=int_of("acked_offset", i), leaderEpoch=int_of("acked_leader_epoch", i))
             for i in range(c.MaxRecords)]
    return StateCodec(schema, {
        **consumer.consumer_codecs(c, schema),
        "producerLeader": ReplicaSlot(slot("producer_leader"), c.Replicas),
        "producerEpoch": int_of("producer_epoch"),
        "producerPending": Rec(leader=ReplicaSlot(slot("pending_leader"), c.Replicas),
                               offset=int_of("pending_offset"),
                               record=Rec(id=int_of("pending_id"), epoch=int_of("pending_epoch"))),
        "acked": Fn(range(c.MaxRecords), acked),
        "staleWrite": BoolSlot(slot("stale_write")),
        "metadataRegression": BoolSlot(slot("metadata_regression")),
        "spuriousOutOfRange": BoolSlot(slot("spurious_out_of_range")),
    })


def clear_pending(n) -> None:
    """producerPending' = NoPending."""
    n.pending_leader = NONE
    n.pending_offset = NIL
    n.pending_id = NIL
    n.pending_epoch = NIL


def ClientsInit(s, n) -> None:
    """Kip320Consumer's initial state, a producer that knows no leader, no
    request in flight, nothing acknowledged and no flag set."""
    consumer.FullInit(s, n)
    n.producer_leader = NONE
    n.producer_epoch = NIL
    clear_pending(n)
    for i in range(s.c.MaxRecords):
        n.acked_offset[i] = NIL
        n.acked_leader_epoch[i] = NIL
    n.stale_write = False
    n.metadata_regression = False
    n.spurious_out_of_range = False


def accepts_metadata(s, request, cached_epoch):
    """AcceptsMetadata: a published leader on an epoch other than the cached
    one; with MetadataVersionCheck only a newer one."""
    return and_(s.request_sent[request], s.request_leader[request] != NONE, cached_epoch != request,
                implies(s.c.MetadataVersionCheck, request > cached_epoch))


def regressed(s, request, cached_epoch):
    return or_(s.metadata_regression, request < cached_epoch)


@action(leaderAndIsrRequest=REQUEST)
def ProducerRefreshMetadata(s, n, leaderAndIsrRequest):
    """The producer adopts a published leader and epoch."""
    request = leaderAndIsrRequest
    n.require(accepts_metadata(s, request, s.producer_epoch))
    n.producer_leader = s.request_leader[request]
    n.producer_epoch = request
    n.metadata_regression = regressed(s, request, s.producer_epoch)


@action(leaderAndIsrRequest=REQUEST)
def ClientConsumerRefreshMetadata(s, n, leaderAndIsrRequest):
    """The consumer adopts a published leader and epoch; after an epoch change
    it must validate its position if TruncationCheck is on and it has read."""
    request = leaderAndIsrRequest
    n.require(accepts_metadata(s, request, s.consumer_epoch))
    n.consumer_leader = s.request_leader[request]
    n.consumer_epoch = request
    n.consumer_validated = not_(and_(s.c.TruncationCheck, s.consumer_last_epoch != NIL))
    n.metadata_regression = regressed(s, request, s.consumer_epoch)


@action(leader=REPLICA)
def ProducerSend(s, n, leader):
    """The produce request as the replica the producer believes leads handles
    it: it must presume leadership, with ProduceFencing be on the producer's
    epoch, and have room. The record gets the next id and the leader's epoch;
    acks=1 acknowledges it at once, acks=all leaves it pending. A replica the
    quorum does not name leader taking it sets ``stale_write``."""
    n.require(s.producer_leader == leader, s.pending_leader == NONE, replica_presumes_leadership(s, leader),
              implies(s.c.ProduceFencing, s.leader_epoch[leader] == s.producer_epoch),
              next_id_available(s.next_record_id, s.c.MaxRecords - 1))
    record = LogRecord(s.next_record_id, s.leader_epoch[leader])
    offset = s.log_end[leader]
    append(s, n, leader, record, offset)
    n.next_record_id = s.next_record_id + 1
    if s.c.AcksAll:
        n.pending_leader = leader
        n.pending_offset = offset
        n.pending_id = record.id
        n.pending_epoch = record.epoch
    else:
        n.acked_offset[record.id] = offset
        n.acked_leader_epoch[record.id] = record.epoch
    n.stale_write = or_(s.stale_write, s.quorum_leader != leader)


@action(leader=REPLICA)
def ProducerReceiveAck(s, n, leader):
    """acks=all: the leader answers once its high watermark is above the
    record, while it presumes leadership and still has the record."""
    pending = LogRecord(s.pending_id, s.pending_epoch)
    n.require(s.pending_leader == leader, replica_presumes_leadership(s, leader), s.hw[leader] > s.pending_offset,
              has_entry(s, leader, pending, s.pending_offset))
    n.acked_offset[s.pending_id] = s.pending_offset
    n.acked_leader_epoch[s.pending_id] = s.leader_epoch[leader]
    clear_pending(n)


@action()
def ProducerRequestFails(s, n):
    """An acks=all request times out or is refused; the producer drops it."""
    n.require(s.pending_leader != NONE)
    clear_pending(n)


def no_truncation_below_position(s):
    """NoTruncationBelowPosition: the replica the quorum names leader has
    every record the consumer delivered, at its offset."""
    return any_of(and_(s.quorum_leader == q,
                       all_of(implies(o < s.consumer_position, has_entry(s, q, consumer.consumer_record(s, o), o))
                              for o in offsets(s)))
                  for q in replicas(s))


@action(leader=REPLICA)
def ConsumerFetchOutOfRange(s, n, leader):
    """A fetch beyond the log end of the replica the consumer believes leads
    is answered OFFSET_OUT_OF_RANGE. Only whether the answer was spurious is
    recorded; the consumer's offset reset is not modelled."""
    n.require(s.consumer_leader == leader, s.consumer_validated, replica_presumes_leadership(s, leader),
              implies(s.c.ConsumerFencing, s.leader_epoch[leader] == s.consumer_epoch),
              s.consumer_position > s.log_end[leader])
    n.spurious_out_of_range = or_(s.spurious_out_of_range, no_truncation_below_position(s))


@action(leader=REPLICA)
def ClientConsumerValidatePosition(s, n, leader):
    """Kip320Consumer's ConsumerValidatePosition; a rewind (the leader says
    the epoch of the last record ends below the position) while nothing was
    truncated below the position tells the consumer it is out of range as
    spuriously as OFFSET_OUT_OF_RANGE does."""
    consumer.ConsumerValidatePosition.fn(s, n, leader)
    rewind = consumer.end_offset_for_epoch(s, leader, s.consumer_last_epoch) < s.consumer_position
    n.spurious_out_of_range = or_(s.spurious_out_of_range, and_(rewind, no_truncation_below_position(s)))


def acked_write_kept(s, record_id, replica):
    """A later leader has the acknowledged record at its offset (or the
    record was not acknowledged, or the replica is not a later leader)."""
    offset = s.acked_offset[record_id]
    later_leader = and_(replica_presumes_leadership(s, replica),
                        s.leader_epoch[replica] > s.acked_leader_epoch[record_id])
    return implies(and_(offset != NIL, later_leader),
                   and_(has_offset(s, replica, offset), s.log_id[replica][offset] == record_id))


def _on(probe, replica) -> str:
    """A replica, its role and epoch, as the explanations name it."""
    s = probe.s
    role = "leading" if probe.holds(replica_presumes_leadership(s, replica)) else "not leading"
    return f"{probe.replica(replica)} ({role} on epoch {probe.value(s.leader_epoch[replica])})"


def _quorum(probe) -> str:
    s = probe.s
    leader, epoch = probe.replica(probe.value(s.quorum_leader)), probe.value(s.quorum_epoch)
    return f"the controller names {leader} leader on epoch {epoch}"


def explain_no_acked_write_lost(probe) -> str | None:
    s = probe.s
    lost = probe.where(lambda s, i, r: not_(acked_write_kept(s, i, r)), i=range(s.c.MaxRecords), r=replicas(s))
    if not lost:
        return None
    i, r = lost[0]["i"], lost[0]["r"]
    offset = probe.value(s.acked_offset[i])
    theirs = record_text(probe, r, offset) or "no record"
    return (f"id{i} was acknowledged at offset {offset} by a leader on epoch {probe.value(s.acked_leader_epoch[i])}, "
            f"but {_on(probe, r)} has {theirs} there")


def explain_no_write_to_stale_leader(probe) -> str | None:
    s = probe.s
    leader = probe.value(s.producer_leader)
    if leader == NONE or probe.value(s.log_end[leader]) == 0:
        return None
    offset = probe.value(s.log_end[leader]) - 1
    return (f"{_on(probe, leader)} appended the producer's {record_text(probe, leader, offset)} at offset {offset} "
            f"(the producer's metadata: {probe.replica(leader)} on epoch {probe.value(s.producer_epoch)}), "
            f"but {_quorum(probe)}")


def explain_no_metadata_regression(probe) -> str | None:
    s = probe.s
    newest = probe.value(s.next_leader_epoch) - 1
    return (f"a client adopted metadata older than what it held: the producer now holds "
            f"{probe.replica(probe.value(s.producer_leader))} on epoch {probe.value(s.producer_epoch)}, the consumer "
            f"{probe.replica(probe.value(s.consumer_leader))} on epoch {probe.value(s.consumer_epoch)}; "
            f"the newest published epoch is {newest}")


def explain_no_spurious_out_of_range(probe) -> str | None:
    s = probe.s
    leader = probe.value(s.consumer_leader)
    if leader == NONE:
        return None
    position, end = probe.value(s.consumer_position), probe.value(s.log_end[leader])
    if position > end:
        told = (f"the consumer, at position {position} with epoch {probe.value(s.consumer_epoch)}, was told "
                f"OFFSET_OUT_OF_RANGE by {_on(probe, leader)}, whose log ends at {end}")
    else:  # the state after a validation rewound the consumer
        told = (f"validating against {_on(probe, leader)}, the consumer (epoch {probe.value(s.consumer_epoch)}) "
                f"was rewound to position {position}")
    return f"{told}, though {_quorum(probe)} and that leader had every record the consumer had read"


@invariant(explain=explain_no_acked_write_lost)
def NoAckedWriteLost(s):
    """Every acknowledged record is in the log of every later leader (a
    replica presuming leadership on an epoch newer than the one of the leader
    that acknowledged it), at the offset it was acknowledged at."""
    return all_of(acked_write_kept(s, i, r) for i in range(s.c.MaxRecords) for r in replicas(s))


@invariant(explain=explain_no_write_to_stale_leader)
def NoWriteToStaleLeader(s):
    """No produced record was appended by a replica other than the one the
    quorum names leader at that moment."""
    return not_(s.stale_write)


@invariant(explain=explain_no_metadata_regression)
def NoMetadataRegression(s):
    """Neither client ever adopted metadata with an older leader epoch than
    the one it held."""
    return not_(s.metadata_regression)


@invariant(explain=explain_no_spurious_out_of_range)
def NoSpuriousOutOfRange(s):
    """The consumer was never told its position is out of range (by
    OFFSET_OUT_OF_RANGE, or by a validation that rewinds it) while the
    quorum's leader still had every record it had read."""
    return not_(s.spurious_out_of_range)


@sometimes
def ProducerAcknowledged(s):
    """Some record was acknowledged to the producer."""
    return any_of(s.acked_offset[i] != NIL for i in range(s.c.MaxRecords))


PROPERTIES = ("NoAckedWriteLost", "NoWriteToStaleLeader", "NoMetadataRegression", "NoSpuriousOutOfRange")
# Kip320's actions less LeaderWrite, with the unclean election after ControllerShrinkIsr as in
# ReplicationNext (the order decides nothing but which states a search meets first).
REPLICATION_NEXT = tuple(b for a in KIP320_NEXT if a is not LeaderWrite
                         for b in ((a, consumer.ControllerUncleanElectLeader) if a is ControllerShrinkIsr else (a,)))

SPEC = SpecDefinition(
    name="kafka-clients", module="KafkaClients", origin="written for modelcheck; it extends Kip320Consumer",
    summary="a producer and a consumer through leader changes: KIP-359 produce fencing and KIP-232 metadata versions",
    constants=CONSTANTS, fields=fields, init=ClientsInit,
    next=REPLICATION_NEXT + (consumer.ConsumerFetch, ClientConsumerValidatePosition, ClientConsumerRefreshMetadata,
                             ConsumerFetchOutOfRange, ProducerRefreshMetadata, ProducerSend, ProducerReceiveAck,
                             ProducerRequestFails),
    invariants=base.BASE_INVARIANTS + (consumer.NoDivergentDelivery, NoAckedWriteLost, NoWriteToStaleLeader,
                                       NoMetadataRegression, NoSpuriousOutOfRange),
    default_invariants=PROPERTIES,
    variables=variables, sometimes=base.BASE_SOMETIMES + (consumer.ConsumerDelivered, ProducerAcknowledged),
    symmetry=("Replicas",),
    notes="UncleanElection, ConsumerFencing, TruncationCheck, AcksAll, ProduceFencing and MetadataVersionCheck "
          "switch the mechanisms (TRUE/FALSE)")
