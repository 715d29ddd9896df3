"""Checking temporal properties: on the state graph the engine recorded, each
property case's negation, a verdict.

A run with temporal properties hands the engine a ``GraphRequest``
(``modelcheck/capabilities/liveness/record.py``): the engine records the reachable state
graph during its own search, the same one that checks the invariants, under
the same limits and stop requests. Once that search is complete, ``decide``
asks the fair-cycle search (``modelcheck.capabilities.liveness.search``) about each case
of each property under the chosen specification's fairness. What a
violation is, is defined once; the graph's recorder supplies the strongly
connected components routine that suits it (networkx for the reference
engine's, scipy's sparse graph routines for the fast engine's).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from modelcheck.errors import InputError
from modelcheck.language.expr import TRUE, Expr
from modelcheck.runtime.limits import Limits, SearchStopped
from modelcheck.capabilities.liveness.graph import StateGraph
from modelcheck.capabilities.liveness.record import GraphRequest
from modelcheck.capabilities.liveness.search import Conditions, Lasso, find_lasso
from modelcheck.capabilities.liveness.store import Store
from modelcheck.language.temporal import PropertyCase, Specification


# what the fair-cycle search of one case may hold at once beside the graph, at most: its masks, the
# edges inside the candidate states and scipy's sparse copy of them, each state's distance and label
SEARCH_BYTES_PER_STEP, SEARCH_BYTES_PER_STATE = 48, 64


def check_request(engine: str, max_depth: int | None, settings) -> None:
    """Refuse, before any search, temporal properties where they cannot be
    checked: on an engine that records no state graph (the registry says
    which do), or on a graph that would not be the whole reachable one."""
    from modelcheck.engines import require
    from modelcheck.engines.contract import STATE_GRAPH
    require(engine, STATE_GRAPH)
    if max_depth is not None:
        raise InputError("temporal properties need the whole state graph; drop --max-depth")
    if getattr(settings, "checkpoint", None) or getattr(settings, "resume", None):
        raise InputError("--checkpoint and --resume are for invariant checks; drop them with --prop")
    if getattr(settings, "fingerprint_bits", 64) != 64:
        raise InputError("--fingerprint-bits 128 is for invariant checks: the state graph temporal properties "
                         "are decided on knows its states by 64-bit fingerprints; drop it with --prop")


def graph_request(specification: Specification, limits: Limits, group=None) -> GraphRequest:
    """What to ask an engine for, to check properties under ``specification``
    (on the quotient by ``group``, a ``modelcheck.search.canonical.Stabiliser``)."""
    return GraphRequest([f.action for f in specification.fairness], limits, group=group)


@dataclass
class CaseVerdict:
    case: PropertyCase
    lasso: Lasso | None
    # a lasso lifted from a quotient: its states and steps (modelcheck.capabilities.liveness.symmetric.LiftedGraph)
    lifted: object = None

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


def decide(model, graph: StateGraph, properties: list[str], specification: Specification, progress,
           limits: Limits, engine: str, seconds: float = 0.0,
           cases: list[PropertyCase] | None = None) -> LivenessResult:
    """Every case of every property (or just ``cases``), on a complete
    graph. A limit or Ctrl-C between cases raises ``SearchStopped``, and so
    does a case whose search would pass ``--max-memory`` (checked before it
    starts, not only polled)."""
    started = time.perf_counter()
    kinds = [f.kind for f in specification.fairness]
    result = LivenessResult(engine, specification, graph.count, graph.edges, 0.0, graph=graph)
    chosen = cases if cases is not None else [c for name in properties for c in model.property_cases(name)]
    for case in chosen:
        reason = limits.reached()
        if reason:
            raise SearchStopped(reason)
        Store(limits).need(SEARCH_BYTES_PER_STEP * graph.edges + SEARCH_BYTES_PER_STATE * graph.count)
        progress.update(f"checking {case.label} under {specification.name}", force=True)
        result.verdicts.append(CaseVerdict(case, find_lasso(graph, conditions(graph, case), kinds, graph.scc)))
    progress.clear()
    result.seconds = seconds + time.perf_counter() - started
    return result


def check_liveness(model, engine: str, properties: list[str], specification: Specification,
                   progress) -> LivenessResult:
    """Explore ``model`` with the engine named ``engine``, recording its
    state graph, and decide the properties on it (the run path does the
    same with the run's invariants and limits)."""
    from modelcheck.engines import get_engine, require
    from modelcheck.engines.base import CheckOptions
    from modelcheck.engines.contract import STATE_GRAPH
    require(engine, STATE_GRAPH)
    limits = Limits()
    started = time.perf_counter()
    request = graph_request(specification, limits)
    try:
        result = get_engine(engine).check(model, CheckOptions((), progress=progress, limits=limits, graph=request))
        graph = result.graph.finish(result.depth)
        return decide(model, graph, properties, specification, progress, limits, engine,
                      time.perf_counter() - started)
    finally:
        request.close()
