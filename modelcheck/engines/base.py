"""What every engine takes and returns.

An engine is an object with a ``name`` and ``check(model, options) ->
CheckResult``. It must report the distinct-state count, depth and shortest
violation length that the breadth-first engine reports on the same model; a
field it cannot compute is None (z3's bounded model checking has no
distinct-state count, for example). What it declares it can do is in the
registry (``modelcheck/engines/__init__.py``); each capability reaches it
here, as a hook in ``CheckOptions`` (a coverage collector, a state-graph
request), and it must honour the ``Limits`` and stop request it is given.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

from modelcheck.search.expansion import DEADLOCK
from modelcheck.runtime.limits import Limits
from modelcheck.runtime.progress import Progress, Silent

__all__ = ["DEADLOCK", "NO_GRAPH", "CheckOptions", "CheckResult", "NoGraph", "Violation"]


@dataclass(frozen=True)
class CheckOptions:
    """What to check and how far. ``engine_options`` carries the settings
    only one engine understands (a Spark master URL, a worker count...): its
    typed settings (see the registry), or a mapping of the same fields."""

    invariants: tuple[str, ...]
    max_depth: int | None = None
    check_deadlock: bool = False
    progress: Progress = field(default_factory=Silent)
    engine_options: Mapping[str, Any] = field(default_factory=dict)
    limits: Limits = field(default_factory=Limits)
    coverage: Any = None  # a modelcheck.capabilities.coverage.Coverage to report to, for engines that collect it
    # keep one state per orbit of the spec's symmetric constants (modelcheck/search/canonical.py)
    symmetry: bool = False
    # a modelcheck.capabilities.liveness.record.GraphRequest, for engines that record the state graph
    graph: Any = None


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
    # state (a step TLC cannot evaluate, modelcheck/capabilities/evaluation.py) need it.
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
    graph: Any = None  # the recorder the engine fed, when CheckOptions.graph asked for one
    # a search stopped part way through a level: ``depth`` is the last level
    # found whole, and ``distinct_states`` counts some states of the next too
    partial_level: bool = False
    saved: str | None = None  # where a stopped search was saved, to be continued with --resume
    resumed_with: int = 0  # the states a resumed search had from its checkpoint: not found in ``seconds``
    resume_seconds: float = 0.0  # of ``seconds``, those spent reading the checkpoint back, before the search went on
    # Making the engine's kernels before the search (generating, compiling or
    # loading them): not in ``seconds``, which is the search's own time.
    kernel_seconds: float = 0.0
    # When a C compiler built the kernel in this run: how long it took and
    # whether the search waited for it ("before the search") or not ("beside the search").
    kernel_build: str | None = None
    # the bits of the fingerprints states were told apart by (None: no visited set of fingerprints)
    fingerprint_bits: int | None = None
    # each level's figures, where the engine measures them (Spark: counts, and where its tasks' time went)
    levels: list[dict] = field(default_factory=list)


class NoGraph:
    """The state-graph hooks of an engine asked for no graph: they do nothing
    (TLC's no-op liveness checker), so the search loop calls them unconditionally."""

    records_steps = False

    def initial(self, *args) -> None:
        pass

    def expanded(self, *args) -> None:
        pass

    def level(self, *args) -> None:
        pass


NO_GRAPH = NoGraph()
