"""The fast engine's state graph keeps the numbering its level-by-level
builder gave (so every lasso it finds is the one it always found): here
against that numbering worked out state by state, with chunks small enough
to split every level."""

import numpy as np
import pytest

from modelcheck.capabilities.liveness.order import chunked_order
from modelcheck.capabilities.liveness.batched import BatchedGraph
from modelcheck.language.packing import fingerprints
from support import model


def recorded(m) -> BatchedGraph:
    from modelcheck.engines.base import CheckOptions
    from modelcheck.engines.fast import FastChecker
    from modelcheck.capabilities.liveness.record import GraphRequest
    return FastChecker().check(m, CheckOptions((), graph=GraphRequest())).graph


def by_hand(levels: list[list[int]], steps: dict[int, list[tuple[int, int]]], fps, chunk: int):
    """Each level's new states, ordered by the first chunk (of the level
    before, in this numbering) that reaches them and then by fingerprint,
    each credited to its least (instance, position) in that chunk."""
    order = [list(levels[0])]
    credit = {}
    for level in levels[1:]:
        members, first = set(level), {}
        for position, node in enumerate(order[-1]):
            for instance, target in steps.get(node, []):
                if target in members:
                    key = (position // chunk, instance, position % chunk)
                    if target not in first or key < first[target][0]:
                        first[target] = (key, node, instance)
        order.append(sorted(level, key=lambda n: (first[n][0][0], int(fps[n]))))
        credit.update({n: (first[n][1], first[n][2]) for n in level})
    return order, credit


@pytest.mark.parametrize("chunk", [7, 100, 1 << 15])
def test_the_numbering_is_the_chunked_builders(chunk):
    from modelcheck.capabilities.liveness.graph import distinct_steps
    m = model("kip320", Replicas=2)
    g = recorded(m)
    words = np.concatenate(g.words, axis=1)
    fps = fingerprints(words)
    count = fps.size
    bounds = g.starts + [count]
    levels = [list(range(bounds[k], bounds[k + 1])) for k in range(len(g.starts))]
    src, dst_fps, instance = (np.concatenate(column) for column in zip(*g.steps.drain()))
    by_fp = {int(f): n for n, f in enumerate(fps)}
    dst = np.array([by_fp[int(f)] for f in dst_fps], np.int64)
    s, d, i = distinct_steps(src, dst, instance, count)
    steps: dict[int, list[tuple[int, int]]] = {}
    for a, b, k in zip(s.tolist(), d.tolist(), i.tolist()):
        steps.setdefault(a, []).append((k, b))
    new_of, parent, instance = chunked_order(g.starts, fps, s, d, i, len(m.instances), g.entries,
                                             np.searchsorted(s, bounds), chunk)
    order, credit = by_hand(levels, steps, fps, chunk)
    assert [new_of[n] for level in order for n in level] == list(range(count))
    for node, (by, action) in credit.items():
        assert (parent[new_of[node]], instance[new_of[node]]) == (new_of[by], action)
