------------------------------ MODULE Misfit ------------------------------
(* A record field inside a sequence that the first states show with one
   value only, and that a deep step writes with another. The write sits in
   an IF inside an IF: the inner one copies the log into consumed, the outer
   one decides whether the step copies at all. Before Depth ticks, the log's
   epoch flips between 1 and 2 but only an epoch-1 log is ever consumed, so
   a search that learns shapes from its first states sees consumed[1].epoch
   = 1 only; at Depth an epoch-2 log is consumed. Noise (a free variable
   with many values) keeps the first states far from Depth. *)
EXTENDS Naturals, Sequences
CONSTANTS Depth, Noise
VARIABLES t, noise, log, consumed

Init == /\ t = 0
        /\ noise = 0
        /\ log = <<[epoch |-> 1]>>
        /\ consumed = <<>>

Tick == /\ t < Depth
        /\ t = Depth - 1 => consumed = <<>>
        /\ t' = t + 1
        /\ UNCHANGED <<noise, log, consumed>>

Stir == /\ noise' \in 0..Noise
        /\ UNCHANGED <<t, log, consumed>>

Flip == /\ t < Depth
        /\ log' = [log EXCEPT ![1].epoch = 3 - @]
        /\ UNCHANGED <<t, noise, consumed>>

ConsumeEarly == /\ t < Depth
                /\ consumed = <<>>
                /\ log[1].epoch = 1
                /\ consumed' = log
                /\ UNCHANGED <<t, noise, log>>

ConsumeLate == /\ IF t = Depth
                  THEN IF consumed = <<>>
                       THEN consumed' = consumed \o log
                       ELSE consumed' = consumed
                  ELSE consumed' = consumed
               /\ UNCHANGED <<t, noise, log>>

Forget == /\ consumed # <<>>
          /\ consumed' = <<>>
          /\ UNCHANGED <<t, noise, log>>

Next == Tick \/ Stir \/ Flip \/ ConsumeEarly \/ ConsumeLate \/ Forget

(* What was consumed at Depth is the log as it is (the log no longer flips). *)
ConsumedIsLog == (t = Depth /\ consumed # <<>>) => consumed = log

(* The same, as a property: what is consumed at Depth is (at once) the log. *)
LateReadsLog == (t = Depth /\ consumed # <<>>) ~> (consumed = log)
=============================================================================
