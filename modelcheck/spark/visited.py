"""The Spark engine's visited set: sorted runs of fingerprints in files.

Each partition's visited set is kept as one file per level, a *run*: the
fingerprints of the states that partition added at that level, sorted, with
each state's parent fingerprint and the action that reached it (an action
entry ``-1 - k`` marks initial state ``k``). The runs live in a directory
that the driver and every executor reach under the same path (inside the
checkpoint directory), so the visited set never travels through Spark: a
level moves only the successors it generates.

Why files rather than Spark blocks: a level's data must otherwise carry the
whole visited set, which Spark hands to Python, and back, every level.

The step of level L for partition p reads the runs of levels below L,
never its own or later ones, and replaces run L whole (written under a
temporary name, then renamed). So when Spark runs a task again, after an
executor was lost, or a resumed search redoes a level a dead driver had
started, the task sees the same visited set and writes the same run.

A Python worker keeps, per partition, the merged fingerprints it last
computed (``seen_before``): the next level's step on the same worker then
reads nothing from disk, and a worker that last met the partition some
levels ago reads only the runs written since. The kept arrays are bounded by
``CACHE_BYTES`` per worker, least recently used dropped first.
"""

from __future__ import annotations

import os
import shutil
import uuid
from collections import OrderedDict
from typing import NamedTuple

import numpy as np

from modelcheck.runtime.atomic import write_atomically
from modelcheck.errors import InputError
from modelcheck.spark import prints

DIRECTORY = "modelcheck-visited"  # inside the checkpoint directory
CACHE_BYTES = 1 << 30
_EMPTY = np.zeros(0, dtype=np.uint64)


def prepare(checkpoint_dir: str, resumed: str | None = None) -> str:
    """The search's visited directory. A fresh search gets a new one, named
    uniquely (what a Python worker keeps is keyed by the directory, and a
    worker may outlive a search) after removing those of searches before;
    a resumed search continues in its own (``resumed``)."""
    if resumed:
        if not os.path.isdir(resumed):
            raise InputError(f"--resume: the visited set's files ({resumed}) are missing")
        return resumed
    parent = os.path.join(checkpoint_dir, DIRECTORY)
    if os.path.isdir(parent):
        shutil.rmtree(parent)
    path = os.path.join(parent, uuid.uuid4().hex)
    os.makedirs(path)
    return path


class Run(NamedTuple):
    fps: np.ndarray  # fingerprints (uint64 or 128-bit: modelcheck.spark.prints), sorted
    parents: np.ndarray  # the parents' fingerprints
    actions: np.ndarray  # int32


def run_path(directory: str, partition: int, level: int) -> str:
    return os.path.join(directory, f"p{partition:05d}", f"level-{level:04d}.npz")


def write_run(directory: str, partition: int, level: int, run: Run) -> None:
    path = run_path(directory, partition, level)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    arrays = {**prints.to_arrays("fps", run.fps), **prints.to_arrays("parents", run.parents), "actions": run.actions}
    write_atomically(path, lambda f: np.savez(f, **arrays), replace=True, binary=True)


def read_run(directory: str, partition: int, level: int, fps_only: bool = False) -> Run:
    path = run_path(directory, partition, level)
    try:
        with np.load(path) as data:
            fps = prints.from_arrays(data, "fps")
            if fps_only:
                return Run(fps, prints.empty(fps), np.zeros(0, np.int32))
            return Run(fps, prints.from_arrays(data, "parents"), data["actions"])
    except FileNotFoundError:
        raise RuntimeError(f"the visited set of partition {partition} has no run for level {level} "
                           f"({path}): its directory must be one every executor shares") from None


class _Kept:
    """The merged fingerprints this worker computed last, per partition."""

    def __init__(self):
        self.entries: OrderedDict[tuple[str, int], tuple[int, np.ndarray]] = OrderedDict()

    def latest(self, directory: str, partition: int) -> tuple[int, np.ndarray]:
        """(level, the partition's fingerprints up to that level), or (0, none)."""
        entry = self.entries.get((directory, partition))
        if entry is None:
            return 0, _EMPTY
        self.entries.move_to_end((directory, partition))
        return entry

    def put(self, directory: str, partition: int, level: int, fps: np.ndarray) -> None:
        self.entries[(directory, partition)] = (level, fps)
        self.entries.move_to_end((directory, partition))
        while len(self.entries) > 1 and sum(f.nbytes for _, f in self.entries.values()) > CACHE_BYTES:
            self.entries.popitem(last=False)


_kept = _Kept()  # per Python worker process: Spark reuses workers across tasks


def seen_before(directory: str, partition: int, level: int) -> np.ndarray:
    """The sorted fingerprints the partition holds before ``level``: what
    this worker kept, completed with the runs of the levels it missed."""
    kept_level, fps = _kept.latest(directory, partition)
    if kept_level > level - 1:  # a task run again for an earlier level
        kept_level, fps = 0, _EMPTY
    runs = [read_run(directory, partition, k, fps_only=True).fps for k in range(kept_level + 1, level)]
    if not runs:
        return fps
    if len(fps) == 0 and len(runs) == 1:
        return runs[0]
    both = np.concatenate([part for part in (fps, *runs) if len(part)] or runs)
    # sorted runs, concatenated: the stable sort (a merge sort) merges them
    return np.sort(both, kind="stable") if not prints.wide(both) else both[prints.order_of(both)]


def add_level(directory: str, partition: int, level: int, before: np.ndarray, run: Run) -> None:
    """Write the level's run and keep the merged fingerprints for the next level."""
    write_run(directory, partition, level, run)
    _kept.put(directory, partition, level, prints.merged(before, run.fps))


def repartition(directory: str, levels: int, old: int, new: int) -> None:
    """Rewrite the runs of levels 1..``levels`` written for ``old``
    partitions as runs for ``new`` partitions (each state where
    ``fingerprint % new`` puts it); the driver's lead-in
    (``modelcheck.spark.lead``) partitions before it knows the run's count."""
    for level in range(1, levels + 1):
        runs = [read_run(directory, p, level) for p in range(old)]
        fps = np.concatenate([r.fps for r in runs])
        order = prints.order_of(fps)
        fps, parents = fps[order], np.concatenate([r.parents for r in runs])[order]
        actions = np.concatenate([r.actions for r in runs])[order]
        targets = prints.partition_of(fps, new)
        for p in range(new):
            mine = targets == p
            write_run(directory, p, level, Run(fps[mine], parents[mine], actions[mine]))
    for p in range(new, old):
        shutil.rmtree(os.path.dirname(run_path(directory, p, 1)), ignore_errors=True)
    forget(directory)


def forget(directory: str) -> None:
    """Drop what this process kept of the directory's partitions."""
    for key in [k for k in _kept.entries if k[0] == directory]:
        del _kept.entries[key]


def lookup(directory: str, partition: int, fp: int, level: int) -> tuple[int, int] | None:
    """(parent fingerprint, action entry) of a state first visited at
    ``level``, from the partition's run of that level. (Along a trace the
    level is known: the state k steps from an initial state was first
    visited at level k + 1.)"""
    run = read_run(directory, partition, level)
    at = prints.locate(run.fps, fp)
    if at is None:
        return None
    return prints.as_int(run.parents[at]), int(run.actions[at])


def stored_bytes(directory: str) -> int:
    """The size of every run written so far."""
    total = 0
    for root, _, files in os.walk(directory):
        total += sum(os.path.getsize(os.path.join(root, f)) for f in files
                     if f.startswith("level-") and f.endswith(".npz"))
    return total
