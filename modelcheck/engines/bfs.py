"""The reference explicit-state engine: breadth-first, level by level.

Because a level is finished before the next begins and invariants are checked
as each new state is found, the first violation found lies at the smallest
possible depth, and its trace (rebuilt from parent pointers) is a shortest
one. Depth is counted as TLC counts it: the initial states are level 1.

The visited set keeps only fingerprints, each mapped to a dense state number;
parent numbers and action indices sit in flat arrays beside it. A trace is
rebuilt by replaying the recorded actions from the initial state, checking
each fingerprint on the way, as TLC does.
"""

from __future__ import annotations

import time
from array import array

from modelcheck.engines.base import DEADLOCK, CheckOptions, CheckResult, Violation
from modelcheck.fingerprint import fingerprinter


class VisitedStore:
    """Fingerprint -> state number, with each state's parent and action."""

    def __init__(self):
        self.number: dict[int, int] = {}
        self.parent = array("q")
        self.action = array("l")  # action instance index, or -1 - k for initial state k

    def __len__(self) -> int:
        return len(self.parent)

    def add(self, fp: int, parent: int, action: int) -> int | None:
        """The new state's number, or None if the fingerprint was seen before."""
        number = self.number
        if fp in number:
            return None
        n = len(self.parent)
        number[fp] = n
        self.parent.append(parent)
        self.action.append(action)
        return n

    def path_to(self, n: int) -> list[int]:
        """Action entries from an initial state to state ``n``, oldest first."""
        out = []
        while n >= 0:
            out.append(self.action[n])
            n = self.parent[n]
        out.reverse()
        return out


def rebuild_trace(model, path: list[int], fingerprint=None) -> tuple[list[tuple], list[int | None]]:
    """Replay a recorded path (initial-state entry, then action indices) into
    concrete states."""
    first = path[0]
    state = model.init_states[-1 - first]
    states, actions = [state], [None]
    for index in path[1:]:
        matches = [t for i, t in model.successors(state) if i == index]
        if not matches:
            raise RuntimeError(f"trace replay failed: {model.instances[index].label()} is not enabled")
        state = matches[0]
        states.append(state)
        actions.append(index)
    return states, actions


class BfsChecker:
    name = "bfs"

    def check(self, model, options: CheckOptions) -> CheckResult:
        started = time.perf_counter()
        progress = options.progress
        compiled = model.compiled
        successors = compiled.successors
        violated_by = compiled.first_violation(list(options.invariants))
        fingerprint = fingerprinter(model.schema)
        pending_sometimes = {name: compiled.predicates[name] for name in model.sometimes}
        sometimes_seen: dict[str, int | None] = {name: None for name in model.sometimes}
        visited = VisitedStore()
        generated = 0
        rebuild, init_states = rebuild_trace, model.init_states
        if options.symmetry:  # every state stands for its orbit from here on
            from modelcheck.canonical import symmetric_search
            successors, rebuild, init_states = symmetric_search(model, successors)

        def finish(result: str, depth: int, violation: Violation | None = None,
                   stopped: str | None = None) -> CheckResult:
            progress.clear()
            return CheckResult(self.name, result, len(visited), depth, time.perf_counter() - started,
                               violation, generated, sometimes_seen, stopped=stopped)

        level_first = 0  # the number of the first state of the level being found

        def violation_at(number: int, invariant: str) -> Violation:
            states, actions = rebuild(model, visited.path_to(number))
            return Violation(invariant, states, actions, first_in_level=number == level_first)

        def note_sometimes(state: tuple, depth: int) -> None:
            for name, pred in list(pending_sometimes.items()):
                if pred(state):
                    sometimes_seen[name] = depth
                    del pending_sometimes[name]

        frontier: list[tuple[int, tuple]] = []
        for k, state in enumerate(init_states):
            generated += 1
            number = visited.add(fingerprint(state), -1, -1 - k)
            if number is None:
                continue
            bad = violated_by(state)
            if bad:
                return finish("violation", 1, violation_at(number, bad))
            note_sometimes(state, 1)
            frontier.append((number, state))

        limits = options.limits
        expanded = 0
        depth = 1
        while frontier:
            if options.max_depth is not None and depth >= options.max_depth:
                more = any(fingerprint(t) not in visited.number
                           for _, s in frontier for _, t in successors(s))
                return finish("bounded-ok" if more else "ok", depth)
            reason = limits.reached(len(visited))
            if reason:
                return finish("bounded-ok", depth, stopped=reason)
            next_frontier: list[tuple[int, tuple]] = []
            add = visited.add
            level_first = len(visited)
            for parent, state in frontier:
                succ = successors(state)
                if not succ and options.check_deadlock:
                    return finish("violation", depth, violation_at(parent, DEADLOCK))
                generated += len(succ)
                for index, t in succ:
                    number = add(fingerprint(t), parent, index)
                    if number is None:
                        continue
                    bad = violated_by(t)
                    if bad:
                        return finish("violation", depth + 1, violation_at(number, bad))
                    if pending_sometimes:
                        note_sometimes(t, depth + 1)
                    next_frontier.append((number, t))
                progress.search(depth, len(visited), len(next_frontier))
                expanded += 1
                if expanded & 0x3FF == 0:
                    reason = limits.reached()
                    if reason:
                        return finish("bounded-ok", depth + 1 if next_frontier else depth, stopped=reason)
            frontier = next_frontier
            if frontier:
                depth += 1
        return finish("ok", depth)
