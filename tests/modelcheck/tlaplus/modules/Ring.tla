-------------------------------- MODULE Ring --------------------------------
(* A token passed round a ring of N places: the invariant Early fails once
   the token has gone round twice. *)
EXTENDS Naturals

CONSTANT N

VARIABLES token, count

Init == token = 0 /\ count = 0

Pass == /\ count < 10
        /\ token' = (token + 1) % N
        /\ count' = count + 1

Next == Pass

Early == count < 2 * N \/ token # 0
=============================================================================
