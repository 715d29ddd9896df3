"""The ``modelcheck`` command line.

Every failure the user can fix is reported as a single ``modelcheck: error:``
line with exit code 2; a violated invariant exits with 12 and a reached
deadlock with 11 (TLC's codes); anything unexpected is an internal error,
exit 1, with the traceback shown only when MODELCHECK_DEBUG is set.
"""

from __future__ import annotations

import json
import os
import sys

import click

from modelcheck import __version__
from modelcheck.engines import DEFAULT_ENGINE, ENGINE_SUMMARIES, engine_names
from modelcheck.errors import InputError
from modelcheck.simulate.command import coverage_option, simulate
from modelcheck.spark.commands import cluster, engine_options_from, spark_options

EXIT_OK, EXIT_INTERNAL, EXIT_USAGE, EXIT_VIOLATION = 0, 1, 2, 12


class OneLineGroup(click.Group):
    """Reports click's own usage errors as one line, like ours."""

    def main(self, args=None, prog_name=None, **extra):
        try:
            rv = super().main(args=args, prog_name=prog_name or "modelcheck", standalone_mode=False, **extra)
        except click.exceptions.NoArgsIsHelpError as e:
            click.echo(e.ctx.get_help())
            sys.exit(EXIT_USAGE)
        except click.UsageError as e:
            _fail(e.format_message() if hasattr(e, "format_message") else str(e))
        except click.exceptions.Abort:
            click.echo("modelcheck: interrupted", err=True)
            sys.exit(130)
        except click.ClickException as e:
            _fail(e.format_message())
        except InputError as e:
            _fail(str(e))
        except KeyboardInterrupt:
            click.echo("modelcheck: interrupted", err=True)
            sys.exit(130)
        except BrokenPipeError:
            sys.exit(EXIT_OK)
        except Exception as e:  # an internal error: say so plainly
            if os.environ.get("MODELCHECK_DEBUG"):
                raise
            click.echo(f"modelcheck: internal error: {type(e).__name__}: {e} "
                       f"(set MODELCHECK_DEBUG=1 for the traceback)", err=True)
            sys.exit(EXIT_INTERNAL)
        sys.exit(rv if isinstance(rv, int) else EXIT_OK)


SYMMETRY_HELP = ("Keep one state per orbit under renamings of the spec's symmetric constants (TLC's "
                 "SYMMETRY Permutations(Replicas)): counts are orbits; traces are genuine behaviours.")


def _fail(message: str) -> None:
    message = " ".join(message.split())
    click.echo(f"modelcheck: error: {message}", err=True)
    sys.exit(EXIT_USAGE)


@click.group(cls=OneLineGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="modelcheck")
def main():
    """Model-check the Kafka replication protocol (KIP-320 and its predecessors)."""


@main.command(epilog="\b\nEngines:\n" + "\n".join(f"  {name:<6} {line}" for name, line in ENGINE_SUMMARIES.items()))
@click.argument("spec")
@click.option("--engine", type=click.Choice(engine_names()), default=DEFAULT_ENGINE, show_default=True,
              help="Exploration engine (listed below).")
@click.option("--const", "consts", multiple=True, metavar="NAME=VALUE",
              help="Set a constant, e.g. Replicas=3, Replicas={a,b}, LogSize=2. Repeatable.")
@click.option("--config", type=str, metavar="FILE.cfg", help="Read CONSTANTS and INVARIANTS from a TLC .cfg file.")
@click.option("--inv", "invariants", multiple=True, metavar="NAME",
              help="Check this invariant (repeatable); default: the spec's default invariants.")
@click.option("--prop", "properties", multiple=True, metavar="NAME",
              help="Check this temporal property (repeatable; see `modelcheck list`). Only the invariants "
                   "named with --inv are checked too. Exit 13 if it is violated.")
@click.option("--specification", metavar="NAME",
              help="The named specification (fairness) temporal properties are checked under; default Spec.")
@click.option("--max-depth", type=int, metavar="N", help="Explore only the first N levels (initial states are level 1).")
@click.option("--check-deadlock/--no-check-deadlock", default=None,
              help="Report states without successors (off by default: these specs are bounded).")
@click.option("--trace-out", type=str, metavar="PATH",
              help="Where to write the ITF trace of a violation (default: a new file in modelcheck-out/SPEC/).")
@click.option("--overwrite", is_flag=True, help="Allow --trace-out to replace an existing file.")
@click.option("--max-states", type=int, metavar="N", help="Stop cleanly once N distinct states are found.")
@click.option("--max-memory", metavar="SIZE", help="Stop cleanly when memory use reaches SIZE (e.g. 2G, 512M).")
@click.option("--checkpoint", "checkpoint", metavar="DIR",
              help="fast engine: save the search into DIR at level boundaries, and when stopped.")
@click.option("--checkpoint-every", type=float, default=60.0, show_default=True, metavar="SECONDS",
              help="fast engine: at most this often.")
@click.option("--resume", metavar="DIR",
              help="fast and spark engines: continue the search saved (spark: checkpointed) in DIR.")
@coverage_option
@click.option("--symmetry", is_flag=True, help=SYMMETRY_HELP)
@click.option("--view/--no-view", "view", default=None,
              help="Count states by the spec's VIEW, as TLC does (default: as the .cfg says, else the spec's own "
                   ".cfg).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object on stdout instead of the report.")
@click.option("--quiet", "-q", is_flag=True, help="No progress on stderr.")
@spark_options
def run(spec, engine, consts, config, invariants, properties, specification, max_depth, check_deadlock, trace_out,
        overwrite, max_states, max_memory, checkpoint, checkpoint_every, resume, coverage, symmetry, view, as_json,
        quiet, **spark):
    """Check SPEC's invariants over every reachable state.

    Ctrl-C stops cleanly and prints what was explored (exit 130); a second
    Ctrl-C aborts at once.

    With --prop, temporal properties are checked under the fairness of the
    chosen specification (bfs and fast engines); a violation is a lasso: a
    behaviour that ends in a cycle or in stuttering forever.
    """
    from modelcheck.progress import Progress
    from modelcheck.run import RunRequest, execute, header_text, prepare, result_text, warn

    engine_options = {k: v for k, v in (("checkpoint", checkpoint), ("resume", resume)) if v}
    if engine_options:
        engine_options["checkpoint_every"] = checkpoint_every
    engine_options.update(engine_options_from(engine, spark))
    request = RunRequest(spec=spec, engine=engine, consts=tuple(consts), config=config,
                         invariants=tuple(invariants), max_depth=max_depth, check_deadlock=check_deadlock,
                         trace_out=trace_out, overwrite=overwrite, max_states=max_states, max_memory=max_memory,
                         engine_options=engine_options, properties=tuple(properties), specification=specification,
                         coverage=coverage, symmetry=symmetry, view=view)
    prepared = prepare(request)
    warn(prepared.warnings)
    # a Spark run logs a line per level even into a file: such runs are long
    progress = Progress(enabled=False) if quiet else Progress(enabled=True if engine == "spark" else None)
    if not as_json:  # say at once what a long run is checking
        click.echo(header_text(prepared, engine) + "\n")
    outcome = execute(prepared, progress)
    if as_json:
        click.echo(json.dumps(outcome.to_json()))
    else:
        click.echo(result_text(outcome))
    return outcome.exit_code


@main.command()
@click.argument("spec")
@click.option("--row", "rows", multiple=True, metavar='"NAME=V NAME=V"',
              help="One run's constants. Repeatable: one table line each.")
@click.option("--vary", "vary", multiple=True, metavar="NAME=V1,V2",
              help="A constant and the values to try. Repeatable: combinations multiply (and cross each --row).")
@click.option("--engine", type=click.Choice(engine_names()), default=DEFAULT_ENGINE, show_default=True,
              help="Exploration engine for every run (see `run --help`).")
@click.option("--const", "consts", multiple=True, metavar="NAME=VALUE", help="Constants shared by every run.")
@click.option("--inv", "invariants", multiple=True, metavar="NAME", help="Invariants to check (repeatable).")
@click.option("--prop", "properties", multiple=True, metavar="NAME",
              help="Temporal properties to check (repeatable): a column each.")
@click.option("--specification", "specifications", multiple=True, metavar="NAME",
              help="With --prop: check under this specification; repeatable, each crosses every run.")
@click.option("--max-depth", type=int, metavar="N", help="Explore only the first N levels.")
@click.option("--trace-dir", metavar="DIR",
              help="Write each counterexample into DIR, named after its run (default: modelcheck-out/SPEC).")
@click.option("--overwrite", is_flag=True, help="Allow traces in --trace-dir to replace existing files.")
@click.option("--format", "fmt", type=click.Choice(["text", "markdown", "json"]), default="text", show_default=True)
@click.option("--columns", metavar="A,B,...", help="Only these columns, in this order.")
@click.option("--each-inv", is_flag=True, help="Check each invariant in a run of its own: a column per invariant.")
@click.option("--symmetry", is_flag=True,
              help=SYMMETRY_HELP + " Rows and --vary may also set symmetry=on or symmetry=off per run.")
@click.option("--quiet", "-q", is_flag=True, help="No progress on stderr.")
def sweep(spec, rows, vary, engine, consts, invariants, properties, specifications, max_depth, trace_dir, overwrite,
          fmt, columns, each_inv, symmetry, quiet):
    """Check SPEC once per --row and per combination of --vary values; print one line per run.

    Ctrl-C stops the run under way and then the sweep: the table shows the
    runs done, the last marked interrupted (exit 130).
    """
    from modelcheck.outputs import output_dir
    from modelcheck.progress import Progress
    from modelcheck.run import RunRequest
    from modelcheck.sweep import combinations, make_trace_dir, parse_rows, parse_vary, render, written_text
    from modelcheck.sweep import sweep as run_sweep

    trace_dir = trace_dir or output_dir(spec)
    make_trace_dir(trace_dir)
    base = RunRequest(spec=spec, engine=engine, consts=tuple(consts), invariants=tuple(invariants),
                      max_depth=max_depth, overwrite=overwrite, properties=tuple(properties), symmetry=symmetry)
    runs = combinations(parse_rows(tuple(rows)), parse_vary(tuple(vary)))
    if specifications and not properties:
        raise InputError("--specification needs --prop: it chooses the fairness temporal properties are checked under")
    outcome = run_sweep(base, runs, trace_dir, Progress(enabled=False) if quiet else Progress(),
                        tuple(dict.fromkeys(specifications)), each_inv)
    click.echo(render(outcome.rows, fmt, [c.strip() for c in columns.split(",")] if columns else None))
    after = written_text(outcome) if fmt != "json" else ""
    if after:
        click.echo(after)
    return outcome.exit_code


@main.command()
@click.argument("spec")
@click.option("--inv", "invariants", multiple=True, metavar="NAME",
              help="An invariant to prove; repeat it to prove a conjunction (lemmas included). "
                   "Default: the spec's default invariants.")
@click.option("--k", "k", type=int, default=1, show_default=True, metavar="N",
              help="Try k-induction for k = 1..N (1 is plain induction).")
@click.option("--lemmas", is_flag=True, help="Add the lemmas the spec offers (see `modelcheck list`) to the conjunction.")
@click.option("--const", "consts", multiple=True, metavar="NAME=VALUE", help="Set a constant. Repeatable.")
@click.option("--config", type=str, metavar="FILE.cfg", help="Read CONSTANTS and INVARIANTS from a TLC .cfg file.")
@click.option("--trace-out", type=str, metavar="PATH",
              help="Where to write the counterexample (default: a new file in modelcheck-out/SPEC/).")
@click.option("--overwrite", is_flag=True, help="Allow --trace-out to replace an existing file.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object on stdout instead of the report.")
@click.option("--quiet", "-q", is_flag=True, help="No progress on stderr.")
def prove(spec, invariants, k, lemmas, consts, config, trace_out, overwrite, as_json, quiet):
    """Prove SPEC's invariants by k-induction with z3.

    Exit codes: 0 proved; 12 violated (a real counterexample from Init); 20
    not inductive (a counterexample to induction is written); 2 bad input.
    """
    from modelcheck.progress import Progress
    from modelcheck.prove import ProveRequest, execute_proof, prepare_proof, proof_summary_text
    from modelcheck.run import warn

    request = ProveRequest(spec=spec, invariants=tuple(invariants), k=k, lemmas=lemmas, consts=tuple(consts),
                           config=config, trace_out=trace_out, overwrite=overwrite)
    prepared = prepare_proof(request)
    warn(prepared.warnings)
    report = execute_proof(prepared, Progress(enabled=False) if quiet else Progress())
    if as_json:
        click.echo(json.dumps(report.to_json()))
    else:
        click.echo(proof_summary_text(report))
    return report.exit_code


@main.command(name="list")
@click.option("--json", "as_json", is_flag=True, help="Print the specs as JSON.")
def list_specs(as_json):
    """Show the specs with their actions, invariants and default constants."""
    from modelcheck.constants import format_value
    from specs import all_specs

    specs = all_specs()
    if as_json:
        click.echo(json.dumps([{
            "name": s.name, "module": s.module, "summary": s.summary,
            "actions": [a.name for a in s.next],
            "invariants": s.invariant_names(), "default_invariants": list(s.default_invariants),
            "lemmas": list(s.lemmas),
            "constants": {d.name: format_value(d.kind, d.default) for d in s.constants},
            "properties": {p.name: " ".join(p.doc.split()) for p in s.properties},
            "specifications": {sp.name: [f.label() for f in sp.fairness] for sp in s.all_specifications()},
        } for s in specs.values()], indent=1))
        return
    for s in specs.values():
        click.echo(f"{s.name}  ({s.source()})")
        click.echo(f"  {s.summary}")
        click.echo("  constants:  " + ", ".join(f"{d.name}={format_value(d.kind, d.default)}" for d in s.constants))
        defaults = set(s.default_invariants)
        shown = [n for n in s.invariant_names() if n not in s.lemmas]
        width = max(len(n) + 1 for n in shown)
        click.echo("  invariants: (* checked by default)")
        for n in shown:
            click.echo(f"    {(n + ('*' if n in defaults else '')).ljust(width)}  {s.invariant_summary(n)}")
        if s.lemmas:
            click.echo("  lemmas:     " + ", ".join(s.lemmas) + "   (invariants too; `prove --lemmas` adds them)")
        click.echo("  actions:    " + ", ".join(a.name for a in s.next))
        for sp in s.all_specifications():
            fairness = ", ".join(f.label() for f in sp.fairness) or "no fairness"
            click.echo(f"  spec.:      {sp.name}: {fairness}")
        if s.properties:
            click.echo("  properties (--prop):")
            for p in s.properties:
                click.echo(f"    {p.name}: {' '.join(p.doc.split())}")
        if s.notes:
            click.echo(f"  note:       {s.notes}")
        click.echo("")


@main.command()
@click.argument("spec")
@click.option("--out", "out", required=True, metavar="FILE", help="Output file: .dot/.gv (Graphviz) or .graphml.")
@click.option("--const", "consts", multiple=True, metavar="NAME=VALUE", help="Set a constant. Repeatable.")
@click.option("--config", type=str, metavar="FILE.cfg", help="Read CONSTANTS from a TLC .cfg file.")
@click.option("--max-states", type=int, default=100_000, show_default=True,
              help="Refuse to build a graph larger than this.")
@click.option("--max-depth", type=int, metavar="N", help="Only the first N levels.")
@click.option("--overwrite", is_flag=True, help="Allow --out to replace an existing file.")
@click.option("--symmetry", is_flag=True, help=SYMMETRY_HELP)
@click.option("--json", "as_json", is_flag=True, help="Print the analysis as one JSON object.")
@click.option("--quiet", "-q", is_flag=True, help="No progress on stderr.")
def graph(spec, out, consts, config, max_states, max_depth, overwrite, symmetry, as_json, quiet):
    """Build SPEC's reachable state graph, report deadlocks and strongly
    connected components, and export it."""
    from modelcheck.engines.graph import analyse, build_state_graph, check_output_path, graph_symmetry, write_graph
    from modelcheck.progress import Progress
    from modelcheck.run import resolve_spec_and_constants, warn

    if max_states < 1:
        raise InputError(f"--max-states must be at least 1, got {max_states}")
    if max_depth is not None and max_depth < 1:
        raise InputError(f"--max-depth must be at least 1, got {max_depth}")
    check_output_path(out, overwrite)
    spec_def, constants, cfg = resolve_spec_and_constants(spec, tuple(consts), config)
    if cfg:
        warn(cfg.warnings)
    model = spec_def.instantiate(constants)
    symmetry = graph_symmetry(model, cfg, symmetry)
    g = build_state_graph(model, max_states, max_depth, Progress(enabled=False) if quiet else Progress(),
                          symmetry=symmetry)
    report = analyse(g)
    write_graph(g, out)
    if as_json:
        click.echo(json.dumps({"spec": spec_def.name, "constants": model.json_constants(), "file": out,
                               **report.to_json()}))
        return 0
    click.echo(f"{spec_def.name} · {model.describe_constants()}")
    click.echo(f"  states            {report.nodes:,}" + ("" if report.complete else "  (cut at --max-depth)"))
    click.echo(f"  transitions       {report.edges:,}")
    click.echo(f"  deadlock states   {len(report.deadlocks):,}  (no successor; expected in these bounded specs)")
    click.echo(f"  strongly connected components  {report.components:,} "
               f"(largest {report.largest_component:,}, {report.cyclic_components:,} with cycles)")
    for n in report.deadlocks[:3]:
        click.echo(f"  e.g. deadlock: {g.nodes[n]['label']}")
    click.echo(f"  written to        {out}")
    return 0




@main.command(name="show")
@click.argument("trace", metavar="TRACE")
@click.option("--diff", is_flag=True, help="After the first state, show only what each step changed.")
@click.option("--html", "html_out", metavar="OUT.html",
              help="Write a self-contained HTML viewer to OUT.html instead of printing.")
@click.option("--spec", "spec_name", metavar="NAME", help="The spec, for traces that do not name theirs (TLC's).")
@click.option("--const", "consts", multiple=True, metavar="NAME=VALUE",
              help="Set a constant (overrides the trace's own). Repeatable.")
@click.option("--inv", "invariants", multiple=True, metavar="NAME",
              help="Explain this invariant if the trace breaks it (default: the one the trace records, "
                   "else the spec's defaults).")
@click.option("--color/--no-color", default=None, help="Colour (default: only on a terminal).")
@click.option("--overwrite", is_flag=True, help="Allow --html to replace an existing file.")
def show_trace(trace, diff, html_out, spec_name, consts, invariants, color, overwrite):
    """Show a counterexample TRACE step by step: each replica's leader, epoch,
    high watermark, ISR and log, the quorum state, the LeaderAndIsr requests
    and the counters, with changed values highlighted, and why the last state
    breaks the invariant."""
    from modelcheck.viewer import load_view

    if html_out:
        from modelcheck.viewer.html import check_destination, write_html
        check_destination(html_out, overwrite)
        view = load_view(trace, spec_name, consts, invariants)
        write_html(view, html_out, overwrite)
        click.echo(f"wrote {html_out} ({len(view.frames)} states); open it in a browser")
        return 0
    from modelcheck.viewer.terminal import render
    view = load_view(trace, spec_name, consts, invariants)
    use_color = color if color is not None else sys.stdout.isatty()
    click.echo(render(view, diff=diff, color=use_color), color=use_color)
    return 0


@main.command(name="replay")
@click.argument("spec")
@click.argument("trace", metavar="TRACE")
@click.option("--const", "consts", multiple=True, metavar="NAME=VALUE",
              help="Set a constant (overrides the trace's own). Repeatable.")
@click.option("--inv", "invariants", multiple=True, metavar="NAME",
              help="Check this invariant along the trace (repeatable); default: the spec's defaults "
                   "and the invariant the trace records.")
@click.option("--prop", "prop", metavar="NAME",
              help="Check a lasso (a trace with a loop) against this temporal property: a fair behaviour "
                   "that violates it exits 13. Default: the property the file names.")
@click.option("--specification", metavar="NAME", help="With --prop: the specification whose fairness the "
                                                        "cycle must satisfy (default: the file's, else Spec).")
@click.option("--json", "as_json", is_flag=True, help="Print the report as one JSON object.")
def replay_trace(spec, trace, consts, invariants, prop, specification, as_json):
    """Check that TRACE (ITF, or TLC's -dumpTrace json) is a behaviour of SPEC:
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
    from modelcheck.replay import chosen_invariants, load, replay, report_json, report_text, warn_all

    bound = load(spec, trace, consts)
    if prop or bound.document.loop is not None and bound.document.property:
        # a lasso, judged against a temporal property
        from modelcheck.liveness.replay import lasso_report_json, lasso_report_text, replay_lasso
        report, as_dict, as_text = replay_lasso(bound, prop, specification), lasso_report_json, lasso_report_text
    else:
        report, as_dict, as_text = replay(bound, chosen_invariants(bound, invariants)), report_json, report_text
    if as_json:
        click.echo(json.dumps(as_dict(report)))
    else:
        warn_all(bound)
        click.echo(as_text(report))
    return report.exit_code


main.add_command(cluster)
main.add_command(simulate)


if __name__ == "__main__":
    main()
