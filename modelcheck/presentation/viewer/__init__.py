"""Trace viewers: ``modelcheck show TRACE`` in the terminal, or as one HTML file.

``load_view`` reads a trace, rebuilds the model from the spec and constants
the trace names (or ``--spec``/``--const``), labels every step with its
action, and works out which invariants break and why. The terminal and HTML
renderers draw the resulting ``TraceView``.

May import what the rest of ``modelcheck.presentation`` may.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from modelcheck.errors import InputError
from modelcheck.model.explain import explain_account, first_violation
from modelcheck.presentation.replay import check_step
from modelcheck.presentation.trace_read import BoundTrace, bind, read_trace_file
from modelcheck.presentation.viewer.layout import (LOG_LEGEND, Frame, Group, build_frames, declared_layouts, groups_for,
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
    phrase: str  # "back to state 9 via A(...)" or "stutters forever from state 4"
    explanation: str | None
    length: int = 0  # states in the trace
    stutters: bool = False
    closing: str | None = None  # the action that leads from the last state back to the start
    property: str | None = None  # the property the file says the lasso violates
    specification: str | None = None

    def headline(self) -> str:
        """What the lasso shows, in a sentence: which property fails, and how
        the behaviour goes on forever."""
        under = f" under {self.specification}" if self.property and self.specification else ""
        what = f"{self.property} is violated{under}" if self.property else "This behaviour never ends"
        last, first = self.length, self.start + 1
        if self.stutters:
            return f"{what}: from state {last} on, nothing changes; the behaviour stays in state {last} forever."
        step = f"{self.closing} leads" if self.closing else "the behaviour goes"
        cycle = f"state {first} repeats" if first == last else f"states {first} to {last} repeat"
        return f"{what}: after state {last}, {step} back to state {first}, and {cycle} forever."

    def verb_phrase(self) -> str:
        """How it ends, as what the behaviour does: "goes back to state 9 via A(...)"."""
        from modelcheck.model.trace import loop_verb_phrase
        return loop_verb_phrase(self.length, self.start, self.stutters, self.closing)


def title(view: "TraceView") -> str:
    """What a trace shows, for a page's title: the invariants it breaks
    (and where), or the temporal property its lasso violates."""
    from modelcheck.model.trace import states_text
    parts = [f"{b.invariant} violated in state {b.state + 1}" for b in view.breakages]
    lasso = view.lasso
    if lasso is not None and lasso.property:
        under = f" under {lasso.specification}" if lasso.specification else ""
        parts.insert(0, f"{lasso.property} violated{under}")
    elif lasso is not None:
        parts.insert(0, f"a behaviour of {states_text(len(view.frames))} that {lasso.verb_phrase()}")
    if not parts:
        parts = [f"a trace of {states_text(len(view.frames))}"]
    return f"{view.model.spec.name}: {', '.join(parts)}"


@dataclass
class TraceView:
    trace: BoundTrace
    groups: list[Group]
    frames: list[Frame]
    illegal: list[int]  # 0-based indices of states no action reaches from the one before
    breakages: list[Breakage]
    lasso: LassoNote | None = None
    legend: str = LOG_LEGEND  # how the layout writes a log ("" when it draws none)

    @property
    def model(self):
        return self.trace.model

    def breakages_at(self, index: int) -> list[Breakage]:
        return [b for b in self.breakages if b.state == index]


def load_view(path: str, spec_name: str | None = None, consts: Sequence[str] = (),
              invariants: Sequence[str] = (), model=None) -> TraceView:
    """``model``: a model already built, used if it is the trace's own (the
    run that wrote the trace shows it with its model)."""
    from modelcheck.loading.request import choose_invariants, given_constants, spec_for_trace
    doc = read_trace_file(path)
    bound = bind(doc, spec_for_trace(path, spec_name, doc.spec, doc.spec_source, consts), given_constants(consts), model)
    labels, illegal = step_labels(bound)
    model = bound.model
    # the invariant the trace records, if it is one of the spec's; else the spec's defaults
    recorded = (doc.invariant,) if doc.invariant in model.invariants else ()
    breakages = []
    for inv in choose_invariants(model.spec, list(invariants) or recorded):
        at = first_violation(model, bound.states, inv)
        if at is not None:
            account = explain_account(model, bound.states[at], inv)
            breakages.append(Breakage(inv, at, account.text, account.focus))
    frames = build_frames(model, bound.states, labels)
    declared = declared_layouts(model.spec)
    return TraceView(bound, groups_for(model.codec.names, declared), frames, illegal, breakages, lasso_note(bound),
                     legend_for(model.codec.names, declared))


def lasso_note(bound: BoundTrace) -> LassoNote | None:
    """For a trace with a loop: where the cycle starts, the action that
    leads back to it and, if the file names the property it violates, the
    explanation the run report gives."""
    from modelcheck.capabilities.liveness.lasso import LassoShape, violates
    from modelcheck.capabilities.liveness.report import explain_violation
    from modelcheck.model.trace import loop_phrase
    doc, model = bound.document, bound.model
    if doc.loop is None:
        return None
    n = len(bound.states)
    stutters = doc.stutters or doc.loop == n - 1
    closing = None if stutters else closing_action(bound)
    phrase = loop_phrase(n, doc.loop, stutters, closing)
    explanation = None
    known = doc.property in model.spec.property_names()
    if known:
        shape = LassoShape(bound.states, doc.loop, stutters)
        case = next((c for c in model.property_cases(doc.property) if violates(model, c, shape)), None)
        if case is not None and doc.specification in model.spec.specification_names():
            explanation = explain_violation(model, case, model.spec.specification(doc.specification), shape,
                                            closing)
    return LassoNote(doc.loop, phrase, explanation, n, stutters, closing, doc.property if known else None,
                     doc.specification if known else None)


def closing_action(bound: BoundTrace) -> str | None:
    """The action that leads from a lasso's last state back to the state its
    cycle starts at: the one the file names if it does, else every action
    that does ("A or B"); None if no action does (replay says so)."""
    doc, states = bound.document, bound.states
    if doc.loop_action and leads_to(bound.model, doc.loop_action, states[-1], states[doc.loop]):
        return doc.loop_action
    step, _ = check_step(bound.model, states[-1], states[doc.loop], len(states), None)
    if step is None or step.stutter:
        return None
    if doc.loop_action in step.matches:
        return doc.loop_action
    return " or ".join(step.matches)


def leads_to(model, label: str, before: tuple, after: tuple) -> bool:
    """Whether the action instance labelled ``label`` leads from ``before``
    to ``after``: the step a file names, checked on that instance alone
    (compiling every instance of a KRaft model to label a few steps took
    most of ``show``'s time)."""
    from modelcheck.backends.python_codegen import compile_successors
    named = [inst for inst in model.instances if inst.label() == label]
    if not named:
        return False
    return any(t == after for _, t in compile_successors(named, model.schema.width, label)(before))


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
        claimed = bound.claimed[k]
        if claimed is not None and leads_to(model, claimed.label(), states[k - 1], states[k]):
            labels.append(claimed.label())  # what every action would say too: the file's own name wins
            continue
        step, _ = check_step(model, states[k - 1], states[k], k, None)
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
