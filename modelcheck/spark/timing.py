"""Where a Spark search's time goes: each task's seconds by phase, summed
per level for the report (``--json``'s ``levels``) and the progress line.

A task times itself (``Stopwatch``): reading what the shuffle brought, the
visited set (merging candidates, the anti-join, writing the run), the
kernel (checking and expanding), routing successors, and handing them to
Spark's shuffle writer. It adds its ``TaskTimes`` to the level's report
accumulator under its own key (``times_key``), beside its summary. The
difference between a level's wall-clock seconds and its tasks' seconds
(over the tasks running side by side) is Spark's own: scheduling, and
the stages' starts and ends.
"""

from __future__ import annotations

import time
from typing import Iterator, NamedTuple


class TaskTimes(NamedTuple):
    """Where a task's seconds went (the report's figures per level)."""

    arrive: float = 0.0  # reading what the shuffle brought: Spark's reading and unpickling
    visited: float = 0.0  # merging the candidates, the anti-join against the visited set, writing the run
    kernel: float = 0.0  # checking and expanding states on the kernel
    route: float = 0.0  # sorting successors into a block per target partition
    send: float = 0.0  # handing the blocks to Spark's shuffle: pickling and writing them

    def plus(self, other: "TaskTimes") -> "TaskTimes":
        return TaskTimes(*(a + b for a, b in zip(self, other)))


class Stopwatch:
    """Splits a task's time into ``TaskTimes``' phases: ``lap(phase)`` gives
    the time since the last lap to ``phase``."""

    def __init__(self):
        self.spent = dict.fromkeys(TaskTimes._fields, 0.0)
        self.last = time.perf_counter()

    def lap(self, phase: str) -> None:
        now = time.perf_counter()
        self.spent[phase] += now - self.last
        self.last = now

    def handed(self, items: list, phase: str) -> Iterator:
        """Yield ``items`` (the time until then went to ``phase``), the time
        Spark takes each one to the shuffle going to ``send``."""
        self.lap(phase)
        for item in items:
            yield item
            self.lap("send")

    def times(self) -> TaskTimes:
        return TaskTimes(**self.spent)


def times_key(level: int, split: int, stage: str) -> tuple:
    """A task's times in the report accumulator (beside its summary's (level, split))."""
    return ("times", level, split, stage)


def level_figures(depth: int, new: int, total: int, seconds: float, received: int, kept: int, in_driver: bool,
                  summaries, reports: list[dict], counted: set) -> dict:
    """A level's figures: its counts, and the seconds its tasks spent in
    each phase (summed over the tasks; tasks run side by side), counting
    the tasks reported since the figures before (``counted`` holds those
    counted already; under a VIEW, the expansion of the level before is
    among the new ones)."""
    spent = TaskTimes()
    for reported in reports:
        for key, times in reported.items():
            if key[0] == "times" and key not in counted:
                counted.add(key)
                spent = spent.plus(times)
    return {"level": depth, "new": new, "total": total, "seconds": round(seconds, 3),
            "successors_shuffled": received, "visited_bytes": kept, "driver": in_driver,
            "kernel": "C" if all(s.compiled for s in summaries) else
                      "numpy" if not any(s.compiled for s in summaries) else "C and numpy",
            "task_seconds": {k: round(v, 3) for k, v in spent._asdict().items()}}


def describe(seconds: dict) -> str:
    """A level's task seconds, as the progress line gives them: on the
    kernel, in the visited set, in the shuffle (reading, routing and
    sending), each summed over the level's tasks."""
    shuffle = seconds["arrive"] + seconds["route"] + seconds["send"]
    return f"tasks: kernel {seconds['kernel']:.2f} s, visited set {seconds['visited']:.2f} s, shuffle {shuffle:.2f} s"
