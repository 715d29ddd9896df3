---------------------------- MODULE KafkaClients ----------------------------
(***************************************************************************)
(* A producer and a consumer group reading one partition of the Kip320     *)
(* model, with the client-side halves of KIP-359, KIP-232 and KIP-320:     *)
(* produce fencing and its two errors, metadata versions, min.insync.      *)
(* replicas, and offsets committed with a leader epoch that a restarted    *)
(* consumer or another member of its group resumes from.                   *)
(*                                                                         *)
(* The producer is the only writer: it replaces Kip320's LeaderWrite. It   *)
(* caches a leader and a leader epoch from metadata which, as for the      *)
(* consumer, may be any LeaderAndIsr state the controller ever published.  *)
(* A produce request is handled atomically by the replica the producer     *)
(* believes leads; it appends only if it presumes leadership. AcksAll says *)
(* when the producer hears back: FALSE is acks=1, acknowledged on the      *)
(* append; TRUE is acks=all, acknowledged once the leader's high watermark *)
(* is above the record. One request is in flight at a time; an acks=all   *)
(* request may also fail (a timeout, NOT_LEADER, or NOT_ENOUGH_REPLICAS    *)
(* after the append), after which the producer is free to send the next   *)
(* record.                                                                 *)
(*                                                                         *)
(* Switches:                                                               *)
(*   ProduceFencing       - KIP-359: a produce request carries the         *)
(*                          producer's epoch and a leader appends only on  *)
(*                          it. A replica on a newer epoch answers         *)
(*                          FENCED_LEADER_EPOCH and the producer drops its *)
(*                          cached leader until a refresh; a replica on an *)
(*                          older epoch answers UNKNOWN_LEADER_EPOCH;      *)
(*   UnknownEpochBackoff  - KIP-359's reaction to UNKNOWN_LEADER_EPOCH:    *)
(*                          the producer, ahead of the leader, backs off   *)
(*                          and retries with the same metadata (no state   *)
(*                          changes, so no action). FALSE: it does not     *)
(*                          tell the two errors apart and reacts to this   *)
(*                          one as to FENCED_LEADER_EPOCH, dropping its    *)
(*                          leader to refresh its metadata;                *)
(*   MinInsyncReplicas    - acks=all: a leader whose ISR is smaller        *)
(*                          refuses the write with NOT_ENOUGH_REPLICAS     *)
(*                          (the producer backs off: no state changes) and *)
(*                          does not acknowledge a record then;            *)
(*   MetadataVersionCheck - KIP-232: producer and consumer ignore metadata *)
(*                          older than the epoch they hold;                *)
(*   ConsumerFencing      - KIP-320's fetch check: a leader serves a fetch *)
(*                          only on exactly the consumer's epoch;          *)
(*   TruncationCheck      - KIP-320's validation after adopting a new      *)
(*                          epoch, with the epoch of the last record read; *)
(*   ConsumerRestart      - the consumer resumes from the group's          *)
(*                          committed offset and keeps its metadata (it    *)
(*                          gets the partition back, or seeks to what it   *)
(*                          committed);                                    *)
(*   GroupHandover        - another member of the group resumes from the   *)
(*                          committed offset with an empty metadata cache; *)
(*   CommitLeaderEpoch    - KIP-320: OffsetCommit stores the leader epoch  *)
(*                          of the last consumed record with the offset    *)
(*                          (otherwise Nil, the old format);               *)
(*   ValidateCommitted    - KIP-320: a consumer that resumes validates the *)
(*                          committed position with OffsetsForLeaderEpoch  *)
(*                          on the committed epoch before fetching;        *)
(*   AwaitCommittedEpoch  - KIP-320/KIP-232: a consumer that resumes uses  *)
(*                          no metadata older than the committed epoch     *)
(*                          (the committed epoch becomes the epoch that    *)
(*                          KIP-232's check compares with);                *)
(*   UncleanElection      - as in Kip320Consumer.                          *)
(*                                                                         *)
(* The consumer's delivered log (consumerLog) is what the group has        *)
(* delivered at each offset: a validation that rewinds the position, or a  *)
(* resume, keeps the records above the new position, since they were       *)
(* delivered; a later fetch replaces them.                                 *)
(*                                                                         *)
(* History variables record what the properties judge at the step it       *)
(* happens: an append by a replica the controller no longer names leader,  *)
(* a client served by a leader on an older epoch than one that served it   *)
(* before, an OFFSET_OUT_OF_RANGE answer (or a validation that rewinds the *)
(* consumer) while the current leader still has every record the consumer *)
(* read.                                                                   *)
(***************************************************************************)
EXTENDS Kip320Consumer, FiniteSets

CONSTANTS AcksAll, MinInsyncReplicas, ProduceFencing, UnknownEpochBackoff, MetadataVersionCheck,
          ConsumerRestart, GroupHandover, CommitLeaderEpoch, ValidateCommitted, AwaitCommittedEpoch

(* Combinations in which a switch would have nothing to act on are refused. *)
ASSUME
    /\ MinInsyncReplicas \in 1 .. Cardinality(Replicas)
    /\ UnknownEpochBackoff => ProduceFencing
    /\ CommitLeaderEpoch => (ConsumerRestart \/ GroupHandover)
    /\ ValidateCommitted => CommitLeaderEpoch
    /\ AwaitCommittedEpoch => (CommitLeaderEpoch /\ MetadataVersionCheck)

VARIABLES
    producerLeader,      \* the replica the producer believes is the leader (None: unknown)
    producerEpoch,       \* the leader epoch in the producer's metadata (Nil: unknown)
    producerPending,     \* the acks=all request awaiting its answer, or NoPending
    acked,               \* for each record id, its offset and the acknowledging leader's epoch, or NotAcked
    committed,           \* the group's committed offset and leader epoch (Nil: not stored)
    producerActedEpoch,  \* history: the newest leader epoch of a replica that appended a produced record
    consumerActedEpoch,  \* history: the newest leader epoch of a replica that answered the group's consumer
    staleWrite,          \* history: a replica appended a produced record while not the quorum's leader
    leaderRegression,    \* history: a client was served by a leader older than one that served it before
    spuriousOutOfRange   \* history: the consumer was told its position is out of range, nothing truncated below it

clientVars == <<producerLeader, producerEpoch, producerPending, acked, committed, producerActedEpoch,
                consumerActedEpoch, staleWrite, leaderRegression, spuriousOutOfRange>>

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
    /\ committed = [offset |-> 0, leaderEpoch |-> Nil]
    /\ producerActedEpoch = Nil
    /\ consumerActedEpoch = Nil
    /\ staleWrite = FALSE
    /\ leaderRegression = FALSE
    /\ spuriousOutOfRange = FALSE

(* A metadata refresh may return any published leader. It changes the cache when its epoch  *)
(* differs from the cached one, or when the cache has an epoch but no leader (a producer     *)
(* that was fenced, a consumer waiting for the committed epoch). With MetadataVersionCheck   *)
(* the epoch may not go below the cached one.                                                *)
AcceptsMetadata(request, cachedLeader, cachedEpoch) ==
    /\ request.leader # None
    /\ (request.leaderEpoch # cachedEpoch \/ cachedLeader = None)
    /\ MetadataVersionCheck => request.leaderEpoch >= cachedEpoch

(* A client is served by a replica on the given epoch: remember the newest such epoch, and *)
(* whether this one is older than it.                                                     *)
Served(epoch, actedEpoch) == epoch < actedEpoch
NewestActed(epoch, actedEpoch) == Max({epoch, actedEpoch})

ProducerActsOn(leader) ==
    /\ leaderRegression' = (leaderRegression \/ Served(replicaState[leader].leaderEpoch, producerActedEpoch))
    /\ producerActedEpoch' = NewestActed(replicaState[leader].leaderEpoch, producerActedEpoch)
    /\ UNCHANGED consumerActedEpoch

ConsumerActsOn(leader) ==
    /\ leaderRegression' = (leaderRegression \/ Served(replicaState[leader].leaderEpoch, consumerActedEpoch))
    /\ consumerActedEpoch' = NewestActed(replicaState[leader].leaderEpoch, consumerActedEpoch)
    /\ UNCHANGED producerActedEpoch

ProducerRefreshMetadata == \E request \in leaderAndIsrRequests :
    /\ AcceptsMetadata(request, producerLeader, producerEpoch)
    /\ producerLeader' = request.leader
    /\ producerEpoch' = request.leaderEpoch
    /\ UNCHANGED <<vars, consumerVars, producerPending, acked, committed, producerActedEpoch, consumerActedEpoch,
                   staleWrite, leaderRegression, spuriousOutOfRange>>

(* After adopting new metadata the consumer validates its position if TruncationCheck is on *)
(* and it knows the epoch of its position; a validation already due stays due.             *)
ClientConsumerRefreshMetadata == \E request \in leaderAndIsrRequests :
    /\ AcceptsMetadata(request, consumerLeader, consumerEpoch)
    /\ consumerLeader' = request.leader
    /\ consumerEpoch' = request.leaderEpoch
    /\ consumerValidated' = (consumerValidated /\ ~ (TruncationCheck /\ consumerLastEpoch # Nil))
    /\ UNCHANGED <<vars, consumerPosition, consumerLastEpoch, consumerLog, divergentDelivery>>
    /\ UNCHANGED clientVars

IsrSize(leader) == Cardinality(replicaState[leader].isr)

(* The produce request as the leader handles it: it must presume leadership (else              *)
(* NOT_LEADER_OR_FOLLOWER), with ProduceFencing be on the producer's epoch (see below), with   *)
(* acks=all have at least MinInsyncReplicas in its ISR (else NOT_ENOUGH_REPLICAS), and have    *)
(* room. The record gets the next id and the leader's own epoch.                               *)
ProducerSend == LET leader == producerLeader IN
    /\ leader # None
    /\ producerPending = NoPending
    /\ ReplicaPresumesLeadership(leader)
    /\ ProduceFencing => replicaState[leader].leaderEpoch = producerEpoch
    /\ AcksAll => IsrSize(leader) >= MinInsyncReplicas
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
    /\ ProducerActsOn(leader)
    /\ UNCHANGED <<replicaState, nextLeaderEpoch, quorumState, leaderAndIsrRequests>>
    /\ UNCHANGED <<consumerVars, producerLeader, producerEpoch, committed, spuriousOutOfRange>>

ProducerDropsLeader ==
    /\ producerLeader' = None
    /\ UNCHANGED <<vars, consumerVars, producerEpoch, producerPending, acked, committed, producerActedEpoch,
                   consumerActedEpoch, staleWrite, leaderRegression, spuriousOutOfRange>>

(* KIP-359's FENCED_LEADER_EPOCH: the replica the producer sends its next record to is on a   *)
(* newer epoch than the producer's metadata (the broker checks the epoch before leadership).  *)
(* The producer's metadata is stale: it forgets the leader, keeps the epoch for KIP-232's     *)
(* check, and sends again only after a refresh.                                               *)
ProducerSendFenced == LET target == producerLeader IN
    /\ ProduceFencing
    /\ target # None
    /\ producerPending = NoPending
    /\ nextRecordId <= MaxRecords - 1
    /\ producerEpoch < replicaState[target].leaderEpoch
    /\ ProducerDropsLeader

(* KIP-359's UNKNOWN_LEADER_EPOCH: the replica is on an older epoch than the producer's        *)
(* metadata. With UnknownEpochBackoff the producer backs off and retries with the same         *)
(* metadata, which changes nothing; without it the producer reacts as to FENCED_LEADER_EPOCH.  *)
ProducerSendUnknownEpoch == LET target == producerLeader IN
    /\ ProduceFencing
    /\ ~ UnknownEpochBackoff
    /\ target # None
    /\ producerPending = NoPending
    /\ nextRecordId <= MaxRecords - 1
    /\ producerEpoch > replicaState[target].leaderEpoch
    /\ ProducerDropsLeader

(* acks=all: the leader answers once its high watermark is above the record, while it still *)
(* presumes leadership, has the record, and has at least MinInsyncReplicas in its ISR (else  *)
(* NOT_ENOUGH_REPLICAS after the append, a failure).                                         *)
ProducerReceiveAck == LET pending == producerPending IN
    /\ pending # NoPending
    /\ ReplicaPresumesLeadership(pending.leader)
    /\ replicaState[pending.leader].hw > pending.offset
    /\ IsrSize(pending.leader) >= MinInsyncReplicas
    /\ ReplicaLog!HasEntry(pending.leader, pending.record, pending.offset)
    /\ acked' = [acked EXCEPT ![pending.record.id] = [offset |-> pending.offset,
                                                     leaderEpoch |-> replicaState[pending.leader].leaderEpoch]]
    /\ producerPending' = NoPending
    /\ UNCHANGED <<vars, consumerVars, producerLeader, producerEpoch, committed, producerActedEpoch,
                   consumerActedEpoch, staleWrite, leaderRegression, spuriousOutOfRange>>

ProducerRequestFails ==
    /\ producerPending # NoPending
    /\ producerPending' = NoPending
    /\ UNCHANGED <<vars, consumerVars, producerLeader, producerEpoch, acked, committed, producerActedEpoch,
                   consumerActedEpoch, staleWrite, leaderRegression, spuriousOutOfRange>>

ClientConsumerFetch ==
    /\ ConsumerFetch
    /\ ConsumerActsOn(consumerLeader)
    /\ UNCHANGED <<producerLeader, producerEpoch, producerPending, acked, committed, staleWrite,
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
    /\ ConsumerActsOn(leader)
    /\ UNCHANGED <<vars, consumerVars, producerLeader, producerEpoch, producerPending, acked, committed,
                   staleWrite>>

(* KIP-320's position validation (Kip320Consumer's ConsumerValidatePosition), except that a *)
(* rewind keeps the records delivered above the new position in consumerLog. A rewind while *)
(* nothing was truncated below the position tells the consumer the same as a spurious       *)
(* OFFSET_OUT_OF_RANGE, and is judged like it.                                              *)
ClientConsumerValidatePosition == LET leader == consumerLeader IN
    /\ ~ consumerValidated
    /\ leader # None
    /\ ReplicaPresumesLeadership(leader)
    /\ replicaState[leader].leaderEpoch = consumerEpoch
    /\ LET endOffset == EndOffsetForEpoch(leader, consumerLastEpoch)
       IN  IF endOffset < consumerPosition
           THEN /\ consumerPosition' = endOffset
                /\ consumerLastEpoch' = IF endOffset = 0 THEN Nil ELSE consumerLog[endOffset - 1].epoch
                /\ spuriousOutOfRange' = (spuriousOutOfRange \/ NoTruncationBelowPosition)
           ELSE UNCHANGED <<consumerPosition, consumerLastEpoch, spuriousOutOfRange>>
    /\ consumerValidated' = TRUE
    /\ ConsumerActsOn(leader)
    /\ UNCHANGED <<vars, consumerLeader, consumerEpoch, consumerLog, divergentDelivery>>
    /\ UNCHANGED <<producerLeader, producerEpoch, producerPending, acked, committed, staleWrite>>

(* OffsetCommit: the group coordinator stores the consumer's (validated) position, with the  *)
(* leader epoch of the last consumed record if CommitLeaderEpoch is on. Nothing reads the   *)
(* committed offset unless a consumer can resume from it.                                    *)
ConsumerCommit ==
    /\ ConsumerRestart \/ GroupHandover
    /\ consumerValidated
    /\ committed' = [offset |-> consumerPosition,
                     leaderEpoch |-> IF CommitLeaderEpoch THEN consumerLastEpoch ELSE Nil]
    /\ UNCHANGED <<vars, consumerVars, producerLeader, producerEpoch, producerPending, acked, producerActedEpoch,
                   consumerActedEpoch, staleWrite, leaderRegression, spuriousOutOfRange>>

(* What a consumer that resumes from the committed offset starts with, beside its metadata: *)
(* the committed position and, with ValidateCommitted, the committed epoch as the epoch of   *)
(* its position, to be validated before it fetches. The delivered log is kept.              *)
ResumeFromCommitted ==
    /\ consumerPosition' = committed.offset
    /\ consumerLastEpoch' = IF ValidateCommitted THEN committed.leaderEpoch ELSE Nil
    /\ consumerValidated' = (ValidateCommitted => committed.leaderEpoch = Nil)
    /\ UNCHANGED <<consumerLog, divergentDelivery>>
    /\ UNCHANGED <<vars, clientVars>>

(* The consumer resumes from the committed offset and keeps its metadata, unless            *)
(* AwaitCommittedEpoch finds the committed epoch newer than its metadata: then it waits for  *)
(* metadata of at least that epoch.                                                          *)
ConsumerRestartFromCommitted ==
    /\ ConsumerRestart
    /\ ResumeFromCommitted
    /\ IF AwaitCommittedEpoch /\ committed.leaderEpoch > consumerEpoch
       THEN /\ consumerLeader' = None
            /\ consumerEpoch' = committed.leaderEpoch
       ELSE UNCHANGED <<consumerLeader, consumerEpoch>>

(* Another member takes the partition over: it resumes from the committed offset with no    *)
(* metadata, except that with AwaitCommittedEpoch it will take none older than the           *)
(* committed epoch.                                                                          *)
ConsumerGroupHandover ==
    /\ GroupHandover
    /\ ResumeFromCommitted
    /\ consumerLeader' = None
    /\ consumerEpoch' = IF AwaitCommittedEpoch THEN committed.leaderEpoch ELSE Nil

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
    \/ ClientConsumerFetch
    \/ ClientConsumerValidatePosition
    \/ ClientConsumerRefreshMetadata
    \/ ConsumerFetchOutOfRange
    \/ ConsumerCommit
    \/ ConsumerRestartFromCommitted
    \/ ConsumerGroupHandover
    \/ ProducerRefreshMetadata
    \/ ProducerSend
    \/ ProducerSendFenced
    \/ ProducerSendUnknownEpoch
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

(* Neither client is served by a leader on an older epoch than one that already served it:  *)
(* the producer's appends, and the group's fetches, validations and OFFSET_OUT_OF_RANGE      *)
(* answers, across restarts and handovers, come from leaders on non-decreasing epochs.       *)
NoLeaderRegression == ~ leaderRegression

NoSpuriousOutOfRange == ~ spuriousOutOfRange

=============================================================================
