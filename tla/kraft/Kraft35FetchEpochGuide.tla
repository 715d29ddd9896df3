---- MODULE Kraft35FetchEpochGuide ----
\* Guide for a TLC search of kafka_replication_v3_5 (Vanlightly/kafka-tlaplus 823615e) with the
\* FetchResponseMatchesEpoch CHECK of its line 1023 removed: put this module and its .cfg beside such
\* a copy of the module and of the modules it extends, and run TLC with -config Kraft35FetchEpochGuide.cfg.
\* Guide is a CONSTRAINT: states outside it are not explored (docs/kraft.md tells what it found). Every fencing moves the leadership
\* 1 -> 3 -> 2 -> 3; A is written in leader epoch 1; broker 3 takes nothing in epoch 1;
\* broker 2 keeps A from epoch 2 on; broker 1 keeps A until epoch 4; in epoch 3 a fetch
\* response from 3 to 1 is in flight.
EXTENDS kafka_replication_v3_5

Guide ==
    LET e == con_partition_metadata.leader_epoch IN
    /\ e - 1 = aux_ctrs.fence_broker_ctr
    /\ e = 2 => con_partition_metadata.leader = 3
    /\ e = 3 => con_partition_metadata.leader = 2
    /\ e = 4 => con_partition_metadata.leader = 3
    /\ e > 1 => inv_sent = Values
    /\ e = 1 => ~\E m \in messages : m.source = 3 \/ m.dest = 3
    /\ e > 1 => partition_data[2].log # <<>>
    /\ (e > 1 /\ e < 4) => partition_data[1].log # <<>>
    /\ e = 3 => \E m \in messages : m.type = FetchResponse /\ m.source = 3 /\ m.dest = 1
====
