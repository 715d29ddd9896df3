"""One large level of the Spark engine's step, timed in process (no Spark):
kip320 with MaxLeaderEpoch=3 on 2 partitions, the driver's own levels
(``modelcheck.spark.lead.run_level``) up to level 17, then level 18 (about
1.9 million successor candidates) timed, ``--runs`` times from scratch;
``--profile`` prints cProfile's account of the last one.

    python bench/spark_step.py [--runs 3] [--profile]
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import shutil
import statistics
import tempfile
import time

from common import machine  # noqa: F401  (puts the repository on sys.path)
from modelcheck.language.packing import Packing
from modelcheck.spark import blocks, lead
from modelcheck.specs import get_spec

PARTITIONS, LEVEL = 2, 18


def level_seconds(model, profile: bool) -> float:
    directory = tempfile.mkdtemp(prefix="modelcheck-step-")
    try:
        words, report = Packing(model.schema).words, lead.Report()

        def config(level):
            return blocks.StepConfig(model.key(), PARTITIONS, level, directory, tuple(model.spec.default_invariants),
                                     tuple(model.sometimes), False, False)
        frontier = lead.initial_frontier(model, PARTITIONS)
        for level in range(1, LEVEL):
            frontier = lead.run_level(config(level), report, frontier, words)
        profiler = cProfile.Profile() if profile else None
        started = time.perf_counter()
        if profiler:
            profiler.enable()
        lead.run_level(config(LEVEL), report, frontier, words)
        seconds = time.perf_counter() - started
        if profiler:
            profiler.disable()
            pstats.Stats(profiler).sort_stats("cumulative").print_stats(20)
        return seconds
    finally:
        shutil.rmtree(directory, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args()
    spec = get_spec("kip320")
    model = spec.instantiate(spec.resolve_constants(parsed={"MaxLeaderEpoch": 3}))
    runs = [level_seconds(model, args.profile and i == args.runs - 1) for i in range(args.runs)]
    print(f"machine: {machine()}; kip320 MaxLeaderEpoch=3, level {LEVEL} on {PARTITIONS} partitions in process: "
          f"median {statistics.median(runs):.2f} s, runs {[round(r, 2) for r in runs]}")


if __name__ == "__main__":
    main()
