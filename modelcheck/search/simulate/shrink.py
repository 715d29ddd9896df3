"""Shrinking a violating behaviour found by random walks.

A trace is a path: the initial-state entry, then action-instance indices.
Two moves, repeated until neither helps (or the time budget runs out):

* **drop steps**: remove a run of steps and replay the rest from the start,
  skipping any step whose action is no longer enabled and stopping at the
  first state that is bad; halving the run length, as delta debugging does;
* **shortcuts**: from each state of the trace, a small breadth-first search
  (a few steps, a bounded number of states) for a bad state, or for a later
  state of the trace, reached in fewer steps than the trace takes;
* **the trace's own actions**: a breadth-first search from the initial
  state that may take only the action instances the walk took (in any
  order, any number of times), with the fast engine's batch kernel, for the
  shortest behaviour to a state breaking the invariant.

Every candidate is replayed with the model's own successor function, so the
result is a genuine behaviour, and it is kept only if it ends in a state
that is bad in the same way (the same invariant broken, or a deadlock) and
is strictly shorter. Shrinking therefore never lengthens a trace.
"""

from __future__ import annotations

import time
from typing import Callable

import numpy as np

from modelcheck.search.expansion import DEADLOCK
from modelcheck.language.packing import fingerprints

RADIUS = 2  # steps of each shortcut search
NEIGHBOURHOOD = 5000  # states each shortcut search may visit


def badness(model, invariant: str) -> Callable[[tuple], bool]:
    """The test a shrunk trace's last state must pass: it breaks
    ``invariant`` (or, for ``Deadlock``, has no successor)."""
    if invariant == DEADLOCK:
        return lambda state: not model.successors(state)
    holds = model.compiled.predicates[invariant]
    return lambda state: not holds(state)


def run_path(model, path: list[int], bad: Callable[[tuple], bool]) -> list[int] | None:
    """Replay ``path``, skipping steps that are not enabled, up to its first
    bad state: the path actually taken, or None if no state was bad."""
    state = model.init_states[-1 - path[0]]
    taken = [path[0]]
    if bad(state):
        return taken
    for index in path[1:]:
        nxt = next((t for i, t in model.successors(state) if i == index), None)
        if nxt is None:
            continue
        state = nxt
        taken.append(index)
        if bad(state):
            return taken
    return None


def states_of(model, path: list[int]) -> list[tuple]:
    state = model.init_states[-1 - path[0]]
    out = [state]
    for index in path[1:]:
        state = next(t for i, t in model.successors(state) if i == index)
        out.append(state)
    return out


def drop_steps(model, path: list[int], bad, deadline: float) -> list[int]:
    """The first move: remove runs of steps, longest runs first."""
    best = path
    size = max(1, (len(best) - 1) // 2)
    while size >= 1 and time.monotonic() < deadline:
        i = 1
        while i < len(best) and time.monotonic() < deadline:
            candidate = run_path(model, best[:i] + best[i + size:], bad)
            if candidate is not None and len(candidate) < len(best):
                best = candidate
            else:
                i += size
        size //= 2
    return best


def shortcut(model, path: list[int], bad, deadline: float) -> list[int]:
    """The second move: a shorter way to a bad state, or to a later state of
    the trace, from some state of the trace."""
    states = states_of(model, path)
    position = {s: k for k, s in enumerate(states)}  # the last position of each state
    for i, origin in enumerate(states[:-1]):
        if time.monotonic() > deadline:
            break
        frontier, parent = [origin], {origin: None}
        for distance in range(1, RADIUS + 1):
            if len(path) - 1 <= i + distance:
                break
            nxt = []
            for state in frontier:
                for index, succ in model.successors(state):
                    if succ in parent:
                        continue
                    parent[succ] = (state, index)
                    j = position.get(succ)
                    if bad(succ) or (j is not None and j > i + distance):
                        detour = _steps_to(parent, succ)
                        rest = [] if bad(succ) else path[j + 1:]
                        candidate = run_path(model, path[:i + 1] + detour + rest, bad)
                        if candidate is not None and len(candidate) < len(path):
                            return candidate
                    nxt.append(succ)
                if len(parent) > NEIGHBOURHOOD:
                    break
            frontier = nxt
    return path


def _steps_to(parent: dict, state) -> list[int]:
    steps = []
    while parent[state] is not None:
        state, index = parent[state]
        steps.append(index)
    steps.reverse()
    return steps


class BatchTools:
    """The fast engine's kernels for one model and invariant, built once per shrink."""

    def __init__(self, model, invariant: str):
        from modelcheck.backends.numpy_codegen import compile_numpy
        from modelcheck.search.expansion import Expander
        self.expander = Expander(model, False)
        self.predicate = compile_numpy(model, [invariant]).predicates


def own_actions_search(model, path: list[int], invariant: str, deadline: float, alphabet: set[int],
                       tools: BatchTools, max_states: int = 2_000_000) -> list[int] | None:
    """The third move: the shortest behaviour to a state breaking
    ``invariant`` that takes only the action instances in ``alphabet``, if it
    is shorter than ``path``; None otherwise (or past the deadline)."""
    from modelcheck.search.simulate.walks import SeenStates

    expander, predicate = tools.expander, tools.predicate
    packing = expander.packing
    allowed = np.zeros(len(model.instances), bool)
    allowed[list(alphabet)] = True
    level = packing.pack_states([model.init_states[-1 - path[0]]])
    seen = SeenStates()
    seen.add(fingerprints(level))
    levels: list[tuple[np.ndarray, np.ndarray]] = []  # per depth: each state's parent and action
    for _ in range(len(path) - 2):  # a shorter behaviour takes at most len(path) - 2 steps
        successors, parents, actions, _ = expander.successors(level)
        if successors.shape[1] == 0 or time.monotonic() > deadline or len(seen) > max_states:
            return None
        keep = allowed[actions]
        successors, parents, actions = successors[:, keep], parents[keep], actions[keep]
        fresh = seen.add(fingerprints(successors))
        successors, parents, actions = successors[:, fresh], parents[fresh], actions[fresh]
        levels.append((parents, actions))
        holds = predicate(packing.unpack(successors))[invariant]
        if not holds.all():
            k, steps = int(np.argmin(holds)), []
            for parents, actions in reversed(levels):
                steps.append(int(actions[k]))
                k = int(parents[k])
            return [path[0]] + steps[::-1]
        level = successors
    return None


def shrink(model, path: list[int], invariant: str, budget: float = 30.0) -> list[int]:
    """A behaviour no longer than ``path`` whose last state is bad in the
    same way, found within ``budget`` seconds."""
    bad = badness(model, invariant)
    deadline = time.monotonic() + budget
    best = run_path(model, path, bad)
    if best is None:  # cannot happen for a path the walks found; keep what we were given
        return path
    tools = BatchTools(model, invariant) if invariant != DEADLOCK else None
    while time.monotonic() < deadline:
        shorter = shortcut(model, drop_steps(model, best, bad, deadline), bad, deadline)
        if tools is not None:  # (a deadlock among some actions is not one among all)
            found = own_actions_search(model, shorter, invariant, deadline, set(path[1:]) | set(shorter[1:]), tools)
            if found is not None and run_path(model, found, bad) == found:
                shorter = found
        if len(shorter) >= len(best):
            break
        best = shorter
    return best
