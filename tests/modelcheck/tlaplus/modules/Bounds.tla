------------------------------ MODULE Bounds ------------------------------
(* A bound on a value, instantiated by Pick. *)
EXTENDS Naturals, FiniteSets
CONSTANT Limit
VARIABLE members
Within == Cardinality(members) <= Limit
=============================================================================
