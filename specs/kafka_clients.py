"""KafkaClients: a producer and a consumer group on one partition of the Kip320 model.

Ported from ``tla/KafkaClients.tla``, which extends Kip320Consumer. The
producer is the only writer (it replaces Kip320's LeaderWrite): it caches a
leader and an epoch from metadata that may be any LeaderAndIsr state the
controller ever published, and its produce request is handled atomically by
the replica it believes leads, which appends only while it presumes
leadership. One request is in flight at a time. The consumer group commits
offsets, and a consumer resumes from them after a restart or a handover.

Switches (boolean constants, and one number):

* ``AcksAll``: acks=all, acknowledged once the leader's high watermark is
  above the record (the request may also fail); FALSE is acks=1,
  acknowledged on the append;
* ``MinInsyncReplicas``: with acks=all, a leader with a smaller ISR refuses
  the write (NOT_ENOUGH_REPLICAS) and does not acknowledge;
* ``ProduceFencing`` (KIP-359): the leader appends only when the producer's
  epoch equals its own; a replica on a newer epoch answers
  FENCED_LEADER_EPOCH, after which the producer refreshes its metadata before
  sending again; a replica on an older epoch answers UNKNOWN_LEADER_EPOCH;
* ``UnknownEpochBackoff`` (KIP-359): the producer reacts to
  UNKNOWN_LEADER_EPOCH by backing off and retrying with its metadata (no
  state changes); FALSE: it reacts as to FENCED_LEADER_EPOCH and refreshes;
* ``MetadataVersionCheck`` (KIP-232): producer and consumer ignore metadata
  older than the epoch they hold;
* ``ConsumerFencing``: KIP-320's fetch check (a leader serves a fetch only on
  the consumer's epoch); ``TruncationCheck``: KIP-320's validation after an
  epoch change; ``UncleanElection`` as in Kip320Consumer;
* ``ConsumerRestart``: the consumer resumes from the committed offset and
  keeps its metadata; ``GroupHandover``: another member resumes from it with
  an empty metadata cache;
* ``CommitLeaderEpoch`` (KIP-320): OffsetCommit stores the epoch of the last
  consumed record; ``ValidateCommitted``: a consumer that resumes validates
  the committed position with that epoch; ``AwaitCommittedEpoch``: it uses
  no metadata older than that epoch (through KIP-232's check).

Properties: NoAckedWriteLost, NoWriteToStaleLeader, NoLeaderRegression,
NoSpuriousOutOfRange and Kip320Consumer's NoDivergentDelivery (see each one;
the explanations are in ``modelcheck.specs.kafka_clients_explain``). Three of them read
history flags that the actions set at the step that breaks them.

State: Kip320Consumer's fields, the producer's metadata, its pending acks=all
request (``pending_leader`` NONE: none; the other ``pending_*`` are then Nil),
for each record id the offset it was acknowledged at and the acknowledging
leader's epoch (Nil: not acknowledged), the group's committed offset and
epoch, the newest leader epoch that served each client, and the three flags.
The consumer's delivered log keeps what the group delivered above its
position after a rewind or a resume (see ``ClientConsumerValidatePosition``).
"""

from __future__ import annotations

import dataclasses

from modelcheck.language.codec import BoolSlot, Fn, IntSlot, Rec, ReplicaSlot, StateCodec
from modelcheck.language.constants import BOOL, INT, REPLICAS, ConstantDecl
from modelcheck.errors import InputError
from modelcheck.language.expr import add, all_of, and_, any_of, implies, ite, max_, member, min_, not_, or_
from modelcheck.language.schema import boolean, integer
from modelcheck.model.spec import SpecDefinition, action, invariant, sometimes, written_here
from modelcheck.specs import kafka_replication as base
from modelcheck.specs import kafka_clients_explain as explain
from modelcheck.specs import kip320_consumer as consumer
from modelcheck.specs.finite_replicated_log import NIL, LogRecord, append, has_entry, has_offset, offsets
from modelcheck.specs.id_sequence import next_id_available
from modelcheck.specs.kafka_replication import NONE, REPLICA, REQUEST, replica_presumes_leadership, replicas
from modelcheck.specs.kip320 import NEXT as KIP320_NEXT
from modelcheck.specs.kip320 import BecomeLeader, ControllerShrinkIsr, LeaderWrite

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
    ConstantDecl("MinInsyncReplicas", INT, 1, minimum=1, maximum=8,
                 doc="min.insync.replicas: with acks=all, the ISR size a leader needs to take and acknowledge a write"),
    ConstantDecl("ProduceFencing", BOOL, True, doc="a leader appends only on the producer's epoch (KIP-359)"),
    ConstantDecl("UnknownEpochBackoff", BOOL, True,
                 doc="on UNKNOWN_LEADER_EPOCH the producer backs off and retries with its metadata (KIP-359); "
                     "FALSE: it refreshes, as on FENCED_LEADER_EPOCH"),
    ConstantDecl("MetadataVersionCheck", BOOL, True, doc="clients ignore metadata older than theirs (KIP-232)"),
    ConstantDecl("ConsumerRestart", BOOL, True,
                 doc="the consumer may resume from the committed offset, keeping its metadata"),
    ConstantDecl("GroupHandover", BOOL, True,
                 doc="another member may resume from the committed offset with an empty metadata cache"),
    ConstantDecl("CommitLeaderEpoch", BOOL, True,
                 doc="OffsetCommit stores the leader epoch of the last consumed record (KIP-320)"),
    ConstantDecl("ValidateCommitted", BOOL, True,
                 doc="a resumed consumer validates the committed position with the committed epoch (KIP-320)"),
    ConstantDecl("AwaitCommittedEpoch", BOOL, True,
                 doc="a resumed consumer uses no metadata older than the committed epoch (KIP-320)"),
)

# Switch combinations in which a switch has nothing to act on, and why (the module's ASSUME).
NEEDS = (
    ("UnknownEpochBackoff", ("ProduceFencing",), "all",
     "without KIP-359's produce fencing no replica answers UNKNOWN_LEADER_EPOCH"),
    ("CommitLeaderEpoch", ("ConsumerRestart", "GroupHandover"), "any",
     "nothing reads the committed offset unless a consumer resumes from it"),
    ("ValidateCommitted", ("CommitLeaderEpoch",), "all", "there is no committed epoch to validate with"),
    ("AwaitCommittedEpoch", ("CommitLeaderEpoch", "MetadataVersionCheck"), "all",
     "the wait works through KIP-232's check, on the committed epoch"),
)


def check_constants(c) -> None:
    """The module's ASSUME: refuse a switch that would have nothing to act on,
    and a min.insync.replicas above the replica count."""
    if c.MinInsyncReplicas > len(c.Replicas):
        raise InputError(f"kafka-clients: MinInsyncReplicas={c.MinInsyncReplicas} is more than the "
                         f"{len(c.Replicas)} replicas")
    for switch, needs, how, why in NEEDS:
        present = [c[n] for n in needs]
        if c[switch] and not (any(present) if how == "any" else all(present)):
            joined = (" or " if how == "any" else " and ").join(f"{n}=TRUE" for n in needs)
            raise InputError(f"kafka-clients: {switch}=TRUE needs {joined} ({why})")


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
        integer("committed_offset", 0, size),
        integer("committed_epoch", NIL, e),
        integer("producer_acted_epoch", NIL, e),
        integer("consumer_acted_epoch", NIL, e),
        boolean("stale_write"),
        boolean("leader_regression"),
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
        "committed": Rec(offset=int_of("committed_offset"), leaderEpoch=int_of("committed_epoch")),
        "producerActedEpoch": int_of("producer_acted_epoch"),
        "consumerActedEpoch": int_of("consumer_acted_epoch"),
        "staleWrite": BoolSlot(slot("stale_write")),
        "leaderRegression": BoolSlot(slot("leader_regression")),
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
    request in flight, nothing acknowledged, offset 0 committed without an
    epoch, no client served yet and no flag set."""
    consumer.FullInit(s, n)
    n.producer_leader = NONE
    n.producer_epoch = NIL
    clear_pending(n)
    for i in range(s.c.MaxRecords):
        n.acked_offset[i] = NIL
        n.acked_leader_epoch[i] = NIL
    n.committed_offset = 0
    n.committed_epoch = NIL
    n.producer_acted_epoch = NIL
    n.consumer_acted_epoch = NIL
    n.stale_write = False
    n.leader_regression = False
    n.spurious_out_of_range = False


def accepts_metadata(s, request, cached_leader, cached_epoch):
    """AcceptsMetadata: a published leader, on an epoch other than the cached
    one or into a cache that has an epoch but no leader; with
    MetadataVersionCheck not below the cached epoch."""
    return and_(s.request_sent[request], s.request_leader[request] != NONE,
                or_(cached_epoch != request, cached_leader == NONE),
                implies(s.c.MetadataVersionCheck, request >= cached_epoch))


def acts_on(s, n, leader, acted_field: str) -> None:
    """ProducerActsOn / ConsumerActsOn: a client is served by ``leader``;
    remember the newest epoch that served it, and whether this one is older."""
    epoch, acted = s.leader_epoch[leader], getattr(s, acted_field)
    n.leader_regression = or_(s.leader_regression, epoch < acted)
    setattr(n, acted_field, max_(epoch, acted))


# TLC enumerates the set leaderAndIsrRequests in its own order of values: a request is a record
# whose fields it compares leader first (the replicas in the order named, then None) and the epoch
# next. The actions that pick a request are therefore quantified over the request's leader first,
# then its epoch: successors come in TLC's order, so a search that stops at a violation has met the
# same states as TLC (the count at the violation is equal, not only the depth).
@action(leader=REPLICA, leaderAndIsrRequest=REQUEST)
def ProducerRefreshMetadata(s, n, leader, leaderAndIsrRequest):
    """The producer adopts a published leader and epoch."""
    request = leaderAndIsrRequest
    n.require(s.request_leader[request] == leader,
              accepts_metadata(s, request, s.producer_leader, s.producer_epoch))
    n.producer_leader = leader
    n.producer_epoch = request


@action(leader=REPLICA, leaderAndIsrRequest=REQUEST)
def ClientConsumerRefreshMetadata(s, n, leader, leaderAndIsrRequest):
    """The consumer adopts a published leader and epoch; with TruncationCheck
    it must then validate its position if it knows the position's epoch. A
    validation already due stays due."""
    request = leaderAndIsrRequest
    n.require(s.request_leader[request] == leader,
              accepts_metadata(s, request, s.consumer_leader, s.consumer_epoch))
    n.consumer_leader = leader
    n.consumer_epoch = request
    n.consumer_validated = and_(s.consumer_validated,
                                not_(and_(s.c.TruncationCheck, s.consumer_last_epoch != NIL)))


def isr_size(s, leader):
    """Cardinality(replicaState[leader].isr)."""
    size = 0
    for r in replicas(s):
        size = add(size, ite(member(s.isr[leader], r), 1, 0))
    return size


@action(leader=REPLICA)
def ProducerSend(s, n, leader):
    """The produce request as the replica the producer believes leads handles
    it: it must presume leadership, with ProduceFencing be on the producer's
    epoch, with acks=all have MinInsyncReplicas in its ISR, and have room.
    The record gets the next id and the leader's epoch; acks=1 acknowledges
    it at once, acks=all leaves it pending. A replica the quorum does not
    name leader taking it sets ``stale_write``."""
    n.require(s.producer_leader == leader, s.pending_leader == NONE, replica_presumes_leadership(s, leader),
              implies(s.c.ProduceFencing, s.leader_epoch[leader] == s.producer_epoch),
              implies(s.c.AcksAll, isr_size(s, leader) >= s.c.MinInsyncReplicas),
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
    acts_on(s, n, leader, "producer_acted_epoch")


@action(leader=REPLICA)
def ProducerSendFenced(s, n, leader):
    """FENCED_LEADER_EPOCH (KIP-359): the replica the producer sends its next
    record to is on a newer epoch than the producer's metadata. The producer
    forgets the leader (keeping the epoch for KIP-232) until a refresh."""
    n.require(s.c.ProduceFencing, s.producer_leader == leader, s.pending_leader == NONE,
              next_id_available(s.next_record_id, s.c.MaxRecords - 1), s.producer_epoch < s.leader_epoch[leader])
    n.producer_leader = NONE


@action(leader=REPLICA)
def ProducerSendUnknownEpoch(s, n, leader):
    """UNKNOWN_LEADER_EPOCH (KIP-359): the replica is on an older epoch than
    the producer's metadata. With UnknownEpochBackoff the producer backs off
    and retries with the same metadata, which changes nothing (so this action
    is disabled); without it the producer reacts as to FENCED_LEADER_EPOCH."""
    n.require(s.c.ProduceFencing and not s.c.UnknownEpochBackoff, s.producer_leader == leader,
              s.pending_leader == NONE, next_id_available(s.next_record_id, s.c.MaxRecords - 1),
              s.producer_epoch > s.leader_epoch[leader])
    n.producer_leader = NONE


@action(leader=REPLICA)
def ProducerReceiveAck(s, n, leader):
    """acks=all: the leader answers once its high watermark is above the
    record, while it presumes leadership, still has the record and has
    MinInsyncReplicas in its ISR."""
    pending = LogRecord(s.pending_id, s.pending_epoch)
    n.require(s.pending_leader == leader, replica_presumes_leadership(s, leader), s.hw[leader] > s.pending_offset,
              isr_size(s, leader) >= s.c.MinInsyncReplicas, has_entry(s, leader, pending, s.pending_offset))
    n.acked_offset[s.pending_id] = s.pending_offset
    n.acked_leader_epoch[s.pending_id] = s.leader_epoch[leader]
    clear_pending(n)


@action()
def ProducerRequestFails(s, n):
    """An acks=all request times out or is refused; the producer drops it."""
    n.require(s.pending_leader != NONE)
    clear_pending(n)


@action(leader=REPLICA)
def ClientConsumerFetch(s, n, leader):
    """Kip320Consumer's ConsumerFetch, served by ``leader``."""
    consumer.ConsumerFetch.fn(s, n, leader)
    acts_on(s, n, leader, "consumer_acted_epoch")


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
    acts_on(s, n, leader, "consumer_acted_epoch")


@action(leader=REPLICA)
def ClientConsumerValidatePosition(s, n, leader):
    """KIP-320's validation (Kip320Consumer's ConsumerValidatePosition): ask
    the leader, on the consumer's epoch, where the epoch of the position ends,
    and rewind there if that is below the position. Unlike Kip320Consumer it
    keeps the records delivered above the new position: the group delivered
    them, and a consumer that resumes past them must be judged against them.
    A rewind with nothing truncated below the position is as spurious as
    OFFSET_OUT_OF_RANGE."""
    n.require(not_(s.consumer_validated), s.consumer_leader == leader, replica_presumes_leadership(s, leader),
              s.leader_epoch[leader] == s.consumer_epoch)
    end_offset = consumer.end_offset_for_epoch(s, leader, s.consumer_last_epoch)
    rewind = end_offset < s.consumer_position
    n.consumer_position = min_(end_offset, s.consumer_position)
    last_kept_epoch = ite(end_offset == 0, NIL, s.consumer_log_epoch[end_offset - 1])
    n.consumer_last_epoch = ite(rewind, last_kept_epoch, s.consumer_last_epoch)
    n.consumer_validated = True
    n.spurious_out_of_range = or_(s.spurious_out_of_range, and_(rewind, no_truncation_below_position(s)))
    acts_on(s, n, leader, "consumer_acted_epoch")


@action()
def ConsumerCommit(s, n):
    """OffsetCommit: the group stores the consumer's validated position, with
    the epoch of the last consumed record if CommitLeaderEpoch is on. Only a
    model in which a consumer resumes commits."""
    n.require(s.c.ConsumerRestart or s.c.GroupHandover, s.consumer_validated)
    n.committed_offset = s.consumer_position
    n.committed_epoch = s.consumer_last_epoch if s.c.CommitLeaderEpoch else NIL


def resume_from_committed(s, n) -> None:
    """ResumeFromCommitted: the committed position and, with
    ValidateCommitted, the committed epoch as the position's epoch, to be
    validated before fetching. The delivered log is kept."""
    n.consumer_position = s.committed_offset
    epoch = s.committed_epoch if s.c.ValidateCommitted else NIL
    n.consumer_last_epoch = epoch
    n.consumer_validated = epoch == NIL


@action()
def ConsumerRestartFromCommitted(s, n):
    """The consumer resumes from the committed offset keeping its metadata,
    unless AwaitCommittedEpoch finds the committed epoch newer than it: then
    it waits for metadata of at least that epoch."""
    n.require(s.c.ConsumerRestart)
    resume_from_committed(s, n)
    if s.c.AwaitCommittedEpoch:
        newer = s.committed_epoch > s.consumer_epoch
        n.consumer_leader = ite(newer, NONE, s.consumer_leader)
        n.consumer_epoch = max_(s.committed_epoch, s.consumer_epoch)


@action()
def ConsumerGroupHandover(s, n):
    """Another member resumes from the committed offset with no metadata,
    taking none older than the committed epoch if AwaitCommittedEpoch is on."""
    n.require(s.c.GroupHandover)
    resume_from_committed(s, n)
    n.consumer_leader = NONE
    n.consumer_epoch = s.committed_epoch if s.c.AwaitCommittedEpoch else NIL


def acked_write_kept(s, record_id, replica):
    """A later leader has the acknowledged record at its offset (or the
    record was not acknowledged, or the replica is not a later leader)."""
    offset = s.acked_offset[record_id]
    later_leader = and_(replica_presumes_leadership(s, replica),
                        s.leader_epoch[replica] > s.acked_leader_epoch[record_id])
    return implies(and_(offset != NIL, later_leader),
                   and_(has_offset(s, replica, offset), s.log_id[replica][offset] == record_id))


@invariant(explain=explain.no_acked_write_lost(acked_write_kept))
def NoAckedWriteLost(s):
    """Every acknowledged record is in the log of every later leader (a
    replica presuming leadership on an epoch newer than the one of the leader
    that acknowledged it), at the offset it was acknowledged at."""
    return all_of(acked_write_kept(s, i, r) for i in range(s.c.MaxRecords) for r in replicas(s))


@invariant(explain=explain.no_write_to_stale_leader)
def NoWriteToStaleLeader(s):
    """No produced record was appended by a replica other than the one the
    quorum names leader at that moment."""
    return not_(s.stale_write)


@invariant(explain=explain.no_leader_regression)
def NoLeaderRegression(s):
    """Neither client was served by a leader on an older epoch than a leader
    that had already served it: the producer's appends, and the group's
    fetches, validations and OFFSET_OUT_OF_RANGE answers (across restarts and
    handovers), come from leaders on epochs that never go back."""
    return not_(s.leader_regression)


@invariant(explain=explain.no_spurious_out_of_range)
def NoSpuriousOutOfRange(s):
    """The consumer was never told its position is out of range (by
    OFFSET_OUT_OF_RANGE, or by a validation that rewinds it) while the
    quorum's leader still had every record it had read."""
    return not_(s.spurious_out_of_range)


@sometimes
def ProducerAcknowledged(s):
    """Some record was acknowledged to the producer."""
    return any_of(s.acked_offset[i] != NIL for i in range(s.c.MaxRecords))


@sometimes
def OffsetCommitted(s):
    """The group committed an offset above 0."""
    return s.committed_offset > 0


def leader_first(act):
    """The same action quantified over the request's leader before its epoch:
    TLC's order of the requests (see ProducerRefreshMetadata)."""
    params = dict(act.params)
    return dataclasses.replace(act, params=(("leader", params["leader"]),
                                            ("leaderAndIsrRequest", params["leaderAndIsrRequest"])))


PROPERTIES = ("NoAckedWriteLost", "NoWriteToStaleLeader", "NoLeaderRegression", "NoSpuriousOutOfRange",
              "NoDivergentDelivery")
# Kip320's actions less LeaderWrite, with the unclean election after ControllerShrinkIsr as in
# ReplicationNext (the order decides nothing but which states a search meets first).
REPLICATION_NEXT = tuple(b for a in KIP320_NEXT if a is not LeaderWrite
                         for b in ((a, consumer.ControllerUncleanElectLeader) if a is ControllerShrinkIsr else
                                   (leader_first(a),) if a is BecomeLeader else (a,)))
CLIENTS_NEXT = (ClientConsumerFetch, ClientConsumerValidatePosition, ClientConsumerRefreshMetadata,
                ConsumerFetchOutOfRange, ConsumerCommit, ConsumerRestartFromCommitted, ConsumerGroupHandover,
                ProducerRefreshMetadata, ProducerSend, ProducerSendFenced, ProducerSendUnknownEpoch, ProducerReceiveAck,
                ProducerRequestFails)

SPEC = SpecDefinition(
    name="kafka-clients", module="KafkaClients",
    summary="a producer and a consumer group through leader changes: produce fencing, metadata versions, "
            "min.insync.replicas, and offsets committed with leader epochs",
    constants=CONSTANTS, fields=fields, init=ClientsInit,
    next=REPLICATION_NEXT + CLIENTS_NEXT,
    invariants=base.BASE_INVARIANTS + (consumer.NoDivergentDelivery, NoAckedWriteLost, NoWriteToStaleLeader,
                                       NoLeaderRegression, NoSpuriousOutOfRange),
    default_invariants=PROPERTIES,
    variables=variables, sometimes=base.BASE_SOMETIMES + (consumer.ConsumerDelivered, ProducerAcknowledged,
                                                          OffsetCommitted),
    symmetry=("Replicas",), check_constants=check_constants,
    notes="UncleanElection, ConsumerFencing, TruncationCheck, AcksAll, ProduceFencing, UnknownEpochBackoff, "
          "MetadataVersionCheck, "
          "ConsumerRestart, GroupHandover, CommitLeaderEpoch, ValidateCommitted and AwaitCommittedEpoch switch the "
          "mechanisms (TRUE/FALSE); MinInsyncReplicas is min.insync.replicas",
    origin=written_here("tla/KafkaClients.tla", "it extends Kip320Consumer"),
    # one record, one log slot: 12,841 states (LogSize=2, MaxRecords=2 gives 149,095)
    small_models=({"Replicas": "2", "MaxLeaderEpoch": "1"},))
