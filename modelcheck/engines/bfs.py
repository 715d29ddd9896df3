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

from modelcheck.engines.base import DEADLOCK, NO_GRAPH, CheckOptions, CheckResult, Violation
from modelcheck.language.fingerprint import fingerprinter


class VisitedStore:
    """Fingerprint -> state number, with each state's parent and action."""

    def __init__(self):
        self.number: dict[int, int] = {}
        self.parent = array("q")
        self.action = array("l")  # action instance index, or -1 - k for initial state k

    def __len__(self) -> int:
        return len(self.parent)

    def add(self, fp: int, parent: int, action: int) -> int:
        """The new state's number; for a fingerprint seen before, its number
        complemented (``~n``, negative)."""
        n = len(self.parent)
        known = self.number.setdefault(fp, n)
        if known != n:
            return ~known
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
        return _Search(model, options).run()


class _Search:
    """One run of the reference engine; its fields are the search state."""

    def __init__(self, model, options: CheckOptions):
        making = time.perf_counter()  # the Python kernel, before the search: not in the search's own time
        self.model, self.options = model, options
        compiled = model.compiled
        self.successors = compiled.successors
        self.violated_by = compiled.first_violation(list(options.invariants))
        self.started = time.perf_counter()
        self.kernel_seconds = self.started - making
        options.progress.restart()
        self.fingerprint = fingerprinter(model.schema)
        self.pending_sometimes = {name: compiled.predicates[name] for name in model.sometimes}
        self.sometimes_seen: dict[str, int | None] = {name: None for name in model.sometimes}
        self.visited = VisitedStore()
        self.generated = 0
        self.expanded = 0  # states expanded so far: limits are polled every 1,024
        self.level_first = 0  # the number of the first state of the level being found
        self.rebuild, self.init_states = rebuild_trace, model.init_states
        self.graph = options.graph.explicit(model) if options.graph is not None else NO_GRAPH
        if options.symmetry:  # every state stands for its orbit from here on
            from modelcheck.search.canonical import group_of, symmetric_search
            self.successors, self.rebuild, self.init_states = symmetric_search(model, self.successors,
                                                                               group_of(options.symmetry))

    def finish(self, result: str, depth: int, violation: Violation | None = None,
               stopped: str | None = None, found: int | None = None, partial: bool = False) -> CheckResult:
        """``found``: at a violation, the states found up to and including the
        violating one; ``partial``: stopped with level ``depth + 1`` begun."""
        self.options.progress.clear()
        return CheckResult(BfsChecker.name, result, len(self.visited) if found is None else found, depth,
                           time.perf_counter() - self.started, violation, self.generated, self.sometimes_seen,
                           stopped=stopped, graph=self.graph if self.options.graph is not None else None,
                           partial_level=partial, fingerprint_bits=64, kernel_seconds=self.kernel_seconds)

    def violation_at(self, number: int, invariant: str) -> Violation:
        states, actions = self.rebuild(self.model, self.visited.path_to(number))
        return Violation(invariant, states, actions, first_in_level=number == self.level_first)

    def note_sometimes(self, state: tuple, depth: int) -> None:
        for name, pred in list(self.pending_sometimes.items()):
            if pred(state):
                self.sometimes_seen[name] = depth
                del self.pending_sometimes[name]

    def start(self) -> list[tuple[int, tuple]] | CheckResult:
        """The first level, or the result if an initial state breaks an invariant."""
        frontier: list[tuple[int, tuple]] = []
        for k, state in enumerate(self.init_states):
            self.generated += 1
            number = self.visited.add(self.fingerprint(state), -1, -1 - k)
            if number < 0:
                continue
            self.graph.initial(number, state, -1 - k)
            bad = self.violated_by(state)
            if bad:
                return self.finish("violation", 1, self.violation_at(number, bad), found=number + 1)
            self.note_sometimes(state, 1)
            frontier.append((number, state))
        return frontier

    def run(self) -> CheckResult:
        frontier = self.start()
        if isinstance(frontier, CheckResult):
            return frontier
        options, limits = self.options, self.options.limits
        depth = 1
        while frontier:
            if options.max_depth is not None and depth >= options.max_depth:
                seen, fingerprint = self.visited.number, self.fingerprint
                more = any(fingerprint(t) not in seen for _, s in frontier for _, t in self.successors(s))
                return self.finish("bounded-ok" if more else "ok", depth)
            reason = limits.reached(len(self.visited))
            if reason:
                return self.finish("bounded-ok", depth, stopped=reason)
            frontier = self.expand_level(frontier, depth)
            if isinstance(frontier, CheckResult):
                return frontier
            if frontier:
                depth += 1
        return self.finish("ok", depth)

    def expand_level(self, frontier: list[tuple[int, tuple]], depth: int) -> list[tuple[int, tuple]] | CheckResult:
        """The next level, or the result if a state of it breaks an invariant
        (or a state of this one has no successor, with deadlock checking), or
        a limit or Ctrl-C stops the search part way."""
        successors, fingerprint, add = self.successors, self.fingerprint, self.visited.add
        violated_by, graph, limits = self.violated_by, self.graph, self.options.limits
        check_deadlock, progress = self.options.check_deadlock, self.options.progress
        next_frontier: list[tuple[int, tuple]] = []
        self.level_first = len(self.visited)
        for k, (parent, state) in enumerate(frontier):
            succ = successors(state)
            if not succ and check_deadlock:
                return self.finish("violation", depth, self.violation_at(parent, DEADLOCK))
            self.generated += len(succ)
            numbers = [add(fingerprint(t), parent, index) for index, t in succ]
            graph.expanded(parent, succ, numbers)
            for (index, t), number in zip(succ, numbers):
                if number < 0:
                    continue
                bad = violated_by(t)
                if bad:  # counted as if the successors after it were not yet found
                    return self.finish("violation", depth + 1, self.violation_at(number, bad), found=number + 1)
                if self.pending_sometimes:
                    self.note_sometimes(t, depth + 1)
                next_frontier.append((number, t))
            # the states found belong to the next level: the line names that depth once it has some
            progress.search(depth + 1 if next_frontier else depth, len(self.visited),
                            len(frontier) - k - 1 + len(next_frontier))
            self.expanded += 1
            if self.expanded & 0x3FF == 0:
                reason = limits.reached()
                if reason:
                    # level depth + 1 is begun, not found whole: depth is the last that is
                    return self.finish("bounded-ok", depth, stopped=reason, partial=bool(next_frontier))
        return next_frontier
