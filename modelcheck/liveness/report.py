"""A violated temporal property told in the protocol's terms.

The lasso the search found becomes an ordinary ``Trace`` (ITF, with the
cycle's start in ITF's ``loop`` field) and a few sentences: which property
fails and how, which states repeat, and for each fairness condition of the
specification why the cycle satisfies it.
"""

from __future__ import annotations

from modelcheck.liveness.lasso import LassoShape, fairness_accounts
from modelcheck.liveness.search import Lasso
from modelcheck.temporal import FORMS, PropertyCase, Specification
from modelcheck.trace import Trace, trace_from_states


def lasso_shape(graph, lasso: Lasso) -> LassoShape:
    return LassoShape([graph.state(n) for n in lasso.nodes], lasso.loop, lasso.stutters)


def lasso_trace(model, graph, lasso: Lasso, case: PropertyCase, specification: Specification,
                engine: str) -> Trace:
    actions: list[int | None] = [None]
    for i in range(1, len(lasso.nodes)):
        edge = lasso.edges[i]
        actions.append(int(graph.instance[edge]) if edge is not None else lasso.tree[i])
    trace = trace_from_states(model, [graph.state(n) for n in lasso.nodes], actions, None, engine)
    trace.loop = lasso.loop
    closing = None if lasso.closing is None else model.instances[int(graph.instance[lasso.closing])].label()
    trace.meta.update({"property": case.property, "case": case.case or None,
                       "specification": specification.name, "stutters": lasso.stutters,
                       "loop_action": closing})
    return trace


def loop_phrase(length: int, loop: int, stutters: bool, closing: str | None = None) -> str:
    """How the lasso ends, with states numbered from 1, as a trace's last
    line says it: "back to state 9 via A(...)" or "stutters forever from state 4"."""
    if stutters:
        return f"stutters forever from state {length}"
    via = f" via {closing}" if closing else ""
    return f"back to state {loop + 1}{via}"


def loop_verb_phrase(length: int, loop: int, stutters: bool, closing: str | None = None) -> str:
    """The same, as what the behaviour does, for a sentence: "goes back to
    state 9 via A(...)" or "stutters forever from state 4"."""
    phrase = loop_phrase(length, loop, stutters, closing)
    return phrase if stutters else f"goes {phrase}"


def states_text(n: int) -> str:
    return f"{n} state" if n == 1 else f"{n} states"


def _what_fails(model, case: PropertyCase, shape: LassoShape) -> str:
    from modelcheck.backends.python_codegen import compile_conditions
    form, args = case.formula.form, case.formula.args
    width = model.schema.width
    states = shape.states
    first = shape.loop + 1
    last = len(states)
    span = f"state {first}" if first == last else f"states {first}-{last}"
    if form == "eventually_always_step":
        holds = compile_conditions({"a": args[0]}, 2 * width)["a"]
        a, b = next((a, b) for a, b in shape.cycle_steps() if not holds(states[a] + states[b]))
        return (f"the step from state {a + 1} to state {b + 1} breaks the step condition, and the cycle "
                f"({span}) repeats it forever")
    fns = compile_conditions({f"x{i}": e for i, e in enumerate(args)}, width)
    value = [[fns[f"x{i}"](s) for s in states] for i in range(len(args))]
    if form == "eventually":
        return "the condition holds in no state of the behaviour"
    if form == "always_eventually":
        return f"the condition holds in no state of the cycle ({span}), so from state {first} on it never holds again"
    if form == "eventually_always":
        k = next(k for k in shape.cycle_states() if not value[0][k])
        return f"the condition fails in state {k + 1}, which is on the cycle ({span}) and so recurs forever"
    if form == "leads_to":
        p, q = value
        i = next(i for i in range(last) if p[i] and not any(q[min(i, shape.loop):]))
        return f"the first condition holds in state {i + 1}, and the second holds in no state from there on"
    if form == "infinitely_often_implies_eventually":
        k = next(k for k in shape.cycle_states() if value[0][k])
        return (f"the first condition holds in state {k + 1} on the cycle ({span}), so infinitely often, "
                f"but the second holds in no state")
    raise ValueError(form)


def explain_violation(model, case: PropertyCase, specification: Specification, shape: LassoShape,
                      closing: str | None = None) -> str:
    doc = next((p.doc for p in model.spec.properties if p.name == case.property), "")
    lines = [f"{case.label} ({FORMS[case.formula.form]}) fails: {_what_fails(model, case, shape)}."]
    if doc:
        lines.append(f"  The property: {' '.join(doc.split())}")
    ending = loop_verb_phrase(len(shape.states), shape.loop, shape.stutters, closing)
    lines.append(f"  The behaviour runs {states_text(len(shape.states))}, then {ending}.")
    accounts = fairness_accounts(model, specification, shape)
    if not accounts:
        lines.append(f"  {specification.name} has no fairness condition, so any such behaviour counts.")
    else:
        lines.append(f"  It is a fair behaviour of {specification.name}:")
        lines.extend(f"    {a.sentence()}" for a in accounts)
    return "\n".join(lines)
