"""``modelcheck graph``: the reachable state graph as a networkx DiGraph, for
export and analysis.

This is for looking at small models (bounded by ``max_states`` or a depth),
not the hot loop. The graph is recorded by the reference engine's own
search (``modelcheck.capabilities.liveness.record.ExplicitGraph``, the recorder temporal
properties use), then turned into networkx: nodes are numbered in
breadth-first order and carry a one-line summary of the state, edges carry
the action and its parameters (the last action instance that takes a step).
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import networkx as nx

from modelcheck.runtime.atomic import write_atomically
from modelcheck.runtime.destinations import check_new_file
from modelcheck.errors import InputError
from modelcheck.runtime.progress import Progress, Silent
from modelcheck.language.values import show

FORMATS = (".dot", ".gv", ".graphml")


class TooManyStates(InputError):
    pass


def build_state_graph(model, max_states: int, max_depth: int | None = None,
                      progress: Progress | None = None, symmetry: bool = False) -> nx.DiGraph:
    """With ``symmetry``, the quotient graph: one node per orbit of the
    symmetric constants, edges labelled with the representatives' actions."""
    from modelcheck.engines import REFERENCE_ENGINE, get_engine
    from modelcheck.engines.base import CheckOptions
    from modelcheck.capabilities.liveness.record import GraphRequest

    def too_many() -> TooManyStates:
        return TooManyStates(
            f"{model.spec.name} has more than {max_states:,} reachable states with "
            f"{model.describe_constants()}; raise --max-states, lower --max-depth or choose smaller constants")

    request = GraphRequest(cap=max_states, too_many=too_many)
    result = get_engine(REFERENCE_ENGINE).check(model, CheckOptions((), max_depth, progress=progress or Silent(),
                                                                    symmetry=symmetry, graph=request))
    record = result.graph
    graph = nx.DiGraph(spec=model.spec.name, constants=model.describe_constants())
    for n, state in enumerate(record.states):
        depth = record.levels[n]
        graph.add_node(n, label=summarize(model, state), depth=depth, initial=(depth == 1))
    instances = model.instances
    for n, m, index in zip(record.src, record.dst, record.instance):
        inst = instances[index]
        graph.add_edge(n, m, action=inst.action, label=inst.label(),
                       params=", ".join(f"{k}={show(v)}" for k, v in inst.shown_params))
    graph.graph["complete"] = max_depth is None or result.depth < max_depth
    return graph


def summarize(model, state: tuple) -> str:
    """A state on one line, in the trace viewers' notation."""
    from modelcheck.presentation.viewer.layout import state_line
    return state_line(model, state)


@dataclass
class GraphReport:
    nodes: int
    edges: int
    initial: int
    complete: bool
    deadlocks: list[int]
    components: int
    largest_component: int
    cyclic_components: int

    def to_json(self) -> dict:
        return {"nodes": self.nodes, "edges": self.edges, "initial_states": self.initial, "complete": self.complete,
                "deadlock_states": len(self.deadlocks), "strongly_connected_components": self.components,
                "largest_component": self.largest_component, "cyclic_components": self.cyclic_components}


def analyse(graph: nx.DiGraph) -> GraphReport:
    """Deadlocks (no successor at all) and strongly connected components.

    In an incomplete graph (cut by depth) the last level has no edges yet, so
    it is not counted as deadlocked.
    """
    last_level = max((d for _, d in graph.nodes(data="depth")), default=0)
    complete = graph.graph.get("complete", True)
    deadlocks = [n for n in graph.nodes if graph.out_degree(n) == 0
                 and (complete or graph.nodes[n]["depth"] < last_level)]
    components = list(nx.strongly_connected_components(graph))
    cyclic = [c for c in components if len(c) > 1 or any(graph.has_edge(n, n) for n in c)]
    return GraphReport(graph.number_of_nodes(), graph.number_of_edges(),
                       sum(1 for _, d in graph.nodes(data="initial") if d), complete, deadlocks,
                       len(components), max((len(c) for c in components), default=0), len(cyclic))


def check_output_path(path: str, overwrite: bool) -> None:
    check_new_file(path, overwrite, "--out", FORMATS)


def write_graph(graph: nx.DiGraph, path: str, overwrite: bool = False) -> None:
    """Write the graph whole or not at all (``modelcheck.runtime.atomic``)."""
    graphml = os.path.splitext(path)[1].lower() == ".graphml"

    def write(f) -> None:
        if graphml:
            nx.write_graphml(graph, f)
        else:
            nx.nx_pydot.write_dot(_dot_ready(graph), f)

    try:
        write_atomically(path, write, replace=overwrite, binary=graphml)
    except FileExistsError:
        raise InputError(f"--out {path} already exists (pass --overwrite to replace it)") from None
    except OSError as e:
        raise InputError(f"cannot write {path}: {e.strerror or e}") from None


def _dot_ready(graph: nx.DiGraph) -> nx.DiGraph:
    """DOT needs quoted labels; initial states are drawn doubled."""
    g = nx.DiGraph()
    for n, data in graph.nodes(data=True):
        attrs = {"label": _quote(data["label"])}
        if data.get("initial"):
            attrs["peripheries"] = "2"
        g.add_node(n, **attrs)
    for a, b, data in graph.edges(data=True):
        g.add_edge(a, b, label=_quote(data["label"]))
    return g


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def report_json(model, out: str, report: GraphReport) -> dict:
    return {"spec": model.spec.name, "constants": model.json_constants(), "file": out, **report.to_json()}


def report_text(model, out: str, report: GraphReport, graph: nx.DiGraph) -> str:
    lines = [f"{model.spec.name} · {model.describe_constants()}",
             f"  states            {report.nodes:,}" + ("" if report.complete else "  (cut at --max-depth)"),
             f"  transitions       {report.edges:,}",
             f"  deadlock states   {len(report.deadlocks):,}  (no successor; expected in these bounded specs)",
             f"  strongly connected components  {report.components:,} "
             f"(largest {report.largest_component:,}, {report.cyclic_components:,} with cycles)"]
    lines += [f"  e.g. deadlock: {graph.nodes[n]['label']}" for n in report.deadlocks[:3]]
    lines.append(f"  written to        {out}")
    return "\n".join(lines)
