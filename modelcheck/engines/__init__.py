"""Engines behind one interface: ``check(model, options) -> CheckResult``.

Each engine lives in its own module and is imported only when chosen, so an
engine's heavy dependencies (pyspark, z3) cost nothing to the others.
"""

from __future__ import annotations

import importlib

from modelcheck.errors import InputError

# engine name -> (module, class)
ENGINES: dict[str, tuple[str, str]] = {
    "bfs": ("modelcheck.engines.bfs", "BfsChecker"),
    "fast": ("modelcheck.engines.fast", "FastChecker"),
    "spark": ("modelcheck.engines.spark", "SparkChecker"),
    "z3": ("modelcheck.engines.bmc", "BmcChecker"),
}

# what each engine is for, one line each (``run --help`` lists them)
ENGINE_SUMMARIES: dict[str, str] = {
    "bfs": "the reference: breadth-first, state by state, in Python",
    "fast": "bfs over whole levels with numpy: same counts, traces, report",
    "spark": "bfs on a Spark cluster or local[*]; at a violation, the whole\n"
             "         level is counted and another shortest trace may be shown",
    "z3": "bounded model checking with z3: no state count, and its\n"
          "         counterexample is a shortest one, not always bfs's",
}

# the fastest exact engine: the same verdicts, counts and traces as the reference
DEFAULT_ENGINE = "fast"


def engine_names() -> list[str]:
    return list(ENGINES)


def get_engine(name: str):
    if name not in ENGINES:
        raise InputError(f"unknown engine {name!r} (engines: {', '.join(engine_names())})")
    module, cls = ENGINES[name]
    return getattr(importlib.import_module(module), cls)()
