----------------------------- MODULE Unbounded -----------------------------
(* A counter with no bound: its state space is infinite. *)
EXTENDS Naturals

VARIABLE x

Init == x = 0

Next == x' = x + 1

Bounded == x < 100
=============================================================================
