"""``modelcheck simulate``: from the request to a report.

The input is checked as ``run`` checks it (``modelcheck.run.prepare``, with
the engine options a simulation takes), then the simulation's own; the
walks, trace writing and explanation go through ``modelcheck.run.execute``
with the chosen engine's simulator as the engine, so the trace is ITF like
any other and the exit codes are those of ``run``.
"""

from __future__ import annotations

import json

import click

from modelcheck.engines import get_simulator
from modelcheck.engines.contract import SIMULATE
from modelcheck.errors import InputError

NO_SYMMETRY = ("simulate follows single behaviours and keeps no visited set, which is all symmetry reduction "
               "shrinks; use it with run")


def simulate_command(spec, consts, config, invariants, depth, num, seconds, seed, engine, shrink, check_deadlock,
                     trace_out, overwrite, coverage, as_json, quiet, symmetry, engine_options) -> int:
    from modelcheck.progress import Progress
    from modelcheck.request import warn
    from modelcheck.run import RunRequest, execute, prepare
    from modelcheck.simulate.report import simulation_json, simulation_text
    from modelcheck.simulate.settings import SimulationSettings, check_plan
    from modelcheck.simulate.walks import WalkPlan

    check_plan(depth, num, seconds)
    if symmetry:
        raise InputError(f"--symmetry: {NO_SYMMETRY}")
    request = RunRequest(spec=spec, engine=engine, consts=tuple(consts), config=config,
                         invariants=tuple(invariants), check_deadlock=check_deadlock, trace_out=trace_out,
                         overwrite=overwrite, engine_options=engine_options, coverage=coverage, command=SIMULATE)
    prepared = prepare(request)
    if prepared.symmetry:  # from a .cfg SYMMETRY line, which a .cfg shared with `run` may well have
        prepared.symmetry = False
        prepared.warnings.append(f"the .cfg's SYMMETRY is not used: {NO_SYMMETRY}")
    warn(prepared.warnings)
    plan = WalkPlan(depth=depth, behaviours=None if seconds is not None else (num or 1000), seconds=seconds,
                    check_deadlock=prepared.check_deadlock)
    simulator = get_simulator(engine, SimulationSettings(plan, seed, shrink))
    progress = Progress(enabled=False) if quiet else Progress()
    outcome = execute(prepared, progress, engine=simulator)
    if as_json:
        click.echo(json.dumps({**outcome.to_json(), **simulation_json(simulator.stats)}))
    else:
        click.echo(simulation_text(outcome, simulator.stats))
    return outcome.exit_code
