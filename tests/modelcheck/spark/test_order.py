"""TLC's order across partitions: order keys, the driver's ranking and the files it uses."""

import os

import numpy as np
import pytest

from modelcheck.spark import order


def test_keys_order_successors_by_parent_rank_then_action():
    keys = order.keys(np.array([2, 0, 2, 1]), np.array([0, 5, 1, 3], np.int32), instances=6)
    assert keys.dtype == np.uint64 and keys.tolist() == [12, 5, 13, 9]
    assert np.argsort(keys).tolist() == [1, 3, 0, 2]  # parent 0's, parent 1's, then parent 2's two


def test_a_level_is_ranked_over_every_partition(tmp_path):
    """Each partition's keys, sorted, in its own file; the ranks are the
    keys' places in the whole level, written back in each partition's order."""
    directory = str(tmp_path)
    parts = [[3, 8, 20], [], [1, 9, 15, 40]]
    for p, keys in enumerate(parts):
        order.write_orders(directory, p, 4, np.array(keys, np.uint64))
    assert order.assign(directory, 3, 4, instances=10) == 7
    assert [order.read_ranks(directory, p, 4).tolist() for p in range(3)] == [[1, 2, 5], [], [0, 3, 4, 6]]


def test_a_level_too_large_for_64_bit_keys_is_refused():
    order.check_key_room(10**9, 10**5)
    with pytest.raises(RuntimeError, match="64-bit order keys"):
        order.check_key_room(1 << 50, 1 << 14)


def test_a_missing_file_names_the_shared_directory(tmp_path):
    with pytest.raises(RuntimeError, match="every executor shares"):
        order.read_ranks(str(tmp_path), 0, 1)


def test_files_before_a_level_are_forgotten(tmp_path):
    directory = str(tmp_path)
    for level in (1, 2, 3):
        order.write_orders(directory, 0, level, np.arange(2, dtype=np.uint64))
        order.assign(directory, 1, level, instances=1)
    order.forget_before(directory, 1, 3)
    assert sorted(os.listdir(tmp_path / "p00000")) == ["orders-0003.npy", "ranks-0003.npy"]
