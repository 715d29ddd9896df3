"""The search for a fair behaviour that violates a property: a lasso.

A property case is violated iff some fair behaviour satisfies its negation
(``modelcheck.language.temporal.Negation``): from an entry state it stays in the
``stay`` states forever and meets each "infinitely often" condition. On a
finite graph such a behaviour ends in a cycle inside one strongly connected
component of the ``stay`` states reachable from an entry, and the question
becomes which components can carry a fair, accepting cycle. Stuttering is
allowed anywhere, so every state has a self-loop that is no step of any
action; a state where no fair action is enabled can be stuttered in forever.

For a component C (as in TLC's check and the Streett emptiness test):

* each "infinitely often" state condition must hold somewhere in C, and each
  step condition on some edge inside C;
* WF(A): A is disabled at some state of C, or some edge inside C is an A-step;
  if A is enabled everywhere in C and no A-step is inside it, no smaller
  component helps either, so C is dropped;
* SF(A): A is disabled everywhere in C, or some edge inside C is an A-step.
  If neither, the states of C where A is enabled cannot lie on a fair cycle
  of C; they are removed and the rest of C is split into components again.

The search repeats until a component passes or none is left. The lasso it
returns reaches the component by a shortest path in the graph of ``stay``
states (and a shortest path from an initial state to the entry), then runs a
cycle through a witness for every condition not met by the cycle so far,
each leg a shortest path inside the component to the nearest witness; when every witness is the entry state itself, the
behaviour stutters there forever. It is not the shortest lasso overall.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from modelcheck.capabilities.liveness.graph import StateGraph, unique_sorted


@dataclass
class Lasso:
    """Node numbers of a behaviour: ``nodes[loop:]`` repeats forever, closing
    with the step ``closing`` (an edge number) back to ``nodes[loop]``, or by
    stuttering at the last node when ``closing`` is None."""

    nodes: list[int]
    edges: list[int | None]  # the edge into each node (None for the first)
    tree: list[int | None]  # or, on the way from an initial state, the tree instance
    loop: int
    closing: int | None

    @property
    def stutters(self) -> bool:
        return self.closing is None


@dataclass(frozen=True)
class Conditions:
    """A negation's masks over one graph."""

    entry_initial: bool
    entry: np.ndarray  # bool per node: trigger and stay
    stay: np.ndarray  # bool per node
    accept_nodes: tuple[np.ndarray, ...]
    accept_edges: tuple[np.ndarray, ...]


def out_edges(graph: StateGraph) -> np.ndarray:
    """CSR row pointers of the edges, which are sorted by source."""
    if graph.indptr is None:
        graph.indptr = np.searchsorted(graph.src, np.arange(graph.count + 1))
    return graph.indptr


def bfs(indptr: np.ndarray, dst: np.ndarray, edge_ok: np.ndarray, sources: np.ndarray,
        allowed: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Multi-source breadth-first search over the allowed nodes and edges:
    each node's distance (-1 if unreached) and the edge it was reached by."""
    n = indptr.size - 1
    dist = np.full(n, -1, np.int64)
    via = np.full(n, -1, np.int64)
    frontier = unique_sorted(sources[allowed[sources]])
    dist[frontier] = 0
    depth = 0
    while frontier.size:
        starts, counts = indptr[frontier], indptr[frontier + 1] - indptr[frontier]
        total = int(counts.sum())
        if total == 0:
            break
        eids = np.repeat(starts - np.cumsum(counts) + counts, counts) + np.arange(total)
        eids = eids[edge_ok[eids]]
        targets = dst[eids]
        fresh = (dist[targets] < 0) & allowed[targets]
        targets, first = np.unique(targets[fresh], return_index=True)
        depth += 1
        dist[targets] = depth
        via[targets] = eids[fresh][first]
        frontier = targets
    return dist, via


def path_to(node: int, via: np.ndarray, src: np.ndarray) -> list[int]:
    """The edges of the search tree from its source to ``node``."""
    out = []
    while via[node] >= 0:
        out.append(int(via[node]))
        node = int(src[via[node]])
    out.reverse()
    return out


Scc = Callable[[int, np.ndarray, np.ndarray], np.ndarray]


def scipy_scc(count: int, src: np.ndarray, dst: np.ndarray) -> np.ndarray:
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import connected_components
    matrix = csr_matrix((np.ones(src.size, np.int8), (src, dst)), shape=(count, count))
    return connected_components(matrix, directed=True, connection="strong")[1]


def networkx_scc(count: int, src: np.ndarray, dst: np.ndarray) -> np.ndarray:
    import networkx as nx
    g = nx.DiGraph()
    g.add_nodes_from(range(count))
    g.add_edges_from(zip(src.tolist(), dst.tolist()))
    labels = np.empty(count, np.int64)
    for k, component in enumerate(nx.strongly_connected_components(g)):
        labels[list(component)] = k
    return labels


def find_lasso(graph: StateGraph, cond: Conditions, fairness: list[str], scc: Scc) -> Lasso | None:
    """A fair behaviour meeting the conditions, or None if there is none.
    ``fairness[i]`` is "WF" or "SF" for the action of bit i."""
    indptr = out_edges(graph)
    src, dst = graph.src, graph.dst
    stay_edge = cond.stay[src] & cond.stay[dst]
    where = cond.entry
    if cond.entry_initial:
        where = np.zeros(graph.count, bool)
        where[graph.initial] = True
        where &= cond.entry
    sources = np.flatnonzero(where)
    dist, via = bfs(indptr, dst, stay_edge, sources, cond.stay)
    candidate = dist >= 0
    while candidate.any():
        inside_edge = candidate[src] & candidate[dst]
        labels = scc(graph.count, src[inside_edge], dst[inside_edge])
        nodes = np.flatnonzero(candidate)
        node_label = np.searchsorted(unique_sorted(labels[nodes]), labels[nodes])
        k = int(node_label.max()) + 1
        label_of = np.full(graph.count, -1, np.int64)
        label_of[nodes] = node_label
        internal = np.flatnonzero(inside_edge & (label_of[src] == label_of[dst]))
        edge_label = label_of[src[internal]]
        size = np.bincount(node_label, minlength=k)

        def somewhere(mask_on_nodes):
            return np.bincount(node_label[mask_on_nodes[nodes]], minlength=k) > 0

        def on_some_edge(mask_on_edges):
            return np.bincount(edge_label[mask_on_edges[internal]], minlength=k) > 0

        ok = np.ones(k, bool)
        for mask in cond.accept_nodes:
            ok &= somewhere(mask)
        for mask in cond.accept_edges:
            ok &= on_some_edge(mask)
        sf_failing = np.zeros(k, np.uint64)
        for bit, kind in enumerate(fairness):
            enabled = ((graph.fair_enabled >> np.uint64(bit)) & 1).astype(bool)
            taken = on_some_edge(((graph.fair_taken >> np.uint64(bit)) & 1).astype(bool))
            enabled_count = np.bincount(node_label[enabled[nodes]], minlength=k)
            if kind == "WF":
                ok &= (enabled_count < size) | taken
            else:
                sf_failing[(enabled_count > 0) & ~taken] |= np.uint64(1 << bit)
        good = ok & (sf_failing == 0)
        if good.any():
            best = np.where(good[node_label], dist[nodes], np.iinfo(np.int64).max)
            entry = int(nodes[np.argmin(best)])
            return _lasso(graph, indptr, cond, fairness, entry, label_of == label_of[entry],
                          internal[edge_label == label_of[entry]], via)
        # keep only the components that fail nothing but strong fairness, minus
        # the states where a failing strongly fair action is enabled
        failing_bits = np.where(ok, sf_failing, np.uint64(0))[node_label]
        keep = ok[node_label] & ((graph.fair_enabled[nodes] & failing_bits) == 0)
        candidate = np.zeros(graph.count, bool)
        candidate[nodes[keep]] = True
    return None


def _lasso(graph: StateGraph, indptr, cond: Conditions, fairness: list[str], entry: int,
           component: np.ndarray, internal: np.ndarray, via_stay: np.ndarray) -> Lasso:
    src, dst = graph.src, graph.dst
    inside = np.zeros(src.size, bool)
    inside[internal] = True

    # what the cycle must contain: a state of each node mask, a step of each edge mask
    needs: list[tuple[str, np.ndarray]] = [("node", m) for m in cond.accept_nodes]
    needs += [("edge", m) for m in cond.accept_edges]
    for bit, kind in enumerate(fairness):
        taken = ((graph.fair_taken >> np.uint64(bit)) & 1).astype(bool)
        if taken[internal].any():
            needs.append(("edge", taken))
        elif kind == "WF":
            needs.append(("node", ((graph.fair_enabled >> np.uint64(bit)) & 1) == 0))
        # SF with no step in the component: disabled on all of it

    prefix_nodes, prefix_edges, prefix_tree = _prefix(graph, entry, via_stay)
    if all(kind == "node" and mask[entry] for kind, mask in needs):
        return Lasso(prefix_nodes, prefix_edges, prefix_tree, len(prefix_nodes) - 1, None)

    # walk from the entry to the nearest witness of each need not met so far,
    # then back to the entry
    cycle: list[int] = []
    here = entry
    for kind, mask in needs:
        visited = [entry] + [int(dst[e]) for e in cycle]
        if (kind == "node" and mask[visited].any()) or (kind == "edge" and cycle and mask[cycle].any()):
            continue
        dist, via = bfs(indptr, dst, inside, np.array([here]), component)
        if kind == "node":
            where = np.flatnonzero(component & mask)
            target = int(where[np.argmin(dist[where])])
            cycle += path_to(target, via, src)
            here = target
        else:
            where = internal[mask[internal]]
            edge = int(where[np.argmin(dist[src[where]])])
            cycle += path_to(int(src[edge]), via, src) + [edge]
            here = int(dst[edge])
    cycle += _leg(indptr, dst, src, inside, component, here, entry)
    nodes = prefix_nodes + [int(dst[e]) for e in cycle[:-1]]
    edges = prefix_edges + cycle[:-1]
    tree = prefix_tree + [None] * (len(cycle) - 1)
    return Lasso(nodes, edges, tree, len(prefix_nodes) - 1, cycle[-1])


def _leg(indptr, dst, src, inside, component, start: int, goal: int) -> list[int]:
    """A shortest path of edges inside the component from ``start`` to ``goal``."""
    if start == goal:
        return []
    _, via = bfs(indptr, dst, inside, np.array([start]), component)
    return path_to(goal, via, src)


def _prefix(graph: StateGraph, entry: int, via_stay: np.ndarray):
    """From an initial state to the cycle's entry: the breadth-first tree's
    path to the state where the stay-search began, then that search's path."""
    stay_edges = path_to(entry, via_stay, graph.src)
    start = int(graph.src[stay_edges[0]]) if stay_edges else entry
    chain = []
    node = start
    while node >= 0:
        chain.append(node)
        node = int(graph.tree_parent[node])
    chain.reverse()
    nodes = chain + [int(graph.dst[e]) for e in stay_edges]
    edges: list[int | None] = [None] * len(chain) + stay_edges
    tree: list[int | None] = [int(graph.tree_instance[n]) for n in chain] + [None] * len(stay_edges)
    return nodes, edges, tree
