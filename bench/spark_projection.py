"""Projected wall time of a Spark search on N executors, from figures
measured on this machine (bench/bench_spark_scale.py) and a stated network
bandwidth; docs/spark.md explains the model and where it stops holding.

A level costs a fixed ``fixed`` seconds, plus its work divided over the
executors: ``cpu_new`` core-seconds per new state (expanding, routing, the
anti-join, the invariants) and ``cpu_visited`` core-seconds per state
visited so far (the visited set is read and rewritten each level), plus the
shuffle over the network: ``shuffled`` successors per new state of
``successor_bytes`` each, of which (N-1)/N leave their executor, at
``bandwidth`` bytes per second into each executor.

    python bench/spark_projection.py --states S --levels L --visited-ratio R --cpu-new C --cpu-visited V \\
        --fixed F --fixed-per-task T --shuffled K --successor-bytes B --kept-bytes K --bandwidth BW --startup S0

(docs/spark.md gives the figures used there and where each was measured).
"""

from __future__ import annotations

import argparse


def projected_seconds(n: int, a) -> dict:
    cpu = (a.cpu_new * a.states + a.cpu_visited * a.visited_ratio * a.states) / n
    network = a.shuffled * a.states * a.successor_bytes * (n - 1) / n / (n * a.bandwidth)
    fixed = a.levels * (a.fixed + a.fixed_per_task * n)
    return {"executors": n, "cpu_s": cpu, "network_s": network, "fixed_s": fixed,
            "total_s": a.startup + cpu + network + fixed,
            "kept_gb_per_executor": a.states * a.kept_bytes / n / 1e9}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    for name in ("states", "levels", "visited-ratio", "cpu-new", "cpu-visited", "fixed", "fixed-per-task",
                 "shuffled", "successor-bytes", "kept-bytes", "bandwidth", "startup"):
        p.add_argument("--" + name, type=float, required=True)
    p.add_argument("--executors", default="10,30,100,300,1000")
    a = p.parse_args()
    print("executors  hours  (cpu h, network h, fixed h)  kept GB per executor")
    for n in (int(x) for x in a.executors.split(",")):
        r = projected_seconds(n, a)
        print(f"{n:>9}  {r['total_s'] / 3600:5.1f}  ({r['cpu_s'] / 3600:.1f}, {r['network_s'] / 3600:.2f}, "
              f"{r['fixed_s'] / 3600:.2f})  {r['kept_gb_per_executor']:.1f}")


if __name__ == "__main__":
    main()
