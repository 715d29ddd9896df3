"""``modelcheck run``: from the user's request to a verdict, a trace file and a report.

The CLI parses options into a ``RunRequest``; ``prepare`` resolves and checks
everything that can be wrong with the input before any state is explored
(unknown spec, constants, invariants, properties, a capability the engine
lacks, an unwritable trace path), so bad input fails in a second rather than
after a long search. ``execute`` runs the engine once: it checks the
invariants and, when temporal properties are asked for, records the state
graph they are then decided on (``modelcheck/runs/liveness.py``). The
same path serves ``sweep`` (a run per row) and ``simulate`` (with a
simulator for the engine). The report is ``modelcheck/runs/report.py``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from modelcheck import exitcodes
from modelcheck.runtime.destinations import check_output_destination
from modelcheck.engines import DEFAULT_ENGINE, engine_settings, get_engine
from modelcheck.engines.base import DEADLOCK, CheckOptions, CheckResult
from modelcheck.engines.contract import RUN
from modelcheck.errors import InputError
from modelcheck.language.fingerprint import collision_probability, pair_collision_probability
from modelcheck.runtime.limits import INTERRUPTED, Limits, StopRequest, interrupt_requests, parse_size
from modelcheck.presentation.outputs import save_trace, story
from modelcheck.runtime.progress import Progress
from modelcheck.loading.request import check_bounds, choose_invariants, choose_properties, resolve, warn
from modelcheck.model.spec import Model, SpecDefinition
from modelcheck.model.trace import trace_from_states


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
    engine_options: dict[str, Any] = field(default_factory=dict)  # the engine's own options, by settings field
    properties: tuple[str, ...] = ()  # temporal properties (--prop)
    specification: str | None = None  # the named specification they are checked under
    coverage: str | None = None  # None, "actions" or "full" (modelcheck/capabilities/coverage.py)
    symmetry: bool = False
    command: str = RUN  # the command whose engine options these are ("run" or "simulate")
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
    specification: Any = None  # a modelcheck.language.temporal.Specification when properties are checked
    symmetry: bool = False
    settings: Any = None  # the engine's typed settings (see the engine registry)
    # with --symmetry and --prop: the quotients the properties are decided on
    # (modelcheck.capabilities.liveness.symmetric.CaseGroup), one search each
    case_groups: Any = None
    startup_seconds: float = 0.0  # from the process's start to reading the spec
    model_seconds: float = 0.0  # reading the spec and building the model


def prepare(request: RunRequest, progress: Progress | None = None) -> PreparedRun:
    """Everything the run needs before its search, checked; ``progress``
    says what is being done (on a terminal: reading the spec can take a
    second, building a KRaft model several)."""
    from modelcheck.runtime.clock import seconds_since_start
    startup, started = seconds_since_start(), time.perf_counter()
    if progress is not None:
        progress.status(f"reading {request.spec}")
    prepared = _prepare(request, progress)
    prepared.startup_seconds, prepared.model_seconds = startup, time.perf_counter() - started
    if progress is not None:
        progress.clear()
        progress.restart()
    return prepared


def _prepare(request: RunRequest, progress: Progress | None) -> PreparedRun:
    from modelcheck.capabilities import coverage
    from modelcheck.capabilities import symmetry
    from modelcheck.capabilities.liveness import check as temporal
    resolved = resolve(request.spec, request.consts, request.config)
    spec, cfg, warnings = resolved.spec, resolved.cfg, resolved.warnings
    if request.engine == "z3" and spec.widen is not None:
        raise InputError(f"{spec.name}: the z3 engine does not check a TLA+ module read directly (its bounds are "
                         f"learned by exploring states, which z3 does not); use --engine bfs or fast")
    properties, specification = choose_properties(spec, request.properties, cfg, request.specification, warnings)
    settings = engine_settings(request.engine, request.engine_options, request.command)
    if properties:
        temporal.check_request(request.engine, request.max_depth, settings)
    # a run that asks about temporal properties checks only the invariants it names
    invariants = choose_invariants(spec, request.invariants, cfg, defaults=not properties)
    check_bounds(request.max_depth, request.max_states)
    # the port's own checks run in every run: a search for temporal properties over states that outgrew the
    # port's bounds would decide them over states the spec does not have
    evaluation = (spec.evaluation_check,) if spec.evaluation_check and (invariants or not properties) else ()
    invariants = tuple(dict.fromkeys(tuple(invariants) + tuple(spec.port_checks) + evaluation))
    check_deadlock = request.check_deadlock
    if check_deadlock is None:
        check_deadlock = bool(cfg.check_deadlock) if cfg and cfg.check_deadlock is not None else False
    max_memory = parse_size(request.max_memory) if request.max_memory is not None else None
    check_output_destination(request.trace_out, request.overwrite, spec.name)
    coverage.check_request(request.engine, coverage.parse_level(request.coverage), bool(getattr(settings, "resume",
                                                                                                    None)))
    if settings is not None and hasattr(settings, "check"):
        settings.check()
    from modelcheck.capabilities.view import wanted_view
    if progress is not None:
        progress.status(f"building the model of {spec.name} for these constants")
    model = spec.instantiate(resolved.constants, view=wanted_view(request, spec, cfg, properties, warnings))
    if specification is not None:  # the fairness conditions this model has (none of a broker it lacks)
        specification = specification.for_model(model.constants)
    wanted = symmetry.symmetry_requested(request.symmetry, cfg, model, request.engine, warnings)
    case_groups = None
    if properties and wanted:
        from modelcheck.capabilities.liveness.symmetric import case_groups as plan
        case_groups = plan(model, list(properties), specification)
    return PreparedRun(request, spec, model, invariants, check_deadlock, warnings, max_memory, properties,
                       specification, wanted, settings, case_groups)


@dataclass
class RunOutcome:
    prepared: PreparedRun
    result: CheckResult
    trace_file: str | None
    trace_text: str | None
    explanation: str | None = None  # why the last state breaks the invariant (modelcheck/model/explain.py)
    liveness: Any = None  # a modelcheck.capabilities.liveness.check.LivenessResult when properties were decided
    coverage: Any = None  # a modelcheck.capabilities.coverage.CoverageReport
    trace_problem: str | None = None  # when no file holds the trace: where it was tried, and why it failed
    stop_signal: int | None = None  # the signal that interrupted the run (Ctrl-C or SIGTERM), if one did

    @property
    def evaluation_failed(self) -> bool:
        """The run stopped at a step TLC cannot evaluate (not at a violation)."""
        v = self.result.violation
        return v is not None and v.invariant == self.prepared.spec.evaluation_check

    @property
    def exit_code(self) -> int:
        if self.result.stopped == INTERRUPTED:
            return exitcodes.interrupted(self.stop_signal)
        if self.liveness is not None and self.liveness.violated is not None and self.result.violation is None:
            return exitcodes.PROPERTY_VIOLATED
        if self.result.result != "violation":
            return exitcodes.OK
        if self.evaluation_failed:
            return exitcodes.EVALUATION_FAILED
        if self.result.violation and self.result.violation.invariant == DEADLOCK:
            return exitcodes.DEADLOCK
        return exitcodes.INVARIANT_VIOLATED

    def to_json(self) -> dict[str, Any]:
        r, p = self.result, self.prepared
        violation = None
        if r.violation is not None:
            violation = {"invariant": r.violation.invariant, "trace_length": r.violation.length,
                         "trace_file": self.trace_file}
        elif self.liveness is not None and self.liveness.violated is not None:
            from modelcheck.runs.liveness import violation_json
            violation = violation_json(self.liveness, self.trace_file)
        if violation is not None and self.trace_problem:
            violation["trace_problem"] = self.trace_problem
        return {
            "spec": p.spec.name,
            "engine": r.engine,
            "constants": p.model.json_constants(),
            "invariants": list(p.invariants),
            "result": "error" if self.evaluation_failed else r.result,
            "distinct_states": r.distinct_states,
            "depth": r.depth,
            "seconds": round(r.seconds, 3),  # the search's own time (timings.search)
            "stopped": r.stopped,  # why an incomplete search stopped (a limit, or "interrupted"), else null
            "resumed_with": r.resumed_with,  # states a resumed search had from its checkpoint (0: not resumed)
            "resume_seconds": round(r.resume_seconds, 3),  # of "seconds", those spent reading the checkpoint
            "fingerprint_bits": r.fingerprint_bits,  # how states were told apart (null: not by fingerprints)
            "collision_probability": collision_chance(r),  # that two states found share a fingerprint
            "violation": violation,
            "properties": list(p.properties),
            "specification": p.specification.name if p.specification is not None else None,
            "symmetry": p.symmetry,
            "view": p.model.view,
            "notes": list(r.notes),  # what the text report says after its figures
            # per level, where the engine measures it (spark: counts, seconds, and its tasks' seconds by phase)
            **({"levels": r.levels} if r.levels else {}),
            # where the command's time went: from the process's start to reading the spec, building the
            # model, making the engine's kernels (a C kernel built for new constants included), the search
            "timings": {"startup": round(p.startup_seconds, 3), "model": round(p.model_seconds, 3),
                        "kernel": round(r.kernel_seconds, 3), "search": round(r.seconds, 3)},
            "kernel_build": r.kernel_build,  # a C kernel built in this run: "N.NN s, before the search", else null
            **({"coverage": self.coverage.to_json()} if self.coverage is not None else {}),
            # with temporal properties decided: each property, whether every case of it holds
            **({"property_verdicts": self.liveness.property_verdicts()} if self.liveness is not None else {}),
            # under symmetry with temporal properties: which renamings decided which cases, and why
            **({"symmetry_groups": [group.to_json() for group in p.case_groups]} if p.case_groups else {}),
        }


def execute(prepared: PreparedRun, progress: Progress, stop: StopRequest | None = None,
            engine=None) -> RunOutcome:
    """Run the request's engine (or ``engine``, an object with the engines'
    interface, such as a simulator) once, decide the temporal properties on
    the graph it recorded, and write the trace of a violation; ``stop`` is
    shared with a caller that handles Ctrl-C across several runs (a sweep)."""
    from modelcheck.capabilities.coverage import Coverage
    request = prepared.request
    engine = engine or get_engine(request.engine)
    limits = Limits(request.max_states, prepared.max_memory, stop or StopRequest())
    coverage = Coverage(prepared.model, request.coverage) if request.coverage else None
    decided = first = None
    with interrupt_requests(limits.stop):
        for n, (symmetry, group) in enumerate(searches(prepared)):
            graph = None
            if prepared.properties:
                from modelcheck.capabilities.liveness.check import graph_request
                graph = graph_request(prepared.specification, limits, group.group if group else None)
            try:
                options = CheckOptions(checking_order(prepared), request.max_depth, prepared.check_deadlock, progress,
                                       prepared.settings if prepared.settings is not None else {}, limits,
                                       coverage if n == 0 else None, symmetry=symmetry, graph=graph)
                searched = engine.check(prepared.model, options)
                result = first = fold(first, searched) if n else searched
                if n == 0:
                    result.notes.extend(collision_notes(result))
                if prepared.symmetry and group is None:
                    from modelcheck.capabilities.symmetry import symmetry_note
                    result.notes.insert(0, symmetry_note(prepared.model))
                if graph is None or result.violation is not None or result.stopped:
                    break
                from modelcheck.runs.liveness import decide_properties
                decided = decide_properties(prepared, result, limits, progress, group, decided)
                if decided.liveness is None:
                    break
            finally:
                if graph is not None:  # its files, if the graph spilled to disk, go with it
                    graph.close()
    result.graph = None  # the report needs no more of it; let it go
    coverage_report = coverage.report() if coverage is not None else None
    if decided is not None and decided.liveness is not None:
        return RunOutcome(prepared, result, decided.trace_file, decided.trace_text, decided.explanation,
                          decided.liveness, coverage_report, decided.trace_problem, limits.stop.signum)
    trace_file = trace_text = explanation = problem = None
    if result.violation is not None and result.violation.invariant in prepared.spec.port_checks:
        widened = prepared.spec.widen(prepared.model, result.violation.states) if prepared.spec.widen else None
        if widened is not None:  # bounds the spec only estimated: wider ones, and the search again
            if progress is not None:
                progress.note(f"{prepared.spec.name}: a state outgrew the bounds learned for it; widening them and "
                              f"searching again")
            return execute(widen_prepared(prepared, widened), progress, stop, engine)
        from modelcheck.model.explain import explain
        v = result.violation
        raise InputError(f"{prepared.spec.name}: {explain(prepared.model, v.states[-1], v.invariant)} "
                         f"(a behaviour of {len(v.states)} states reaches it)")
    if result.violation is not None and result.violation.invariant == prepared.spec.evaluation_check:
        from modelcheck.capabilities.evaluation import evaluation_failure
        result, explanation = evaluation_failure(prepared.model, result)
    if result.violation is not None:
        v = result.violation
        trace = trace_from_states(prepared.model, v.states, v.actions, v.invariant, result.engine)
        saved = save_trace(trace, request.trace_out, request.overwrite)
        if saved.problem:
            warn([saved.problem])
        trace_file, trace_text, problem = saved.file, story(trace, saved.file, prepared.model), saved.nowhere()
        if v.invariant in prepared.model.invariants and explanation is None:
            from modelcheck.model.explain import explain
            explanation = explain(prepared.model, v.states[-1], v.invariant)
    return RunOutcome(prepared, result, trace_file, trace_text, explanation, coverage=coverage_report,
                      trace_problem=problem, stop_signal=limits.stop.signum)


def checking_order(prepared: PreparedRun) -> tuple[str, ...]:
    """The run's invariants in the order the engine checks them: the port's own
    checks first. An engine reports the first check a state breaks in this
    order, and a state that outgrew the port's bounds is stored clamped, no
    state of the spec: an invariant read on it says nothing, and reporting it
    broken there would be a wrong verdict (the port check widens the bounds
    or stops the run instead)."""
    ports = tuple(n for n in prepared.spec.port_checks if n in prepared.invariants)
    return ports + tuple(n for n in prepared.invariants if n not in ports)


def widen_prepared(prepared: PreparedRun, spec: SpecDefinition) -> PreparedRun:
    """The same request over a spec with wider bounds (see ``SpecDefinition.widen``)."""
    from dataclasses import replace
    spec = replace(spec, loaded_from=prepared.spec.loaded_from)  # a trace names the file it came from
    model = spec.instantiate(prepared.model.constants, view=prepared.model.view)
    return replace(prepared, spec=spec, model=model)


def fold(first: CheckResult, later: CheckResult) -> CheckResult:
    """A later search of the same run folded into the first, whose counts the
    report gives (under symmetry, the orbits under every renaming)."""
    first.seconds += later.seconds
    first.kernel_seconds += later.kernel_seconds
    first.kernel_build = first.kernel_build or later.kernel_build
    first.result, first.stopped, first.violation, first.graph = later.result, later.stopped, later.violation, \
        later.graph
    first.notes.extend(n for n in later.notes if n not in first.notes)
    return first


def searches(prepared: PreparedRun) -> list[tuple[Any, Any]]:
    """The engine searches a run needs: one, or under symmetry with temporal
    properties one per quotient (``(symmetry, CaseGroup)``)."""
    if not prepared.case_groups:
        return [(prepared.symmetry, None)]
    return [(group.group or False, group) for group in prepared.case_groups]


def collision_notes(result: CheckResult) -> list[str]:
    """The chance that fingerprints hid a state, in every report of a search
    that told states apart by fingerprints: that two of the states found
    share one (the second is then never counted nor explored beyond), and
    the optimistic estimate TLC reports beside it, for a complete search
    (elsewhere it counts successors each engine generates differently). A
    violation's trace is replayed state by state, so it never rests on
    fingerprints; its count and its being the shortest do."""
    bits, found = result.fingerprint_bits, result.distinct_states
    if not bits or not found:
        return []
    line = (f"fingerprint collision probability ({bits}-bit fingerprints): {collision_chance(result):.1e} that "
            f"two of the {found:,} states found share one")
    if result.states_generated and result.result == "ok" and not result.stopped:
        line += (f"; {collision_probability(found, result.states_generated, bits):.1e} by TLC's optimistic "
                 f"estimate")
    return [line]


def collision_chance(result: CheckResult) -> float | None:
    """That two of the states a search found share a fingerprint, or None without fingerprints."""
    if not result.fingerprint_bits or not result.distinct_states:
        return None
    return pair_collision_probability(result.distinct_states, result.fingerprint_bits)
