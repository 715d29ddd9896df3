"""Spark's own cost of one level, with no search in it: the floor under the
Spark engine's per-level fixed cost (docs/spark.md, "Per-level costs").

Each level is what the engine runs (``run_map_stage`` on a shuffle read by
the level before), with a step that reads its records and sends one tiny
record to each of two partitions. Thirty levels; the median is printed.

    python3 bench/spark_level_floor.py 'local[2]'
    python3 bench/spark_level_floor.py spark://127.0.0.1:7077    # after `modelcheck cluster start`
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from modelcheck.engines.spark import run_map_stage  # noqa: E402
from modelcheck.spark.session import start_context  # noqa: E402
from modelcheck.spark.settings import SparkSettings  # noqa: E402


def step(split, records):
    for _ in records:
        pass
    return iter([(0, b"x"), (1, b"y")])


def main() -> None:
    master = sys.argv[1] if len(sys.argv) > 1 else "local[2]"
    with tempfile.TemporaryDirectory() as scratch:
        sc = start_context(SparkSettings(master=master), "modelcheck level floor", scratch)
        try:
            rdd, seconds = sc.parallelize([(0, b"a"), (1, b"b")], 2), []
            for _ in range(30):
                started = time.perf_counter()
                shuffled = rdd.mapPartitionsWithIndex(step).partitionBy(2, lambda key: key)
                shuffled._jrdd_deserializer = sc.serializer
                run_map_stage(sc, shuffled)
                rdd = shuffled
                seconds.append(time.perf_counter() - started)
        finally:
            sc.stop()
    print(f"{master}: median level {statistics.median(seconds):.3f} s over {len(seconds)} levels "
          f"(the first: {seconds[0]:.2f} s)")


if __name__ == "__main__":
    main()
