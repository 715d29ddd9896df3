"""The reachable state graph as a networkx DiGraph, for export and analysis.

This is for looking at small models (bounded by ``max_states`` or a depth),
not the hot loop: the search engines keep only fingerprints. Nodes are
numbered in breadth-first order and carry a one-line summary of the state;
edges carry the action and its parameters.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import networkx as nx

from modelcheck.errors import InputError
from modelcheck.fingerprint import fingerprinter
from modelcheck.progress import Progress, Silent
from modelcheck.values import show


class TooManyStates(InputError):
    pass


def build_state_graph(model, max_states: int, max_depth: int | None = None,
                      progress: Progress | None = None, symmetry: bool = False) -> nx.DiGraph:
    """With ``symmetry``, the quotient graph: one node per orbit of the
    symmetric constants, edges labelled with the representatives' actions."""
    progress = progress or Silent()
    successors, init_states = model.successors, model.init_states
    if symmetry:
        from modelcheck.canonical import symmetric_search
        successors, _, init_states = symmetric_search(model, successors)
    fingerprint = fingerprinter(model.schema)
    graph = nx.DiGraph(spec=model.spec.name, constants=model.describe_constants())
    number: dict[int, int] = {}

    def add_node(state: tuple, depth: int) -> int | None:
        fp = fingerprint(state)
        if fp in number:
            return number[fp]
        if len(number) >= max_states:
            raise TooManyStates(
                f"{model.spec.name} has more than {max_states:,} reachable states with "
                f"{model.describe_constants()}; raise --max-states, lower --max-depth or choose smaller constants")
        n = len(number)
        number[fp] = n
        graph.add_node(n, label=summarize(model, state), depth=depth, initial=(depth == 1))
        return n

    frontier = []
    for state in init_states:
        frontier.append((add_node(state, 1), state))
    depth = 1
    while frontier and (max_depth is None or depth < max_depth):
        next_frontier = []
        for n, state in frontier:
            for index, t in successors(state):
                known = fingerprint(t) in number
                m = add_node(t, depth + 1)
                inst = model.instances[index]
                graph.add_edge(n, m, action=inst.action, label=inst.label(),
                               params=", ".join(f"{k}={show(v)}" for k, v in inst.shown_params))
                if not known:
                    next_frontier.append((m, t))
            progress.search(depth, len(number), len(next_frontier))
        frontier = next_frontier
        depth += 1
    progress.clear()
    graph.graph["complete"] = not frontier
    return graph


def graph_symmetry(model, cfg, requested: bool) -> bool:
    """Whether to build the quotient graph: --symmetry or the .cfg's SYMMETRY."""
    from modelcheck.symmetry import check_symmetry_request, symmetry_from_config
    from modelcheck.run import warn
    notes: list[str] = []
    wanted = requested or symmetry_from_config(cfg, model, notes)
    warn(notes)
    if wanted:
        check_symmetry_request(model)
    return wanted


def summarize(model, state: tuple) -> str:
    """A state on one line, in the trace viewers' notation."""
    from modelcheck.viewer.layout import state_line
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


FORMATS = (".dot", ".gv", ".graphml")


def check_output_path(path: str, overwrite: bool) -> None:
    ext = os.path.splitext(path)[1].lower()
    if ext not in FORMATS:
        raise InputError(f"--out {path}: the format comes from the extension; use one of {', '.join(FORMATS)}")
    if os.path.exists(path) and not overwrite:
        raise InputError(f"--out {path} already exists (pass --overwrite to replace it)")
    parent = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(parent):
        raise InputError(f"cannot write --out {path}: directory {parent} does not exist")


def write_graph(graph: nx.DiGraph, path: str) -> None:
    ext = os.path.splitext(path)[1].lower()
    try:
        if ext == ".graphml":
            nx.write_graphml(graph, path)
        else:
            nx.nx_pydot.write_dot(_dot_ready(graph), path)
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
