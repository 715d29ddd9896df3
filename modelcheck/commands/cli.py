"""The ``modelcheck`` command line.

Each command parses its options into a request and hands it to the one
request path (``modelcheck.loading.request``, ``modelcheck.runs.run``), so every
command reads specs, constants and .cfg files, chooses invariants and
properties, checks where it writes and warns the same way. The engines'
choices and their own options come from the engine registry
(``modelcheck.engines``), and the exit codes from ``modelcheck.exitcodes``:
a failure the user can fix (bad input, or a mistake in the definition of
a spec, placed at its file:line) is one ``modelcheck: error:`` line and exit 2,
a violated invariant exits 12, a temporal property 13, a reached deadlock
11 (TLC's codes), Ctrl-C 130; anything unexpected is an internal error,
exit 1, with the traceback shown only when MODELCHECK_DEBUG is set. A
standard output that is closed or full is said once on stderr and costs
nothing else: the command carries on and exits with its verdict's code
(``modelcheck.runtime.streams``).
"""

from __future__ import annotations

import atexit
import gc
import json
import os
import sys

import click

from modelcheck import __version__, exitcodes
from modelcheck.engines import engine_commands, entry, load_command
from modelcheck.engines.contract import SIMULATE, SIMULATION
from modelcheck.errors import InputError, SpecDefinitionError
from modelcheck.runtime.limits import Terminated, terminating_as_interrupts
from modelcheck.runtime.streams import guarded_stdout
from modelcheck.commands.options import (INTEGER, NUMBER, SYMMETRY_HELP, config_option, const_option, coverage_option,
                                         engine_option, engine_options, engine_values, engines_epilog, inv_option, json_option,
                                         quiet_option, trace_out_options)


# At exit, Python's last garbage collection walks every object still alive:
# a KRaft model's million expression nodes took seconds after the report was
# printed. Frozen, they are left out of it (they die with the process).
atexit.register(gc.freeze)


class OneLineCommand(click.Command):
    """A command that refuses a flag given together with its opposite
    (``--view --no-view``): click would let the last one win in silence."""

    def parse_args(self, ctx, args):
        given = args[:args.index("--")] if "--" in args else args
        for param in self.params:
            if isinstance(param, click.Option) and param.is_flag and param.secondary_opts:
                on = next((a for a in given if a in param.opts), None)
                off = next((a for a in given if a in param.secondary_opts), None)
                if on and off:
                    raise click.UsageError(f"{on} and {off} contradict each other; give one of them", ctx)
        return super().parse_args(ctx, args)


class OneLineGroup(click.Group):
    """Reports click's own usage errors as one line, like ours; lists the
    commands engines bring (``cluster``) and loads one only when it is used."""

    command_class = OneLineCommand

    def list_commands(self, ctx):
        return sorted(set(super().list_commands(ctx)) | set(engine_commands()))

    def get_command(self, ctx, name):
        command = super().get_command(ctx, name)
        if command is None and name in engine_commands():
            command = load_command(name)
        return command

    def resolve_command(self, ctx, args):
        name = args[0] if args else None
        if name in engine_commands():  # used, not only listed: its engine's package must be installed
            load_command(name, installed=True)
        return super().resolve_command(ctx, args)

    def main(self, args=None, prog_name=None, **extra):
        decided = []  # the exit code, once the command has one
        program = args is None  # run as the process's own program (not called with arguments, as by tests)
        try:
            # a closed or full stdout loses the rest of the report, never the run or its exit code
            with terminating_as_interrupts(), guarded_stdout():
                try:
                    return self._main(args, prog_name, **extra)
                except SystemExit as e:
                    decided.append(e.code)
                    if program:
                        _leaving()
                    raise
        except KeyboardInterrupt:  # Ctrl-C or SIGTERM as the process leaves: the code it had stands
            if not decided:
                raise
            sys.exit(decided[0])
        finally:
            if program and decided:
                _leaving()

    def _main(self, args=None, prog_name=None, **extra):
        try:
            rv = super().main(args=args, prog_name=prog_name or "modelcheck", standalone_mode=False, **extra)
        except click.exceptions.NoArgsIsHelpError as e:
            click.echo(e.ctx.get_help())
            sys.exit(exitcodes.BAD_INPUT)
        except click.UsageError as e:
            _fail(e.format_message() if hasattr(e, "format_message") else str(e))
        except (click.exceptions.Abort, KeyboardInterrupt) as e:
            terminated = isinstance(e, Terminated) or isinstance(e.__cause__, Terminated)  # click wraps it
            click.echo(f"modelcheck: {'terminated' if terminated else 'interrupted'}", err=True)
            sys.exit(exitcodes.TERMINATED if terminated else exitcodes.INTERRUPTED)
        except click.ClickException as e:
            _fail(e.format_message())
        except (InputError, SpecDefinitionError) as e:  # bad input, or a mistake in a spec's definition
            _fail(str(e))
        except BrokenPipeError:
            sys.exit(exitcodes.OK)
        except Exception as e:  # an internal error: say so plainly
            if os.environ.get("MODELCHECK_DEBUG"):
                raise
            click.echo(f"modelcheck: internal error: {type(e).__name__}: {e} "
                       f"(set MODELCHECK_DEBUG=1 for the traceback)", err=True)
            sys.exit(exitcodes.INTERNAL_ERROR)
        sys.exit(rv if isinstance(rv, int) else exitcodes.OK)


def _leaving() -> None:
    """The exit code is decided and the process only ends: a Ctrl-C or
    SIGTERM now (the interpreter's shutdown takes a moment, and at its end
    gives signals their default, which would kill the process) must not
    replace the code with a death by signal."""
    import signal
    import threading
    if threading.current_thread() is threading.main_thread():
        for signum in (signal.SIGINT, signal.SIGTERM):
            signal.signal(signum, signal.SIG_IGN)


def _fail(message: str) -> None:
    message = " ".join(message.split())
    click.echo(f"modelcheck: error: {message}", err=True)
    sys.exit(exitcodes.BAD_INPUT)


def _progress(quiet: bool, always: bool = False):
    from modelcheck.runtime.progress import Progress
    return Progress(enabled=False) if quiet else Progress(enabled=True if always else None)


@click.group(cls=OneLineGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="modelcheck")
def main():
    """Model-check the Kafka replication protocol (KIP-320 and its predecessors), or your own spec.

    SPEC is the name of a spec (`modelcheck list`) or the path of a Python
    file defining one (my_spec.py; see docs/writing-specs.md)."""


@main.command(epilog=engines_epilog())
@click.argument("spec")
@engine_option()
@const_option()
@config_option(help="Read a TLC .cfg file: its CONSTANTS, INVARIANT(S), PROPERTY(IES), SPECIFICATION, SYMMETRY and "
                     "CHECK_DEADLOCK; the options given here override it.")
@inv_option()
@click.option("--prop", "properties", multiple=True, metavar="NAME",
              help="Check this temporal property (repeatable; see `modelcheck list`). Only the invariants "
                   "named with --inv are checked too. Exit 13 if it is violated.")
@click.option("--specification", metavar="NAME",
              help="The named specification (fairness) temporal properties are checked under; default Spec.")
@click.option("--max-depth", type=INTEGER, metavar="N", help="Explore only the first N levels (initial states are level 1).")
@click.option("--check-deadlock/--no-check-deadlock", default=None,
              help="Report states without successors (off by default: these specs are bounded).")
@trace_out_options
@click.option("--max-states", type=INTEGER, metavar="N", help="Stop cleanly once N distinct states are found.")
@click.option("--max-memory", metavar="SIZE", help="Stop cleanly when memory use reaches SIZE (e.g. 2G, 512M).")
@coverage_option
@click.option("--symmetry", is_flag=True, help=SYMMETRY_HELP)
@click.option("--view/--no-view", "view", default=None,
              help="Count states by the spec's VIEW, as TLC does (default: as the .cfg says, else the spec's own "
                   ".cfg).")
@json_option()
@quiet_option
@engine_options()
def run(spec, engine, consts, config, invariants, properties, specification, max_depth, check_deadlock, trace_out,
        overwrite, max_states, max_memory, coverage, symmetry, view, as_json, quiet, **given):
    """Check SPEC's invariants over every reachable state.

    Ctrl-C stops cleanly and prints what was explored (exit 130); a second
    Ctrl-C aborts at once.

    With --prop, temporal properties are checked under the fairness of the
    chosen specification, on the state graph the engine records while it
    checks the invariants; a violation is a lasso: a behaviour that ends in
    a cycle or in stuttering forever.
    """
    from modelcheck.runs.report import header_text, result_text
    from modelcheck.loading.request import warn
    from modelcheck.runs.run import RunRequest, execute, prepare

    request = RunRequest(spec=spec, engine=engine, consts=tuple(consts), config=config,
                         invariants=tuple(invariants), max_depth=max_depth, check_deadlock=check_deadlock,
                         trace_out=trace_out, overwrite=overwrite, max_states=max_states, max_memory=max_memory,
                         engine_options=engine_values(given), properties=tuple(properties),
                         specification=specification, coverage=coverage, symmetry=symmetry, view=view)
    progress = _progress(quiet, always=entry(engine).logs_levels)  # a line per level, even into a file
    prepared = prepare(request, progress)
    warn(prepared.warnings)
    if not as_json:  # say at once what a long run is checking
        click.echo(header_text(prepared, engine) + "\n")
    outcome = execute(prepared, progress)
    click.echo(json.dumps(outcome.to_json()) if as_json else result_text(outcome))
    return outcome.exit_code


@main.command()
@click.argument("spec")
@click.option("--row", "rows", multiple=True, metavar='"NAME=V NAME=V"',
              help="One run's constants. Repeatable: one table line each.")
@click.option("--vary", "vary", multiple=True, metavar="NAME=V1,V2",
              help="A constant and the values to try. Repeatable: combinations multiply (and cross each --row).")
@engine_option(help="Exploration engine for every run (see `run --help`).")
@const_option(help="Constants shared by every run.")
@inv_option(help="Invariants to check (repeatable).")
@click.option("--prop", "properties", multiple=True, metavar="NAME",
              help="Temporal properties to check (repeatable): a column each.")
@click.option("--specification", "specifications", multiple=True, metavar="NAME",
              help="With --prop: check under this specification; repeatable, each crosses every run.")
@click.option("--max-depth", type=INTEGER, metavar="N", help="Explore only the first N levels.")
@click.option("--trace-dir", metavar="DIR",
              help="Write each counterexample into DIR, named after its run (default: modelcheck-out/SPEC).")
@click.option("--overwrite", is_flag=True, help="Allow traces in --trace-dir to replace existing files.")
@click.option("--format", "fmt", type=click.Choice(["text", "markdown", "json"]), default="text", show_default=True)
@click.option("--columns", metavar="A,B,...", help="Only these columns, in this order.")
@click.option("--each-inv", is_flag=True, help="Check each invariant in a run of its own: a column per invariant.")
@click.option("--symmetry", is_flag=True,
              help=SYMMETRY_HELP + " Rows and --vary may also set symmetry=on or symmetry=off per run.")
@quiet_option
def sweep(spec, rows, vary, engine, consts, invariants, properties, specifications, max_depth, trace_dir, overwrite,
          fmt, columns, each_inv, symmetry, quiet):
    """Check SPEC once per --row and per combination of --vary values; print one line per run.

    Exits as run does for the worst row: 0 only when every row holds, 12 if
    any breaks an invariant, else 11 for a deadlock, else 13 for a temporal
    property. Ctrl-C stops the run under way and then the sweep: the table
    shows the runs done, the last marked interrupted (exit 130).
    """
    from modelcheck.runtime.destinations import check_named, output_dir
    from modelcheck.runs.run import RunRequest
    from modelcheck.commands.sweep import combinations, make_trace_dir, parse_rows, parse_vary, render, written_text
    from modelcheck.commands.sweep import sweep as run_sweep

    from modelcheck.loading.request import spec_named
    if trace_dir is not None:
        check_named(trace_dir, "--trace-dir")
    trace_dir = trace_dir or output_dir(spec_named(spec).name)  # a spec file's traces go under its spec's name
    make_trace_dir(trace_dir)
    base = RunRequest(spec=spec, engine=engine, consts=tuple(consts), invariants=tuple(invariants),
                      max_depth=max_depth, overwrite=overwrite, properties=tuple(properties), symmetry=symmetry)
    runs = combinations(parse_rows(tuple(rows)), parse_vary(tuple(vary)))
    if specifications and not properties:
        raise InputError("--specification needs --prop: it chooses the fairness temporal properties are checked under")
    outcome = run_sweep(base, runs, trace_dir, _progress(quiet), tuple(dict.fromkeys(specifications)), each_inv)
    click.echo(render(outcome.rows, fmt, [c.strip() for c in columns.split(",")] if columns else None))
    after = written_text(outcome) if fmt != "json" else ""
    if after:
        click.echo(after)
    return outcome.exit_code


@main.command()
@click.argument("spec")
@const_option(help="Set a constant. Repeatable.")
@config_option(help="Read a TLC .cfg file: its CONSTANTS, INVARIANT(S) and CHECK_DEADLOCK; a SYMMETRY line is not "
                     "used, a PROPERTY line refused.")
@inv_option()
@click.option("--depth", type=INTEGER, default=100, show_default=True, metavar="N", help="Steps per behaviour.")
@click.option("--num", type=INTEGER, metavar="K", help="Behaviours to run (default 1000, unless --time is given).")
@click.option("--time", "seconds", type=NUMBER, metavar="S", help="Run behaviours for S seconds instead.")
@click.option("--seed", type=INTEGER, default=0, show_default=True, help="The seed: the same seed, the same behaviours.")
@engine_option(SIMULATION, help="The engine whose simulator runs the walks (see `run --help`).")
@click.option("--shrink/--no-shrink", default=True, help="Shorten a violating behaviour before writing it.")
@click.option("--check-deadlock/--no-check-deadlock", default=None, help="Report states without successors.")
@trace_out_options
@coverage_option
@json_option()
@quiet_option
@click.option("--symmetry", is_flag=True, hidden=True)  # refused with the reason, not as an unknown option
@engine_options(SIMULATE)
def simulate(spec, consts, config, invariants, depth, num, seconds, seed, engine, shrink, check_deadlock, trace_out,
             overwrite, coverage, as_json, quiet, symmetry, **given):
    """Check SPEC's invariants on random behaviours, for models too big to
    exhaust. Each behaviour starts in an initial state and takes up to
    --depth steps, each chosen uniformly among the successors of the enabled
    action instances; the invariants are checked on every successor
    generated. A violating behaviour is shrunk, then written as ITF.

    Exit codes as for `run`: 0 none found, 12 an invariant broken, 11 a
    deadlock, 2 bad input, 130 interrupted.
    """
    from modelcheck.commands.simulation import simulate_command
    return simulate_command(spec, consts, config, invariants, depth, num, seconds, seed, engine, shrink,
                            check_deadlock, trace_out, overwrite, coverage, as_json, quiet, symmetry,
                            engine_values(given))


@main.command()
@click.argument("spec")
@inv_option(help="An invariant to prove; repeat it to prove a conjunction (lemmas included). "
                 "Default: the spec's default invariants.")
@click.option("--k", "k", type=INTEGER, default=1, show_default=True, metavar="N",
              help="Try k-induction for k = 1..N (1 is plain induction).")
@click.option("--lemmas", is_flag=True, help="Add the lemmas the spec offers (see `modelcheck list`) to the conjunction.")
@const_option(help="Set a constant. Repeatable.")
@config_option(help="Read a TLC .cfg file: its CONSTANTS and INVARIANT(S); prove uses no other section.")
@click.option("--trace-out", type=str, metavar="PATH",
              help="Where to write the counterexample (default: a new file in modelcheck-out/SPEC/).")
@click.option("--overwrite", is_flag=True, help="Allow --trace-out to replace an existing file.")
@json_option()
@quiet_option
def prove(spec, invariants, k, lemmas, consts, config, trace_out, overwrite, as_json, quiet):
    """Prove SPEC's invariants by k-induction with z3.

    Exit codes: 0 proved; 12 violated (a real counterexample from Init); 20
    not inductive (a counterexample to induction is written); 2 bad input.
    """
    from modelcheck.commands.prove import ProveRequest, execute_proof, prepare_proof, proof_summary_text
    from modelcheck.loading.request import warn

    request = ProveRequest(spec=spec, invariants=tuple(invariants), k=k, lemmas=lemmas, consts=tuple(consts),
                           config=config, trace_out=trace_out, overwrite=overwrite)
    prepared = prepare_proof(request)
    warn(prepared.warnings)
    report = execute_proof(prepared, _progress(quiet))
    click.echo(json.dumps(report.to_json()) if as_json else proof_summary_text(report))
    return report.exit_code


@main.command(name="list")
@click.argument("specs", nargs=-1, metavar="[SPEC]...")
@json_option(help="Print the specs as JSON.")
def list_specs(specs, as_json):
    """Show the specs with their actions, invariants and default constants:
    every spec offered by name (the built-in ones and those installed
    packages offer), or the SPECs given (names or spec files)."""
    from modelcheck.commands.listing import specs_json, specs_text
    from modelcheck.loading.registry import all_registered
    from modelcheck.loading.request import spec_named

    chosen = [spec_named(s) for s in specs] if specs else list(all_registered().values())
    click.echo(specs_json(chosen) if as_json else specs_text(chosen))


@main.command()
@click.argument("spec")
@click.option("--out", "out", required=True, metavar="FILE", help="Output file: .dot/.gv (Graphviz) or .graphml.")
@const_option(help="Set a constant. Repeatable.")
@config_option(help="Read a TLC .cfg file: its CONSTANTS and SYMMETRY; graph uses no other section.")
@click.option("--max-states", type=INTEGER, default=100_000, show_default=True,
              help="Refuse to build a graph larger than this.")
@click.option("--max-depth", type=INTEGER, metavar="N", help="Only the first N levels.")
@click.option("--overwrite", is_flag=True, help="Allow --out to replace an existing file.")
@click.option("--symmetry", is_flag=True, help=SYMMETRY_HELP)
@json_option(help="Print the analysis as one JSON object.")
@quiet_option
def graph(spec, out, consts, config, max_states, max_depth, overwrite, symmetry, as_json, quiet):
    """Build SPEC's reachable state graph, report deadlocks and strongly
    connected components, and export it."""
    from modelcheck.engines import REFERENCE_ENGINE
    from modelcheck.commands.graph import analyse, build_state_graph, check_output_path, report_json, report_text, write_graph
    from modelcheck.loading.request import check_bounds, resolve, warn
    from modelcheck.capabilities.symmetry import symmetry_requested

    check_bounds(max_depth, max_states)
    check_output_path(out, overwrite)
    resolved = resolve(spec, tuple(consts), config)
    model = resolved.spec.instantiate(resolved.constants)
    symmetry = symmetry_requested(symmetry, resolved.cfg, model, REFERENCE_ENGINE, resolved.warnings)
    warn(resolved.warnings)
    g = build_state_graph(model, max_states, max_depth, _progress(quiet), symmetry=symmetry)
    report = analyse(g)
    write_graph(g, out, overwrite)
    click.echo(json.dumps(report_json(model, out, report)) if as_json else report_text(model, out, report, g))
    return exitcodes.OK


@main.command(name="show")
@click.argument("trace", metavar="TRACE")
@click.option("--diff", is_flag=True, help="After the first state, show only what each step changed.")
@click.option("--html", "html_out", metavar="OUT.html",
              help="Write a self-contained HTML viewer to OUT.html instead of printing.")
@click.option("--spec", "spec_name", metavar="SPEC",
              help="The spec (a name or a spec file), for traces that do not name theirs (TLC's) or whose spec "
                   "file has moved.")
@const_option(help="Set a constant (overrides the trace's own). Repeatable.")
@inv_option(help="Explain this invariant if the trace breaks it (default: the one the trace records, "
                 "else the spec's defaults).")
@click.option("--color/--no-color", default=None, help="Colour (default: only on a terminal).")
@click.option("--overwrite", is_flag=True, help="Allow --html to replace an existing file.")
def show_trace(trace, diff, html_out, spec_name, consts, invariants, color, overwrite):
    """Show a counterexample TRACE step by step: each replica's leader, epoch,
    high watermark, ISR and log, the quorum state, the LeaderAndIsr requests
    and the counters, with changed values highlighted, and why the last state
    breaks the invariant."""
    from modelcheck.presentation.viewer import load_view

    if html_out is not None:
        from modelcheck.runtime.destinations import check_new_file
        from modelcheck.presentation.viewer.html import write_html
        check_new_file(html_out, overwrite, "--html")
        view = load_view(trace, spec_name, consts, invariants)
        write_html(view, html_out, overwrite)
        click.echo(f"wrote {html_out} ({len(view.frames)} states); open it in a browser")
        return exitcodes.OK
    from modelcheck.presentation.viewer.terminal import render
    view = load_view(trace, spec_name, consts, invariants)
    use_color = color if color is not None else sys.stdout.isatty()
    click.echo(render(view, diff=diff, color=use_color), color=use_color)
    return exitcodes.OK


@main.command(name="replay")
@click.argument("arguments", nargs=-1, required=True, metavar="[SPEC] TRACE")
@const_option(help="Set a constant (overrides the trace's own). Repeatable.")
@inv_option(help="Check this invariant along the trace (repeatable); default: the spec's defaults "
                 "and the invariant the trace records.")
@click.option("--prop", "prop", metavar="NAME",
              help="Check a lasso (a trace with a loop) against this temporal property: a fair behaviour "
                   "that violates it exits 13. Default: the property the file names.")
@click.option("--specification", metavar="NAME", help="With --prop: the specification whose fairness the "
                                                        "cycle must satisfy (default: the file's, else Spec).")
@json_option(help="Print the report as one JSON object.")
def replay_trace(arguments, consts, invariants, prop, specification, as_json):
    """Check that TRACE (ITF, or TLC's -dumpTrace json) is a behaviour of SPEC
    (by default the spec the trace records: its name, or its spec file):
    its first state satisfies Init and every step is a legal transition,
    named by the action and parameters that explain it. Reports the
    invariants that fail along the trace.

    Exit codes: 0 a behaviour, no invariant broken; 12 a behaviour that breaks
    an invariant; 3 not a behaviour (the failing step is shown, with a diff
    against the closest legal successor); 2 bad input.

    A lasso (a trace with a loop, written for a violated temporal property)
    is checked with --prop (default: the property it names): the loop must
    close, the cycle be fair under --specification, and the property fail.
    Exit 13 if it all holds, 3 if the lasso is not a fair behaviour, 0 if it
    satisfies the property.

    A counterexample to induction written by `modelcheck prove` is checked as
    one: its first state against the invariants it assumes instead of Init.
    It exits 20 when its steps are legal and it breaks them.
    """
    from modelcheck.presentation.replay import chosen_invariants, load, replay, report_json, report_text, warn_all

    if len(arguments) > 2:
        raise click.UsageError(f"replay takes [SPEC] TRACE, got {len(arguments)} arguments")
    spec, trace = (None, arguments[0]) if len(arguments) == 1 else arguments
    bound = load(spec, trace, consts)
    if prop or bound.document.loop is not None and bound.document.property:
        # a lasso, judged against a temporal property
        from modelcheck.presentation.lasso_replay import lasso_report_json, lasso_report_text, replay_lasso
        report, as_dict, as_text = replay_lasso(bound, prop, specification), lasso_report_json, lasso_report_text
    else:
        report, as_dict, as_text = replay(bound, chosen_invariants(bound, invariants)), report_json, report_text
    if as_json:
        click.echo(json.dumps(as_dict(report)))
    else:
        warn_all(bound)
        click.echo(as_text(report))
    return report.exit_code


if __name__ == "__main__":
    main()
