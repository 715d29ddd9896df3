"""``modelcheck replay --prop``: is a lasso a fair behaviour that violates a property?

A lasso file is checked in four parts, each of which can reject it:

1. it is a behaviour: its first state satisfies Init and every step is legal
   (the ordinary replay);
2. its loop closes: the last state steps legally back to the state ITF's
   ``loop`` names, or stutters there;
3. its cycle is fair under the chosen specification (each WF/SF condition
   is taken on the cycle or suitably disabled);
4. the infinite behaviour it stands for violates the property.
"""

from __future__ import annotations

from dataclasses import dataclass

from modelcheck import exitcodes
from modelcheck.errors import InputError
from modelcheck.capabilities.liveness.lasso import (FairnessAccount, LassoShape, account_lines, fairness_accounts,
                                                    violates)
from modelcheck.presentation.replay import ReplayReport, loop_problem, replay
from modelcheck.model.trace import loop_verb_phrase
from modelcheck.presentation.trace_read import BoundTrace

EXIT_HOLDS, EXIT_NOT_A_BEHAVIOUR, EXIT_PROPERTY_VIOLATED = exitcodes.OK, exitcodes.NOT_A_BEHAVIOUR, \
    exitcodes.PROPERTY_VIOLATED


@dataclass
class LassoReplay:
    behaviour: ReplayReport
    property: str
    specification: str
    closes: str | None  # None when the loop closes; else why not
    fairness: list[FairnessAccount]
    violated_cases: list[str]
    shape: LassoShape | None

    @property
    def result(self) -> str:
        if self.behaviour.invalid is not None or self.closes is not None:
            return "invalid"
        if not all(a.fair for a in self.fairness):
            return "unfair"
        return "violation" if self.violated_cases else "ok"

    @property
    def exit_code(self) -> int:
        return {"invalid": EXIT_NOT_A_BEHAVIOUR, "unfair": EXIT_NOT_A_BEHAVIOUR,
                "violation": EXIT_PROPERTY_VIOLATED, "ok": EXIT_HOLDS}[self.result]


def replay_lasso(bound: BoundTrace, prop: str | None, specification: str | None) -> LassoReplay:
    doc, model = bound.document, bound.model
    spec = model.spec
    prop = prop or doc.property
    if prop is None:
        raise InputError("name the temporal property to check the lasso against with --prop")
    spec.check_property_names([prop])
    chosen = spec.specification(specification or doc.specification)
    if doc.loop is None:
        raise InputError(f"{doc.path} is not a lasso: it has no 'loop' (the index of the state its cycle "
                         f"returns to), so it cannot show that a temporal property fails")
    behaviour = replay(bound, (), closing_loop=False)
    states = bound.states
    stutters = doc.stutters or doc.loop == len(states) - 1
    closes = loop_problem(model, states, doc.loop, stutters) if behaviour.invalid is None else None
    if behaviour.invalid is not None or closes is not None:
        return LassoReplay(behaviour, prop, chosen.name, closes, [], [], None)
    shape = LassoShape(states, doc.loop, stutters)
    accounts = fairness_accounts(model, chosen, shape)
    violated = [case.label for case in model.property_cases(prop) if violates(model, case, shape)]
    return LassoReplay(behaviour, prop, chosen.name, None, accounts, violated, shape)


def lasso_report_text(report: LassoReplay) -> str:
    from modelcheck.presentation.replay import report_text
    lines = [report_text(report.behaviour)]
    if report.behaviour.invalid is not None:
        return "\n".join(lines)
    if report.closes is not None:
        lines.append(f"Not a lasso of {report.behaviour.trace.model.spec.name}: {report.closes}.")
        return "\n".join(lines)
    shape = report.shape
    lines.append(f"The loop closes: after state {len(shape.states)}, the behaviour "
                 f"{loop_verb_phrase(len(shape.states), shape.loop, shape.stutters)}.")
    lines.append(f"Fairness under {report.specification}:")
    lines.extend(f"  {line}" for line in account_lines(report.fairness, report.behaviour.trace.model.constants)) if report.fairness else \
        lines.append("  (no fairness condition)")
    if report.result == "unfair":
        lines.append(f"Rejected: the cycle is not fair under {report.specification}, so the lasso is not a "
                     f"behaviour of that specification.")
    elif report.violated_cases:
        lines.append(f"The lasso violates {', '.join(report.violated_cases)}: a fair behaviour of "
                     f"{report.specification} where the property fails.")
    else:
        lines.append(f"The lasso satisfies {report.property}: it is no counterexample.")
    return "\n".join(lines)


def lasso_report_json(report: LassoReplay) -> dict:
    from modelcheck.presentation.replay import report_json
    out = report_json(report.behaviour)
    out.update({"result": report.result, "property": report.property, "specification": report.specification,
                "loop_closes": report.closes is None and report.behaviour.invalid is None,
                "loop_problem": report.closes,
                "fairness": [{"condition": a.fairness.label(), "fair": a.fair, "why": a.sentence()}
                             for a in report.fairness],
                "violated": report.violated_cases})
    return out
