"""TLC's order of states, kept across partitions: what a VIEW needs on Spark.

Under a VIEW, states with the same view count once and the state kept is
the first one TLC finds (``modelcheck.capabilities.view``). TLC finds the
states of a level parent by parent, in the order it found the parents, and
each parent's successors action instance by action instance. So the first
state found for a view is the candidate with the smallest *order key*:

    key = rank of its parent in the parent's level * instances + instance index

(an initial state's key is its place among the initial states). The ranks
of a level are the positions of its states in that order: 0, 1, 2 ... over
the whole level, every partition included.

Each partition knows the keys of its own new states; ranks need all of
them. A partition's step writes its new states' keys, sorted, to a small
file in the visited directory (``write_orders``); the driver reads every
partition's file, ranks the keys of the whole level at once (``assign``:
8 bytes a state read, 8 written), and each partition's expansion reads its
ranks back (``read_ranks``) to key its successors. The files of a level
stay until a checkpoint cuts Spark's lineage past that level
(``forget_before``), because Spark may run a level's tasks again after
losing an executor, and they must see the same ranks.
"""

from __future__ import annotations

import os

import numpy as np

from modelcheck.runtime.atomic import write_atomically

_EMPTY = np.zeros(0, dtype=np.uint64)


def keys(parent_ranks: np.ndarray, actions: np.ndarray, instances: int) -> np.ndarray:
    """The order keys of successors: their parents' ranks and their action instances."""
    return parent_ranks.astype(np.uint64) * np.uint64(instances) + actions.astype(np.uint64)


def check_key_room(level_size: int, instances: int) -> None:
    """Keys of the next level must fit 64 bits: a level's size times the
    action instances. (Kafka's largest models are far below: 10^9 states
    and 10^5 instances make 10^14.)"""
    if level_size * max(instances, 1) >= 1 << 63:
        raise RuntimeError(f"a level of {level_size:,} states with {instances:,} action instances is past what "
                           f"64-bit order keys can rank")


def orders_path(directory: str, partition: int, level: int) -> str:
    return os.path.join(directory, f"p{partition:05d}", f"orders-{level:04d}.npy")


def ranks_path(directory: str, partition: int, level: int) -> str:
    return os.path.join(directory, f"p{partition:05d}", f"ranks-{level:04d}.npy")


def _write(path: str, array: np.ndarray) -> None:
    os.makedirs(os.path.dirname(path), exist_ok=True)
    write_atomically(path, lambda f: np.save(f, array, allow_pickle=False), replace=True, binary=True)


def _read(path: str) -> np.ndarray:
    try:
        return np.load(path, allow_pickle=False)
    except FileNotFoundError:
        raise RuntimeError(f"{path} is missing: the visited directory must be one every executor shares") from None


def write_orders(directory: str, partition: int, level: int, orders: np.ndarray) -> None:
    """A partition's new states' keys at ``level``, sorted (its states are kept in that order)."""
    _write(orders_path(directory, partition, level), orders)


def assign(directory: str, partitions: int, level: int, instances: int) -> int:
    """Rank the level's states over every partition (the driver's part):
    each partition's ranks, in its states' order, go to its ranks file.
    Returns the level's size."""
    parts = [_read(orders_path(directory, p, level)) for p in range(partitions)]
    everything = np.concatenate(parts) if parts else _EMPTY
    check_key_room(everything.size, instances)
    # the parts are each sorted: a stable sort merges them
    by = np.argsort(everything, kind="stable")
    ranks = np.empty(everything.size, dtype=np.uint64)
    ranks[by] = np.arange(everything.size, dtype=np.uint64)
    at = 0
    for p, part in enumerate(parts):
        _write(ranks_path(directory, p, level), ranks[at:at + part.size])
        at += part.size
    return int(everything.size)


def read_ranks(directory: str, partition: int, level: int) -> np.ndarray:
    return _read(ranks_path(directory, partition, level))


def forget_before(directory: str, partitions: int, level: int) -> None:
    """Remove the order and rank files of the levels before ``level``."""
    for p in range(partitions):
        folder = os.path.join(directory, f"p{p:05d}")
        if not os.path.isdir(folder):
            continue
        for name in os.listdir(folder):
            if name.startswith(("orders-", "ranks-")) and name.endswith(".npy"):
                if int(name.split("-")[1].split(".")[0]) < level:
                    os.remove(os.path.join(folder, name))
