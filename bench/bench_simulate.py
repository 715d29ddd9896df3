"""Simulation against exhaustive search, simulation throughput, and the cost of --coverage.

Every figure is a median over --seeds seeds (default 5) of whole `modelcheck`
commands, each a fresh process, run with `nice`:

* first-try: kip320-first-try, Replicas=5, StrongIsr. `simulate` with --time
  CAP per seed (stops at the first violation): wall seconds to the violation
  (Spark-free, in process; includes start-up and shrinking), the walk's own
  seconds, trace length before and after shrinking. Beside it, the fast
  engine's exhaustive search to the same invariant, once, capped at
  --fast-cap seconds.
* consumer: kip320-consumer with every switch on (UncleanElection,
  ConsumerFencing, TruncationCheck TRUE), Replicas=3, LogSize=3,
  MaxRecords=3, MaxLeaderEpoch=3, NoDivergentDelivery: time to a violation,
  or how long each seed ran without one (the CAP). Beside it, the fast
  engine, capped as above.
* throughput: steps per second on kip320 Replicas=3 (--time 20 per seed),
  in process and with --engine spark --master local[2] (there, the seconds
  are the Spark job's, the context's start-up excluded; wall seconds include it).
* coverage: `run kip320 --const Replicas=3 --engine fast`, with and without
  --coverage, --seeds runs each: the median wall-seconds ratio.

    python bench/bench_simulate.py [--seeds 5] [--cap 120] [--fast-cap 600] [--no-fast]
                                   [--only first-try,consumer,throughput,coverage]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

from common import ROOT, machine, measure_once, modelcheck_command

PARTS = ("first-try", "consumer", "throughput", "coverage")
CONSUMER = ("--const", "Replicas=3", "--const", "LogSize=3", "--const", "MaxRecords=3", "--const", "MaxLeaderEpoch=3",
            "--const", "UncleanElection=TRUE", "--const", "ConsumerFencing=TRUE", "--const", "TruncationCheck=TRUE")


def niced(cmd: list[str]) -> list[str]:
    return ["nice", *cmd]


def load() -> str:
    return " ".join(f"{x:.1f}" for x in os.getloadavg())


def simulate_seeds(spec_args: tuple, seeds: int, cap: float, tmp: str, extra: tuple = ()) -> dict:
    runs = []
    for seed in range(1, seeds + 1):
        cmd = niced(modelcheck_command("simulate", *spec_args, "--time", str(cap), "--seed", str(seed), "--json",
                                       "-q", "--trace-out", os.path.join(tmp, f"s{seed}.itf.json"), "--overwrite",
                                       *extra))
        f = measure_once(cmd, tmp)
        o = f.output
        runs.append({"seed": seed, "wall_seconds": round(f.seconds, 1), "walk_seconds": o["seconds"],
                     "violation": o["violation"] and o["violation"]["invariant"],
                     "before_shrink": o.get("trace_length_before_shrink"),
                     "after_shrink": o["violation"] and o["violation"]["trace_length"],
                     "behaviours": o["behaviours"], "steps": o["steps"], "load": load()})
        print(json.dumps(runs[-1]), file=sys.stderr)
    found = [r for r in runs if r["violation"]]
    return {"command": " ".join(cmd[4:]), "runs": runs, "found": f"{len(found)}/{len(runs)}",
            "median_wall_seconds": statistics.median(r["wall_seconds"] for r in runs),
            "median_after_shrink": statistics.median(r["after_shrink"] for r in found) if found else None,
            "median_before_shrink": statistics.median(r["before_shrink"] for r in found) if found else None}


def fast_search(spec_args: tuple, cap: float, tmp: str) -> dict:
    cmd = niced(modelcheck_command("run", *spec_args, "--engine", "fast", "--json", "-q", "--trace-out",
                                   os.path.join(tmp, "fast.itf.json"), "--overwrite", "--max-memory", "4G"))
    env = dict(os.environ, PYTHONPATH=ROOT)
    start = time.perf_counter()
    try:
        out = subprocess.run(cmd, cwd=tmp, env=env, capture_output=True, timeout=cap).stdout
    except subprocess.TimeoutExpired:
        return {"command": " ".join(cmd[4:]), "result": f"not finished within {cap:.0f} s"}
    o = json.loads(out)
    return {"command": " ".join(cmd[4:]), "result": o["result"], "wall_seconds": round(time.perf_counter() - start, 1),
            "distinct_states": o["distinct_states"], "shortest_trace": o["violation"] and o["violation"]["trace_length"],
            "load": load()}


def throughput(seeds: int, tmp: str, spark: bool) -> dict:
    extra = ("--engine", "spark", "--master", "local[2]") if spark else ()
    rates, walls = [], []
    for seed in range(1, seeds + 1):
        f = measure_once(niced(modelcheck_command("simulate", "kip320", "--const", "Replicas=3", "--time", "20",
                                                  "--seed", str(seed), "--json", "-q", *extra)), tmp)
        rates.append(f.output["steps"] / f.output["seconds"])
        walls.append(f.seconds)
    return {"engine": "spark local[2]" if spark else "in process", "median_steps_per_second": round(statistics.median(rates)),
            "median_wall_seconds": round(statistics.median(walls), 1), "load": load()}


def coverage_cost(runs: int, tmp: str) -> dict:
    base = ("run", "kip320", "--const", "Replicas=3", "--engine", "fast", "--json", "-q")
    plain, covered = [], []
    for _ in range(runs):  # interleaved, so that load from other work falls on both alike
        plain.append(measure_once(niced(modelcheck_command(*base)), tmp).seconds)
        covered.append(measure_once(niced(modelcheck_command(*base, "--coverage")), tmp).seconds)
    p, c = statistics.median(plain), statistics.median(covered)
    return {"without": round(p, 2), "with": round(c, 2), "extra": f"{(c / p - 1) * 100:.0f} %", "load": load()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--cap", type=float, default=120.0, help="seconds of simulation per seed")
    parser.add_argument("--fast-cap", type=float, default=600.0, help="seconds for the fast engine's search")
    parser.add_argument("--only", default=",".join(PARTS))
    parser.add_argument("--no-fast", action="store_true", help="skip the fast engine's searches")
    args = parser.parse_args()
    parts = args.only.split(",")
    out: dict = {"machine": machine(), "load_at_start": load()}
    with tempfile.TemporaryDirectory() as tmp:
        if "first-try" in parts:
            spec = ("kip320-first-try", "--const", "Replicas=5", "--inv", "StrongIsr")
            out["first_try"] = {"simulate": simulate_seeds(spec, args.seeds, args.cap, tmp)}
            if not args.no_fast:
                out["first_try"]["fast"] = fast_search(spec, args.fast_cap, tmp)
        if "consumer" in parts:
            spec = ("kip320-consumer", *CONSUMER, "--inv", "NoDivergentDelivery")
            out["consumer"] = {"simulate": simulate_seeds(spec, args.seeds, args.cap, tmp)}
            if not args.no_fast:
                out["consumer"]["fast"] = fast_search(spec, args.fast_cap, tmp)
        if "throughput" in parts:
            out["throughput"] = [throughput(args.seeds, tmp, False), throughput(args.seeds, tmp, True)]
        if "coverage" in parts:
            out["coverage"] = coverage_cost(args.seeds, tmp)
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
