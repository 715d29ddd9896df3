"""Lassos read on their own: is one a fair behaviour that violates a property?

These checks take a lasso as a list of states, the index where its cycle
starts, and whether it closes by stuttering, and evaluate everything on the
states themselves with the compiled Python functions. They do not use the
state graph or the cycle search, so they are an independent second reading
of the same semantics: ``replay --prop`` uses them on trace files, the tests
use them on every lasso the checkers find, and the run report uses them to
say why the cycle is fair.
"""

from __future__ import annotations

from dataclasses import dataclass

from modelcheck.backends.python_codegen import compile_conditions, compile_successors
from modelcheck.language.temporal import FAIRNESS_WORDS, FORMS, Fairness, PropertyCase, Specification, for_each


@dataclass(frozen=True)
class LassoShape:
    states: list[tuple]
    loop: int  # states[loop:] repeat
    stutters: bool  # the cycle is the last state stuttering forever

    def cycle_states(self) -> list[int]:
        return list(range(self.loop, len(self.states)))

    def cycle_steps(self) -> list[tuple[int, int]]:
        """The state-changing steps of the cycle, as (from, to) positions."""
        if self.stutters:
            return []
        last = len(self.states) - 1
        steps = [(k, k + 1) for k in range(self.loop, last)]
        steps.append((last, self.loop))
        return [(a, b) for a, b in steps if self.states[a] != self.states[b]]


def form_values(model, case: PropertyCase, lasso: LassoShape) -> list[list[bool]]:
    """The truth of each argument of the case's formula along the lasso: at
    each state, or, for a form over steps, at each step of the cycle."""
    width = model.schema.width
    args = case.formula.args
    if FORMS[case.formula.form].over_steps:
        fns = compile_conditions({f"x{i}": e for i, e in enumerate(args)}, 2 * width)
        steps = lasso.cycle_steps()
        return [[bool(fns[f"x{i}"](lasso.states[a] + lasso.states[b])) for a, b in steps] for i in range(len(args))]
    fns = compile_conditions({f"x{i}": e for i, e in enumerate(args)}, width)
    return [[bool(fns[f"x{i}"](s)) for s in lasso.states] for i in range(len(args))]


def violates(model, case: PropertyCase, lasso: LassoShape) -> bool:
    """Whether the infinite behaviour the lasso stands for violates the case."""
    return FORMS[case.formula.form].violated(form_values(model, case, lasso), lasso)


@dataclass
class FairnessAccount:
    """Why one fairness condition holds (or not) on a lasso's cycle."""

    fairness: Fairness
    fair: bool
    taken_at: tuple[int, int] | None  # a cycle step that satisfies the action
    disabled_at: list[int]  # cycle states where it is not enabled
    cycle_length: int

    def sentence(self) -> str:
        return f"{self.fairness.words()}: {self.reason()}"

    def reason(self) -> str:
        """Why the condition holds on the cycle, or not: "not enabled anywhere on the cycle"."""
        f = self.fairness
        if self.taken_at is not None:
            a, b = self.taken_at
            return f"taken on the cycle (the step from state {a + 1} to state {b + 1})"
        if not self.disabled_at:
            return "enabled on every state of the cycle and never taken - not fair"
        if f.kind == "SF" and len(self.disabled_at) < self.cycle_length:
            return "enabled at some states of the cycle and never taken - not fair"
        where = ("anywhere on the cycle" if len(self.disabled_at) == self.cycle_length
                 else "at state " + ", ".join(str(k + 1) for k in self.disabled_at[:3])
                 + (" ..." if len(self.disabled_at) > 3 else ""))
        return f"not enabled {where}"


def account_lines(accounts: list[FairnessAccount], constants=None) -> list[str]:
    """The accounts as sentences, a family of conditions (one action for each
    value of a parameter, ``each_value``) grouped per action: where every
    member of a family has the same reason, the family is said once
    ("BrokerStart(b) for each broker b"), together with the other whole
    families of that reason; other conditions one line each. With
    ``constants``, a family names its parameter's values."""
    members: dict[tuple, list[FairnessAccount]] = {}
    for a in accounts:
        if a.fairness.family is not None:
            members.setdefault((a.fairness.kind, a.fairness.family, a.fairness.fixed[0]), []).append(a)
    whole = {key for key, group in members.items() if len({a.reason() for a in group}) == 1}
    lines: list[str] = []
    said: set = set()
    for a in accounts:
        f = a.fairness
        key = (f.kind, f.family, f.fixed[0]) if f.family is not None else None
        if key not in whole:
            lines.append(a.sentence())
            continue
        if key in said:
            continue
        # every whole family of this kind, parameter and reason, in one line
        alike = [k for k in members if k in whole and k not in said and k[0] == f.kind and k[2] == key[2]
                 and members[k][0].reason() == a.reason()]
        said.update(alike)
        names = ", ".join(members[k][0].fairness.family_name() for k in alike)
        every = [m.fairness for k in alike for m in members[k]]
        lines.append(f"{FAIRNESS_WORDS[f.kind][0]} on {names} {for_each(every, constants)}: {a.reason()}")
    return lines


def fairness_accounts(model, specification: Specification, lasso: LassoShape) -> list[FairnessAccount]:
    """For each fairness condition the model has: the first cycle step that
    takes its action, and the cycle states where the action is not enabled."""
    width = model.schema.width
    out = []
    cycle = lasso.cycle_states()
    for f in specification.for_model(model.constants).fairness:  # only what the model has
        step = compile_successors(model.instances_of(f.action), width, f.action.name)
        successors = {k: {t for _, t in step(lasso.states[k]) if t != lasso.states[k]} for k in cycle}
        taken = next(((a, b) for a, b in lasso.cycle_steps() if lasso.states[b] in successors[a]), None)
        disabled = [k for k in cycle if not successors[k]]
        if f.kind == "WF":
            fair = taken is not None or bool(disabled)
        else:
            fair = taken is not None or len(disabled) == len(cycle)
        out.append(FairnessAccount(f, fair, taken, disabled, len(cycle)))
    return out


def is_fair(model, specification: Specification, lasso: LassoShape) -> bool:
    return all(a.fair for a in fairness_accounts(model, specification, lasso))
