"""The node numbering of the fast engine's state graph.

Liveness on the fast engine once built its graph with a search of its own,
level by level and chunk by chunk, and its lassos depend on how that search
numbered the nodes (ties between equally short paths go to the lowest
number). The graph is now recorded by the fast engine's own search, which
numbers each level in the reference engine's order; ``chunked_order``
renumbers it as that builder did, so that every lasso stays what it was.

That builder took a level in chunks of ``CHUNK`` states; each chunk's
successors came action instance by action instance, each instance's in
the order of the states it was enabled in. A new state was credited to its
first occurrence in the first chunk that reached it, and a level's new
states were kept chunk by chunk, and within a chunk in fingerprint order.
"""

from __future__ import annotations

import numpy as np

from modelcheck.search.expansion import CHUNK


def chunked_order(starts: list[int], node_fps: np.ndarray, src: np.ndarray, dst: np.ndarray, instance: np.ndarray,
                  instances: int, entries: np.ndarray, blocks, chunk: int = CHUNK, need=None):
    """``(new_of, tree_parent, tree_instance)``: the builder's number of each
    node (given by the engine's number, with levels starting at ``starts``),
    and in the builder's numbering each node's first-discovery parent and
    action instance (``entries`` for the initial states). ``src``, ``dst``
    and ``instance`` are the graph's distinct steps, each with the least
    instance that takes it, grouped by the level of their source: those
    from level k are ``blocks[k]:blocks[k + 1]``. One level is worked on at
    a time; ``need``, if given, is told the bytes of its temporaries first."""
    count = node_fps.size
    bounds = np.append(np.asarray(starts, np.int64), count)
    new_of = np.full(count, -1, np.int64)
    tree_parent = np.full(count, -1, np.int64)
    tree_instance = np.zeros(count, np.int32)
    first_level = int(bounds[1]) if bounds.size > 1 else count
    new_of[:first_level] = np.arange(first_level)
    tree_instance[:first_level] = entries
    span = instances * chunk
    for k in range(1, len(starts)):
        lo, hi = int(blocks[k - 1]), int(blocks[k])
        if need is not None:
            need(40 * (hi - lo))
        d = dst[lo:hi]
        forward = (d >= bounds[k]) & (d < bounds[k + 1])  # the steps that can discover a state of level k
        ls, ld = src[lo:hi][forward].astype(np.int64), d[forward].astype(np.int64)
        li = instance[lo:hi][forward].astype(np.int64)
        position = new_of[ls] - bounds[k - 1]  # the parent's place in its level, as the builder numbered it
        key = (position // chunk) * span + li * chunk + position % chunk
        order = np.lexsort((key, ld))
        keep = np.ones(order.size, bool)
        keep[1:] = ld[order][1:] != ld[order][:-1]
        first = order[keep]  # each node's first discovery
        nodes = ld[first]
        rank = np.lexsort((node_fps[nodes], key[first] // span))
        ids = bounds[k] + np.arange(nodes.size)
        new_of[nodes[rank]] = ids
        tree_parent[ids] = new_of[ls[first][rank]]
        tree_instance[ids] = li[first][rank]
    return new_of, tree_parent, tree_instance
