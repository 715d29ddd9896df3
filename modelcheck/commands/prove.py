"""``modelcheck prove``: from the user's request to a verdict, a trace file and a report.

The verdicts and their exit codes:

* ``proved`` (0): the conjunction of the named invariants holds in every
  reachable state;
* ``violation`` (12, as for ``run``): the base case failed, so a real
  behaviour from Init breaks an invariant; its trace is written;
* ``not-inductive`` (20): no behaviour of up to k states breaks the
  invariants, but the induction step fails, so the verdict is open. The
  counterexample to induction is written as a k + 1 state trace whose first
  state is any state satisfying the hypothesis (``#meta.action`` is
  ``Hypothesis``), not necessarily a reachable one;
* ``interrupted`` (130): Ctrl-C came first; the report says how far the
  proof got, and it is never read as proved.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from modelcheck import __version__, exitcodes
from modelcheck.runtime.destinations import check_output_destination
from modelcheck.engines.bmc import BmcSettings, solver_interrupts
from modelcheck.errors import InputError
from modelcheck.capabilities.induction import INTERRUPTED, NOT_INDUCTIVE, PROVED, VIOLATION, ProofOutcome, StepReport, prove
from modelcheck.runtime.limits import StopRequest
from modelcheck.presentation.outputs import save_trace, story
from modelcheck.runtime.progress import Progress
from modelcheck.loading.request import choose_invariants, resolve, warn
from modelcheck.model.spec import Model, SpecDefinition
from modelcheck.model.trace import trace_from_states

EXIT_CODES = {PROVED: exitcodes.OK, VIOLATION: exitcodes.INVARIANT_VIOLATED, NOT_INDUCTIVE: exitcodes.NOT_INDUCTIVE,
              INTERRUPTED: exitcodes.INTERRUPTED}
HYPOTHESIS = "Hypothesis"


@dataclass(frozen=True)
class ProveRequest:
    spec: str
    invariants: tuple[str, ...] = ()
    k: int = 1
    lemmas: bool = False  # add the spec's lemmas to the conjunction
    consts: tuple[str, ...] = ()
    config: str | None = None
    trace_out: str | None = None
    overwrite: bool = False


@dataclass
class PreparedProof:
    request: ProveRequest
    spec: SpecDefinition
    model: Model
    invariants: tuple[str, ...]
    warnings: list[str]


def prepare_proof(request: ProveRequest) -> PreparedProof:
    """Everything that can be wrong with the input, checked before solving."""
    if request.k < 1:
        raise InputError(f"--k must be at least 1, got {request.k}")
    resolved = resolve(request.spec, request.consts, request.config)
    spec = resolved.spec
    if spec.widen is not None:
        raise InputError(f"{spec.name}: prove does not take a TLA+ module read directly (its bounds are learned by "
                         f"exploring states, so an inductive proof over them would prove nothing beyond them); "
                         f"check it with modelcheck run")
    invariants = choose_invariants(spec, request.invariants, resolved.cfg, lemmas=request.lemmas)
    check_output_destination(request.trace_out, request.overwrite, spec.name)
    return PreparedProof(request, spec, spec.instantiate(resolved.constants), invariants, resolved.warnings)


@dataclass
class ProofReport:
    prepared: PreparedProof
    outcome: ProofOutcome
    seconds: float
    trace_file: str | None
    trace_text: str | None
    stop_signal: int | None = None  # the signal that interrupted the proof, if one did
    explanation: str | None = None  # why the last state breaks the invariant (modelcheck/model/explain.py)

    @property
    def exit_code(self) -> int:
        if self.outcome.result == INTERRUPTED:
            return exitcodes.interrupted(self.stop_signal)
        return EXIT_CODES[self.outcome.result]

    def to_json(self) -> dict[str, Any]:
        p, o = self.prepared, self.outcome
        violation = cti = None
        if o.violation is not None:
            violation = {"invariant": o.violation.invariant, "trace_length": o.violation.length,
                         "trace_file": self.trace_file}
        if o.counterexample is not None:
            cti = {"invariants_broken": o.counterexample.broken, "trace_length": o.counterexample.length,
                   "trace_file": self.trace_file}
        return {
            "spec": p.spec.name,
            "engine": "z3",
            "constants": p.model.json_constants(),
            "invariants": list(p.invariants),
            "k": p.request.k,
            "result": o.result,
            "proved_at_k": o.k if o.result == PROVED else None,
            "depth": o.k,
            "seconds": round(self.seconds, 3),
            "stopped": "interrupted" if o.result == INTERRUPTED else None,
            "violation": violation,
            "counterexample_to_induction": cti,
        }


def execute_proof(prepared: PreparedProof, progress: Progress) -> ProofReport:
    started = time.perf_counter()
    model, request = prepared.model, prepared.request

    def on_step(r: StepReport) -> None:
        base = f"base {'fails' if r.step_holds is None else 'holds'} ({r.base_seconds:.2f} s)"
        step = "" if r.step_holds is None else f"  step {'holds' if r.step_holds else 'fails'} ({r.step_seconds:.2f} s)"
        progress.note(f"k {r.k:>3}  {base}{step}  total {time.perf_counter() - started:.1f} s")

    stop = StopRequest()
    with solver_interrupts(stop):
        outcome = prove(model, prepared.invariants, request.k, BmcSettings(), on_step, stop)
    progress.clear()
    from modelcheck.model.explain import explain
    trace_file = trace_text = explanation = None
    if outcome.violation is not None:
        v = outcome.violation
        trace = trace_from_states(model, v.states, v.actions, v.invariant, "z3")
        trace.meta.update(found_by=f"base case of k-induction (k = {outcome.k})")
        trace_file = _save(trace, request)
        trace_text = story(trace, trace_file, model)
        explanation = explain(model, v.states[-1], v.invariant)
    elif outcome.counterexample is not None:
        c = outcome.counterexample
        trace = trace_from_states(model, c.states, c.actions, c.broken[0], "z3")
        trace.origin = HYPOTHESIS
        trace.meta.update({"kind": "counterexample to induction", "k": outcome.k,
                           "hypothesis": list(prepared.invariants), "broken": c.broken})
        trace_file = _save(trace, request, f"{model.spec.name}-{c.broken[0]}-cti")
        trace_text = story(trace, trace_file, model)
        explanation = "\n".join(explain(model, c.states[-1], name) for name in c.broken)
    return ProofReport(prepared, outcome, time.perf_counter() - started, trace_file, trace_text, stop.signum,
                       explanation)


def _save(trace, request: ProveRequest, stem: str | None = None) -> str | None:
    """Write the trace; a failed write is a warning, never the loss of the verdict."""
    saved = save_trace(trace, request.trace_out, request.overwrite, stem)
    if saved.problem:
        warn([saved.problem])
    return saved.file


def _states(n: int) -> str:
    return f"{n} state" + ("" if n == 1 else "s")


def _together(names) -> tuple[str, bool]:
    """The invariants as the subject of a sentence, and whether it is plural:
    "TypeOk", "TypeOk and StrongIsr", or "the 22 invariants together"."""
    if len(names) == 1:
        return names[0], False
    if len(names) <= 3:
        return f"{', '.join(names[:-1])} and {names[-1]}", True
    return f"the {len(names)} invariants together", True


def proof_summary_text(report: ProofReport) -> str:
    p, o = report.prepared, report.outcome
    conjunction, plural = _together(list(p.invariants))
    holds, is_, it = ("hold", "are", "them") if plural else ("holds", "is", "it")
    lines = [f"modelcheck {__version__} · {p.spec.name} · prove by k-induction (z3)",
             f"spec        {p.spec.source()}",
             f"constants   {p.model.describe_constants()}",
             f"invariants  {', '.join(p.invariants)}" + ("  (their conjunction)" if len(p.invariants) > 1 else ""),
             ""]
    stats: list[tuple[str, str]] = []
    if o.result == PROVED:
        lines.append(f"Proved: {conjunction} {holds} in every reachable state ({o.k}-induction).")
        stats.append(("base case", f"no behaviour of up to {_states(o.k)} breaks {it}"))
        stats.append(("step", f"any {o.k} distinct consecutive states satisfying {it} are followed only by "
                              f"states that satisfy {it}"))
    elif o.result == INTERRUPTED:
        lines.append(f"Interrupted before a verdict: {conjunction} {is_} not proved.")
        if o.k:
            stats.append(("base case", f"no behaviour of up to {_states(o.k)} breaks {it}"))
            stats.append(("step", f"fails for every k up to {o.k}; k = {o.k + 1} was under way"))
    elif o.result == VIOLATION:
        lines.append(f"Invariant {o.violation.invariant} is violated (base case, k = {o.k}). "
                     f"Shortest counterexample: {_states(o.violation.length)}.")
        lines += ["", report.trace_text or "", ""]
        lines += [report.explanation, ""] if report.explanation else []
    else:
        c = o.counterexample
        lines.append(f"Not proved: {conjunction} {is_} not {o.k}-inductive.")
        first = "the first satisfies" if o.k == 1 else f"the first {o.k} satisfy"
        lines.append(f"No behaviour of up to {_states(o.k)} breaks {it}, but the induction step fails: of the "
                     f"{c.length} distinct states below, each a step of the spec from the one before, {first} "
                     f"{it} and the last breaks {', '.join(c.broken)}.")
        lines.append("The first state need not be reachable. Name lemmas that rule it out (more --inv; see "
                     "docs/writing-specs.md) or raise --k.")
        lines += ["", report.trace_text or "", ""]
        lines += [report.explanation, ""] if report.explanation else []
        stats.append(("base case", f"no behaviour of up to {_states(o.k)} breaks {it}"))
        stats.append(("step", f"fails; counterexample to induction of {_states(c.length)}"))
    stats.append(("time", f"{report.seconds:.2f} s"))
    if report.trace_file:
        from modelcheck.presentation.outputs import trace_line
        stats.append(("trace", trace_line(report.trace_file, p.request.trace_out)))
    width = max(len(k) for k, _ in stats)
    lines.extend(f"  {k.ljust(width)}  {v}" for k, v in stats)
    return "\n".join(lines)
