"""The executor-side steps, run in-process (no Spark): the same functions
Spark runs, with the shuffle simulated by grouping blocks by partition."""

import numpy as np
import pytest

from support import model
from modelcheck.engines.base import CheckOptions
from modelcheck.engines.bfs import BfsChecker
from modelcheck.packing import Packing, fingerprints
from modelcheck.spark import blocks


class Report:
    """Stands in for the accumulator: collects what select_new reports."""

    def __init__(self):
        self.value = {}

    def add(self, entry):
        self.value.update(entry)


def search(m, partitions, invariants=()):
    """A whole search with the executor functions, partition by partition.
    Returns (distinct states, levels, each partition's final records)."""
    key, report = m.key(), Report()
    levels = {p: [(p, (blocks.VISITED, blocks.empty_visited()))] for p in range(partitions)}
    incoming = blocks.initial_blocks(m, partitions)
    level = 1
    while True:
        for p in range(partitions):
            records = [r for r in levels[p] if r[1][0] == blocks.VISITED] + [r for r in incoming if r[0] == p]
            levels[p] = list(blocks.select_new(key, tuple(invariants), tuple(m.sometimes), False, level, report, p,
                                               records))
        summaries = [report.value[(level, p)] for p in range(partitions)]
        if sum(s.new for s in summaries) == 0:
            return sum(s.visited for s in summaries), level - 1, levels
        incoming = [r for p in range(partitions) for r in blocks.expand_partition(key, partitions, False, p, levels[p])]
        level += 1


@pytest.mark.parametrize("partitions", [1, 3])
def test_search_with_executor_steps_matches_bfs(partitions):
    m = model("kip320", Replicas=2)
    bfs = BfsChecker().check(m, CheckOptions(("TypeOk",)))
    distinct, depth, _ = search(m, partitions, ("TypeOk",))
    assert (distinct, depth) == (bfs.distinct_states, bfs.depth) == (5973, 18)


def fast_fingerprint(m, state) -> int:
    return int(fingerprints(Packing(m.schema).pack_states([state]))[0])


def test_fingerprints_and_packing_are_the_fast_engines():
    m = model("kip320", Replicas=2)
    state = m.init_states[0]
    routed = blocks.initial_blocks(m, 4)
    fps = [int(f) for _, (_, b) in routed for f in b.fps]
    assert fps == [fast_fingerprint(m, state)]
    words = np.concatenate([b.words for _, (_, b) in routed], axis=1)
    assert Packing(m.schema).unpack_state(words[:, 0]) == state


def test_every_state_lands_in_the_partition_its_fingerprint_names():
    m = model("kip320", Replicas=2)
    distinct, _, partitions = search(m, 3)
    seen = 0
    for p, records in partitions.items():
        for split, (tag, block) in records:
            assert split == p
            if tag == blocks.VISITED:
                assert all(int(f) % 3 == p for f in block.fps)
                assert list(block.fps) == sorted(block.fps)
                seen += len(block.fps)
    assert seen == distinct


def test_route_sends_every_partition_a_block_and_counts_generated_once():
    fps = np.array([10, 11, 12, 13, 14], dtype=np.uint64)
    words = np.arange(5, dtype=np.uint64).reshape(1, 5)
    out = blocks.route(fps, fps, np.arange(5, dtype=np.int32), words, 3, generated=7, generated_to=2,
                       deadlocks=np.array([5], dtype=np.uint64))
    assert [t for t, _ in out] == [0, 1, 2]
    by_target = {t: b for t, (_, b) in out}
    assert list(by_target[0].fps) == [12] and by_target[0].words.tolist() == [[2]]
    assert list(by_target[1].fps) == [10, 13] and by_target[1].words.tolist() == [[0, 3]]
    assert [b.generated for b in by_target.values()] == [0, 0, 7]
    assert [list(b.deadlocks) for b in by_target.values()] == [[], [], [5]]


def test_repeated_candidates_keep_the_smallest_action_and_parent_in_any_order():
    def part(fps, parents, actions):
        n = len(fps)
        return blocks.Successors(np.array(fps, np.uint64), np.array(parents, np.uint64), np.array(actions, np.int32),
                                 np.array([fps], np.uint64) * 10, 0, np.zeros(0, np.uint64))
    a = part([5, 9], [7, 3], [2, 1])
    b = part([9, 5, 5], [3, 7, 2], [0, 8, 2])
    for parts in ([a, b], [b, a]):
        fps, parents, actions, words = blocks.merge_candidates(parts, 1)
        assert list(fps) == [5, 9] and list(parents) == [2, 3] and list(actions) == [2, 0]
        assert words.tolist() == [[50, 90]]


def test_contains_and_insert_sorted():
    visited = blocks.Visited(np.array([2, 5, 9], np.uint64), np.array([0, 0, 0], np.uint64),
                             np.array([0, 0, 0], np.int32))
    assert list(blocks.contains(visited.fps, np.array([1, 5, 9, 10], np.uint64))) == [False, True, True, False]
    assert list(blocks.contains(np.zeros(0, np.uint64), np.array([1], np.uint64))) == [False]
    merged = blocks.insert_sorted(visited, np.array([1, 6, 12], np.uint64), np.array([4, 4, 4], np.uint64),
                                  np.array([1, 2, 3], np.int32))
    assert list(merged.fps) == [1, 2, 5, 6, 9, 12] and list(merged.actions) == [1, 0, 0, 2, 0, 3]


def test_violations_are_reported_smallest_invariant_first():
    m = model("kip320", Replicas=2)
    key, report = m.key(), Report()
    # LeaderInIsr fails at Init (no leader yet); TypeOk holds
    list(blocks.select_new(key, ("TypeOk", "LeaderInIsr"), (), False, 1, report, 0,
                           [(0, (blocks.VISITED, blocks.empty_visited()))] + blocks.initial_blocks(m, 1)))
    summary = report.value[(1, 0)]
    assert summary.violation == (1, fast_fingerprint(m, m.init_states[0]))


def test_a_partition_without_its_visited_block_is_an_error():
    m = model("kip320", Replicas=2)
    with pytest.raises(RuntimeError, match="co-partitioned"):
        list(blocks.select_new(m.key(), (), (), False, 1, Report(), 0, blocks.initial_blocks(m, 1)))


def test_parent_pointers_lead_back_to_the_initial_state():
    m = model("kip320", Replicas=2)
    distinct, depth, partitions = search(m, 1)
    records = partitions[0]
    visited = blocks.joined_visited([b for _, (t, b) in records if t == blocks.VISITED])
    assert len(visited.fps) == distinct
    fp, steps = int(visited.fps[-1]), 0
    while True:
        (parent, action), = blocks.parent_of(fp, records)
        steps += 1
        if action < 0:
            assert action == -1
            break
        fp = parent
    assert 1 <= steps <= depth


def test_small_expansion_chunks_and_visited_records_change_nothing(monkeypatch):
    """Frontiers expanded in many chunks (merged by the smallest action and
    parent) and visited sets split over many records give the same search."""
    m = model("kip320", Replicas=2)
    whole = search(m, 2)
    monkeypatch.setattr(blocks, "CHUNK", 64)
    monkeypatch.setattr(blocks, "VISITED_CHUNK", 500)
    distinct, depth, partitions = search(m, 2)
    assert (distinct, depth) == whole[:2] == (5973, 18)
    chunks = [b for _, (t, b) in partitions[0] if t == blocks.VISITED]
    assert len(chunks) > 1 and all(0 < len(c.fps) <= 500 for c in chunks)
    for p in (0, 1):
        visited = [blocks.joined_visited([b for _, (t, b) in parts[p] if t == blocks.VISITED]) for parts in
                   (whole[2], partitions)]
        assert all(np.array_equal(a, b) for a, b in zip(*visited))  # the same parents and actions too


def test_first_of_each_agrees_with_a_full_ordering():
    rng = np.random.default_rng(7)
    fps = rng.integers(0, 50, 400).astype(np.uint64)
    parents = rng.integers(0, 5, 400).astype(np.uint64)
    actions = rng.integers(0, 4, 400).astype(np.int32)
    distinct, keep = blocks.first_of_each(fps, parents, actions)
    best = {}
    for i, key in enumerate(zip(fps.tolist(), parents.tolist(), actions.tolist())):
        best[key[0]] = min(best.get(key[0], (key[1], key[2], i)), (key[1], key[2], i))
    assert distinct.tolist() == sorted(best)
    assert [(int(parents[k]), int(actions[k])) for k in keep] == [best[f][:2] for f in sorted(best)]
