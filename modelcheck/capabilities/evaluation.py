"""Steps TLC cannot evaluate, reported as TLC reports them.

A spec marks where one of its steps cannot be evaluated (``NextState.fails_if``:
a sequence read outside its domain, Nil compared with a number). The model
gives such a step a successor that records which evaluation failed, and the
spec's evaluation check (an invariant) is false there, so every engine stops
at the point of its search where TLC stops: while expanding the state the
step starts from, in the same order.

That successor is no state of the spec (unless the spec says the state
itself cannot be evaluated, ``SpecDefinition.evaluation_in_state``: an
invariant TLC fails on, reported at a state it found). The report drops it: the trace ends
at the state the step starts from (as TLC prints the behaviour up to the
error), the count is of the states found before it, and the run exits with
TLC's code for an evaluation failure.
"""

from __future__ import annotations

from dataclasses import replace

from modelcheck.engines.base import Violation


def evaluation_failure(model, result):
    """The result without the recording state, and the sentence that says what failed."""
    from modelcheck.model.explain import explain
    v = result.violation
    reason = explain(model, v.states[-1], v.invariant)
    in_state = model.spec.evaluation_in_state
    if in_state is not None and in_state(v.states[-1]):  # the state is found; TLC fails on an invariant there
        return result, f"{reason}."
    failed = model.instances[v.actions[-1]]
    text = f"{reason} (taking {failed.label()} from the last state)."
    trimmed = Violation(v.invariant, v.states[:-1], v.actions[:-1])
    found = result.distinct_states - 1 if result.distinct_states is not None else None
    # TLC's depth: the deepest level it had reached, which is the recording
    # state's only if another state of that level came first
    depth = result.depth - 1 if v.first_in_level and result.depth is not None else result.depth
    return replace(result, violation=trimmed, distinct_states=found, depth=depth), text
