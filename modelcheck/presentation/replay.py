"""``modelcheck replay``: is a trace a behaviour of the spec, and what breaks along it?

Replay checks that the first state satisfies Init and that each later state
is the successor of the one before under some action instance of the spec
(or repeats it: a stuttering step, which TLA+ always allows). Every action
instance whose successor equals the next state is named, so a trace from a
tool that records no actions gets them. The chosen invariants are evaluated
on every state and the first state breaking each is explained.

When a step is not legal, the report says which, and compares the trace's
state with the closest legal successor (the fewest differing values). If the
file names the action it took, the report also says whether that action was
enabled and, if not, which conjuncts of its guard were false.

A counterexample to induction (from ``modelcheck prove``) starts from a state
that need not be reachable: its first state is checked against the
invariants the file says it assumes, and the rest as any behaviour.

A trace that carries a ``loop`` (ITF's mark of a lasso) claims more than its
states: that the last one steps back to the state the loop names. Replayed
for its invariants, that step is checked too, and a loop that does not
close makes the trace not a behaviour, as an illegal step does.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence

from modelcheck import exitcodes
from modelcheck.language.interpreter import evaluate
from modelcheck.model.explain import explain, failing_conjuncts_text, first_violation
from modelcheck.model.trace import loop_verb_phrase
from modelcheck.presentation.trace_read import BoundTrace, ClaimedStep
from modelcheck.language.values import flatten, show

EXIT_OK, EXIT_VIOLATION = exitcodes.OK, exitcodes.INVARIANT_VIOLATED
EXIT_NOT_A_BEHAVIOUR = exitcodes.NOT_A_BEHAVIOUR  # the first state is not initial, or a step is not legal
EXIT_NOT_INDUCTIVE = exitcodes.NOT_INDUCTIVE  # a confirmed counterexample to induction, as `prove` exits


@dataclass
class StepCheck:
    """How state ``state`` (0-based) follows from the one before."""

    state: int
    matches: list[str]  # labels of the action instances that explain the step
    stutter: bool = False
    note: str | None = None  # disagreement with the action the file claims

    @property
    def label(self) -> str:
        if self.stutter:
            return "(stuttering step: no variable changes)"
        return " or ".join(self.matches)


@dataclass
class InvalidStep:
    state: int  # 0-based; 0 means the initial state is not one of Init's
    reason: str
    closest: str | None = None  # the closest legal candidate, by label
    diff: list[str] = field(default_factory=list)  # "path: candidate value / trace value"
    claimed: list[str] = field(default_factory=list)  # what became of the action the file names


@dataclass
class Violation:
    invariant: str
    state: int  # 0-based, the first state breaking it
    explanation: str


@dataclass
class ReplayReport:
    trace: BoundTrace
    invariants: tuple[str, ...]
    steps: list[StepCheck]
    invalid: InvalidStep | None
    violations: list[Violation]
    loop_checked: bool = True  # whether the trace's loop (if any) was checked here, not left to the lasso replay

    @property
    def hypothesis(self) -> tuple[str, ...] | None:
        return self.trace.document.hypothesis

    @property
    def result(self) -> str:
        if self.invalid is not None:
            return "invalid"
        if not self.violations:
            return "ok"
        return "not-inductive" if self.hypothesis is not None else "violation"

    @property
    def exit_code(self) -> int:
        return {"invalid": EXIT_NOT_A_BEHAVIOUR, "violation": EXIT_VIOLATION, "not-inductive": EXIT_NOT_INDUCTIVE,
                "ok": EXIT_OK}[self.result]


def replay(trace: BoundTrace, invariants: Sequence[str], closing_loop: bool = True) -> ReplayReport:
    """Judge a behaviour, or a counterexample to induction: a trace whose
    first state is only claimed to satisfy the hypothesis invariants (it need
    not be reachable), so that is what is checked of it instead of Init.
    A loop the trace carries is checked too, unless ``closing_loop`` is
    False (the lasso replay judges it with its own words)."""
    model, states = trace.model, trace.states
    hypothesis = trace.document.hypothesis
    if hypothesis is None:
        invalid = check_init(model, states[0])
    else:
        model.spec.check_invariant_names(hypothesis)
        invalid = check_hypothesis(model, states[0], hypothesis)
    steps: list[StepCheck] = []
    if invalid is None:
        for k in range(1, len(states)):
            step, invalid = check_step(model, states[k - 1], states[k], k, trace.claimed[k])
            if invalid is not None:
                break
            steps.append(step)
    doc = trace.document
    if invalid is None and doc.loop is not None and closing_loop:
        problem = loop_problem(model, states, doc.loop, doc.stutters)
        if problem is not None:  # past the last state: every state was reached legally
            invalid = InvalidStep(len(states), problem)
    # states past an illegal step are not reachable: only the legal prefix is judged
    checked = states if invalid is None else states[:invalid.state]
    violations = []
    for name in invariants:
        at = first_violation(model, checked, name)
        if at is not None:
            violations.append(Violation(name, at, explain(model, states[at], name)))
    violations.sort(key=lambda v: v.state)
    return ReplayReport(trace, tuple(invariants), steps, invalid, violations, closing_loop)


def loop_problem(model, states: Sequence[tuple], loop: int, stutters: bool) -> str | None:
    """Why a lasso's loop does not close, or None: the last state must step
    legally back to state ``loop`` (0-based), or the behaviour stutter there."""
    if stutters or loop == len(states) - 1:
        return None
    _, invalid = check_step(model, states[-1], states[loop], len(states), None)
    if invalid is None:
        return None
    return (f"the loop does not close: no action of {model.spec.name} leads from the last state "
            f"(state {len(states)}) back to state {loop + 1}")


def check_init(model, state: tuple) -> InvalidStep | None:
    if state in model.init_states:
        return None
    closest, diff = _closest(model, state, [("Init", s) for s in model.init_states])
    return InvalidStep(0, "the first state does not satisfy Init", closest, diff)


def check_hypothesis(model, state: tuple, hypothesis: Sequence[str]) -> InvalidStep | None:
    broken = [name for name in hypothesis if not evaluate(model.invariants[name], state)]
    if not broken:
        return None
    return InvalidStep(0, f"the first state does not satisfy the hypothesis: {', '.join(broken)} "
                          f"{'is' if len(broken) == 1 else 'are'} false there")


def check_step(model, before: tuple, after: tuple, k: int,
               claimed: ClaimedStep | None) -> tuple[StepCheck | None, InvalidStep | None]:
    successors = model.successors(before)
    matches = [model.instances[i].label() for i, t in successors if t == after]
    if matches:
        return StepCheck(k, matches, note=_claim_note(model, claimed, matches)), None
    if after == before:
        return StepCheck(k, [], stutter=True), None
    if not successors:
        return None, InvalidStep(k, f"no action is enabled in state {k}, yet the trace goes on",
                                 claimed=_claim_detail(model, claimed, before, after, k))
    candidates = [(model.instances[i].label(), t) for i, t in successors]
    closest, diff = _closest(model, after, candidates)
    reason = f"state {k + 1} is not reachable from state {k} by any action"
    return None, InvalidStep(k, reason, closest, diff, _claim_detail(model, claimed, before, after, k))


def _closest(model, target: tuple, candidates: list[tuple[str, tuple]]) -> tuple[str, list[str]]:
    """The candidate whose TLA+ values differ from ``target`` in the fewest
    places, and those differences."""
    want = flatten_state(model, target)
    best = None
    for label, state in candidates:
        have = flatten_state(model, state)
        diff = [f"{path}: {show(have.get(path))} there, {show(want.get(path))} in the trace"
                for path in want if have.get(path) != want.get(path)]
        if best is None or len(diff) < len(best[1]):
            best = (label, diff)
    return best


def flatten_state(model, state: tuple) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, value in model.codec.encode(state).items():
        out.update(flatten(value, name))
    return out


def claimed_instances(model, claimed: ClaimedStep | None) -> list:
    """The action instances consistent with what the file says: the same
    action, and equal values for the parameters both name.

    Only scalar parameters are compared: TLC reports a quantified request as
    the whole record where modelcheck names it by its epoch, and it reports
    bound variables modelcheck does not have (LeaderWrite's id and offset)."""
    if claimed is None:
        return []
    wanted = {k: _text(v) for k, v in claimed.params if _is_scalar(v)}
    found = []
    for inst in model.instances:
        if inst.action == claimed.action:
            shown = {k: _text(v) for k, v in inst.shown_params}
            if all(shown[k] == v for k, v in wanted.items() if k in shown):
                found.append(inst)
    return found


def _is_scalar(v: Any) -> bool:
    return isinstance(v, (str, int, bool)) or (isinstance(v, dict) and set(v) == {"#bigint"})


def _claim_detail(model, claimed: ClaimedStep | None, before: tuple, after: tuple, k: int) -> list[str]:
    if claimed is None:
        return []
    candidates = claimed_instances(model, claimed)
    if not candidates:
        if claimed.action in {a.name for a in model.spec.next}:
            return [f"the trace says {claimed.label()}, which names no instance of {claimed.action} here"]
        return [f"the trace says {claimed.label()}; {model.spec.name} has no action {claimed.action}"]
    if len(candidates) > 1:
        enabled = [i for i in candidates if evaluate(i.guard, before)]
        return [f"the trace says {claimed.label()}: {len(candidates)} instances fit, {len(enabled)} of them "
                f"enabled in state {k}, and none leads to state {k + 1}"]
    inst = candidates[0]
    if not evaluate(inst.guard, before):
        return [f"the trace says {inst.label()}, which is not enabled in state {k}: "
                + failing_conjuncts_text(model, before, inst.guard)]
    produced = dict(model.successors(before))[inst.index]
    _, diff = _closest(model, after, [(inst.label(), produced)])
    return [f"the trace says {inst.label()}, which is enabled in state {k} but leads elsewhere:"] + diff


def _claim_note(model, claimed: ClaimedStep | None, matches: list[str]) -> str | None:
    """A remark when the file names one of our actions but the step is
    explained by another (names the file uses that we do not know, such as a
    whole Next disjunct, are not remarked on)."""
    if claimed is None or claimed.action not in {a.name for a in model.spec.next}:
        return None
    if any(inst.label() in matches for inst in claimed_instances(model, claimed)):
        return None
    return f"the trace says {claimed.label()}"


def _text(v: Any) -> str:
    if isinstance(v, bool):
        return "TRUE" if v else "FALSE"
    if isinstance(v, dict) and set(v) == {"#bigint"}:
        return str(v["#bigint"])
    return str(v)


# --- reporting ---------------------------------------------------------------------

def report_text(report: ReplayReport) -> str:
    trace, model = report.trace, report.trace.model
    doc = trace.document
    n = len(trace.states)
    lines = [f"replay {model.spec.name} ({model.spec.module}.tla) · {doc.path} "
             f"({'ITF' if doc.format == 'itf' else 'TLC JSON'}, {n} state{'s' if n != 1 else ''})",
             f"constants   {model.describe_constants()}",
             f"invariants  {', '.join(report.invariants) or '(none)'}",
             ""]
    failing_at: dict[int, list[str]] = {}
    for v in report.violations:
        failing_at.setdefault(v.state, []).append(v.invariant)
    width = len(str(n))

    def mark(k: int) -> str:
        return f"   <- {', '.join(failing_at[k])} broken" if k in failing_at else ""

    first = "Init" if report.hypothesis is None else f"Hypothesis ({conjunction(report.hypothesis)})"
    if report.invalid is None or report.invalid.state > 0:
        lines.append(f"State {1:>{width}}: {first}{mark(0)}")
    for step in report.steps:
        lines.append(f"State {step.state + 1:>{width}}: {step.label}{mark(step.state)}")
        if step.note:
            lines.append(f"  note: {step.note}")
    lines.append("")
    bad = report.invalid
    if bad is not None and report.hypothesis is not None:
        lines.append(f"Not a counterexample to induction for {model.spec.name}: {bad.reason}.")
    elif bad is not None:
        lines.append(f"Not a behaviour of {model.spec.name}: {bad.reason}.")
        lines.extend(("  " if i == 0 else "    ") + line for i, line in enumerate(bad.claimed))
        if bad.closest:
            lines.append(f"  closest legal {'initial state' if bad.state == 0 else 'successor'}: {bad.closest}, "
                         f"which differs in {len(bad.diff)} value{'s' if len(bad.diff) != 1 else ''}:")
            lines.extend(f"    {d}" for d in bad.diff)
    elif report.hypothesis is not None:
        lines.append(f"The trace starts from a state satisfying the hypothesis {conjunction(report.hypothesis)} "
                     f"(it need not be reachable) and {_steps_phrase(n - 1)} a legal transition of {model.spec.name}.")
        if report.violations:
            lines.append("It is a counterexample to induction: the hypothesis alone does not keep the invariants.")
    else:
        lines.append(f"The trace is a behaviour of {model.spec.name}: its first state satisfies Init and "
                     f"{_steps_phrase(n - 1)} a legal transition.")
        if doc.loop is not None and report.loop_checked:
            lines.append(f"Its loop closes: after state {n}, the behaviour "
                         f"{loop_verb_phrase(n, doc.loop, doc.stutters or doc.loop == n - 1)}.")
    if report.violations:
        lines.append("")
        lines.append("Invariants broken along the trace:")
        for v in report.violations:
            lines.append(f"  state {v.state + 1}: {v.explanation}")
    holding = [i for i in report.invariants if i not in {v.invariant for v in report.violations}]
    if bad is not None and bad.state == 0:
        start = "an initial state" if report.hypothesis is None else "a state satisfying its hypothesis"
        lines.append(f"No invariant was checked: the trace does not start in {start}.")
    elif holding:
        where = "every state" if bad is None else f"states 1 to {bad.state}, the legal prefix"
        lines.append(f"Holding in {where}: {', '.join(holding)}")
    lines.extend(f"note: {note}" for note in doc.notes + trace.warnings)
    return "\n".join(lines)


def _steps_phrase(steps: int) -> str:
    return {0: "it takes no step, so none is", 1: "its one step is"}.get(steps, f"each of its {steps} steps is")


def conjunction(names: Sequence[str]) -> str:
    return " /\\ ".join(names)


def report_json(report: ReplayReport) -> dict[str, Any]:
    trace, model = report.trace, report.trace.model
    bad = report.invalid
    return {
        "spec": model.spec.name,
        "trace": trace.document.path,
        "format": trace.document.format,
        "constants": model.json_constants(),
        "invariants": list(report.invariants),
        "states": len(trace.states),
        "result": report.result,
        "hypothesis": None if report.hypothesis is None else list(report.hypothesis),
        "steps": [{"state": s.state + 1, "actions": s.matches, "stutter": s.stutter, "note": s.note}
                  for s in report.steps],
        "loop": None if trace.document.loop is None else trace.document.loop + 1,
        "invalid_step": None if bad is None else {
            "state": bad.state + 1, "reason": bad.reason, "closest": bad.closest, "diff": bad.diff,
            "claimed": bad.claimed},
        "violations": [{"invariant": v.invariant, "state": v.state + 1, "explanation": v.explanation}
                       for v in report.violations],
    }


def load(spec_name: str | None, path: str, consts: Sequence[str] = ()) -> BoundTrace:
    """The trace at ``path`` bound to ``spec_name`` (a name or a spec file;
    None: the spec the trace records); constants: ``--const`` assignments,
    then the file's own, then the spec's defaults."""
    from modelcheck.loading.request import given_constants, spec_for_trace
    from modelcheck.presentation.trace_read import bind, read_trace_file
    doc = read_trace_file(path)
    return bind(doc, spec_for_trace(path, spec_name, doc.spec, doc.spec_source, consts), given_constants(consts))


def chosen_invariants(trace: BoundTrace, requested: Sequence[str]) -> tuple[str, ...]:
    """``--inv`` if given; otherwise the spec's defaults plus the invariant
    the trace file says it breaks."""
    from modelcheck.loading.request import choose_invariants
    if not requested and trace.document.hypothesis:
        # what a counterexample to induction breaks is its own hypothesis
        return tuple(trace.document.hypothesis)
    return choose_invariants(trace.model.spec, requested, recorded=trace.document.invariant)


def warn_all(trace: BoundTrace) -> None:
    from modelcheck.loading.request import warn
    warn(trace.warnings)
