"""Checking temporal properties: the graph, each property case's negation, a verdict.

``check_liveness`` builds the reachable state graph once with the chosen
engine's builder (``modelcheck.liveness.graph``), then asks the fair-cycle
search (``modelcheck.liveness.search``) about each case of each property
under the chosen specification's fairness. The two explicit engines differ
in how they build the graph and find strongly connected components
(networkx for the reference engine, scipy's sparse graph routines for the
fast one); what a violation is, is defined once.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from modelcheck.errors import InputError
from modelcheck.expr import TRUE, Expr
from modelcheck.liveness.graph import StateGraph, explore_batched, explore_explicit
from modelcheck.liveness.search import Conditions, Lasso, find_lasso, networkx_scc, scipy_scc
from modelcheck.temporal import PropertyCase, Specification

BUILDERS = {"bfs": (explore_explicit, networkx_scc), "fast": (explore_batched, scipy_scc)}


def check_engine(engine: str) -> None:
    if engine not in BUILDERS:
        raise InputError(f"temporal properties are checked by the bfs and fast engines, not {engine} "
                         f"(use --engine fast)")


@dataclass
class CaseVerdict:
    case: PropertyCase
    lasso: Lasso | None

    @property
    def holds(self) -> bool:
        return self.lasso is None


@dataclass
class LivenessResult:
    engine: str
    specification: Specification
    states: int
    edges: int
    seconds: float
    verdicts: list[CaseVerdict] = field(default_factory=list)
    graph: StateGraph | None = None

    @property
    def violated(self) -> CaseVerdict | None:
        return next((v for v in self.verdicts if not v.holds), None)

    def property_verdicts(self) -> dict[str, bool]:
        """Per property: whether every case of it holds."""
        out: dict[str, bool] = {}
        for v in self.verdicts:
            out[v.case.property] = out.get(v.case.property, True) and v.holds
        return out


class _GraphProgress:
    """Adapts the run's progress line to graph building."""

    def __init__(self, progress):
        self.progress = progress

    def note_graph(self, states: int, edges: int) -> None:
        elapsed = max(self.progress.elapsed(), 1e-9)
        self.progress.update(f"state graph · {states:,} states · {edges:,} steps · "
                             f"{states / elapsed:,.0f} states/s · {elapsed:.1f} s")


def build_graph(model, engine: str, specification: Specification, progress) -> StateGraph:
    check_engine(engine)
    builder, _ = BUILDERS[engine]
    return builder(model, [f.action for f in specification.fairness], _GraphProgress(progress))


def conditions(graph: StateGraph, case: PropertyCase) -> Conditions:
    neg = case.negation
    state_exprs: dict[str, Expr] = {"trigger": neg.trigger, "stay": neg.stay}
    state_exprs.update({f"often{i}": e for i, e in enumerate(neg.infinitely_states)})
    step_exprs = {f"step{i}": e for i, e in enumerate(neg.infinitely_steps)}
    computed = graph.on_nodes({k: e for k, e in state_exprs.items() if e is not TRUE})

    def nodes(name: str) -> np.ndarray:
        return computed[name] if name in computed else np.ones(graph.count, bool)

    steps = graph.on_edges(step_exprs) if step_exprs else {}
    return Conditions(neg.entry == "initial", nodes("trigger") & nodes("stay"), nodes("stay"),
                      tuple(nodes(f"often{i}") for i in range(len(neg.infinitely_states))),
                      tuple(steps[f"step{i}"] for i in range(len(neg.infinitely_steps))))


def check_liveness(model, engine: str, properties: list[str], specification: Specification,
                   progress) -> LivenessResult:
    started = time.perf_counter()
    graph = build_graph(model, engine, specification, progress)
    _, scc = BUILDERS[engine]
    kinds = [f.kind for f in specification.fairness]
    result = LivenessResult(engine, specification, graph.count, graph.edges, 0.0, graph=graph)
    for name in properties:
        for case in model.property_cases(name):
            progress.update(f"checking {case.label} under {specification.name}", force=True)
            result.verdicts.append(CaseVerdict(case, find_lasso(graph, conditions(graph, case), kinds, scc)))
    progress.clear()
    result.seconds = time.perf_counter() - started
    return result
