"""A violated temporal property told in the protocol's terms.

The lasso the search found becomes an ordinary ``Trace`` (ITF, with the
cycle's start in ITF's ``loop`` field) and a few sentences: which property
fails and how, which states repeat, and for each fairness condition of the
specification why the cycle satisfies it.
"""

from __future__ import annotations

from modelcheck.capabilities.liveness.lasso import LassoShape, account_lines, fairness_accounts, form_values
from modelcheck.capabilities.liveness.search import Lasso
from modelcheck.language.temporal import FORMS, PropertyCase, Specification
from modelcheck.model.trace import Trace, loop_verb_phrase, states_text, trace_from_states


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


def _what_fails(model, case: PropertyCase, shape: LassoShape) -> str:
    first, last = shape.loop + 1, len(shape.states)
    span = f"state {first}" if first == last else f"states {first}-{last}"
    return FORMS[case.formula.form].what_fails(form_values(model, case, shape), shape, span)


def explain_violation(model, case: PropertyCase, specification: Specification, shape: LassoShape,
                      closing: str | None = None) -> str:
    doc = next((p.doc for p in model.spec.properties if p.name == case.property), "")
    form = FORMS[case.formula.form]
    lines = [f"{case.label} fails: {_what_fails(model, case, shape)}."]
    if doc:
        lines.append(f"  The property: {' '.join(doc.split())}")
    lines.append(f"  Its form, {form.words}: {form.meaning}.")
    ending = loop_verb_phrase(len(shape.states), shape.loop, shape.stutters, closing)
    lines.append(f"  The behaviour runs {states_text(len(shape.states))}, then {ending}.")
    accounts = fairness_accounts(model, specification, shape)
    if not accounts:
        lines.append(f"  {specification.name} has no fairness condition, so any such behaviour counts.")
    else:
        lines.append(f"  It is a fair behaviour of {specification.name}:")
        lines.extend(f"    {line}" for line in account_lines(accounts, model.constants))
    return "\n".join(lines)
