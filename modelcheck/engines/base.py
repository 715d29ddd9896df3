"""What every engine takes and returns.

An engine is an object with a ``name`` and ``check(model, options) ->
CheckResult``. It must report the distinct-state count, depth and shortest
violation length that the breadth-first engine reports on the same model; a
field it cannot compute is None (z3's bounded model checking has no
distinct-state count, for example).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

from modelcheck.limits import Limits
from modelcheck.progress import Progress, Silent

DEADLOCK = "Deadlock"


@dataclass(frozen=True)
class CheckOptions:
    """What to check and how far. ``engine_options`` carries settings only one
    engine understands (a Spark master URL, a worker count...)."""

    invariants: tuple[str, ...]
    max_depth: int | None = None
    check_deadlock: bool = False
    progress: Progress = field(default_factory=Silent)
    engine_options: Mapping[str, Any] = field(default_factory=dict)
    limits: Limits = field(default_factory=Limits)
    coverage: Any = None  # a modelcheck.coverage.Coverage to report to, for engines that collect it
    # keep one state per orbit of the spec's symmetric constants (modelcheck/canonical.py)
    symmetry: bool = False


@dataclass
class Violation:
    """A broken invariant (or ``Deadlock``) with the shortest behaviour that
    reaches it: the states and, for each step after the first, the index of
    the action instance taken."""

    invariant: str
    states: list[tuple]
    actions: list[int | None]
    # No other state of the violating state's level was found before it (the
    # search had reached only the level before): reports that drop the last
    # state (a step TLC cannot evaluate, modelcheck/evaluation.py) need it.
    first_in_level: bool | None = None

    @property
    def length(self) -> int:
        return len(self.states)


@dataclass
class CheckResult:
    engine: str
    result: str  # "ok", "violation" or "bounded-ok"
    distinct_states: int | None
    depth: int | None
    seconds: float
    violation: Violation | None = None
    states_generated: int | None = None
    sometimes: dict[str, int | None] = field(default_factory=dict)  # name -> depth first seen
    notes: list[str] = field(default_factory=list)
    stopped: str | None = None  # why an incomplete search stopped: a limits.* reason
