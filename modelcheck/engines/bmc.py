"""Bounded model checking with z3: ``modelcheck run SPEC --engine z3``.

One incremental solver holds Init(s_0) and the transition relation of every
step unrolled so far. At depth d (d states, the initial one included, as the
breadth-first engine counts) it asks, under an assumption literal, for s_{d-1}
to break one of the chosen invariants; if none can, it adds T(s_{d-1}, s_d)
and goes one deeper. The first depth with an answer is the length of a
shortest counterexample, the same length the breadth-first engine reports.

Beyond the plain unrolling, three things keep the solver from re-exploring
what it has already settled (each can be switched off in ``BmcSettings``):

* once depth d holds, the invariants are asserted on s_{d-1}: every state
  within d states of Init satisfies them, so this adds no constraint a
  shortest counterexample breaks, and the solver need not rediscover it;
* the partial-order and symmetry constraints of ``z3_reductions``.

A counterexample is decoded into state tuples and replayed through the
explicit successor function before it is reported, so a translation mistake
shows up as an internal error rather than as a false alarm.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable

import z3

from modelcheck.backends.z3_backend import ONE_HOT, SELECTORS, Frames
from modelcheck.backends.z3_reductions import (CommutingSteps, LeastUnderRenaming, commuting_pairs,
                                               instance_permutations)
from modelcheck.engines.base import DEADLOCK, CheckOptions, CheckResult, Violation
from modelcheck.errors import InputError
from modelcheck.runtime.limits import INTERRUPTED, SearchInterrupted, StopRequest, interrupts_outside_python

# Used when --max-depth is not given. Bounded model checking never finishes on
# its own (these specs have cycles), so it needs a bound; 10 states take
# seconds on the default configurations. Deeper bugs need --max-depth (the
# kip320-first-try data loss takes 13 states), and the report says which
# bound was used.
DEFAULT_MAX_DEPTH = 10


@dataclass(frozen=True)
class BmcSettings:
    """How the unrolling is encoded; the defaults are the fastest measured."""

    selectors: str = ONE_HOT  # or "binary": one bit-vector action index per step
    partial_order_window: int = 2  # how far apart commuting steps are kept in index order; 0: not at all
    symmetry: bool = True  # least behaviour under renaming of the spec's symmetric replicas
    invariant_lemmas: bool = True  # invariants asserted on the depths already checked

    def __post_init__(self):
        if self.partial_order_window < 0:
            raise InputError("the partial-order window cannot be negative")
        if self.selectors not in SELECTORS:
            raise InputError(f"z3 selectors must be one of {', '.join(SELECTORS)}, not {self.selectors!r}")


def settings_from(options: CheckOptions) -> BmcSettings:
    settings = options.engine_options.get("z3", BmcSettings())
    if not isinstance(settings, BmcSettings):
        raise InputError("engine option 'z3' must be a BmcSettings")
    return settings


def new_solver() -> z3.Solver:
    """A bit-vector solver that bit-blasts to SAT and stays incremental
    under assumptions and push/pop. z3's own Ctrl-C handler is off: it
    would replace this process' handler while it solves
    (``interrupts_outside_python`` stops a solver instead)."""
    solver = z3.SolverFor("QF_BV")
    solver.set("ctrl_c", False)
    return solver


def check_sat(solver: z3.Solver, *assumptions, stop: StopRequest | None = None) -> bool:
    """True for sat, False for unsat; SearchInterrupted once ``stop`` is
    requested (z3 is interrupted by ``interrupts_outside_python``); anything
    else is an error."""
    if stop is not None and stop.requested:
        raise SearchInterrupted
    try:
        answer = solver.check(*assumptions)
    except z3.Z3Exception:
        if stop is not None and stop.requested:
            raise SearchInterrupted from None
        raise
    if answer == z3.sat:
        return True
    if answer == z3.unsat:
        return False
    reason = solver.reason_unknown()
    if stop is not None and stop.requested:
        raise SearchInterrupted
    raise RuntimeError(f"z3 gave up: {reason}")


def solver_interrupts(stop: StopRequest):
    """Ctrl-C during solving: recorded in ``stop``, and the solver call under way cancelled."""
    return interrupts_outside_python(stop, z3.main_ctx().interrupt)


class Unrolling:
    """Init and the first ``depth - 1`` steps of Next in one incremental solver.

    ``find(condition)`` asks for a behaviour of exactly ``depth`` states whose
    last state satisfies ``condition``, which it takes as a function of the
    time step. ``extend()`` adds one more step.
    """

    def __init__(self, model, settings: BmcSettings = BmcSettings(), stop: StopRequest | None = None):
        self.model = model
        self.settings = settings
        self.stop = stop
        self.frames = Frames(model, settings.selectors)
        self.solver = new_solver()
        self.commuting = None
        if settings.partial_order_window > 0:
            self.commuting = CommutingSteps(self.frames, commuting_pairs(model), settings.partial_order_window)
        renamings = instance_permutations(model) if settings.symmetry else []
        self.symmetry = LeastUnderRenaming(self.frames, renamings) if renamings else None
        self.depth = 1
        self._queries = 0
        self.solver.add(self.frames.init(0), self.frames.in_range(0))

    @property
    def last(self) -> int:
        """The time step of the last state, s_{depth-1}."""
        return self.depth - 1

    def extend(self) -> None:
        f, t = self.frames, self.last
        self.solver.add(f.trans(t), f.in_range(t + 1))
        if self.commuting and t >= 1:
            self.solver.add(self.commuting.ending_at(t))
        if self.symmetry:
            self.solver.add(self.symmetry.up_to(t))
        self.depth += 1

    def assert_at_last(self, condition: Callable[[int], z3.BoolRef]) -> None:
        """Add a fact about the last state for good (a lemma)."""
        self.solver.add(condition(self.last))

    def find(self, condition: Callable[[int], z3.BoolRef]) -> z3.ModelRef | None:
        """A z3 model of a behaviour whose last state satisfies ``condition``, or None."""
        self._queries += 1
        literal = z3.Bool(f"query!{self._queries}")
        self.solver.add(z3.Implies(literal, condition(self.last)))
        return self.solver.model() if check_sat(self.solver, literal, stop=self.stop) else None

    def behaviour(self, z3_model: z3.ModelRef) -> tuple[list[tuple], list[int | None]]:
        return self.frames.decode_path(z3_model, 0, self.last)


def confirm_behaviour(model, states: list[tuple], actions: list[int | None], from_init: bool = True) -> None:
    """Replay a decoded behaviour through the explicit successor function."""
    if from_init and states[0] not in model.init_states:
        raise RuntimeError("internal: the z3 behaviour does not start in an initial state")
    for k, (before, index, after) in enumerate(zip(states, actions[1:], states[1:]), start=2):
        if (index, after) not in model.successors(before):
            raise RuntimeError(f"internal: step {k} of the z3 behaviour ({model.instances[index].label()}) "
                               f"is not a step of the explicit successor function")


def first_broken(model, names, state: tuple) -> str | None:
    predicates = model.compiled.predicates
    return next((n for n in names if not predicates[n](state)), None)


@dataclass
class DepthReport:
    depth: int
    seconds: float  # solver time spent at this depth
    found: str | None  # the invariant (or Deadlock) broken at this depth, if any


@dataclass
class BmcOutcome:
    result: str  # "violation" or "bounded-ok"
    depth: int
    violation: Violation | None
    sometimes: dict[str, int | None]
    depths: list[DepthReport] = field(default_factory=list)
    stopped: str | None = None  # INTERRUPTED when Ctrl-C ended it before max_depth


def run_bmc(model, invariants, max_depth: int, settings: BmcSettings = BmcSettings(),
            check_deadlock: bool = False, on_depth: Callable[[DepthReport], None] | None = None,
            stop: StopRequest | None = None) -> BmcOutcome:
    """Search behaviours of 1..max_depth states for a broken invariant (or a
    deadlock), shortest first. Once ``stop`` is requested, the outcome is
    the depth fully checked so far."""
    sometimes: dict[str, int | None] = {name: None for name in model.sometimes}
    depths: list[DepthReport] = []
    try:
        return _unroll(model, list(invariants), max_depth, settings, check_deadlock, on_depth, stop, sometimes,
                       depths)
    except SearchInterrupted:
        done = depths[-1].depth if depths else 0
        return BmcOutcome("bounded-ok", done, None, sometimes, depths, stopped=INTERRUPTED)


def _unroll(model, invariants, max_depth, settings, check_deadlock, on_depth, stop, sometimes,
            depths) -> BmcOutcome:
    unrolling = Unrolling(model, settings, stop)
    f = unrolling.frames
    pending = list(model.sometimes)

    def report(depth: int, started: float, found: str | None) -> None:
        depths.append(DepthReport(depth, time.perf_counter() - started, found))
        if on_depth:
            on_depth(depths[-1])

    def violation(z3_model, name_of) -> Violation:
        states, actions = unrolling.behaviour(z3_model)
        confirm_behaviour(model, states, actions)
        return Violation(name_of(states[-1]), states, actions)

    for depth in range(1, max_depth + 1):
        if depth > 1:
            unrolling.extend()
        started = time.perf_counter()
        if invariants:
            found = unrolling.find(lambda t: z3.Not(f.holds(invariants, t)))
            if found is not None:
                v = violation(found, lambda s: first_broken(model, invariants, s))
                if v.invariant is None:
                    raise RuntimeError("internal: the z3 counterexample satisfies every invariant when replayed")
                report(depth, started, v.invariant)
                return BmcOutcome("violation", depth, v, sometimes, depths)
        if check_deadlock:
            found = unrolling.find(lambda t: z3.Not(f.enabled(t)))
            if found is not None:
                v = violation(found, lambda s: DEADLOCK)
                if model.successors(v.states[-1]):
                    raise RuntimeError("internal: the z3 deadlock state has successors when replayed")
                report(depth, started, DEADLOCK)
                return BmcOutcome("violation", depth, v, sometimes, depths)
        for name in list(pending):
            if unrolling.find(lambda t: f.holds([name], t)) is not None:
                sometimes[name] = depth
                pending.remove(name)
        if settings.invariant_lemmas:
            if invariants:
                unrolling.assert_at_last(lambda t: f.holds(invariants, t))
            if check_deadlock:
                unrolling.assert_at_last(f.enabled)
        report(depth, started, None)
    return BmcOutcome("bounded-ok", max_depth, None, sometimes, depths)


class BmcChecker:
    """The ``z3`` engine: bounded model checking to ``--max-depth`` states."""

    name = "z3"

    def check(self, model, options: CheckOptions) -> CheckResult:
        started = time.perf_counter()
        progress = options.progress
        notes = []
        max_depth = options.max_depth
        if max_depth is None:
            max_depth = DEFAULT_MAX_DEPTH
            notes.append(f"the z3 engine checks a bounded number of states; without --max-depth it stops "
                         f"at depth {DEFAULT_MAX_DEPTH}")

        def on_depth(r: DepthReport) -> None:
            verdict = f"{r.found} violated" if r.found else "no violation"
            progress.note(f"depth {r.depth:>3}  {verdict:<24} solver {r.seconds:7.2f} s  "
                          f"total {time.perf_counter() - started:7.1f} s")

        stop = options.limits.stop
        with solver_interrupts(stop):
            outcome = run_bmc(model, options.invariants, max_depth, settings_from(options), options.check_deadlock,
                              on_depth, stop)
        progress.clear()
        if outcome.stopped:
            notes.append(f"interrupted: behaviours of up to {outcome.depth} states were fully examined")
        elif outcome.result == "bounded-ok":
            notes.append("bounded model checking: no distinct-state count; behaviours longer than "
                         f"{outcome.depth} states were not examined")
        return CheckResult(self.name, outcome.result, None, outcome.depth, time.perf_counter() - started,
                           outcome.violation, None, outcome.sometimes, notes, stopped=outcome.stopped)
