---------------------------- MODULE Unsupported ----------------------------
(* An unbounded quantifier in an action: outside what modelcheck compiles. *)
EXTENDS Naturals

VARIABLE x

Init == x = 0

Next == \E v : x' = v
=============================================================================
