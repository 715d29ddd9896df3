"""The report of ``modelcheck run``: the header printed as a run starts, and
the verdict, counterexample and figures printed when it ends (``--json``
prints ``RunOutcome.to_json()`` instead). ``sweep`` and ``simulate`` tell
their runs in their own forms (``modelcheck/commands/sweep.py``,
``modelcheck/commands/simulation.py``).
"""

from __future__ import annotations

import os
import shlex

from modelcheck import __version__
from modelcheck.engines import DEFAULT_ENGINE, entry
from modelcheck.runtime.limits import DISK_FULL, MAX_MEMORY, MAX_STATES, describe_size
from modelcheck.presentation.outputs import trace_line
from modelcheck.runs.run import PreparedRun, RunOutcome


def header_text(p: PreparedRun, engine: str) -> str:
    """What the run checks, printed as it starts: the spec and where its
    TLA+ module comes from, the constants, and each invariant with its meaning."""
    lines = [f"modelcheck {__version__} · {p.spec.name} · engine {engine}",
             f"spec        {p.spec.source()}",
             f"constants   {p.model.describe_constants()}"]
    lines.extend(invariant_lines(p))
    if p.properties:
        from modelcheck.runs.liveness import header_lines
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
    r = outcome.result
    if r.stopped and r.saved:  # last, where the eye falls after Ctrl-C
        lines += [f"The search is saved in {r.saved}; continue it with:", f"  {resume_command(outcome.prepared, r)}"]
    if outcome.coverage is not None:
        lines += ["", outcome.coverage.text()]
    return "\n".join(lines)


def verdict_lines(outcome: RunOutcome) -> list[str]:
    r = outcome.result
    if outcome.liveness is not None and r.violation is None:
        from modelcheck.runs.liveness import verdict_lines as liveness_verdict_lines
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
    elif r.stopped == DISK_FULL:
        why = "Stopped when the disk was full"
    else:
        why = "Interrupted"
    if r.distinct_states == 0:
        return [f"{why} before the search began: no state was explored."]
    noun = "state" if r.distinct_states == 1 else "states"
    explored = (f"{r.distinct_states:,} {noun} explored ({depth_text(r)})"
                if r.distinct_states is not None else f"behaviours of up to {r.depth} states examined")
    lines = [f"{why} before the search was complete: no invariant is violated in the {explored}."]
    if p.properties:
        from modelcheck.runs.liveness import cut_short_lines
        lines.extend(cut_short_lines(p))
    return lines


def resume_command(p: PreparedRun, r) -> str:
    """The command that continues a saved search: this run's own options,
    with --resume in place of where it saved, and without the limit that
    stopped it (it would stop the resumed run at once)."""
    q = p.request
    words = ["modelcheck", "run", q.spec]
    if q.engine != DEFAULT_ENGINE:
        words += ["--engine", q.engine]
    for flag, values in (("--config", [q.config] if q.config else []), ("--const", q.consts),
                         ("--inv", q.invariants), ("--prop", q.properties),
                         ("--specification", [q.specification] if q.specification else []),
                         ("--max-depth", [] if q.max_depth is None else [q.max_depth]),
                         ("--max-states", [] if q.max_states is None or r.stopped == MAX_STATES else [q.max_states]),
                         ("--max-memory", [] if q.max_memory is None or r.stopped == MAX_MEMORY else [q.max_memory]),
                         ("--trace-out", [q.trace_out] if q.trace_out else [])):
        for value in values:
            words += [flag, str(value)]
    if q.check_deadlock is not None:
        words.append("--check-deadlock" if q.check_deadlock else "--no-check-deadlock")
    words += [w for w, on in (("--overwrite", q.overwrite), ("--symmetry", q.symmetry)) if on]
    saved = os.path.abspath(r.saved)
    for option in entry(q.engine).options:
        value = q.engine_options.get(option.field)
        if option.field == "resume" or value in (None, False, ()) or \
                (isinstance(value, str) and os.path.abspath(value) == saved):
            continue  # where it saved is where it resumes
        if option.kind == "flag":
            words.append(option.flag)
        else:
            for v in (value if option.kind == "multiple" else [value]):
                words += [option.flag, str(v)]
    return shlex.join(words + ["--resume", r.saved])


def depth_text(r) -> str:
    """How deep a stopped search went: the last level it found whole, and
    whether it had begun the next."""
    if r.partial_level:
        return f"every state through depth {r.depth}, and part of depth {r.depth + 1}"
    return f"through depth {r.depth}"


def violation_lines(outcome: RunOutcome) -> list[str]:
    """Said once: what breaks and in which state; then the counterexample in
    the viewer's replica tables (``modelcheck show --diff``), and why."""
    v = outcome.result.violation
    what = "A deadlock is reached" if v.invariant == "Deadlock" else f"Invariant {v.invariant} is violated"
    if outcome.evaluation_failed:
        what = "The spec cannot be evaluated (TLC stops with an error)"
    lines = [f"{what} in state {v.length}, at the end of this shortest counterexample:", ""]
    lines.append(outcome.trace_text or "")
    lines.append("")
    if outcome.explanation:
        lines.append(outcome.explanation)
        lines.append("")
    return lines


def rate_note(r) -> str:
    """The rate after the time: a resumed search's counts only the states it
    found itself, in the time it searched after reading its checkpoint."""
    found = (r.distinct_states or 0) - r.resumed_with
    searched = r.seconds - r.resume_seconds
    rate = f"{found / searched:,.0f} states/s" if found > 0 and searched > 0 else ""
    loading = f"{r.resume_seconds:.2f} s of it reading the checkpoint" if r.resumed_with else ""
    told = "; ".join(part for part in (rate, loading) if part)
    return f" ({told})" if told else ""


def stats_lines(outcome: RunOutcome) -> list[str]:
    r = outcome.result
    stats = []
    if r.distinct_states is not None:
        stats.append(("distinct states", f"{r.distinct_states:,}"))
    if r.depth is not None:
        stats.append(("depth", f"{r.depth}" + (f" complete, {r.depth + 1} begun" if r.partial_level else "")))
    stats.append(("time", f"{r.seconds:.2f} s" + rate_note(r)))
    if r.kernel_build:  # not in the time above, which is the search's own
        stats.append(("kernel build", f"{r.kernel_build} (a C kernel for these constants, built once: later runs "
                                      f"load it from the cache)"))
    if r.sometimes:
        seen = [f"{n} (depth {d})" for n, d in r.sometimes.items() if d is not None]
        unseen = [n for n, d in r.sometimes.items() if d is None]
        if seen:
            stats.append(("reached", ", ".join(seen)))
        if unseen and r.result == "ok":
            stats.extend(never_reached(outcome.prepared, unseen))
    if outcome.trace_file:
        stats.append(("trace", trace_line(outcome.trace_file, outcome.prepared.request.trace_out)))
    elif outcome.trace_problem:
        stats.append(("trace", outcome.trace_problem))
    width = max(len(k) for k, _ in stats)
    return [f"  {k.ljust(width)}  {v}" for k, v in stats]


def never_reached(p: PreparedRun, unseen: list[str]) -> list[tuple[str, str]]:
    """The reachability checks no state satisfied: those the constants rule
    out, each with the spec's reason; the others are a warning (a model
    that cannot move passes every invariant)."""
    lines, unexplained = [], []
    for name in unseen:
        why = p.spec.unreachable_reason(name, p.model.constants)
        if why:
            lines.append(("never reached", f"{name}, as expected with these constants: {why}"))
        else:
            unexplained.append(name)
    if unexplained:
        lines.insert(0, ("never reached", ", ".join(unexplained) + "  <- the model may be vacuous"))
    return [("never reached" if k == 0 else "", text) for k, (_, text) in enumerate(lines)]
