"""The command line of ``modelcheck simulate``, and the ``--coverage`` option
that ``run`` shares with it.

The input is checked as ``run`` checks it (``modelcheck.run.prepare``), then
the simulation's own options; the search, trace writing and explanation go
through ``modelcheck.run.execute`` with the simulator as the engine, so the
trace is ITF like any other and the exit codes are those of ``run``.
"""

from __future__ import annotations

import json

import click

from modelcheck import __version__
from modelcheck.errors import InputError
from modelcheck.spark.commands import engine_options_from, spark_options


NO_SYMMETRY = ("simulate follows single behaviours and keeps no visited set, which is all symmetry reduction "
               "shrinks; use it with run")


def coverage_option(fn):
    return click.option("--coverage", is_flag=False, flag_value="actions", default=None, metavar="[full]",
                        help="Report coverage: per action (enabled, generated, distinct), dead guard branches, "
                             "field ranges. --coverage=full adds each action instance.")(fn)


def check_plan(depth: int, num: int | None, seconds: float | None) -> None:
    if depth < 1:
        raise InputError(f"--depth must be at least 1, got {depth}")
    if num is not None and seconds is not None:
        raise InputError("--num and --time both say when to stop; give one of them")
    if num is not None and num < 1:
        raise InputError(f"--num must be at least 1, got {num}")
    if seconds is not None and seconds <= 0:
        raise InputError(f"--time must be a positive number of seconds, got {seconds}")


@click.command()
@click.argument("spec")
@click.option("--const", "consts", multiple=True, metavar="NAME=VALUE", help="Set a constant. Repeatable.")
@click.option("--config", type=str, metavar="FILE.cfg",
              help="Read a TLC .cfg file: its CONSTANTS, INVARIANT(S) and CHECK_DEADLOCK; a SYMMETRY line is not "
                   "used, a PROPERTY line refused.")
@click.option("--inv", "invariants", multiple=True, metavar="NAME",
              help="Check this invariant (repeatable); default: the spec's default invariants.")
@click.option("--depth", type=int, default=100, show_default=True, metavar="N", help="Steps per behaviour.")
@click.option("--num", type=int, metavar="K", help="Behaviours to run (default 1000, unless --time is given).")
@click.option("--time", "seconds", type=float, metavar="S", help="Run behaviours for S seconds instead.")
@click.option("--seed", type=int, default=0, show_default=True, help="The seed: the same seed, the same behaviours.")
@click.option("--engine", type=click.Choice(["fast", "spark"]), default="fast", show_default=True,
              help="fast: batched numpy walks in this process; spark: a swarm of walks on every executor.")
@click.option("--shrink/--no-shrink", default=True, help="Shorten a violating behaviour before writing it.")
@click.option("--check-deadlock/--no-check-deadlock", default=None, help="Report states without successors.")
@click.option("--trace-out", type=str, metavar="PATH", help="Where to write the ITF trace of a violation.")
@click.option("--overwrite", is_flag=True, help="Allow --trace-out to replace an existing file.")
@coverage_option
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object on stdout instead of the report.")
@click.option("--quiet", "-q", is_flag=True, help="No progress on stderr.")
@click.option("--symmetry", is_flag=True, hidden=True)  # refused with the reason, not as an unknown option
@spark_options
def simulate(spec, consts, config, invariants, depth, num, seconds, seed, engine, shrink, check_deadlock, trace_out,
             overwrite, coverage, as_json, quiet, symmetry, **spark):
    """Check SPEC's invariants on random behaviours, for models too big to
    exhaust. Each behaviour starts in an initial state and takes up to
    --depth steps, each chosen uniformly among the successors of the enabled
    action instances; the invariants are checked on every successor
    generated. A violating behaviour is shrunk, then written as ITF.

    Exit codes as for `run`: 0 none found, 12 an invariant broken, 11 a
    deadlock, 2 bad input, 130 interrupted.
    """
    from modelcheck.progress import Progress
    from modelcheck.run import RunRequest, execute, prepare, warn
    from modelcheck.simulate.engine import SimulationSettings, Simulator
    from modelcheck.simulate.walks import WalkPlan

    check_plan(depth, num, seconds)
    if symmetry:
        raise InputError(f"--symmetry: {NO_SYMMETRY}")
    if spark.get("lead_in") is not None:
        raise InputError("--lead-in applies to `run --engine spark`: a swarm of random walks has no levels to lead")
    if engine == "spark" and coverage is not None:
        raise InputError("--coverage is not collected by --engine spark's swarm; simulate in process instead")
    if config:
        from modelcheck.cfgfile import read_config
        if read_config(config).properties:  # they would turn the run into a liveness check
            raise InputError(f"{config}: PROPERTY names temporal properties, which random walks cannot check; "
                             "check them with `modelcheck run --prop`, or drop the line")
    request = RunRequest(spec=spec, engine=engine, consts=tuple(consts), config=config,
                         invariants=tuple(invariants), check_deadlock=check_deadlock, trace_out=trace_out,
                         overwrite=overwrite, engine_options=engine_options_from(engine, spark), coverage=coverage)
    prepared = prepare(request)
    if prepared.symmetry:  # from a .cfg SYMMETRY line, which a .cfg shared with `run` may well have
        prepared.symmetry = False
        prepared.warnings.append(f"the .cfg's SYMMETRY is not used: {NO_SYMMETRY}")
    warn(prepared.warnings)
    plan = WalkPlan(depth=depth, behaviours=None if seconds is not None else (num or 1000), seconds=seconds,
                    check_deadlock=prepared.check_deadlock)
    simulator = Simulator(SimulationSettings(plan, seed, shrink, swarm=engine == "spark"))
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
    from modelcheck.limits import INTERRUPTED
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
