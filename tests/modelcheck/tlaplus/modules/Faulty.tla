------------------------------- MODULE Faulty -------------------------------
(* A step TLC cannot evaluate: after three appends, the log is read one past
   its end. modelcheck stops there as TLC does. *)
EXTENDS Naturals, Sequences

VARIABLES log, n

Init == log = <<>> /\ n = 0

Next ==
    \/ /\ n < 3
       /\ log' = Append(log, n)
       /\ n' = n + 1
    \/ /\ n = 3
       /\ log' = log
       /\ n' = log[n + 1]
=============================================================================
