"""The report of ``modelcheck run``: the header printed as a run starts, and
the verdict, counterexample and figures printed when it ends (``--json``
prints ``RunOutcome.to_json()`` instead). ``sweep`` and ``simulate`` tell
their runs in their own forms (``modelcheck/sweep.py``,
``modelcheck/simulation.py``).
"""

from __future__ import annotations

from modelcheck import __version__
from modelcheck.limits import MAX_MEMORY, MAX_STATES, describe_size
from modelcheck.run import PreparedRun, RunOutcome


def header_text(p: PreparedRun, engine: str) -> str:
    """What the run checks, printed as it starts: the spec and where its
    TLA+ module comes from, the constants, and each invariant with its meaning."""
    lines = [f"modelcheck {__version__} · {p.spec.name} · engine {engine}",
             f"spec        {p.spec.source()}",
             f"constants   {p.model.describe_constants()}"]
    lines.extend(invariant_lines(p))
    if p.properties:
        from modelcheck.liveness.outcome import header_lines
        lines.extend(header_lines(p))
    return "\n".join(lines)


def invariant_lines(p: PreparedRun) -> list[str]:
    """``invariants  StrongIsr  Below a presumed leader's high watermark, ...``, one per invariant."""
    if not p.invariants:
        return ["invariants  none" + ("  (+ deadlock)" if p.check_deadlock else "")]
    width = max(len(name) for name in p.invariants)
    lines = [f"{'invariants' if k == 0 else '':<10}  {name.ljust(width)}  {p.spec.invariant_summary(name)}"
             for k, name in enumerate(p.invariants)]
    if p.check_deadlock:
        lines.append(f"{'':<10}  {'Deadlock'.ljust(width)}  some action is enabled in every reachable state")
    return lines


def result_text(outcome: RunOutcome) -> str:
    """The verdict, the counterexample if any, and the figures."""
    lines = verdict_lines(outcome)
    lines.extend(stats_lines(outcome))
    lines.extend(f"note: {n}" for n in outcome.result.notes)
    if outcome.coverage is not None:
        lines += ["", outcome.coverage.text()]
    return "\n".join(lines)


def verdict_lines(outcome: RunOutcome) -> list[str]:
    r = outcome.result
    if outcome.liveness is not None and r.violation is None:
        from modelcheck.liveness.outcome import verdict_lines as liveness_verdict_lines
        return liveness_verdict_lines(outcome)
    if r.result == "violation":
        return violation_lines(outcome)
    if r.stopped:
        return stopped_lines(outcome)
    if r.result == "bounded-ok":
        return [f"No invariant is violated up to depth {r.depth} (--max-depth); deeper states were not explored."]
    return ["No invariant is violated: every reachable state was checked."]


def stopped_lines(outcome: RunOutcome) -> list[str]:
    """A search a limit or Ctrl-C stopped: how far it got, and what it says."""
    p, r = outcome.prepared, outcome.result
    if r.stopped == MAX_STATES:
        why = f"Stopped at --max-states {p.request.max_states:,}"
    elif r.stopped == MAX_MEMORY:
        why = f"Stopped at --max-memory {describe_size(p.max_memory)}"
    else:
        why = "Interrupted"
    explored = (f"{r.distinct_states:,} states explored (through depth {r.depth})"
                if r.distinct_states is not None else f"behaviours of up to {r.depth} states examined")
    lines = [f"{why} before the search was complete: no invariant is violated in the {explored}."]
    if p.properties:
        from modelcheck.liveness.outcome import cut_short_lines
        lines.extend(cut_short_lines(p))
    return lines


def violation_lines(outcome: RunOutcome) -> list[str]:
    """Said once: what breaks and in which state; then the counterexample in
    the viewer's replica tables (``modelcheck show --diff``), and why."""
    v = outcome.result.violation
    what = "A deadlock is reached" if v.invariant == "Deadlock" else f"Invariant {v.invariant} is violated"
    lines = [f"{what} in state {v.length}, at the end of this shortest counterexample:", ""]
    lines.append(outcome.trace_text or "")
    lines.append("")
    if outcome.explanation:
        lines.append(outcome.explanation)
        lines.append("")
    return lines


def stats_lines(outcome: RunOutcome) -> list[str]:
    r = outcome.result
    stats = []
    if r.distinct_states is not None:
        stats.append(("distinct states", f"{r.distinct_states:,}"))
    if r.depth is not None:
        stats.append(("depth", f"{r.depth}"))
    rate = f" ({r.distinct_states / r.seconds:,.0f} states/s)" if r.distinct_states and r.seconds > 0 else ""
    stats.append(("time", f"{r.seconds:.2f} s{rate}"))
    if r.sometimes:
        seen = [f"{n} (depth {d})" for n, d in r.sometimes.items() if d is not None]
        unseen = [n for n, d in r.sometimes.items() if d is None]
        if seen:
            stats.append(("reached", ", ".join(seen)))
        if unseen and r.result == "ok":
            stats.append(("never reached", ", ".join(unseen) + "  <- the model may be vacuous"))
    if outcome.trace_file:
        stats.append(("trace", f"{outcome.trace_file}  (modelcheck show {outcome.trace_file})"))
    elif outcome.trace_problem:
        stats.append(("trace", outcome.trace_problem))
    width = max(len(k) for k, _ in stats)
    return [f"  {k.ljust(width)}  {v}" for k, v in stats]
