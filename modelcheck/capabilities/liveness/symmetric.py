"""Temporal properties under symmetry: which renamings each property case is
checked under, and its lasso lifted back to a behaviour of the spec itself.

A quotient by a group G of replica renamings keeps every fair cycle, and
adds none, when G maps onto itself everything a cycle is judged by: the
spec (Init and Next), the chosen specification's fairness, the invariants
checked and the property case (docs/liveness.md gives the argument). The
spec declares its replicas interchangeable, which covers Init, Next, its
invariants and the text of its properties; what is left is derived here
from the definitions:

* WF or SF on a whole action is fairness on the disjunction over all of its
  parameters; a renaming only permutes those parameters' values, so it maps
  the condition onto itself. Fairness on part of an action would be
  invariant only under the renamings that map that part onto itself, and is
  refused.
* A case that binds no replica (``EpochsConverge``, or a forall over
  epochs) is unchanged by every renaming.
* The case ``r=r1`` of ``\\A r \\in Replicas : F(r)`` is unchanged by
  exactly the renamings that fix r1 (its stabiliser). The case ``r=rk`` is
  the image of that one under the renaming that swaps r1 and rk, which maps
  the spec, the fairness and the invariants onto themselves; so it holds iff
  the r1 case does, and is not searched again.
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass, field

import numpy as np

from modelcheck.search.canonical import EVERY_RENAMING, Canonicaliser, Stabiliser
from modelcheck.errors import InputError
from modelcheck.runtime.limits import Limits
from modelcheck.capabilities.liveness.check import LivenessResult, decide, graph_request
from modelcheck.capabilities.liveness.search import Lasso
from modelcheck.language.renaming import rename_instances, symmetric_constant
from modelcheck.language.temporal import Fairness, PropertyCase, Specification


@dataclass
class CaseGroup:
    """The property cases one quotient decides: the group, why, and the
    cases that follow from them by symmetry (label -> labels)."""

    group: Stabiliser | None  # None: the identity alone, so the unreduced graph
    reason: str
    cases: list[PropertyCase] = field(default_factory=list)
    follow: dict[str, list[str]] = field(default_factory=dict)

    def to_json(self) -> dict:
        return {"fixed": self.group.fixed if self.group is not None else None,
                "cases": [c.label for c in self.cases],
                "follow": sorted({x for labels in self.follow.values() for x in labels}), "reason": self.reason}


def check_fairness(specification: Specification) -> None:
    """Refuse fairness that a renaming may not map onto itself."""
    whole = {f.name for f in dataclasses.fields(Fairness)}
    for f in specification.fairness:
        if {x.name for x in dataclasses.fields(f)} != whole or not isinstance(f, Fairness):
            raise InputError(f"--symmetry with --prop: {specification.name}'s fairness condition "
                             f"{f.label()} is not on a whole action, and its invariance under renaming is "
                             f"not established; drop --symmetry")


def case_groups(model, properties: list[str], specification: Specification) -> list[CaseGroup]:
    """The quotients a symmetric check of ``properties`` needs, each with the
    cases it decides; every renaming's first, if any case needs it."""
    check_fairness(specification)
    constant = symmetric_constant(model)
    names = tuple(getattr(model.constants, constant))
    groups: dict[int, CaseGroup] = {}
    for name in properties:
        cases = model.property_cases(name)
        for case in cases:
            bound = case.bound
            if bound is None or bound[0] != constant:
                group = groups.setdefault(0, CaseGroup(EVERY_RENAMING, _every_reason(names)))
                group.cases.append(case)
            elif bound[1] == 0:
                fixing = Stabiliser(1) if len(names) > 2 else None  # with two replicas, only the identity fixes r1
                group = groups.setdefault(1, CaseGroup(fixing, _fixing_reason(names)))
                group.cases.append(case)
                group.follow[case.label] = [c.label for c in cases if c is not case]
    return [groups[k] for k in sorted(groups)]


def _every_reason(names: tuple[str, ...]) -> str:
    return (f"{EVERY_RENAMING.describe(names)}: these cases name no replica, and the spec, its fairness "
            f"(on whole actions) and the invariants are unchanged by any renaming")


def _fixing_reason(names: tuple[str, ...]) -> str:
    group = (Stabiliser(1).describe(names) if len(names) > 2 else
             f"no renaming but the identity (the unreduced graph), the only renaming of {{{', '.join(names)}}} "
             f"that fixes {names[0]}")
    return (f"{group}: a case about {names[0]} is unchanged exactly by the renamings "
            f"that leave {names[0]} alone; the cases about the other replicas are its images under renaming, "
            f"so they hold iff it does")


# --- a quotient lasso lifted to a lasso of the spec -------------------------------------


@dataclass
class LiftedGraph:
    """The states and steps of a lifted lasso, read as ``lasso_trace`` reads a graph."""

    states: list[tuple]
    instance: np.ndarray  # edge k goes into state k+1 (the last one closes the cycle)

    def state(self, n: int) -> tuple:
        return self.states[n]


def positional(model, graph, lasso: Lasso) -> tuple[Lasso, LiftedGraph]:
    """A lasso of an unreduced graph in the form ``lift`` gives."""
    count = len(lasso.nodes)
    actions = [int(graph.instance[e]) if e is not None else int(t)
               for e, t in zip(lasso.edges[1:], lasso.tree[1:])]
    if lasso.closing is not None:
        actions.append(int(graph.instance[lasso.closing]))
    return (Lasso(list(range(count)), [None] + list(range(count - 1)), [None] * count, lasso.loop,
                  None if lasso.closing is None else count - 1),
            LiftedGraph([graph.state(n) for n in lasso.nodes], np.array(actions, np.int64)))


def lift(model, graph, lasso: Lasso) -> tuple[Lasso, LiftedGraph]:
    """A lasso of the spec itself standing for ``lasso``, found on the
    quotient ``graph`` (whose ``group`` says by which renamings).

    Step by step, a genuine state ``sigma(u)`` over the search's node u takes
    ``sigma`` of the step the quotient edge stands for (a genuine step from
    u's state), and the next ``sigma`` is the renaming in the group that
    maps the next node's state onto the state reached. Around the cycle,
    the genuine state at its start may come back renamed; the cycle is then
    walked again until a start state repeats (at most once per member of the
    group), and the lasso loops back to it. Every step is a renamed copy of
    a quotient step, and the group maps the fairness and the case onto
    themselves, so the cycle is fair and violates the case as the quotient's did.
    """
    canon = Canonicaliser(model, group=graph.group)
    perms = graph.group.permutations(canon.roles.replicas)
    instance_maps: dict[tuple[int, ...], list[int]] = {}

    def renamed_instance(i: int, p: tuple[int, ...]) -> int:
        if p not in instance_maps:
            instance_maps[p] = rename_instances(model, p)
        return instance_maps[p][i]

    def step(node_from: int, instance: int) -> tuple:
        return next(t for i, t in model.successors(graph.state(node_from)) if i == instance)

    def renaming_onto(node: int, state: tuple) -> tuple[int, ...]:
        rep = graph.state(node)
        return next(p for p in perms if canon.rename(rep, p) == state)

    states = [graph.state(lasso.nodes[0])]  # Init is unchanged by renaming: its representative is initial
    actions: list[int] = []
    sigma = perms[0]  # the identity
    for k in range(1, len(lasso.nodes) if lasso.stutters else lasso.loop + 1):
        edge = lasso.edges[k]
        instance = int(graph.instance[edge]) if edge is not None else int(lasso.tree[k])
        states.append(canon.rename(step(lasso.nodes[k - 1], instance), sigma))
        actions.append(renamed_instance(instance, sigma))
        sigma = renaming_onto(lasso.nodes[k], states[-1])
    loop = lasso.loop
    if lasso.stutters:
        return Lasso(list(range(len(states))), [None] + list(range(len(actions))), [None] * len(states), loop,
                     None), LiftedGraph(states, np.array(actions, np.int64))
    cycle_steps = [(lasso.nodes[k - 1], int(graph.instance[lasso.edges[k]])) for k in range(loop + 1, len(lasso.nodes))]
    cycle_steps.append((lasso.nodes[-1], int(graph.instance[lasso.closing])))
    starts = {states[-1]: len(states) - 1}
    while True:  # once round the quotient's cycle per pass
        for j, (node_from, instance) in enumerate(cycle_steps):
            here = renaming_onto(node_from, states[-1])
            reached = canon.rename(step(node_from, instance), here)
            actions.append(renamed_instance(instance, here))
            if j < len(cycle_steps) - 1:
                states.append(reached)
        if reached in starts:
            closing_at = starts[reached]
            break
        states.append(reached)
        starts[reached] = len(states) - 1
    count = len(states)
    lifted = Lasso(list(range(count)), [None] + list(range(count - 1)), [None] * count, closing_at, count - 1)
    return lifted, LiftedGraph(states, np.array(actions, np.int64))


def check_symmetric(model, engine: str, properties: list[str], specification: Specification,
                    progress) -> LivenessResult:
    """``check_liveness`` under symmetry: one search per quotient the cases
    need, each case decided on its own quotient, every lasso lifted to a
    lasso of the spec (its states in the verdict's ``lifted``)."""
    from modelcheck.engines import get_engine, require
    from modelcheck.engines.base import CheckOptions
    from modelcheck.engines.contract import STATE_GRAPH, SYMMETRY
    require(engine, STATE_GRAPH)
    require(engine, SYMMETRY)
    limits = Limits()
    started = time.perf_counter()
    merged = None
    for group in case_groups(model, properties, specification):
        request = graph_request(specification, limits, group.group)
        try:
            result = get_engine(engine).check(model, CheckOptions((), progress=progress, limits=limits,
                                                                  symmetry=group.group or False, graph=request))
            graph = result.graph.finish(result.depth)
            live = decide(model, graph, properties, specification, progress, limits, engine, cases=group.cases)
            for v in live.verdicts:
                if v.lasso is not None:
                    v.lasso, v.lifted = (lift if graph.group is not None else positional)(model, graph, v.lasso)
        finally:
            request.close()
        if merged is None:
            merged = live
        else:
            merged.verdicts += live.verdicts
    merged.graph = None
    merged.seconds = time.perf_counter() - started
    return merged
