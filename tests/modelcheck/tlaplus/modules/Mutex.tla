------------------------------ MODULE Mutex ------------------------------
(* Processes take turns at a critical section; whoever leaves it hands the
   turn to any process. Fairness, and temporal properties of each form
   modelcheck checks. *)
EXTENDS Naturals

CONSTANT Proc

VARIABLES pc, turn

vars == <<pc, turn>>

Init == /\ pc = [p \in Proc |-> "idle"]
        /\ turn \in Proc

Try(p) == /\ pc[p] = "idle"
          /\ pc' = [pc EXCEPT ![p] = "wait"]
          /\ UNCHANGED turn

Enter(p) == /\ pc[p] = "wait"
            /\ turn = p
            /\ \A q \in Proc : pc[q] # "crit"
            /\ pc' = [pc EXCEPT ![p] = "crit"]
            /\ UNCHANGED turn

Exit(p) == /\ pc[p] = "crit"
           /\ pc' = [pc EXCEPT ![p] = "idle"]
           /\ turn' \in Proc

Next == \E p \in Proc : Try(p) \/ Enter(p) \/ Exit(p)

Spec == Init /\ [][Next]_vars

FairSpec == Spec /\ WF_vars(Next)

StrongSpec == FairSpec /\ SF_vars(\E p \in Proc : Enter(p))

MutualExclusion == \A p, q \in Proc : pc[p] = "crit" /\ pc[q] = "crit" => p = q

SomeoneEnters == <>(\E p \in Proc : pc[p] = "crit")

EntersAgain == []<>(\E p \in Proc : pc[p] = "crit")

Progress == \A p \in Proc : pc[p] = "wait" ~> pc[p] = "crit"

TurnSettles == <>[](\A p \in Proc : pc[p] = "idle")

TurnStops == <>[][turn' = turn]_vars

WaitingServed == ([]<>(\E p \in Proc : pc[p] = "wait")) => <>(\E p \in Proc : pc[p] = "crit")

WaitingServedOften == ([]<>(\E p \in Proc : pc[p] = "wait")) => []<>(\E p \in Proc : pc[p] = "crit")

FirstTurnServed == \A p \in Proc : turn = p => <>(pc[p] = "crit")
=============================================================================
