"""Proving invariants with z3 by k-induction: ``modelcheck prove``.

For the conjunction Inv of the chosen invariants and k = 1, 2, ..., N:

* **base case**: no behaviour of k states from Init breaks Inv. This is
  bounded model checking to depth k, so a failure is a real (and shortest)
  counterexample;
* **step**: any k consecutive distinct states that satisfy Inv are followed
  only by states that satisfy Inv. With k = 1 this is plain induction,
  Inv /\\ Next => Inv'.

If some step holds, Inv holds in every reachable state (the base cases up to
k cover the first k states of every behaviour, the step carries it further).
If the step still fails at N, the solver's witness is a counterexample to
induction: k + 1 states, the first k satisfying Inv, the last not. Its
states need not be reachable; lemmas (more invariants in the conjunction)
rule such states out, and a larger k looks further back.

The simple-path constraint (the k + 1 states pairwise distinct) keeps the
step from being defeated by loops through unreachable states, which makes
k-induction complete for large enough k on these finite models.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable

import z3

from modelcheck.backends.z3_backend import Frames
from modelcheck.backends.z3_reductions import LeastUnderRenaming, instance_permutations
from modelcheck.engines.base import Violation
from modelcheck.engines.bmc import BmcSettings, Unrolling, check_sat, confirm_behaviour, first_broken, new_solver
from modelcheck.runtime.limits import SearchInterrupted, StopRequest

PROVED, VIOLATION, NOT_INDUCTIVE, INTERRUPTED = "proved", "violation", "not-inductive", "interrupted"


@dataclass
class InductionCounterexample:
    """k + 1 states: the first k satisfy every invariant, the last breaks ``broken``."""

    states: list[tuple]
    actions: list[int | None]
    broken: list[str]

    @property
    def length(self) -> int:
        return len(self.states)


@dataclass
class StepReport:
    k: int
    base_seconds: float
    step_seconds: float
    step_holds: bool | None  # None when the base case failed first


@dataclass
class ProofOutcome:
    result: str  # PROVED, VIOLATION, NOT_INDUCTIVE, or INTERRUPTED (no verdict)
    k: int  # the k that decided it (the largest tried when not inductive, the last finished when interrupted)
    violation: Violation | None = None
    counterexample: InductionCounterexample | None = None
    steps: list[StepReport] = field(default_factory=list)


class InductionStep:
    """States s_0..s_k in range, linked by Next, pairwise distinct, with Inv
    asserted on s_0..s_{k-1}; ``counterexample()`` asks for ~Inv at s_k."""

    def __init__(self, model, invariants: list[str], settings: BmcSettings = BmcSettings(),
                 stop: StopRequest | None = None):
        self.model = model
        self.invariants = invariants
        self.stop = stop
        self.frames = Frames(model, settings.selectors)
        self.solver = new_solver()
        renamings = instance_permutations(model) if settings.symmetry else []
        self.symmetry = LeastUnderRenaming(self.frames, renamings) if renamings else None
        self.k = 0
        self._queries = 0
        self.solver.add(self.frames.in_range(0))

    def extend(self) -> None:
        """From k to k + 1: Inv at s_k, a step to a new distinct state s_{k+1}."""
        f, k = self.frames, self.k
        self.solver.add(f.holds(self.invariants, k), f.trans(k), f.in_range(k + 1))
        self.solver.add([f.differs(u, k + 1) for u in range(k + 1)])
        if self.symmetry:
            self.solver.add(self.symmetry.up_to(k))
        self.k += 1

    def counterexample(self) -> z3.ModelRef | None:
        self._queries += 1
        literal = z3.Bool(f"step-fails!{self._queries}")
        self.solver.add(z3.Implies(literal, z3.Not(self.frames.holds(self.invariants, self.k))))
        return self.solver.model() if check_sat(self.solver, literal, stop=self.stop) else None


def confirm_counterexample(model, invariants, states, actions) -> list[str]:
    """Check a decoded counterexample to induction with the explicit engine;
    returns the invariants its last state breaks."""
    confirm_behaviour(model, states, actions, from_init=False)
    if any(first_broken(model, invariants, s) for s in states[:-1]):
        raise RuntimeError("internal: a hypothesis state of the counterexample to induction breaks an invariant")
    if len(set(states)) != len(states):
        raise RuntimeError("internal: the counterexample to induction repeats a state")
    broken = [n for n in invariants if not model.compiled.predicates[n](states[-1])]
    if not broken:
        raise RuntimeError("internal: the counterexample to induction ends in a state satisfying every invariant")
    return broken


def prove(model, invariants, max_k: int = 1, settings: BmcSettings = BmcSettings(),
          on_step: Callable[[StepReport], None] | None = None, stop: StopRequest | None = None) -> ProofOutcome:
    """k-induction on the conjunction of ``invariants``, for k = 1..max_k.
    Once ``stop`` is requested the outcome is INTERRUPTED, with the last k
    whose base case and step were both decided."""
    reports: list[StepReport] = []
    try:
        return _induct(model, list(invariants), max_k, settings, on_step, stop, reports)
    except SearchInterrupted:
        return ProofOutcome(INTERRUPTED, len(reports), steps=reports)


def _induct(model, invariants, max_k, settings, on_step, stop, reports) -> ProofOutcome:
    base = Unrolling(model, settings, stop)
    step = InductionStep(model, invariants, settings, stop)
    bf = base.frames
    witness = None
    for k in range(1, max_k + 1):
        started = time.perf_counter()
        if k > 1:
            base.extend()
        found = base.find(lambda t: z3.Not(bf.holds(invariants, t)))
        base_seconds = time.perf_counter() - started
        if found is not None:
            states, actions = base.behaviour(found)
            confirm_behaviour(model, states, actions)
            broken = first_broken(model, invariants, states[-1])
            if broken is None:
                raise RuntimeError("internal: the base-case counterexample satisfies every invariant when replayed")
            reports.append(StepReport(k, base_seconds, 0.0, None))
            if on_step:
                on_step(reports[-1])
            return ProofOutcome(VIOLATION, k, Violation(broken, states, actions), steps=reports)
        base.assert_at_last(lambda t: bf.holds(invariants, t))

        started = time.perf_counter()
        step.extend()
        witness = step.counterexample()
        reports.append(StepReport(k, base_seconds, time.perf_counter() - started, witness is None))
        if on_step:
            on_step(reports[-1])
        if witness is None:
            return ProofOutcome(PROVED, k, steps=reports)
    states, actions = step.frames.decode_path(witness, 0, step.k)
    broken = confirm_counterexample(model, invariants, states, actions)
    return ProofOutcome(NOT_INDUCTIVE, max_k, counterexample=InductionCounterexample(states, actions, broken),
                        steps=reports)
