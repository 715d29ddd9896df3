"""A breadth-first search over explicit TLA+ states with the reference evaluator.

This is not an engine users run: it is the oracle tests compare the
compiled model with, and how the compiler learns the shapes of values
(``sample``). States are dicts of TLA+ values; a state is identified by the
tuple of its values in the order of the spec's variables.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field
from typing import Any, Callable

from modelcheck.tlaplus.actions import Stepper
from modelcheck.tlaplus.syntax import EvalError, Node


def freeze(state: dict, variables: list[str]) -> tuple:
    return tuple(state[v] for v in variables)


@dataclass
class Exploration:
    """What a search found: every state (in the order found), its depth, and
    whether it stopped before the end."""

    states: list[dict] = field(default_factory=list)
    depth: int = 0
    complete: bool = True
    # parent index of each state (None for initial states), for traces
    parents: list[int | None] = field(default_factory=list)
    error: Exception | None = None  # what TLC could not evaluate, where the search stopped


def bfs(stepper: Stepper, init: Node, next_: Node, max_states: int | None = None, seconds: float | None = None,
        keep: Callable[[dict], bool] | None = None, view: Callable[[dict], Any] | None = None) -> Exploration:
    """Breadth-first search from Init, in TLC's order. ``keep`` is the state
    constraint (states failing it are neither counted nor expanded); ``view``
    maps a state to what identifies it (TLC's VIEW)."""
    variables = stepper.variables
    ident = view or (lambda s: freeze(s, variables))
    out = Exploration()
    seen: dict = {}
    deadline = time.monotonic() + seconds if seconds is not None else None
    frontier: list[int] = []
    for s in stepper.init_states(init):
        if keep is not None and not keep(s):
            continue
        k = ident(s)
        if k not in seen:
            seen[k] = len(out.states)
            frontier.append(len(out.states))
            out.states.append(s)
            out.parents.append(None)
    depth = 1 if frontier else 0
    while frontier:
        following: list[int] = []
        for i in frontier:
            try:
                successors = stepper.next_states(next_, out.states[i])
            except EvalError as e:  # TLC stops here too
                out.error, out.complete, out.depth = e, False, depth
                return out
            for t in successors:
                if keep is not None and not keep(t):
                    continue
                k = ident(t)
                if k in seen:
                    continue
                seen[k] = len(out.states)
                following.append(len(out.states))
                out.states.append(t)
                out.parents.append(i)
                if (max_states is not None and len(out.states) >= max_states) or \
                        (deadline is not None and time.monotonic() > deadline):
                    out.depth = depth + 1
                    out.complete = False
                    return out
        if following:
            depth += 1
        frontier = following
    out.depth = depth
    return out


def walks(stepper: Stepper, init: Node, next_: Node, count: int, length: int, seed: int = 0,
          seconds: float | None = None, keep: Callable[[dict], bool] | None = None) -> list[dict]:
    """The states of ``count`` random behaviours of up to ``length`` steps
    (each step a successor picked at random): deep states a short
    breadth-first search does not reach."""
    rng = random.Random(seed)
    inits = [s for s in stepper.init_states(init) if keep is None or keep(s)]
    out: list[dict] = []
    deadline = time.monotonic() + seconds if seconds is not None else None
    for _ in range(count):
        if not inits:
            break
        s = rng.choice(inits)
        for _ in range(length):
            try:
                succ = [t for t in stepper.next_states(next_, s) if keep is None or keep(t)]
            except EvalError:
                break
            if not succ:
                break
            s = rng.choice(succ)
            out.append(s)
            if deadline is not None and time.monotonic() > deadline:
                return out
    return out
