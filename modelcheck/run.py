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
from modelcheck.constants import check_bounds, parse_assignment, parse_value
from modelcheck.engines import DEFAULT_ENGINE, get_engine
from modelcheck.engines.base import CheckOptions, CheckResult
from modelcheck.engines.checkpoint import check_destination as check_checkpoint_destination
from modelcheck.errors import InputError
from modelcheck.fingerprint import collision_probability
from modelcheck.limits import (INTERRUPTED, MAX_MEMORY, MAX_STATES, Limits, StopRequest, describe_size,
                              interrupt_requests, parse_size)
from modelcheck.outputs import check_output_destination, save_trace, story
from modelcheck.progress import Progress
from modelcheck.spark.resume import check_spark_options
from modelcheck.spec import Model, SpecDefinition
from modelcheck.trace import trace_from_states


@dataclass(frozen=True)
class RunRequest:
    spec: str
    engine: str = DEFAULT_ENGINE
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
    properties: tuple[str, ...] = ()  # temporal properties (--prop)
    specification: str | None = None  # the named specification they are checked under
    coverage: str | None = None  # None, "actions" or "full" (modelcheck/coverage.py)
    symmetry: bool = False
    view: bool | None = None  # apply the spec's VIEW (None: as the .cfg says, else the spec's default)


@dataclass
class PreparedRun:
    request: RunRequest
    spec: SpecDefinition
    model: Model
    invariants: tuple[str, ...]
    check_deadlock: bool
    warnings: list[str]
    max_memory: int | None = None
    properties: tuple[str, ...] = ()
    specification: Any = None  # a modelcheck.temporal.Specification when properties are checked
    symmetry: bool = False


def resolve_spec_and_constants(spec_name: str, consts: tuple[str, ...], config: str | None):
    """The spec, its constants (defaults < .cfg < --const) and the .cfg, if any."""
    from specs import get_spec
    spec = get_spec(spec_name)
    cfg = read_config(config) if config else None
    given: dict[str, str] = {}
    if cfg:
        decls = {d.name: d for d in spec.constants}
        for name, value in cfg.constants.items():
            where = f"{cfg.path}:{cfg.constant_lines[name]}"
            if name not in decls:
                raise InputError(f"{where}: {spec.name} has no constant {name!r} "
                                 f"(its constants: {', '.join(sorted(decls))})")
            try:  # a bad value is reported at its line
                check_bounds(decls[name], parse_value(decls[name], value))
            except InputError as e:
                raise InputError(f"{where}: {e}") from None
            given[name] = value
    for text in consts:
        name, value = parse_assignment(text)
        given[name] = value
    return spec, spec.resolve_constants(given), cfg


def prepare(request: RunRequest) -> PreparedRun:
    spec, constants, cfg = resolve_spec_and_constants(request.spec, request.consts, request.config)
    warnings = list(cfg.warnings) if cfg else []
    invariants = tuple(request.invariants) or tuple(cfg.invariants if cfg and cfg.invariants else ())
    properties, specification = _temporal_options(request, spec, cfg, warnings)
    # a run that asks about temporal properties checks only the invariants it names
    invariants = invariants or (() if properties else spec.default_invariants)
    spec.check_invariant_names(invariants)
    if invariants or not properties:  # the port's own checks run whenever invariants are checked
        invariants = tuple(invariants) + tuple(spec.port_checks) + \
            ((spec.evaluation_check,) if spec.evaluation_check else ())
    invariants = tuple(dict.fromkeys(invariants))  # keep order, drop repeats
    if request.max_depth is not None and request.max_depth < 1:
        raise InputError(f"--max-depth must be at least 1, got {request.max_depth}")
    check_deadlock = request.check_deadlock
    if check_deadlock is None:
        check_deadlock = bool(cfg.check_deadlock) if cfg and cfg.check_deadlock is not None else False
    if request.max_states is not None and request.max_states < 1:
        raise InputError(f"--max-states must be at least 1, got {request.max_states}")
    max_memory = parse_size(request.max_memory) if request.max_memory is not None else None
    check_output_destination(request.trace_out, request.overwrite, spec.name)
    from modelcheck.coverage import parse_level, require_collecting
    require_collecting(get_engine(request.engine), parse_level(request.coverage), request.engine)  # unknown: bad too
    if request.coverage and request.engine_options.get("resume"):
        raise InputError("--coverage counts a search from its start; it cannot continue one with --resume")
    _check_checkpoint_options(request)
    from modelcheck.view import wanted_view
    model = spec.instantiate(constants, view=wanted_view(request, spec, cfg, properties, warnings))
    symmetry = _symmetry(request, cfg, model, warnings)
    if properties and symmetry:
        # a lasso over orbit representatives need not map back to a fair lasso
        # of the spec; until that is established, refuse rather than guess
        raise InputError("temporal properties with symmetry: the reduction is not established as sound for them "
                         "here; drop --symmetry (or the .cfg's SYMMETRY line)")
    return PreparedRun(request, spec, model, invariants, check_deadlock, warnings, max_memory, properties,
                       specification, symmetry)


def _temporal_options(request: RunRequest, spec: SpecDefinition, cfg, warnings: list[str]):
    """The temporal properties to check (--prop, else the .cfg's PROPERTY
    lines) and the specification (--specification, else the .cfg's, else Spec)."""
    from modelcheck.liveness.check import check_engine
    properties = tuple(dict.fromkeys(request.properties or (cfg.properties if cfg else ())))
    spec.check_property_names(properties)
    name = request.specification or (cfg.specification if cfg else None)
    specification = spec.specification(name)  # an unknown name is refused even without --prop
    if request.specification and not properties:
        warnings.append(f"--specification {name} only matters for temporal properties; name them with --prop")
    if not properties:
        return (), None
    check_engine(request.engine)
    if request.max_depth is not None:
        raise InputError("temporal properties need the whole state graph; drop --max-depth")
    if request.engine_options.get("checkpoint") or request.engine_options.get("resume"):
        raise InputError("--checkpoint and --resume are for invariant checks; drop them with --prop")
    return properties, specification


def _symmetry(request: RunRequest, cfg, model, warnings: list[str]) -> bool:
    """Whether to keep one state per orbit: --symmetry, or a .cfg SYMMETRY line."""
    from modelcheck.symmetry import check_symmetry_request, symmetry_from_config
    wanted = request.symmetry or symmetry_from_config(cfg, model, warnings)
    if wanted:
        check_symmetry_request(model, request.engine)
    return wanted


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
    liveness: Any = None  # a modelcheck.liveness.check.LivenessResult when properties were checked
    coverage: Any = None  # a modelcheck.coverage.CoverageReport

    @property
    def evaluation_failed(self) -> bool:
        """The run stopped at a step TLC cannot evaluate (not at a violation)."""
        v = self.result.violation
        return v is not None and v.invariant == self.prepared.spec.evaluation_check

    @property
    def exit_code(self) -> int:
        if self.result.stopped == INTERRUPTED:
            return 130
        if self.liveness is not None and self.liveness.violated is not None and self.result.violation is None:
            from modelcheck.liveness.outcome import EXIT_PROPERTY_VIOLATED
            return EXIT_PROPERTY_VIOLATED
        if self.result.result != "violation":
            return 0
        if self.evaluation_failed:
            from modelcheck.evaluation import EXIT_EVALUATION_FAILED
            return EXIT_EVALUATION_FAILED
        from modelcheck.engines.base import DEADLOCK
        return 11 if self.result.violation and self.result.violation.invariant == DEADLOCK else 12

    def to_json(self) -> dict[str, Any]:
        r, p = self.result, self.prepared
        violation = None
        if r.violation is not None:
            violation = {"invariant": r.violation.invariant, "trace_length": r.violation.length,
                         "trace_file": self.trace_file}
        elif self.liveness is not None and self.liveness.violated is not None:
            from modelcheck.liveness.outcome import violation_json
            violation = violation_json(self.liveness, self.trace_file)
        return {
            "spec": p.spec.name,
            "engine": r.engine,
            "constants": p.model.json_constants(),
            "invariants": list(p.invariants),
            "result": "error" if self.evaluation_failed else r.result,
            "distinct_states": r.distinct_states,
            "depth": r.depth,
            "seconds": round(r.seconds, 3),
            "stopped": r.stopped,  # why an incomplete search stopped (a limit, or "interrupted"), else null
            "violation": violation,
            "properties": list(p.properties),
            "specification": p.specification.name if p.specification is not None else None,
            "symmetry": p.symmetry,
            "view": p.model.view,
            **({"coverage": self.coverage.to_json()} if self.coverage is not None else {}),
        }


def execute(prepared: PreparedRun, progress: Progress, stop: StopRequest | None = None,
            engine=None) -> RunOutcome:
    """Run the request's engine (or ``engine``, an object with the engines'
    interface, such as the simulator) and write the trace of a violation;
    ``stop`` is shared with a caller that handles Ctrl-C across several runs
    (a sweep)."""
    from modelcheck.coverage import Coverage
    request = prepared.request
    engine = engine or get_engine(request.engine)
    limits = Limits(request.max_states, prepared.max_memory, stop or StopRequest())
    coverage = Coverage(prepared.model, request.coverage) if request.coverage else None
    options = CheckOptions(prepared.invariants, request.max_depth, prepared.check_deadlock, progress,
                           dict(request.engine_options), limits, coverage, symmetry=prepared.symmetry)
    if prepared.properties and not prepared.invariants:
        result = None
    else:
        with interrupt_requests(limits.stop):
            result = engine.check(prepared.model, options)
        result.notes.extend(collision_notes(result))
        if prepared.symmetry:
            from modelcheck.symmetry import symmetry_note
            result.notes.insert(0, symmetry_note(prepared.model))
    if prepared.properties and (result is None or (result.violation is None and not result.stopped)):
        from modelcheck.liveness.outcome import execute_liveness
        return execute_liveness(prepared, progress, result)
    trace_file = trace_text = explanation = None
    if result.violation is not None and result.violation.invariant in prepared.spec.port_checks:
        from modelcheck.explain import explain
        v = result.violation
        raise InputError(f"{prepared.spec.name}: {explain(prepared.model, v.states[-1], v.invariant)} "
                         f"(a behaviour of {len(v.states)} states reaches it)")
    if result.violation is not None and result.violation.invariant == prepared.spec.evaluation_check:
        from modelcheck.evaluation import evaluation_failure
        result, explanation = evaluation_failure(prepared.model, result)
    if result.violation is not None:
        v = result.violation
        trace = trace_from_states(prepared.model, v.states, v.actions, v.invariant, result.engine)
        saved = save_trace(trace, request.trace_out, request.overwrite)
        if saved.problem:
            warn([saved.problem])
        trace_file, trace_text = saved.file, story(trace, saved.file)
        if v.invariant in prepared.model.invariants and explanation is None:
            from modelcheck.explain import explain
            explanation = explain(prepared.model, v.states[-1], v.invariant)
    return RunOutcome(prepared, result, trace_file, trace_text, explanation,
                      coverage=coverage.report() if coverage is not None else None)


def collision_notes(result: CheckResult) -> list[str]:
    """The chance that fingerprints hid a state, for a complete search that
    found nothing: the same figure whichever engine ran (a violation's trace
    is replayed state by state, so it never rests on fingerprints)."""
    if result.result != "ok" or not result.states_generated or not result.distinct_states:
        return []
    p = collision_probability(result.distinct_states, result.states_generated)
    return [f"fingerprint collision probability (optimistic estimate, as TLC reports it): {p:.1e}"] \
        if p > 1e-12 else []


def summary_text(outcome: RunOutcome) -> str:
    """The whole report: the header, then the verdict (``result_text``)."""
    return header_text(outcome.prepared, outcome.result.engine) + "\n" + result_text(outcome)


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
    p, r = outcome.prepared, outcome.result
    if outcome.liveness is not None and r.violation is None:
        from modelcheck.liveness.outcome import verdict_lines as liveness_verdict_lines
        return liveness_verdict_lines(outcome)
    if r.result == "violation":
        return violation_lines(outcome)
    if r.stopped:
        if r.stopped == MAX_STATES:
            why = f"Stopped at --max-states {p.request.max_states:,}"
        elif r.stopped == MAX_MEMORY:
            why = f"Stopped at --max-memory {describe_size(p.max_memory)}"
        else:
            why = "Interrupted"
        explored = (f"{r.distinct_states:,} states explored (through depth {r.depth})"
                    if r.distinct_states is not None else f"behaviours of up to {r.depth} states examined")
        return [f"{why} before the search was complete: no invariant is violated in the {explored}."]
    if r.result == "bounded-ok":
        return [f"No invariant is violated up to depth {r.depth} (--max-depth); deeper states were not explored."]
    return ["No invariant is violated: every reachable state was checked."]


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
    width = max(len(k) for k, _ in stats)
    return [f"  {k.ljust(width)}  {v}" for k, v in stats]


def warn(messages: list[str]) -> None:
    for m in messages:
        print(f"modelcheck: warning: {m}", file=sys.stderr)
