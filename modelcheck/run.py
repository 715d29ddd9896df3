"""``modelcheck run``: from the user's request to a verdict, a trace file and a report.

The CLI parses options into a ``RunRequest``; ``prepare`` resolves and checks
everything that can be wrong with the input before any state is explored
(unknown spec, constants, invariants, an unwritable trace path), so bad input
fails in a second rather than after a long search.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field
from typing import Any

from modelcheck import __version__
from modelcheck.cfgfile import read_config
from modelcheck.constants import parse_assignment
from modelcheck.engines import get_engine
from modelcheck.engines.base import CheckOptions, CheckResult
from modelcheck.engines.checkpoint import check_destination as check_checkpoint_destination
from modelcheck.errors import InputError
from modelcheck.limits import INTERRUPTED, MAX_MEMORY, MAX_STATES, Limits, describe_size, interrupt_requests, parse_size
from modelcheck.progress import Progress
from modelcheck.spark.resume import check_spark_options
from modelcheck.spec import Model, SpecDefinition
from modelcheck.trace import check_trace_destination, render_text, trace_from_states, write_trace


@dataclass(frozen=True)
class RunRequest:
    spec: str
    engine: str = "bfs"
    consts: tuple[str, ...] = ()
    config: str | None = None
    invariants: tuple[str, ...] = ()
    max_depth: int | None = None
    check_deadlock: bool | None = None
    trace_out: str | None = None
    overwrite: bool = False
    max_states: int | None = None
    max_memory: str | None = None
    engine_options: dict[str, Any] = field(default_factory=dict)


@dataclass
class PreparedRun:
    request: RunRequest
    spec: SpecDefinition
    model: Model
    invariants: tuple[str, ...]
    check_deadlock: bool
    warnings: list[str]
    max_memory: int | None = None


def resolve_spec_and_constants(spec_name: str, consts: tuple[str, ...], config: str | None):
    """The spec, its constants (defaults < .cfg < --const) and the .cfg, if any."""
    from specs import get_spec
    spec = get_spec(spec_name)
    cfg = read_config(config) if config else None
    given: dict[str, str] = {}
    if cfg:
        known = {d.name for d in spec.constants}
        for name, value in cfg.constants.items():
            if name not in known:
                raise InputError(f"{cfg.path}:{cfg.constant_lines[name]}: {spec.name} has no constant {name!r} "
                                 f"(its constants: {', '.join(sorted(known))})")
            given[name] = value
    for text in consts:
        name, value = parse_assignment(text)
        given[name] = value
    return spec, spec.resolve_constants(given), cfg


def prepare(request: RunRequest) -> PreparedRun:
    spec, constants, cfg = resolve_spec_and_constants(request.spec, request.consts, request.config)
    warnings = list(cfg.warnings) if cfg else []
    invariants = tuple(request.invariants) or tuple(cfg.invariants if cfg and cfg.invariants else ())
    invariants = invariants or spec.default_invariants
    spec.check_invariant_names(invariants)
    invariants = tuple(dict.fromkeys(invariants))  # keep order, drop repeats
    if request.max_depth is not None and request.max_depth < 1:
        raise InputError(f"--max-depth must be at least 1, got {request.max_depth}")
    check_deadlock = request.check_deadlock
    if check_deadlock is None:
        check_deadlock = bool(cfg.check_deadlock) if cfg and cfg.check_deadlock is not None else False
    if request.max_states is not None and request.max_states < 1:
        raise InputError(f"--max-states must be at least 1, got {request.max_states}")
    max_memory = parse_size(request.max_memory) if request.max_memory is not None else None
    check_trace_destination(request.trace_out, request.overwrite)
    get_engine(request.engine)  # an unknown engine is bad input too
    _check_checkpoint_options(request)
    model = spec.instantiate(constants)
    return PreparedRun(request, spec, model, invariants, check_deadlock, warnings, max_memory)


def _check_checkpoint_options(request: RunRequest) -> None:
    opts = request.engine_options
    checkpoint, resume = opts.get("checkpoint"), opts.get("resume")
    if request.engine == "spark":
        return check_spark_options(opts)
    if not (checkpoint or resume):
        return
    if request.engine != "fast":
        raise InputError("--checkpoint and --resume need --engine fast")
    if checkpoint and resume and os.path.abspath(checkpoint) != os.path.abspath(resume):
        raise InputError("--resume continues saving into its own directory; drop --checkpoint or give the same one")
    if float(opts.get("checkpoint_every", 60)) <= 0:
        raise InputError("--checkpoint-every must be a positive number of seconds")
    check_checkpoint_destination(resume or checkpoint, resuming=bool(resume))


@dataclass
class RunOutcome:
    prepared: PreparedRun
    result: CheckResult
    trace_file: str | None
    trace_text: str | None
    explanation: str | None = None  # why the last state breaks the invariant (modelcheck/explain.py)

    @property
    def exit_code(self) -> int:
        if self.result.stopped == INTERRUPTED:
            return 130
        if self.result.result != "violation":
            return 0
        from modelcheck.engines.base import DEADLOCK
        return 11 if self.result.violation and self.result.violation.invariant == DEADLOCK else 12

    def to_json(self) -> dict[str, Any]:
        r, p = self.result, self.prepared
        violation = None
        if r.violation is not None:
            violation = {"invariant": r.violation.invariant, "trace_length": r.violation.length,
                         "trace_file": self.trace_file}
        return {
            "spec": p.spec.name,
            "engine": r.engine,
            "constants": p.model.json_constants(),
            "invariants": list(p.invariants),
            "result": r.result,
            "distinct_states": r.distinct_states,
            "depth": r.depth,
            "seconds": round(r.seconds, 3),
            "violation": violation,
        }


def execute(prepared: PreparedRun, progress: Progress) -> RunOutcome:
    request = prepared.request
    engine = get_engine(request.engine)
    limits = Limits(request.max_states, prepared.max_memory)
    options = CheckOptions(prepared.invariants, request.max_depth, prepared.check_deadlock, progress,
                           dict(request.engine_options), limits)
    with interrupt_requests(limits.stop):
        result = engine.check(prepared.model, options)
    trace_file = trace_text = explanation = None
    if result.violation is not None:
        v = result.violation
        trace = trace_from_states(prepared.model, v.states, v.actions, v.invariant, result.engine)
        trace_file = write_trace(trace, request.trace_out, request.overwrite)
        trace_text = render_text(trace)
        if v.invariant in prepared.model.invariants:
            from modelcheck.explain import explain
            explanation = explain(prepared.model, v.states[-1], v.invariant)
    return RunOutcome(prepared, result, trace_file, trace_text, explanation)


def summary_text(outcome: RunOutcome) -> str:
    p, r = outcome.prepared, outcome.result
    lines = [f"modelcheck {__version__} · {p.spec.name} ({p.spec.module}.tla) · engine {r.engine}",
             f"constants   {p.model.describe_constants()}",
             f"invariants  {', '.join(p.invariants)}" + ("  (+ deadlock)" if p.check_deadlock else ""),
             ""]
    if r.result == "violation":
        v = r.violation
        what = "Deadlock reached" if v.invariant == "Deadlock" else f"Invariant {v.invariant} is violated"
        lines.append(f"{what}. Shortest counterexample: {v.length} states.")
        lines.append("")
        lines.append(outcome.trace_text or "")
        lines.append("")
        if outcome.explanation:
            lines.append(outcome.explanation)
            lines.append("")
    elif r.stopped:
        if r.stopped == MAX_STATES:
            why = f"Stopped at --max-states {p.request.max_states:,}"
        elif r.stopped == MAX_MEMORY:
            why = f"Stopped at --max-memory {describe_size(p.max_memory)}"
        else:
            why = "Interrupted"
        lines.append(f"{why} before the search was complete: no invariant is violated in the "
                     f"{r.distinct_states:,} states explored (through depth {r.depth}).")
    elif r.result == "bounded-ok":
        lines.append(f"No invariant is violated up to depth {r.depth} (--max-depth); deeper states were not explored.")
    else:
        lines.append("No invariant is violated: every reachable state was checked.")
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
    width = max(len(k) for k, _ in stats)
    lines.extend(f"  {k.ljust(width)}  {v}" for k, v in stats)
    lines.extend(f"note: {n}" for n in r.notes)
    return "\n".join(lines)


def warn(messages: list[str]) -> None:
    for m in messages:
        print(f"modelcheck: warning: {m}", file=sys.stderr)
