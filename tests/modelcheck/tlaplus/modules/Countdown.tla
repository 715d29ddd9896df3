------------------------------ MODULE Countdown ------------------------------
(* Two counters count down to zero and stop there: a deadlock, when the .cfg
   asks for deadlocks to be checked. *)
EXTENDS Naturals
CONSTANT Start
VARIABLES a, b
Init == a = Start /\ b \in 0..Start
Next == \/ a > 0 /\ a' = a - 1 /\ UNCHANGED b
        \/ b > 0 /\ b' = b - 1 /\ UNCHANGED a
=============================================================================
