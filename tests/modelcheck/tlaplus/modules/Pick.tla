------------------------------ MODULE Pick ------------------------------
(* Counters that start anywhere in 0..1, grow to Max and reset. Several
   initial states, a constant given by substitution, an action constraint
   and a VIEW that leaves out an ever-growing step count. *)
EXTENDS Naturals, FiniteSets

CONSTANTS Node, Max

VARIABLES x, seen, steps

vars == <<x, seen, steps>>

Init == /\ x \in [Node -> 0..1]
        /\ seen \in SUBSET Node
        /\ steps = 0

Bump(n) == /\ x[n] < Max
           /\ x' = [x EXCEPT ![n] = @ + 1]
           /\ seen' = seen \cup {n}
           /\ steps' = steps + 1

Reset(n) == /\ x[n] = Max
            /\ n \in seen
            /\ x' = [x EXCEPT ![n] = 0]
            /\ seen' = seen \ {n}
            /\ steps' = steps + 1

Next == \E n \in Node : Bump(n) \/ Reset(n)

Small == \A n \in Node : x[n] <= Max

NotAllFull == ~(\A n \in Node : x[n] = Max)

\* no step resets a counter while another is full
OneFullAtATime == \A n \in Node : x'[n] = 0 /\ x[n] = Max => \A m \in Node \ {n} : x[m] < Max

Safety == /\ Small
          /\ seen \subseteq Node

\* the second conjunct of Safety, by position
SeenWithinNode == Safety!2

B == INSTANCE Bounds WITH Limit <- Max, members <- seen

SeenBounded == B!Within

MCMax == 3

View == <<x, seen>>
=============================================================================
