"""What a simulation is asked to do: the walks' plan, the seed, shrinking.

``modelcheck simulate`` builds one ``SimulationSettings`` and gives it to the
simulator of the chosen engine (the engine registry's ``simulator``).
"""

from __future__ import annotations

from dataclasses import dataclass

from modelcheck.errors import InputError
from modelcheck.search.simulate.walks import WalkPlan


@dataclass(frozen=True)
class SimulationSettings:
    plan: WalkPlan
    seed: int
    shrink: bool = True
    shrink_budget: float = 30.0


# Steps a behaviour may take: each walk keeps its path (4 bytes a step) until it ends, and shrinking
# a violating one replays it; a million steps is far past any spec's diameter here (kraft-3.5's .cfg: 67).
MAX_DEPTH = 1_000_000


def check_plan(depth: int, num: int | None, seconds: float | None, seed: int = 0) -> None:
    if depth < 1:
        raise InputError(f"--depth must be at least 1, got {depth}")
    if depth > MAX_DEPTH:
        raise InputError(f"--depth {depth:,} is more than the {MAX_DEPTH:,} steps a behaviour may take")
    if seed < 0:
        raise InputError(f"--seed must be 0 or more, got {seed}")
    if num is not None and seconds is not None:
        raise InputError("--num and --time both say when to stop; give one of them")
    if num is not None and num < 1:
        raise InputError(f"--num must be at least 1, got {num}")
    if seconds is not None and seconds <= 0:
        raise InputError(f"--time must be a positive number of seconds, got {seconds}")
