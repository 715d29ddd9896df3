"""What every engine takes and returns."""

from __future__ import annotations

from dataclasses import dataclass, field

from modelcheck.progress import Progress, Silent

DEADLOCK = "Deadlock"


@dataclass(frozen=True)
class CheckOptions:
    invariants: tuple[str, ...]
    max_depth: int | None = None
    check_deadlock: bool = False
    progress: Progress = field(default_factory=Silent)


@dataclass
class Violation:
    """A broken invariant (or ``Deadlock``) with the shortest behaviour that
    reaches it: the states and, for each step after the first, the index of
    the action instance taken."""

    invariant: str
    states: list[tuple]
    actions: list[int | None]

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
