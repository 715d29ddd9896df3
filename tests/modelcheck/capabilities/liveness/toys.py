"""Hand-made specs of three to five states for the liveness tests.

Each is a single counter ``x`` moved by a few named actions; the fairness
and the property are chosen so that WF, SF or no fairness changes the verdict.
"""

from __future__ import annotations

from modelcheck.language.codec import IntSlot, ReplicaSlot, StateCodec
from modelcheck.language.constants import REPLICAS, ConstantDecl
from modelcheck.language.schema import integer
from modelcheck.model.spec import Domain, SpecDefinition, action
from modelcheck.language.temporal import (SF, WF, Specification, always_eventually, eventually, eventually_always_step, forall,
                                          temporal)


def move(name: str, edges: dict[int, int]):
    """An action that moves x along the given edges (from -> to)."""
    def fn(s, n):
        from modelcheck.language.expr import any_of, ite
        n.require(any_of(s.x == a for a in edges))
        target = 0
        for a, b in edges.items():
            target = ite(s.x == a, b, target)
        n.x = target
    fn.__name__ = name
    fn.__doc__ = f"x moves along {edges}"
    return action()(fn)


def toy(name: str, top: int, actions, specifications, properties=()) -> SpecDefinition:
    def init(s, n):
        n.x = 0

    return SpecDefinition(
        name=name, module=name, summary="a toy", constants=(), fields=lambda c: [integer("x", 0, top)],
        init=init, next=tuple(actions), invariants=(), default_invariants=(),
        variables=lambda c, schema: StateCodec(schema, {"x": IntSlot(0, 0, top)}),
        specifications=tuple(specifications), properties=tuple(properties))


def reaches(value: int):
    @temporal
    def Reaches(s):
        """<>(x = value)"""
        return eventually(s.x == value)
    return Reaches


@temporal
def Settles(s, t):
    """<>[][x' = x]_x: from some point on x never changes."""
    return eventually_always_step(t.x == s.x)


# 0 <-> 1 by Toggle, 0 -> 2 by Go: Go is enabled only at 0.
TOGGLE = move("Toggle", {0: 1, 1: 0})
GO = move("Go", {0: 2})


def toggle_or_go():
    specs = [Specification("Spec", ()),
             Specification("WeakGo", (WF(TOGGLE), WF(GO))),
             Specification("StrongGo", (WF(TOGGLE), SF(GO)))]
    return toy("toggle-or-go", 2, [TOGGLE, GO], specs, [reaches(2), Settles])


# 0 -> 1 -> 2 -> 0 by Step, 1 -> 3 by Exit, and a side loop 0 -> 4 -> 0 by Side
# and Back on which Exit is never enabled.
STEP = move("Step", {0: 1, 1: 2, 2: 0})
EXIT = move("Exit", {1: 3})
SIDE = move("Side", {0: 4})
BACK = move("Back", {4: 0})


def ring_with_exit(side_loop: bool):
    actions = [STEP, EXIT] + ([SIDE, BACK] if side_loop else [])
    specs = [Specification("Spec", (WF(STEP), SF(EXIT))),
             Specification("WeakExit", (WF(STEP), WF(EXIT))),
             Specification("NoFair", ())]
    return toy("ring" + ("-side" if side_loop else ""), 4, actions, specs, [reaches(3)])


# Next only has Jump (0 -> 1 and 0 -> 2); fairness names Half (0 -> 1), which is not
# part of Next: a Jump to 1 satisfies it, a Jump to 2 does not.
JUMP = move("Jump", {0: 1})
JUMP_FAR = move("JumpFar", {0: 2})
HALF = move("Half", {0: 1})


def fairness_outside_next():
    specs = [Specification("Spec", (SF(HALF),)), Specification("NoFair", ())]
    return toy("outside", 2, [JUMP, JUMP_FAR], specs, [reaches(1)])


# A token among interchangeable replicas: one grabs it, then it is passed from
# holder to any other replica. Under every renaming the states where someone
# holds it are one orbit, and passing it is a step from that orbit to itself.
TOKEN_REPLICAS = ConstantDecl("Replicas", REPLICAS, ("r1", "r2", "r3"), minimum=1, maximum=5)
TOKEN_REPLICA = Domain("Replicas", lambda c: range(len(c.Replicas)), lambda c, i: c.Replicas[i])


@action(replica=TOKEN_REPLICA)
def Grab(s, n, replica):
    """Nobody holds the token: the replica takes it."""
    n.require(s.holder == -1)
    n.holder = replica


@action(where=lambda holder, to: holder != to, holder=TOKEN_REPLICA, to=TOKEN_REPLICA)
def Pass(s, n, holder, to):
    """The holder hands the token to another replica."""
    n.require(s.holder == holder)
    n.holder = to


@temporal
def TokenSettles(s, t):
    """<>[][holder' = holder]: from some point on the token stays where it is."""
    return eventually_always_step(t.holder == s.holder)


@temporal
def EveryoneHolds(s):
    """\\A r : []<>(holder = r): every replica holds the token infinitely often."""
    return forall(s, TOKEN_REPLICA, lambda r: always_eventually(s.holder == r))


@temporal
def SomeoneHolds(s):
    """<>(holder # NONE)"""
    return eventually(s.holder != -1)


def token_ring() -> SpecDefinition:
    def init(s, n):
        n.holder = -1

    return SpecDefinition(
        name="token", module="token", summary="a token passed among replicas", constants=(TOKEN_REPLICAS,),
        fields=lambda c: [integer("holder", -1, len(c.Replicas) - 1)], init=init, next=(Grab, Pass),
        invariants=(), default_invariants=(),
        variables=lambda c, schema: StateCodec(schema, {"holder": ReplicaSlot(0, c.Replicas)}),
        specifications=(Specification("Spec", (WF(Grab), WF(Pass))), Specification("NoFairSpec", ())),
        properties=(TokenSettles, EveryoneHolds, SomeoneHolds), symmetry=("Replicas",))
