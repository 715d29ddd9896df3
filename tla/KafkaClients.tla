---------------------------- MODULE KafkaClients ----------------------------
(***************************************************************************)
(* A producer and a consumer of one partition of the Kip320 model, with    *)
(* the client-side halves of KIP-359 and KIP-232.                          *)
(*                                                                         *)
(* The producer is the only writer: it replaces Kip320's LeaderWrite. It   *)
(* caches a leader and a leader epoch from metadata which, as for the      *)
(* consumer, may be any LeaderAndIsr state the controller ever published.  *)
(* A produce request is handled atomically by the replica the producer     *)
(* believes leads; it appends only if it presumes leadership. AcksAll says *)
(* when the producer hears back: FALSE is acks=1, acknowledged on the      *)
(* append; TRUE is acks=all, acknowledged once the leader's high watermark *)
(* is above the record. One request is in flight at a time; an acks=all   *)
(* request may also fail (a timeout or NOT_LEADER), after which the        *)
(* producer is free to send the next record.                               *)
(*                                                                         *)
(* Switches:                                                               *)
(*   ProduceFencing       - KIP-359: a produce request carries the         *)
(*                          producer's epoch and the leader appends only   *)
(*                          when it equals its own (FENCED_LEADER_EPOCH or *)
(*                          UNKNOWN_LEADER_EPOCH otherwise: no append);    *)
(*   MetadataVersionCheck - KIP-232: producer and consumer ignore metadata *)
(*                          older than the epoch they hold;                *)
(*   ConsumerFencing      - KIP-320's fetch check only: a leader serves a  *)
(*                          fetch only on exactly the consumer's epoch     *)
(*                          (in Kip320Consumer this switch also covered    *)
(*                          the metadata check, which is split out here);  *)
(*   TruncationCheck, UncleanElection - as in Kip320Consumer.              *)
(*                                                                         *)
(* History variables record what the properties judge at the step it       *)
(* happens: an append by a replica the controller no longer names leader,  *)
(* a client adopting an older epoch, an OFFSET_OUT_OF_RANGE answer (or a   *)
(* validation that rewinds the consumer) while the current leader still    *)
(* has every record the consumer read.                                     *)
(***************************************************************************)
EXTENDS Kip320Consumer

CONSTANTS AcksAll, ProduceFencing, MetadataVersionCheck

VARIABLES
    producerLeader,      \* the replica the producer believes is the leader (None: unknown)
    producerEpoch,       \* the leader epoch in the producer's metadata (Nil: unknown)
    producerPending,     \* the acks=all request awaiting its answer, or NoPending
    acked,               \* for each record id, its offset and the acknowledging leader's epoch, or NotAcked
    staleWrite,          \* history: a replica appended a produced record while not the quorum's leader
    metadataRegression,  \* history: a client adopted metadata older than what it held
    spuriousOutOfRange   \* history: the consumer was told its position is out of range, nothing truncated below it

clientVars == <<producerLeader, producerEpoch, producerPending, acked, staleWrite, metadataRegression,
                spuriousOutOfRange>>

RecordIds == 0 .. (MaxRecords - 1)

(* Records with Nil fields stand for "none", since TLC cannot compare a record with Nil. *)
NoPending == [leader |-> None, offset |-> Nil, record |-> [id |-> Nil, epoch |-> Nil]]
NotAcked == [offset |-> Nil, leaderEpoch |-> Nil]

ClientsInit ==
    /\ FullInit
    /\ producerLeader = None
    /\ producerEpoch = Nil
    /\ producerPending = NoPending
    /\ acked = [id \in RecordIds |-> NotAcked]
    /\ staleWrite = FALSE
    /\ metadataRegression = FALSE
    /\ spuriousOutOfRange = FALSE

(* A metadata refresh may return any published leader other than the current epoch's; with  *)
(* MetadataVersionCheck only a newer one.                                                    *)
AcceptsMetadata(request, cachedEpoch) ==
    /\ request.leader # None
    /\ request.leaderEpoch # cachedEpoch
    /\ MetadataVersionCheck => request.leaderEpoch > cachedEpoch

ProducerRefreshMetadata == \E request \in leaderAndIsrRequests :
    /\ AcceptsMetadata(request, producerEpoch)
    /\ producerLeader' = request.leader
    /\ producerEpoch' = request.leaderEpoch
    /\ metadataRegression' = (metadataRegression \/ request.leaderEpoch < producerEpoch)
    /\ UNCHANGED <<vars, consumerVars, producerPending, acked, staleWrite, spuriousOutOfRange>>

ClientConsumerRefreshMetadata == \E request \in leaderAndIsrRequests :
    /\ AcceptsMetadata(request, consumerEpoch)
    /\ consumerLeader' = request.leader
    /\ consumerEpoch' = request.leaderEpoch
    /\ consumerValidated' = ~ (TruncationCheck /\ consumerLastEpoch # Nil)
    /\ metadataRegression' = (metadataRegression \/ request.leaderEpoch < consumerEpoch)
    /\ UNCHANGED <<vars, consumerPosition, consumerLastEpoch, consumerLog, divergentDelivery>>
    /\ UNCHANGED <<producerLeader, producerEpoch, producerPending, acked, staleWrite, spuriousOutOfRange>>

(* The produce request as the leader handles it: it must presume leadership (else              *)
(* NOT_LEADER_FOR_PARTITION), with ProduceFencing be on the producer's epoch, and have room.   *)
(* The record gets the next id and the leader's own epoch.                                   *)
ProducerSend == LET leader == producerLeader IN
    /\ leader # None
    /\ producerPending = NoPending
    /\ ReplicaPresumesLeadership(leader)
    /\ ProduceFencing => replicaState[leader].leaderEpoch = producerEpoch
    /\ RecordSeq!NextId(nextRecordId)
    /\ LET record == [id |-> nextRecordId, epoch |-> replicaState[leader].leaderEpoch]
           offset == ReplicaLog!GetEndOffset(leader)
       IN  /\ ReplicaLog!Append(leader, record, offset)
           /\ acked' = IF ~ AcksAll
                       THEN [acked EXCEPT ![record.id] = [offset |-> offset, leaderEpoch |-> record.epoch]]
                       ELSE acked
           /\ producerPending' = IF AcksAll
                                 THEN [leader |-> leader, offset |-> offset, record |-> record]
                                 ELSE NoPending
    /\ staleWrite' = (staleWrite \/ quorumState.leader # leader)
    /\ UNCHANGED <<replicaState, nextLeaderEpoch, quorumState, leaderAndIsrRequests>>
    /\ UNCHANGED <<consumerVars, producerLeader, producerEpoch, metadataRegression, spuriousOutOfRange>>

(* acks=all: the leader answers once its high watermark is above the record, while it still *)
(* presumes leadership and has the record.                                                 *)
ProducerReceiveAck == LET pending == producerPending IN
    /\ pending # NoPending
    /\ ReplicaPresumesLeadership(pending.leader)
    /\ replicaState[pending.leader].hw > pending.offset
    /\ ReplicaLog!HasEntry(pending.leader, pending.record, pending.offset)
    /\ acked' = [acked EXCEPT ![pending.record.id] = [offset |-> pending.offset,
                                                     leaderEpoch |-> replicaState[pending.leader].leaderEpoch]]
    /\ producerPending' = NoPending
    /\ UNCHANGED <<vars, consumerVars, producerLeader, producerEpoch, staleWrite, metadataRegression,
                   spuriousOutOfRange>>

ProducerRequestFails ==
    /\ producerPending # NoPending
    /\ producerPending' = NoPending
    /\ UNCHANGED <<vars, consumerVars, producerLeader, producerEpoch, acked, staleWrite, metadataRegression,
                   spuriousOutOfRange>>

(* Nothing was truncated below the consumer's position: the replica the controller names *)
(* leader has every record the consumer delivered, at its offset.                          *)
NoTruncationBelowPosition == LET leader == quorumState.leader IN
    /\ leader # None
    /\ \A offset \in 0 .. (consumerPosition - 1) : ReplicaLog!HasEntry(leader, consumerLog[offset], offset)

(* A fetch beyond the log end of the replica the consumer believes leads is answered with   *)
(* OFFSET_OUT_OF_RANGE. The model records only whether the answer was spurious; the        *)
(* consumer's offset reset that follows is not modelled.                                   *)
ConsumerFetchOutOfRange == LET leader == consumerLeader IN
    /\ leader # None
    /\ consumerValidated
    /\ ReplicaPresumesLeadership(leader)
    /\ ConsumerFencing => replicaState[leader].leaderEpoch = consumerEpoch
    /\ consumerPosition > ReplicaLog!GetEndOffset(leader)
    /\ spuriousOutOfRange' = (spuriousOutOfRange \/ NoTruncationBelowPosition)
    /\ UNCHANGED <<vars, consumerVars, producerLeader, producerEpoch, producerPending, acked, staleWrite,
                   metadataRegression>>

(* KIP-320's position validation tells the consumer the same thing when the leader says the *)
(* epoch of its last record ends below its position: it rewinds there. That too is judged.  *)
ClientConsumerValidatePosition ==
    /\ ConsumerValidatePosition
    /\ spuriousOutOfRange' = \/ spuriousOutOfRange
                             \/ /\ EndOffsetForEpoch(consumerLeader, consumerLastEpoch) < consumerPosition
                                /\ NoTruncationBelowPosition
    /\ UNCHANGED <<producerLeader, producerEpoch, producerPending, acked, staleWrite, metadataRegression>>

ReplicationNext ==
    \/ ControllerElectLeader
    \/ ControllerShrinkIsr
    \/ ControllerUncleanElectLeader
    \/ BecomeLeader
    \/ FencedLeaderExpandIsr
    \/ FencedLeaderShrinkIsr
    \/ FencedLeaderIncHighWatermark
    \/ FencedBecomeFollowerAndTruncate
    \/ FencedFollowerFetch

ClientsNext ==
    \/ ReplicationNext /\ UNCHANGED <<consumerVars, clientVars>>
    \/ ConsumerFetch /\ UNCHANGED clientVars
    \/ ClientConsumerValidatePosition
    \/ ClientConsumerRefreshMetadata
    \/ ConsumerFetchOutOfRange
    \/ ProducerRefreshMetadata
    \/ ProducerSend
    \/ ProducerReceiveAck
    \/ ProducerRequestFails

(* An acknowledged record is in the log of every later leader (a replica presuming        *)
(* leadership on a newer epoch than the leader that acknowledged it), at its offset. Record *)
(* ids are unique, so the id identifies the record.                                         *)
NoAckedWriteLost == \A id \in RecordIds : acked[id] # NotAcked =>
    \A replica \in Replicas :
        (ReplicaPresumesLeadership(replica) /\ replicaState[replica].leaderEpoch > acked[id].leaderEpoch)
            => /\ ReplicaLog!HasOffset(replica, acked[id].offset)
               /\ ReplicaLog!GetRecordAtOffset(replica, acked[id].offset).id = id

NoWriteToStaleLeader == ~ staleWrite

NoMetadataRegression == ~ metadataRegression

NoSpuriousOutOfRange == ~ spuriousOutOfRange

=============================================================================
