"""The executor-side steps, run in-process (no Spark): the same functions
Spark runs, with the shuffle simulated by grouping blocks by partition."""

import os

import numpy as np
import pytest

from support import model
from modelcheck.engines.base import CheckOptions
from modelcheck.engines.bfs import BfsChecker
from modelcheck.language.packing import Packing, fingerprints
from modelcheck.spark import blocks, lead, successors, visited


Report = lead.Report  # the driver's stand-in for the accumulator collects what the steps report


def config(m, partitions, level, directory, invariants=(), sometimes=(), probe=False):
    return blocks.StepConfig(m.key(), partitions, level, str(directory), tuple(invariants), tuple(sometimes), False,
                             False, probe)


def search(m, partitions, directory, invariants=()):
    """A whole search with the executor steps, partition by partition, the
    shuffle simulated by grouping blocks by target. Returns (distinct
    states, depth)."""
    report = Report()
    arriving = successors.initial_blocks(m, partitions)
    level = 1
    while True:
        out = []
        for p in range(partitions):
            step = config(m, partitions, level, directory, invariants, m.sometimes)
            out += list(blocks.step(step, report, p, [r for r in arriving if r[0] == p]))
        summaries = [report.value[(level, p)] for p in range(partitions)]
        if sum(s.new for s in summaries) == 0:
            return sum(s.visited for s in summaries), level - 1
        arriving = out
        level += 1


def runs_of(directory, partition, levels):
    return [visited.read_run(str(directory), partition, k) for k in range(1, levels + 1)]


@pytest.mark.parametrize("partitions", [1, 3])
def test_search_with_executor_steps_matches_bfs(partitions, tmp_path):
    m = model("kip320", Replicas=2)
    bfs = BfsChecker().check(m, CheckOptions(("TypeOk",)))
    distinct, depth = search(m, partitions, tmp_path, ("TypeOk",))
    assert (distinct, depth) == (bfs.distinct_states, bfs.depth) == (5973, 18)


def fast_fingerprint(m, state) -> int:
    return int(fingerprints(Packing(m.schema).pack_states([state]))[0])


def test_fingerprints_and_packing_are_the_fast_engines():
    m = model("kip320", Replicas=2)
    state = m.init_states[0]
    routed = successors.initial_blocks(m, 4)
    fps = [int(f) for _, (_, b) in routed for f in b.fps]
    assert fps == [fast_fingerprint(m, state)]
    words = np.concatenate([b.words for _, (_, b) in routed], axis=1)
    assert Packing(m.schema).unpack_state(words[:, 0]) == state


def test_every_state_lands_in_the_partition_its_fingerprint_names(tmp_path):
    m = model("kip320", Replicas=2)
    distinct, depth = search(m, 3, tmp_path)
    seen = 0
    for p in range(3):
        for run in runs_of(tmp_path, p, depth + 1):  # the last level's runs are empty
            assert all(int(f) % 3 == p for f in run.fps)
            assert list(run.fps) == sorted(run.fps)
            seen += len(run.fps)
    assert seen == distinct


def test_route_sends_every_partition_a_block_and_counts_generated_once():
    fps = np.array([10, 11, 12, 13, 14], dtype=np.uint64)
    words = np.arange(5, dtype=np.uint64).reshape(1, 5)
    out = successors.route(fps, fps, np.arange(5, dtype=np.int32), words, 3, generated=7, generated_to=2,
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
        return successors.Successors(np.array(fps, np.uint64), np.array(parents, np.uint64), np.array(actions, np.int32),
                                 np.array([fps], np.uint64) * 10, 0, np.zeros(0, np.uint64))
    a = part([5, 9], [7, 3], [2, 1])
    b = part([9, 5, 5], [3, 7, 2], [0, 8, 2])
    for parts in ([a, b], [b, a]):
        merged = successors.merge_candidates(parts, 1)
        fps, parents, actions, words = merged.fps, merged.parents, merged.actions, merged.words(1)
        assert list(fps) == [5, 9] and list(parents) == [2, 3] and list(actions) == [2, 0]
        assert words.tolist() == [[50, 90]]


def test_under_a_view_repeated_candidates_keep_the_smallest_order_key_in_any_order():
    """The state TLC finds first: the smallest order key (parent's rank,
    action), whatever its parent's fingerprint."""
    def part(fps, parents, actions, orders):
        return successors.Successors(np.array(fps, np.uint64), np.array(parents, np.uint64), np.array(actions, np.int32),
                                 np.array([fps], np.uint64) * 10 + np.array([orders], np.uint64), 0,
                                 np.zeros(0, np.uint64), np.array(orders, np.uint64))
    a = part([5, 9], [7, 3], [2, 1], [40, 31])
    b = part([9, 5, 5], [3, 7, 2], [0, 8, 2], [30, 12, 41])
    for parts in ([a, b], [b, a]):
        merged = successors.merge_candidates(parts, 1, ordered=True)
        fps, parents, actions, words, orders = merged.fps, merged.parents, merged.actions, merged.words(1), merged.orders
        assert list(fps) == [5, 9] and list(orders) == [12, 30]
        assert list(parents) == [7, 3] and list(actions) == [8, 0] and words.tolist() == [[62, 120]]


def test_contains():
    fps = np.array([2, 5, 9], np.uint64)
    assert list(successors.contains(fps, np.array([1, 5, 9, 10], np.uint64))) == [False, True, True, False]
    assert list(successors.contains(np.zeros(0, np.uint64), np.array([1], np.uint64))) == [False]


def test_violations_are_reported_smallest_invariant_first(tmp_path):
    m = model("kip320", Replicas=2)
    report = Report()
    # LeaderInIsr fails at Init (no leader yet); TypeOk holds
    out = list(blocks.step(config(m, 1, 1, tmp_path, ("TypeOk", "LeaderInIsr")), report, 0, successors.initial_blocks(m, 1)))
    assert report.value[(1, 0)].violation == (1, fast_fingerprint(m, m.init_states[0]))
    assert out == []  # the search ends at this level: nothing is expanded


def test_a_probe_counts_without_writing_or_expanding(tmp_path):
    m = model("kip320", Replicas=2)
    report = Report()
    out = list(blocks.step(config(m, 1, 1, tmp_path, probe=True), report, 0, successors.initial_blocks(m, 1)))
    assert out == [] and report.value[(1, 0)].new == 1
    assert not os.path.exists(visited.run_path(str(tmp_path), 0, 1))


def test_parent_pointers_lead_back_to_the_initial_state(tmp_path):
    m = model("kip320", Replicas=2)
    distinct, depth = search(m, 1, tmp_path)
    last = runs_of(tmp_path, 0, depth)[-1]
    fp, level = int(last.fps[-1]), depth
    while True:
        parent, action = visited.lookup(str(tmp_path), 0, fp, level)
        if action < 0:
            assert action == -1 and level == 1  # a state first seen at level k is k - 1 steps from Init
            break
        fp, level = parent, level - 1
    assert visited.lookup(str(tmp_path), 0, int(last.fps[-1]), depth - 1) is None  # not in another level's run


def test_small_expansion_chunks_change_nothing(monkeypatch, tmp_path):
    """Frontiers expanded in many chunks (merged by the smallest action and
    parent) give the same search, parents and actions included."""
    m = model("kip320", Replicas=2)
    assert search(m, 2, tmp_path / "whole") == (5973, 18)
    monkeypatch.setattr(blocks, "CHUNK", 64)
    assert search(m, 2, tmp_path / "chunked") == (5973, 18)
    for p in (0, 1):
        for a, b in zip(runs_of(tmp_path / "whole", p, 18), runs_of(tmp_path / "chunked", p, 18)):
            assert all(np.array_equal(x, y) for x, y in zip(a, b))


def test_a_step_run_again_sees_the_same_visited_set_and_writes_the_same_run(tmp_path):
    """What Spark does after losing an executor, or a resumed search redoing
    a level: a worker that kept a later level, or none, gets the same answer."""
    m = model("kip320", Replicas=2)
    search(m, 1, tmp_path)
    directory = str(tmp_path)
    expected = np.sort(np.concatenate([r.fps for r in runs_of(tmp_path, 0, 9)]))
    assert np.array_equal(visited.seen_before(directory, 0, 10), expected)  # the worker kept level 19
    visited._kept.entries.clear()
    assert np.array_equal(visited.seen_before(directory, 0, 10), expected)  # nothing kept: all runs read
    visited._kept.put(directory, 0, 4, np.sort(np.concatenate([r.fps for r in runs_of(tmp_path, 0, 4)])))
    assert np.array_equal(visited.seen_before(directory, 0, 10), expected)  # kept level 4: runs 5..9 read
    with pytest.raises(RuntimeError, match="has no run for level 20"):
        visited.seen_before(directory, 0, 31)


def test_first_of_each_agrees_with_a_full_ordering():
    rng = np.random.default_rng(7)
    fps = rng.integers(0, 50, 400).astype(np.uint64)
    parents = rng.integers(0, 5, 400).astype(np.uint64)
    actions = rng.integers(0, 4, 400).astype(np.int32)
    distinct, keep = successors.first_of_each(fps, parents, actions)
    best = {}
    for i, key in enumerate(zip(fps.tolist(), parents.tolist(), actions.tolist())):
        best[key[0]] = min(best.get(key[0], (key[1], key[2], i)), (key[1], key[2], i))
    assert distinct.tolist() == sorted(best)
    assert [(int(parents[k]), int(actions[k])) for k in keep] == [best[f][:2] for f in sorted(best)]
