"""Hand-made specs of three to five states for the liveness tests.

Each is a single counter ``x`` moved by a few named actions; the fairness
and the property are chosen so that WF, SF or no fairness changes the verdict.
"""

from __future__ import annotations

from modelcheck.codec import IntSlot, StateCodec
from modelcheck.schema import integer
from modelcheck.spec import SpecDefinition, action
from modelcheck.temporal import SF, WF, Specification, eventually, eventually_always_step, temporal


def move(name: str, edges: dict[int, int]):
    """An action that moves x along the given edges (from -> to)."""
    def fn(s, n):
        from modelcheck.expr import any_of, ite
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
