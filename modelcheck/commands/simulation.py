"""``modelcheck simulate``: from the request to a report.

The input is checked as ``run`` checks it (``modelcheck.runs.run.prepare``, with
the engine options a simulation takes), then the simulation's own; the
walks, trace writing and explanation go through ``modelcheck.runs.run.execute``
with the chosen engine's simulator as the engine, so the trace is ITF like
any other and the exit codes are those of ``run``.
"""

from __future__ import annotations

import json

import click

from modelcheck import __version__
from modelcheck.engines import get_simulator
from modelcheck.engines.contract import SIMULATE
from modelcheck.errors import InputError
from modelcheck.runtime.limits import INTERRUPTED

NO_SYMMETRY = ("simulate follows single behaviours and keeps no visited set, which is all symmetry reduction "
               "shrinks; use it with run")


def simulate_command(spec, consts, config, invariants, depth, num, seconds, seed, engine, shrink, check_deadlock,
                     trace_out, overwrite, coverage, as_json, quiet, symmetry, engine_options) -> int:
    from modelcheck.runtime.progress import Progress
    from modelcheck.loading.request import warn
    from modelcheck.runs.run import RunRequest, execute, prepare
    from modelcheck.search.simulate.settings import SimulationSettings, check_plan
    from modelcheck.search.simulate.walks import WalkPlan, batch_for

    check_plan(depth, num, seconds, seed)
    if symmetry:
        raise InputError(f"--symmetry: {NO_SYMMETRY}")
    if config:
        from modelcheck.loading.cfgfile import read_config
        if read_config(config).properties:  # they would turn the run into a liveness check
            raise InputError(f"{config}: PROPERTY names temporal properties, which random walks cannot check; "
                             "check them with `modelcheck run --prop`, or drop the line")
    request = RunRequest(spec=spec, engine=engine, consts=tuple(consts), config=config,
                         invariants=tuple(invariants), check_deadlock=check_deadlock, trace_out=trace_out,
                         overwrite=overwrite, engine_options=engine_options, coverage=coverage, command=SIMULATE)
    prepared = prepare(request)
    if prepared.symmetry:  # from a .cfg SYMMETRY line, which a .cfg shared with `run` may well have
        prepared.symmetry = False
        prepared.warnings.append(f"the .cfg's SYMMETRY is not used: {NO_SYMMETRY}")
    warn(prepared.warnings)
    plan = WalkPlan(depth=depth, behaviours=None if seconds is not None else (num or 1000), seconds=seconds,
                    batch=batch_for(depth), check_deadlock=prepared.check_deadlock)
    simulator = get_simulator(engine, SimulationSettings(plan, seed, shrink))
    progress = Progress(enabled=False) if quiet else Progress()
    outcome = execute(prepared, progress, engine=simulator)
    if as_json:
        click.echo(json.dumps({**outcome.to_json(), **simulation_json(simulator.stats)}))
    else:
        click.echo(simulation_text(outcome, simulator.stats))
    return outcome.exit_code


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
        from modelcheck.presentation.outputs import trace_line
        stats_rows.append(("trace", trace_line(outcome.trace_file, outcome.prepared.request.trace_out)))
    elif outcome.trace_problem:
        stats_rows.append(("trace", outcome.trace_problem))
    width = max(len(k) for k, _ in stats_rows)
    lines += [f"  {k.ljust(width)}  {v}" for k, v in stats_rows]
    if outcome.coverage is not None:
        lines += ["", outcome.coverage.text()]
    return "\n".join(lines)
