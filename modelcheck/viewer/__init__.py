"""Trace viewers: ``modelcheck show TRACE`` in the terminal, or as one HTML file.

``load_view`` reads a trace, rebuilds the model from the spec and constants
the trace names (or ``--spec``/``--const``), labels every step with its
action, and works out which invariants break and why. The terminal and HTML
renderers draw the resulting ``TraceView``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from modelcheck.errors import InputError
from modelcheck.explain import explain_account, first_violation
from modelcheck.replay import check_step
from modelcheck.trace_read import BoundTrace, bind, read_trace_file
from modelcheck.viewer.layout import (LOG_LEGEND, Frame, Group, build_frames, declared_layouts, groups_for,
                                      legend_for)


@dataclass
class Breakage:
    invariant: str
    state: int  # 0-based index of the first state breaking it
    explanation: str
    focus: tuple[tuple[str, str, int], ...] = ()  # the slots the story is about: (row, log cell, offset)


@dataclass
class LassoNote:
    """How a lasso closes, and why it violates its temporal property."""

    start: int  # 0-based index of the state the cycle returns to
    phrase: str  # "back to state 9" or "stutters forever from state 4"
    explanation: str | None


@dataclass
class TraceView:
    trace: BoundTrace
    groups: list[Group]
    frames: list[Frame]
    illegal: list[int]  # 0-based indices of states no action reaches from the one before
    breakages: list[Breakage]
    lasso: LassoNote | None = None
    legend: str = LOG_LEGEND  # how the layout writes a log

    @property
    def model(self):
        return self.trace.model

    def breakages_at(self, index: int) -> list[Breakage]:
        return [b for b in self.breakages if b.state == index]


def load_view(path: str, spec_name: str | None = None, consts: Sequence[str] = (),
              invariants: Sequence[str] = ()) -> TraceView:
    from modelcheck.constants import parse_assignment
    from specs import get_spec
    doc = read_trace_file(path)
    name = spec_name or doc.spec
    if not name:
        raise InputError(f"{path} does not say which spec it is a trace of; name it with --spec")
    given = dict(parse_assignment(text) for text in consts)
    bound = bind(doc, get_spec(name), given)
    labels, illegal = step_labels(bound)
    model = bound.model
    chosen = list(invariants) or ([doc.invariant] if doc.invariant in model.invariants
                                  else list(model.spec.default_invariants))
    model.spec.check_invariant_names(chosen)
    breakages = []
    for inv in dict.fromkeys(chosen):
        at = first_violation(model, bound.states, inv)
        if at is not None:
            account = explain_account(model, bound.states[at], inv)
            breakages.append(Breakage(inv, at, account.text, account.focus))
    frames = build_frames(model, bound.states, labels)
    declared = declared_layouts(model.spec)
    return TraceView(bound, groups_for(model.codec.names, declared), frames, illegal, breakages, lasso_note(bound),
                     legend_for(model.codec.names, declared))


def lasso_note(bound: BoundTrace) -> LassoNote | None:
    """For a trace with a loop: where the cycle starts and, if the file names
    the property it violates, the explanation the run report gives."""
    from modelcheck.liveness.lasso import LassoShape, violates
    from modelcheck.liveness.report import explain_violation, loop_phrase
    doc, model = bound.document, bound.model
    if doc.loop is None:
        return None
    n = len(bound.states)
    stutters = doc.stutters or doc.loop == n - 1
    phrase = loop_phrase(n, doc.loop, stutters)
    explanation = None
    if doc.property in model.spec.property_names():
        shape = LassoShape(bound.states, doc.loop, stutters)
        case = next((c for c in model.property_cases(doc.property) if violates(model, c, shape)), None)
        if case is not None and doc.specification in model.spec.specification_names():
            explanation = explain_violation(model, case, model.spec.specification(doc.specification), shape)
    return LassoNote(doc.loop, phrase, explanation)


def step_labels(bound: BoundTrace) -> tuple[list[str], list[int]]:
    """Each state's label: "Init", then the action that explains each step
    (the file's own name for it when it is one of those), and the steps no
    action explains."""
    model, states = bound.model, bound.states
    hypothesis = bound.document.hypothesis
    # a counterexample to induction starts from any state satisfying the hypothesis
    labels = ["Init" if hypothesis is None else f"Hypothesis ({' and '.join(hypothesis)}; need not be reachable)"]
    illegal: list[int] = []
    for k in range(1, len(states)):
        step, _ = check_step(model, states[k - 1], states[k], k, None)
        claimed = bound.claimed[k]
        if step is None:
            illegal.append(k)
            labels.append((claimed.label() if claimed else "?") + "  [not a legal step of "
                          f"{model.spec.name}]")
        elif step.stutter:
            labels.append(step.label)
        elif claimed is not None and claimed.label() in step.matches:
            labels.append(claimed.label())
        else:
            labels.append(step.matches[0] if len(step.matches) == 1 else " or ".join(step.matches))
    return labels, illegal
