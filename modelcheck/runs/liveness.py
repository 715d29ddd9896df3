"""``modelcheck run --prop``: the temporal properties decided on the graph the
engine recorded, the first violation's lasso written, and the report's lines
and JSON fields for them.

``modelcheck.runs.run.execute`` hands over here once the engine's search is
complete and no invariant (if any was named) is violated. A limit or Ctrl-C
while the graph is being marked or searched stops the run as it would stop
a search: the report says so, and that there is no verdict on the properties.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from modelcheck.engines.base import CheckResult
from modelcheck.runtime.limits import Limits, SearchStopped
from modelcheck.capabilities.liveness.check import decide
from modelcheck.capabilities.liveness.report import explain_violation, lasso_shape, lasso_trace
from modelcheck.presentation.outputs import save_trace, story
from modelcheck.loading.request import warn


SPILLED = ("the state graph was kept on disk, in a temporary directory removed at the end, "
           "to stay under --max-memory")


@dataclass
class Decided:
    liveness: Any = None  # a LivenessResult; None when a limit or Ctrl-C came first
    trace_file: str | None = None
    trace_text: str | None = None
    explanation: str | None = None
    trace_problem: str | None = None  # when no file holds the trace: where it was tried


def decide_properties(prepared, result: CheckResult, limits: Limits, progress, group=None,
                      earlier: Decided | None = None) -> Decided:
    """Decide ``prepared``'s properties on the graph the engine recorded in
    ``result`` (a complete search), updating ``result``'s verdict and time.
    Under symmetry, ``group`` (a ``CaseGroup``) names the cases this
    quotient decides, and ``earlier`` what the quotients before it decided."""
    request, model = prepared.request, prepared.model
    started = time.perf_counter()
    try:
        graph = result.graph.finish(result.depth)
        live = decide(model, graph, list(prepared.properties), prepared.specification, progress, limits,
                      result.engine, cases=group.cases if group is not None else None)
    except SearchStopped as stopped:
        progress.clear()
        result.result, result.stopped = "bounded-ok", stopped.reason
        result.seconds += time.perf_counter() - started
        return Decided()
    result.seconds += time.perf_counter() - started
    if result.graph.request.store.spilled:
        result.notes.append(SPILLED)
    if group is not None:
        result.notes.append(quotient_note(live, group))
    if earlier is not None and earlier.liveness is not None:
        live.verdicts = earlier.liveness.verdicts + live.verdicts
        live.seconds += earlier.liveness.seconds
        if earlier.liveness.violated is not None:  # its lasso is written already
            result.result = "violation"
            earlier.liveness.verdicts = live.verdicts
            return earlier
    violated = live.violated
    result.result = "violation" if violated else "ok"
    if violated is None:
        return Decided(live)
    if graph.group is not None:  # a lasso of the quotient: lifted to one of the spec itself
        violated.lasso, graph = lift_checked(model, graph, violated, prepared.specification)
    lasso = violated.lasso
    trace = lasso_trace(model, graph, lasso, violated.case, prepared.specification, request.engine)
    saved = save_trace(trace, request.trace_out, request.overwrite, stem=f"{model.spec.name}-{violated.case.property}")
    if saved.problem:
        warn([saved.problem])
    explanation = explain_violation(model, violated.case, prepared.specification, lasso_shape(graph, lasso),
                                    trace.meta.get("loop_action"))
    live.graph = None  # the report needs no more of it; let it go
    return Decided(live, saved.file, story(trace, saved.file, model), explanation, saved.nowhere())


def quotient_note(live, group) -> str:
    labels = ", ".join(c.label for c in group.cases)
    follow = sorted({x for labels_ in group.follow.values() for x in labels_})
    nodes = "orbits" if group.group is not None else "states"
    text = f"symmetry: {labels} decided on {live.states:,} {nodes} ({live.edges:,} steps) under {group.reason}"
    return text + (f"; {', '.join(follow)} follow by symmetry" if follow else "")


def lift_checked(model, graph, violated, specification):
    """The quotient's lasso lifted to the spec's (``modelcheck.capabilities.liveness.symmetric.lift``),
    read again on its own states: it must be a fair behaviour that violates the case."""
    from modelcheck.capabilities.liveness.lasso import is_fair, violates
    from modelcheck.capabilities.liveness.symmetric import lift
    lifted, states = lift(model, graph, violated.lasso)
    shape = lasso_shape(states, lifted)
    if not (is_fair(model, specification, shape) and violates(model, violated.case, shape)):
        raise RuntimeError(f"the lasso of {violated.case.label} lifted from the quotient is not a fair violating "
                           f"behaviour")
    return lifted, states


def violation_json(live, trace_file: str | None) -> dict:
    v = live.violated
    lasso = v.lasso
    return {"property": v.case.property, "case": v.case.case or None, "trace_length": len(lasso.nodes),
            "loop_start": None if lasso.stutters else lasso.loop, "trace_file": trace_file}


def header_lines(prepared) -> list[str]:
    sp = prepared.specification
    lines = [f"properties  {', '.join(prepared.properties)}",
             f"under       {sp.name} ({sp.fairness_words(prepared.model.constants)})"]
    lines += [f"            {meaning}" for meaning in sp.fairness_meanings()]
    lines += [f"            {why}" for why in sp.outside_next(prepared.spec.name, prepared.spec.next)]
    return lines


def verdict_lines(outcome) -> list[str]:
    live = outcome.liveness
    lines = []
    violated = live.violated
    if violated is None:
        lines.append(f"Every temporal property holds under {live.specification.name}: "
                     f"every fair behaviour was considered ({live.states:,} states, {live.edges:,} steps).")
    else:
        lasso = violated.lasso
        ending = "stutters forever" if lasso.stutters else f"loops back to state {lasso.loop + 1}"
        lines.append(f"Temporal property {violated.case.label} is violated under {live.specification.name}. "
                     f"Counterexample: {len(lasso.nodes)} states, then it {ending}.")
        lines.append("")
        lines.append(outcome.trace_text or "")
        lines.append("")
        lines.append(outcome.explanation or "")
        lines.append("")
    verdicts = live.property_verdicts()
    if len(verdicts) > 1 or violated is None:
        width = max(len(n) for n in verdicts)
        lines.extend(f"  {n.ljust(width)}  {'holds' if ok else 'VIOLATED'}" for n, ok in verdicts.items())
        lines.append("")
    return lines


def cut_short_lines(prepared) -> list[str]:
    """Said when a limit or Ctrl-C stopped a run with temporal properties."""
    names = ", ".join(prepared.properties)
    return [f"The state graph was cut short, so there is no verdict on {names}: a temporal property "
            f"needs the whole graph."]
