"""The progress line's depth: the level the states it counts were found in
(Init is depth 1, its successors depth 2), on every engine that draws it."""

import pytest

from support import model
from modelcheck.engines.base import CheckOptions
from modelcheck.engines.bfs import BfsChecker
from modelcheck.engines.fast import FastChecker
from modelcheck.language.fingerprint import fingerprinter
from modelcheck.runtime.progress import Progress


class Recording(Progress):
    def __init__(self):
        super().__init__(enabled=False)
        self.lines = []

    def search(self, depth, states, queue, force=False):
        self.lines.append((depth, states))


def states_through_each_depth(m) -> list[int]:
    """How many distinct states there are up to depth 1, 2, ... (breadth first)."""
    fp = fingerprinter(m.schema)
    seen = {fp(s) for s in m.init_states}
    level, totals = list(m.init_states), [len(seen)]
    while level:
        new = []
        for s in level:
            for _, t in m.successors(s):
                if fp(t) not in seen:
                    seen.add(fp(t))
                    new.append(t)
        level = new
        if new:
            totals.append(len(seen))
    return totals


@pytest.mark.parametrize("engine", [BfsChecker, FastChecker])
def test_the_line_names_the_depth_of_the_states_it_counts(engine):
    m = model("kip320", Replicas=2, MaxLeaderEpoch=1)
    totals = states_through_each_depth(m)
    progress = Recording()
    engine().check(m, CheckOptions((), progress=progress))
    assert progress.lines
    for depth, states in progress.lines:
        assert (totals[depth - 2] if depth > 1 else 0) < states <= totals[depth - 1], (depth, states, totals[:depth])
    assert progress.lines[0][0] == 2  # Init is one state, at depth 1: the first line counts its successors
    assert progress.lines[-1] == (len(totals), totals[-1])
