"""The report of ``modelcheck simulate``: its text, and what ``--json`` adds
to the fields ``run`` prints."""

from __future__ import annotations

from modelcheck import __version__
from modelcheck.limits import INTERRUPTED


def simulation_json(stats: dict) -> dict:
    keys = ("behaviours", "steps", "seed", "trace_length_before_shrink")
    return {k: stats[k] for k in keys if k in stats}


def simulation_text(outcome, stats: dict) -> str:
    p, r = outcome.prepared, outcome.result
    lines = [f"modelcheck {__version__} · {p.spec.name} ({p.spec.module}.tla) · simulation ({r.engine}), "
             f"seed {stats['seed']}",
             f"constants   {p.model.describe_constants()}",
             f"invariants  {', '.join(p.invariants)}" + ("  (+ deadlock)" if p.check_deadlock else ""), ""]
    if r.violation is not None:
        v = r.violation
        what = "Deadlock reached" if v.invariant == "Deadlock" else f"Invariant {v.invariant} is violated"
        before = stats["trace_length_before_shrink"]
        shrunk = f"shrunk from {before} states" if before != v.length else "not shortened by shrinking"
        lines += [f"{what}. Trace: {v.length} states ({shrunk}; not necessarily the shortest: "
                  f"`modelcheck run --engine fast` finds that).", "", outcome.trace_text or "", ""]
        if outcome.explanation:
            lines += [outcome.explanation, ""]
    elif r.stopped == INTERRUPTED:
        lines.append("Interrupted: no invariant was violated on the behaviours run so far.")
    else:
        lines.append("No invariant was violated on these behaviours (a simulation proves nothing about the "
                     "states it did not reach).")
    rate = r.seconds and stats["steps"] / r.seconds
    stats_rows = [("behaviours", f"{stats['behaviours']:,}"),
                  ("steps", f"{stats['steps']:,} ({rate:,.0f} steps/s)"),
                  ("states checked", f"{stats['states_generated']:,} (every successor generated)"),
                  ("distinct states", f"{r.distinct_states:,} (on the behaviours taken)"),
                  ("time", f"{r.seconds:.2f} s")]
    if stats.get("reached"):
        stats_rows.append(("reached", ", ".join(stats["reached"])))
    if outcome.trace_file:
        stats_rows.append(("trace", f"{outcome.trace_file}  (modelcheck show {outcome.trace_file})"))
    width = max(len(k) for k, _ in stats_rows)
    lines += [f"  {k.ljust(width)}  {v}" for k, v in stats_rows]
    if outcome.coverage is not None:
        lines += ["", outcome.coverage.text()]
    return "\n".join(lines)
