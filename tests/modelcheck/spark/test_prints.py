"""Fingerprints of 64 and 128 bits as the Spark steps sort and search them,
64-bit collisions included (two states sharing ``hi``, told apart by ``lo``)."""

import numpy as np
import pytest

from modelcheck.language.packing import FP128
from modelcheck.spark import prints


def wide(pairs):
    out = np.empty(len(pairs), FP128)
    out["hi"] = [h for h, _ in pairs]
    out["lo"] = [lo for _, lo in pairs]
    return out


def test_a_shared_hi_is_two_states_at_128_bits():
    fps = wide([(7, 1), (3, 5), (7, 2), (3, 5), (7, 1)])
    keep = prints.first_of_each(fps, np.array([4, 9, 2, 1, 0]))
    assert [tuple(fps[k]) for k in keep] == [(3, 5), (7, 1), (7, 2)]
    assert list(keep) == [3, 4, 2]  # each the one with the least key


def test_first_of_each_at_64_bits_keeps_the_least_key():
    fps = np.array([7, 3, 7, 3], np.uint64)
    assert list(prints.first_of_each(fps, np.array([5, 9, 2, 1]))) == [3, 2]


def test_contains_tells_a_collision_from_the_state():
    visited = wide([(1, 0), (7, 1), (7, 4), (9, 9)])
    assert list(visited[prints.order_of(visited)]) == list(visited)
    asked = wide([(7, 4), (7, 3), (9, 9), (2, 0), (7, 1)])
    assert list(prints.contains(visited, asked)) == [True, False, True, False, True]
    assert list(prints.contains(np.array([2, 5], np.uint64), np.array([5, 6], np.uint64))) == [True, False]


def test_merged_keeps_the_order_and_both_states_of_a_hi():
    before = wide([(1, 0), (7, 1)])
    assert [tuple(x) for x in prints.merged(before, wide([(3, 3), (9, 0)]))] == [(1, 0), (3, 3), (7, 1), (9, 0)]
    assert [tuple(x) for x in prints.merged(before, wide([(7, 0)]))] == [(1, 0), (7, 0), (7, 1)]
    assert list(prints.merged(np.array([2, 8], np.uint64), np.array([5], np.uint64))) == [2, 5, 8]


@pytest.mark.parametrize("sorted_fps, fp, at", [
    (wide([(1, 0), (7, 1), (7, 4)]), (7 << 64) | 4, 2),
    (wide([(1, 0), (7, 1), (7, 4)]), (7 << 64) | 2, None),
    (np.array([3, 8], np.uint64), 8, 1),
])
def test_locate(sorted_fps, fp, at):
    assert prints.locate(sorted_fps, fp) == at


def test_files_hold_both_words_and_read_back(tmp_path):
    fps = wide([(1, 2), (3, 4)])
    path = tmp_path / "run.npz"
    np.savez(path, **prints.to_arrays("fps", fps))
    with np.load(path) as data:
        assert sorted(data.files) == ["fps", "fps_lo"] and data["fps"].dtype == np.uint64
        assert list(prints.from_arrays(data, "fps")) == list(fps)


def test_smallest_and_partitions():
    fps = wide([(7, 1), (3, 9), (3, 2)])
    assert prints.smallest(fps) == (3 << 64) | 2
    assert list(prints.partition_of(fps, 4)) == [3, 3, 3]
    assert not prints.is_sorted_and_distinct(fps) and prints.is_sorted_and_distinct(fps[prints.order_of(fps)])
