------------------------------- MODULE Relay -------------------------------
(* A relay between senders and receivers, written for modelcheck's tests of
   its TLA+ front-end: records with a type field in a network set, a
   sequence per receiver, functions over model values, EXCEPT, LET, CASE,
   IF between assignments, CHOOSE, set comprehensions and UNCHANGED. *)
EXTENDS Naturals, Sequences, FiniteSets

CONSTANTS Senders, Receivers, MaxSeq, Nil

VARIABLES network, inbox, sent, delivered

vars == <<network, inbox, sent, delivered>>

Msg(s, r, n) == [type |-> "data", from |-> s, to |-> r, seq |-> n]
Ack(r, s, n) == [type |-> "ack", from |-> r, to |-> s, seq |-> n]

Init ==
    /\ network = {}
    /\ inbox = [r \in Receivers |-> <<>>]
    /\ sent = [s \in Senders |-> 0]
    /\ delivered = [r \in Receivers |-> Nil]

Send(s, r) ==
    /\ sent[s] < MaxSeq
    /\ LET n == sent[s] + 1
       IN  /\ network' = network \union {Msg(s, r, n)}
           /\ sent' = [sent EXCEPT ![s] = n]
    /\ UNCHANGED <<inbox, delivered>>

Forward ==
    \E m \in network :
        /\ m.type = "data"
        /\ Len(inbox[m.to]) < 2
        /\ inbox' = [inbox EXCEPT ![m.to] = Append(@, m.seq)]
        /\ network' = (network \ {m}) \union {Ack(m.to, m.from, m.seq)}
        /\ UNCHANGED <<sent, delivered>>

Consume(r) ==
    /\ inbox[r] # <<>>
    /\ delivered' = [delivered EXCEPT ![r] =
                        CASE Head(inbox[r]) > 1 -> Head(inbox[r])
                          [] OTHER -> IF @ = Nil THEN 1 ELSE @]
    /\ inbox' = [inbox EXCEPT ![r] = Tail(@)]
    /\ UNCHANGED <<network, sent>>

DropAck ==
    \E m \in {x \in network : x.type = "ack"} :
        /\ network' = network \ {m}
        /\ UNCHANGED <<inbox, sent, delivered>>

Next ==
    \/ \E s \in Senders, r \in Receivers : Send(s, r)
    \/ Forward
    \/ \E r \in Receivers : Consume(r)
    \/ DropAck

AcksFor(s) == {m \in network : m.type = "ack" /\ m.to = s}

TypeOk ==
    /\ \A r \in Receivers : Len(inbox[r]) <= 2
    /\ \A s \in Senders : sent[s] \in 0..MaxSeq

AcksBounded == \A s \in Senders : Cardinality(AcksFor(s)) <= sent[s]

NoLateDelivery ==
    \A r \in Receivers : delivered[r] = Nil \/ delivered[r] <= MaxSeq

LowestPending == IF network = {} THEN 0
                 ELSE LET seqs == {m.seq : m \in network}
                      IN CHOOSE n \in seqs : \A k \in seqs : n <= k
=============================================================================
