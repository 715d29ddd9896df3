"""``modelcheck run --prop``: from a prepared run to a verdict, a lasso file and a report.

``modelcheck.run`` hands over here once the invariants (if any were named)
hold; this module checks the temporal properties, writes the first
violation's lasso as ITF and supplies the report's lines and JSON fields.
"""

from __future__ import annotations

from modelcheck.engines.base import CheckResult
from modelcheck.liveness.check import check_liveness
from modelcheck.liveness.report import explain_violation, lasso_shape, lasso_trace
from modelcheck.trace import write_trace
from modelcheck.viewer.terminal import story_text

EXIT_PROPERTY_VIOLATED = 13  # TLC's code for a violated temporal property


def execute_liveness(prepared, progress, safety: CheckResult | None):
    from modelcheck.run import RunOutcome
    request = prepared.request
    model = prepared.model
    live = check_liveness(model, request.engine, list(prepared.properties), prepared.specification, progress)
    graph = live.graph
    violated = live.violated
    result = CheckResult(request.engine, "violation" if violated else "ok", live.states, graph.depth,
                         live.seconds + (safety.seconds if safety else 0.0))
    if safety is not None:
        result.sometimes = safety.sometimes
        result.notes = list(safety.notes)
    trace_file = trace_text = explanation = None
    if violated is not None:
        lasso = violated.lasso
        trace = lasso_trace(model, graph, lasso, violated.case, prepared.specification, request.engine)
        stem = f"{model.spec.name}-{violated.case.property}"
        trace_file = write_trace(trace, request.trace_out, request.overwrite, stem=stem)
        trace_text = story_text(trace_file)
        explanation = explain_violation(model, violated.case, prepared.specification, lasso_shape(graph, lasso),
                                        trace.meta.get("loop_action"))
    live.graph = None  # the report needs no more of it; let it go
    return RunOutcome(prepared, result, trace_file, trace_text, explanation, live)


def violation_json(live, trace_file: str | None) -> dict:
    v = live.violated
    lasso = v.lasso
    return {"property": v.case.property, "case": v.case.case or None, "trace_length": len(lasso.nodes),
            "loop_start": None if lasso.stutters else lasso.loop, "trace_file": trace_file}


def header_lines(prepared) -> list[str]:
    sp = prepared.specification
    fairness = ", ".join(f.label() for f in sp.fairness) or "no fairness"
    return [f"properties  {', '.join(prepared.properties)}",
            f"under       {sp.name} ({fairness})"]


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
