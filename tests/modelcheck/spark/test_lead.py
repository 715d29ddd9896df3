"""The lead-in (levels run in the driver while Spark starts), in-process: the
driver's levels, the re-partitioning of its runs and the handover files give
the search a wholly distributed one gives."""

import os

import numpy as np
import pytest

from support import model
from modelcheck.engines.base import CheckOptions
from modelcheck.engines.bfs import BfsChecker
from modelcheck.language.packing import Packing
from modelcheck.spark import blocks, lead, successors, visited
from modelcheck.spark.settings import DEFAULT_LEAD_IN


def config(m, partitions, level, directory):
    return blocks.StepConfig(m.key(), partitions, level, str(directory), ("TypeOk",), tuple(m.sometimes), False,
                             False)


def executor_level(m, partitions, level, directory, arriving, report):
    """What the executors do with a level: each partition's step on what arrived for it."""
    out = []
    for p in range(partitions):
        out += list(blocks.step(config(m, partitions, level, directory), report, p, [r for r in arriving if r[0] == p]))
    return out


def lead_then_executors(m, directory, lead_levels, lead_parts, partitions):
    """``lead_levels`` levels in the driver on ``lead_parts`` partitions, the
    handover to ``partitions``, then the executors' steps to the end.
    Returns (distinct states, depth)."""
    words = Packing(m.schema).words
    report = lead.Report()
    frontier = lead.initial_frontier(m, lead_parts)
    for level in range(1, lead_levels + 1):
        frontier = lead.run_level(config(m, lead_parts, level, directory), report, frontier, words)
    level = lead_levels + 1
    lead.prepare_handover(frontier, str(directory), level, lead_levels, partitions, words)
    arriving = [record for p in range(partitions) for record in lead.read_handover(str(directory), level, p, [])]
    while True:
        arriving = executor_level(m, partitions, level, directory, arriving, report)
        summaries = [report.value[(level, p)] for p in range(partitions)]
        if sum(s.new for s in summaries) == 0:
            return sum(s.visited for s in summaries), level - 1
        level += 1


@pytest.mark.parametrize("lead_levels, lead_parts, partitions", [(6, 1, 3), (6, 3, 3), (9, 3, 2), (1, 2, 1)])
def test_a_search_led_in_by_the_driver_matches_bfs(tmp_path, lead_levels, lead_parts, partitions):
    m = model("kip320", Replicas=2)
    bfs = BfsChecker().check(m, CheckOptions(("TypeOk",)))
    distinct, depth = lead_then_executors(m, tmp_path, lead_levels, lead_parts, partitions)
    assert (distinct, depth) == (bfs.distinct_states, bfs.depth) == (5973, 18)
    # every state is in the run of its level in the partition its fingerprint names
    for p in range(partitions):
        for level in range(1, depth + 2):
            fps = visited.read_run(str(tmp_path), p, level).fps
            assert np.all(fps % np.uint64(partitions) == p) and np.all(fps[1:] >= fps[:-1])
    assert not any(os.path.isdir(tmp_path / f"p{p:05d}") for p in range(partitions, lead_parts))


def test_repartitioned_runs_hold_the_same_states_with_their_parents(tmp_path):
    runs = {0: visited.Run(np.array([2, 4, 8], np.uint64), np.array([0, 2, 2], np.uint64), np.array([-1, 3, 5], np.int32)),
            1: visited.Run(np.array([3, 9], np.uint64), np.array([0, 3], np.uint64), np.array([-2, 1], np.int32))}
    for p, run in runs.items():
        visited.write_run(str(tmp_path), p, 1, run)
    visited.repartition(str(tmp_path), 1, 2, 3)
    got = {p: visited.read_run(str(tmp_path), p, 1) for p in range(3)}
    assert [list(got[p].fps) for p in range(3)] == [[3, 9], [4], [2, 8]]
    assert visited.lookup(str(tmp_path), 0, 9, 1) == (3, 1) and visited.lookup(str(tmp_path), 2, 8, 1) == (2, 5)
    visited.repartition(str(tmp_path), 1, 3, 1)
    assert list(visited.read_run(str(tmp_path), 0, 1).fps) == [2, 3, 4, 8, 9]
    assert sorted(os.listdir(tmp_path)) == ["p00000"]  # the partitions that are gone are removed


class FakeLaunch:
    def __init__(self, settled):
        self._settled = settled

    def settled(self):
        return self._settled


def frontier_of(n):
    empty = np.zeros(0, np.uint64)
    return lead.Frontier([successors.Successors(np.arange(n, dtype=np.uint64), np.zeros(n, np.uint64),
                                            np.zeros(n, np.int32), np.zeros((1, n), np.uint64), 0, empty)])


def test_where_a_level_runs():
    starting, ready = FakeLaunch(False), FakeLaunch(True)
    assert lead.LeadIn(DEFAULT_LEAD_IN, starting).keeps(frontier_of(lead.SMALL * 2))  # executors not ready yet
    assert not lead.LeadIn(DEFAULT_LEAD_IN, ready).keeps(frontier_of(lead.SMALL * 2))  # ready: Spark's
    assert lead.LeadIn(DEFAULT_LEAD_IN, ready).keeps(frontier_of(lead.SMALL - 1))  # too small for a stage
    assert not lead.LeadIn(100, starting).keeps(frontier_of(101))  # over the limit, ready or not
    assert not lead.LeadIn(0, starting).keeps(frontier_of(1))  # 0: no lead-in


def test_lead_partitions():
    assert lead.lead_partitions(5, "spark://h:7077") == 5
    assert lead.lead_partitions(None, "local") == 1
    assert lead.lead_partitions(None, "local[3]") == 3
    assert lead.lead_partitions(None, "local[*]") == (os.cpu_count() or 1)
    assert lead.lead_partitions(None, "spark://h:7077") == 1  # known when executors register: re-partitioned then
